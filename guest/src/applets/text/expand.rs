//! `expand [-i] [-t N | -t LIST] [FILE]...`: turn tabs into spaces (columns count bytes).

use crate::applets::common::inputs_or_stdin;
use crate::applets::common::{finish, open, parse_args, quote_if_needed};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `expand` applet.
pub const APPLET: Applet = Applet {
    name: "expand",
    usage: "expand [OPTION]... [FILE]...\n  -t, --tabs=N     tab stops every N columns (default 8); also -N\n  -t, --tabs=LIST  explicit stops, e.g. 4,8,12; a last /N or +N repeats every N\n  -i, --initial    only convert tabs before the first non-blank",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "i",
    short_val: "t",
    long: &["initial"],
    long_val: &["tabs"],
    digits: Some('t'),
    stop_at_operand: false,
};

/// Where tabs stop.
struct Stops {
    list: Vec<usize>,
    /// Repeat every N after the last listed stop: at multiples of N (`/N`, or a single N),
    /// or N after N from the last stop (`+N`).
    every: Option<(usize, bool)>,
}

impl Stops {
    /// The column the next tab stop after `column` is at (a single space past the list).
    fn next(&self, column: usize) -> usize {
        if let Some(&stop) = self.list.iter().find(|&&s| s > column) {
            return stop;
        }
        match self.every {
            Some((n, absolute)) => {
                let base = if absolute {
                    0
                } else {
                    self.list.last().copied().unwrap_or(0)
                };
                let past = column - base;
                column + n - past % n
            }
            None => column + 1,
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
    let mut stops = Stops {
        list: Vec::new(),
        every: Some((8, true)),
    };
    let mut initial = false;
    let mut specs = Vec::new();
    for opt in &opts {
        if opt.is('i', "initial") {
            initial = true;
        } else if opt.is('t', "tabs") {
            specs.push(opt.value().to_string());
        }
    }
    if !specs.is_empty() {
        match parse_stops(&specs.join(",")) {
            Ok(parsed) => stops = parsed,
            Err(message) => {
                warn(&mut ctx, message).await;
                return 1;
            }
        }
    }
    let paths = inputs_or_stdin(operands);
    let result = expand_all(&mut ctx, &paths, &stops, initial).await;
    finish(&mut ctx, result).await
}

fn parse_stops(text: &str) -> Result<Stops, String> {
    let mut list = Vec::new();
    let mut every = None;
    for item in text.split([',', ' ']).filter(|s| !s.is_empty()) {
        let (repeat, digits) = match item.strip_prefix(['/', '+']) {
            Some(rest) => (Some(item.starts_with('/')), rest),
            None => (None, item),
        };
        let n: usize = digits
            .parse()
            .map_err(|_| format!("tab size contains invalid character(s): '{item}'"))?;
        if n == 0 {
            return Err("tab size cannot be 0".to_string());
        }
        if let Some(absolute) = repeat {
            every = Some((n, absolute));
        } else {
            if list.last().is_some_and(|&last| n <= last) {
                return Err("tab sizes must be ascending".to_string());
            }
            list.push(n);
        }
    }
    if list.len() == 1 && every.is_none() {
        return Ok(Stops {
            list: Vec::new(),
            every: Some((list[0], true)),
        });
    }
    Ok(Stops { list, every })
}

async fn expand_all(
    ctx: &mut Ctx,
    paths: &[String],
    stops: &Stops,
    initial: bool,
) -> Result<i32, WriteError> {
    let mut status = 0;
    let (mut line, mut out) = (Vec::new(), Vec::new());
    for path in paths {
        let mut input = match open(ctx, path) {
            Ok(input) => input,
            Err(e) => {
                warn(ctx, format!("{}: {}", quote_if_needed(path), e.reason)).await;
                status = 1;
                continue;
            }
        };
        while {
            line.clear();
            input.read_line_into(&mut line).await
        } {
            out.clear();
            expand_line(&line, stops, initial, &mut out);
            ctx.stdout.write(&out).await?;
        }
    }
    Ok(status)
}

fn expand_line(line: &[u8], stops: &Stops, initial: bool, out: &mut Vec<u8>) {
    let mut column = 0;
    let mut leading = true;
    for (at, &b) in line.iter().enumerate() {
        if initial && !leading {
            out.extend_from_slice(&line[at..]);
            return;
        }
        match b {
            b'\t' => {
                let next = stops.next(column);
                out.resize(out.len() + (next - column), b' ');
                column = next;
            }
            b'\x08' => {
                column = column.saturating_sub(1);
                out.push(b);
                leading = false;
            }
            b' ' => {
                column += 1;
                out.push(b);
            }
            _ => {
                column += 1;
                out.push(b);
                leading = false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "expand",
        files: &[("n3", "1\t2\n")],
        ok: &[
            (&[], "a\tb\n\tx\n", "a       b\n        x\n"),
            (&["-t", "4"], "a\tb\tc\n", "a   b   c\n"),
            (&["-t", "2,5"], "a\tb\tc\n", "a b  c\n"),
            (&["-t", "2,5,/3"], "a\tb\tc\td\n", "a b  c   d\n"),
            (&["-i", "-t4"], "\ta\tb\n", "    a\tb\n"),
            (&[], "ab\u{8}c\td\n", "ab\u{8}c      d\n"),
            (&["-4"], "a\tb\n", "a   b\n"),
            (&[], "é\tb\n", "é      b\n"),
            (&["n3"], "", "1       2\n"),
            (&["--tabs=3"], "\t\tx", "      x"),
            (&["-t", "4"], "abcd\te\n", "abcd    e\n"),
            (&["-t", "2,4,+3"], "\t\t\t\tx\n", "          x\n"),
        ],
        err: &[
            (
                &["-t", "0", "n3"],
                "",
                "",
                "expand: tab size cannot be 0\n",
                1,
            ),
            (
                &["-t", "x", "n3"],
                "",
                "",
                "expand: tab size contains invalid character(s): 'x'\n",
                1,
            ),
            (
                &["-t", "3,2", "n3"],
                "",
                "",
                "expand: tab sizes must be ascending\n",
                1,
            ),
            (
                &["missing"],
                "",
                "",
                "expand: missing: No such file or directory\n",
                1,
            ),
        ],
    };

    #[test]
    fn cases() {
        TABLE.check();
    }

    #[test]
    #[ignore = "compares the tables with the real GNU tools"]
    fn gnu() {
        TABLE.check_gnu();
    }
}
