//! `shuf [-rz] [-n COUNT] [-o FILE] [FILE | -e ARG... | -i LO-HI]`: the lines in a random
//! order, as GNU shuf writes them. The order comes from one seed the host gives (so a run
//! replays exactly); `-i` with `-n` draws without listing the whole range.

use std::collections::HashMap;

use crate::applets::common::{
    finish, open_input, parse_args, quote, quote_if_needed, split_lines, usage_error, warn, OptSpec,
};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{yield_now, LocalFuture};

/// The `shuf` applet.
pub const APPLET: Applet = Applet {
    name: "shuf",
    usage: "shuf [OPTION]... [FILE]\n  or:  shuf -e [OPTION]... [ARG]...\n  or:  shuf -i LO-HI [OPTION]...\nWrite the lines of FILE (or standard input) in a random order.\n  -e, --echo                treat each ARG as an input line\n  -i, --input-range=LO-HI   treat each number LO through HI as an input line\n  -n, --head-count=COUNT    output at most COUNT lines\n  -o, --output=FILE         write the result to FILE instead of standard output\n  -r, --repeat              output lines can be repeated (forever without -n)\n  -z, --zero-terminated     line delimiter is NUL, not newline",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "erz",
    short_val: "ino",
    long: &["echo", "repeat", "zero-terminated"],
    long_val: &["input-range", "head-count", "output"],
    digits: None,
    stop_at_operand: false,
};

/// Output gathered before it is passed on.
const CHUNK: usize = 64 * 1024;

/// A small generator (splitmix64) seeded once from the host.
struct Rng(u64);

impl Rng {
    /// A number below `n` (n > 0), without the bias of a plain remainder.
    fn below(&mut self, n: u64) -> u64 {
        let zone = u64::MAX - u64::MAX % n;
        loop {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            if z < zone {
                return z % n;
            }
        }
    }
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let (mut echo, mut repeat, mut eol) = (false, false, b'\n');
    let (mut range, mut count, mut output) = (None, None, None);
    for opt in &opts {
        let value = opt.value();
        if opt.is('e', "echo") {
            echo = true;
        } else if opt.is('r', "repeat") {
            repeat = true;
        } else if opt.is('z', "zero-terminated") {
            eol = 0;
        } else if opt.is('o', "output") {
            output = Some(value.to_string());
        } else if opt.is('n', "head-count") {
            match value.parse::<u64>() {
                // The smallest count given wins, as in GNU shuf.
                Ok(n) => count = Some(count.map_or(n, |c: u64| c.min(n))),
                Err(_) => return fail(&mut ctx, format!("invalid line count: '{value}'")).await,
            }
        } else if opt.is('i', "input-range") {
            if range.is_some() {
                return fail(&mut ctx, "multiple -i options specified".to_string()).await;
            }
            match parse_range(value) {
                Ok(r) => range = Some(r),
                Err(bad) => {
                    return fail(&mut ctx, format!("invalid input range: {}", quote(bad))).await
                }
            }
        }
    }
    if echo && range.is_some() {
        return usage_error(&mut ctx, "cannot combine -e and -i options", 1).await;
    }
    if range.is_some() && !operands.is_empty() || !echo && operands.len() > 1 {
        let extra = &operands[usize::from(range.is_none())];
        let message = format!("extra operand {}", quote(extra));
        return usage_error(&mut ctx, message, 1).await;
    }
    let lines: Vec<Vec<u8>> = if echo {
        operands.iter().map(|a| a.as_bytes().to_vec()).collect()
    } else if range.is_some() {
        Vec::new()
    } else {
        let path = operands.first().map_or("-", String::as_str);
        match open_input(&mut ctx, path) {
            Ok(mut input) => {
                let data = input.read_all().await;
                let strip = |l: &[u8]| l.strip_suffix(&[eol]).unwrap_or(l).to_vec();
                split_lines(&data, eol).map(strip).collect()
            }
            Err(reason) => return fail(&mut ctx, reason).await,
        }
    };
    // How many items there are to choose from, and the item at an index.
    let total = range.map_or(lines.len() as u64, |(lo, hi)| (hi + 1).saturating_sub(lo));
    let item = |i: u64| match range {
        Some((lo, _)) => (lo + i).to_string().into_bytes(),
        None => lines[i as usize].clone(),
    };
    if repeat && total == 0 {
        return fail(&mut ctx, "no lines to repeat".to_string()).await;
    }
    let mut rng = Rng(crate::entropy::random_u64());
    let picks = if total == 0 {
        0
    } else {
        count.unwrap_or(if repeat { u64::MAX } else { total })
    };
    let picks = if repeat { picks } else { picks.min(total) };
    // Without -r: a partial Fisher-Yates shuffle of the indices, storing only those moved.
    let mut moved: HashMap<u64, u64> = HashMap::new();
    let mut sink = Sink {
        path: output,
        started: false,
    };
    let mut out = Vec::new();
    for i in 0..picks {
        let index = if repeat {
            rng.below(total)
        } else {
            let j = i + rng.below(total - i);
            let at_j = moved.get(&j).copied().unwrap_or(j);
            moved.insert(j, moved.get(&i).copied().unwrap_or(i));
            at_j
        };
        out.extend(item(index));
        out.push(eol);
        if out.len() >= CHUNK {
            if let Err(status) = sink.emit(&mut ctx, &out).await {
                return status;
            }
            out.clear();
            // A sink that never pushes back (-r to /dev/null) must still let the deadline be seen.
            yield_now().await;
        }
    }
    match sink.emit(&mut ctx, &out).await {
        Ok(()) => finish(&mut ctx, Ok(0)).await,
        Err(status) => status,
    }
}

/// Where the lines go: standard output, or the file `-o` names (written anew, then added to).
struct Sink {
    path: Option<String>,
    started: bool,
}

impl Sink {
    /// Passes `data` on; Err holds the exit status to stop with.
    async fn emit(&mut self, ctx: &mut Ctx, data: &[u8]) -> Result<(), i32> {
        let Some(path) = &self.path else {
            return match ctx.stdout.write(data).await {
                Ok(()) => Ok(()),
                Err(e) => Err(finish(ctx, Err(e)).await),
            };
        };
        let written = if self.started {
            ctx.vfs.borrow_mut().append(&ctx.cwd, path, data)
        } else {
            ctx.vfs.borrow_mut().write(&ctx.cwd, path, data)
        };
        self.started = true;
        match written {
            Ok(()) => Ok(()),
            Err(e) => {
                let message = format!("{}: {}", quote_if_needed(path), e.code.description());
                Err(fail(ctx, message).await)
            }
        }
    }
}

/// `LO-HI` (HI may be LO-1: no numbers), or the part that is wrong.
fn parse_range(value: &str) -> Result<(u64, u64), &str> {
    let (lo, hi) = value.split_once('-').ok_or(value)?;
    let lo = lo.parse::<u64>().map_err(|_| lo)?;
    let hi = hi.parse::<u64>().map_err(|_| hi)?;
    if lo > hi.saturating_add(1) {
        return Err(value);
    }
    Ok((lo, hi))
}

async fn fail(ctx: &mut Ctx, message: String) -> i32 {
    warn(ctx, message).await;
    1
}
