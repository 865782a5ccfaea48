//! `sort [OPTION]... [FILE]...`: sort lines, GNU's way, in the C locale's byte order.
//!
//! Keys (`-k POS1[,POS2]` with per-key flags), `-t`, `-n -g -h -M -V -R`, `-f -d -i -b`,
//! `-r`, `-u`, `-s`, `-c`/`-C`, `-o FILE`, `-z`. Lines equal by every key are ordered by the
//! whole line (reversed with `-r`) unless `-s` or `-u`, exactly as GNU's last-resort compare.

mod compare;
mod key;

use crate::applets::common::inputs_or_stdin;
use std::cmp::Ordering;

use crate::applets::common::{
    finish, open, parse_args, quote_if_needed, split_lines, write_and_finish,
};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::sort::cmp_bytes;
use crate::task::{Input, LocalFuture};

use compare::compare_keys;
use key::{parse_key, Flags, Key};

/// The `sort` applet.
pub const APPLET: Applet = Applet {
    name: "sort",
    usage: "sort [OPTION]... [FILE]...\n  -b, --ignore-leading-blanks  ignore leading blanks in keys\n  -d, --dictionary-order  only blanks and alphanumerics count\n  -f, --ignore-case       fold lower case to upper case\n  -g, --general-numeric-sort  compare as floating point\n  -h, --human-numeric-sort    compare 2K, 1G...\n  -i, --ignore-nonprinting    only printable characters count\n  -M, --month-sort        JAN < ... < DEC\n  -n, --numeric-sort      compare as decimal numbers\n  -R, --random-sort       shuffle, grouping equal keys\n  -r, --reverse           reverse the result\n  -V, --version-sort      natural sort of version numbers\n  -k, --key=POS1[,POS2]   sort by a key: F[.C][OPTS], e.g. -k2,2nr, -k1.3\n  -t, --field-separator=SEP  fields are separated by SEP (default: blank to non-blank)\n  -u, --unique            output only the first of equal lines\n  -s, --stable            no last-resort comparison of whole lines\n  -c, --check             report the first disorder; -C: only the exit status\n  -m, --merge             merge (inputs are sorted anyway)\n  -o, --output=FILE       write to FILE (may be an input)\n  -z, --zero-terminated   lines end with NUL\nOrder is the C locale's: bytes, like LC_ALL=C sort.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "bdfghiMnRrVcCmsuz",
    short_val: "ktoSTy",
    long: &[
        "ignore-leading-blanks",
        "dictionary-order",
        "ignore-case",
        "general-numeric-sort",
        "human-numeric-sort",
        "ignore-nonprinting",
        "month-sort",
        "numeric-sort",
        "random-sort",
        "reverse",
        "version-sort",
        "merge",
        "stable",
        "unique",
        "zero-terminated",
        "debug",
        "check",
    ],
    long_val: &[
        "key",
        "field-separator",
        "output",
        "buffer-size",
        "temporary-directory",
        "parallel",
        "sort",
        "batch-size",
        "compress-program",
        "random-source",
        "files0-from",
    ],
    digits: None,
    stop_at_operand: false,
};

/// Exit status of sort's errors.
const TROUBLE: i32 = 2;

/// Everything that decides the order.
struct Order {
    keys: Vec<Key>,
    tab: Option<u8>,
    reverse: bool,
    unique: bool,
    stable: bool,
    seed: u64,
}

/// `-c` (report the first disorder) or `-C` (quietly).
#[derive(Clone, Copy, PartialEq)]
enum Check {
    None,
    Report,
    Quiet,
}

struct Options {
    order: Order,
    merge: bool,
    check: Check,
    output: Option<String>,
    eol: u8,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(1) => return TROUBLE,
        Err(status) => return status,
    };
    let seed = ctx.host.now_ms() as u64;
    let options = match options(&opts, seed) {
        Ok(options) => options,
        Err((message, usage)) if usage => return usage_error(&mut ctx, message, TROUBLE).await,
        Err((message, _)) => {
            warn(&mut ctx, message).await;
            return TROUBLE;
        }
    };
    let paths = inputs_or_stdin(operands);
    if options.check != Check::None && paths.len() > 1 {
        let letter = check_letter(options.check);
        let message = format!("extra operand '{}' not allowed with -{letter}", paths[1]);
        warn(&mut ctx, message).await;
        return TROUBLE;
    }
    // Whole lines, in blocks (see [`read_blocks`]); where each input's blocks start (for -m).
    let mut data: Vec<Vec<u8>> = Vec::new();
    let mut starts = Vec::new();
    for path in &paths {
        starts.push(data.len());
        match open(&mut ctx, path) {
            Ok(mut input) => read_blocks(&mut input, options.eol, &mut data).await,
            Err(e) => {
                let message = if e.is_dir {
                    format!("read failed: {}: {}", quote_if_needed(path), e.reason)
                } else {
                    format!("cannot read: {}: {}", quote_if_needed(path), e.reason)
                };
                warn(&mut ctx, message).await;
                return TROUBLE;
            }
        }
    }
    let eol = options.eol;
    if options.check != Check::None {
        return check(&mut ctx, &lines_of(&data, eol), &options, &paths[0]).await;
    }
    let sorted = if options.merge {
        starts.push(data.len());
        let inputs = starts
            .windows(2)
            .map(|w| lines_of(&data[w[0]..w[1]], eol))
            .collect();
        merge_lines(inputs, &options.order)
    } else {
        sort_lines(&data, &options.order, eol)
    };
    match &options.output {
        None => {
            // Passed on a chunk at a time: the output is never held whole beside the input.
            let mut out = Vec::with_capacity(OUT_CHUNK + 1024);
            for line in sorted {
                out.extend_from_slice(line);
                out.push(eol);
                if out.len() >= OUT_CHUNK {
                    if let Err(e) = ctx.stdout.write(&out).await {
                        return finish(&mut ctx, Err(e)).await;
                    }
                    out.clear();
                }
            }
            write_and_finish(&mut ctx, &out, 0).await
        }
        Some(path) => {
            let mut out = Vec::with_capacity(data.iter().map(Vec::len).sum());
            for line in sorted {
                out.extend_from_slice(line);
                out.push(eol);
            }
            drop(data); // `-o` may name an input: written once the input is let go
            let written = ctx.vfs.borrow_mut().write(&ctx.cwd, path, &out);
            if let Err(e) = written {
                let message = format!(
                    "open failed: {}: {}",
                    quote_if_needed(path),
                    e.code.description()
                );
                warn(&mut ctx, message).await;
                return TROUBLE;
            }
            finish(&mut ctx, Ok(0)).await
        }
    }
}

/// Bytes of sorted output gathered before they are passed on.
const OUT_CHUNK: usize = 64 * 1024;
/// Bytes of piped input per block (see [`read_blocks`]).
const BLOCK: usize = 256 * 1024;

/// Reads `input` to its end onto `blocks`, each holding whole lines (the input's last line is
/// given its `eol`). A file is one exact copy. A pipe fills blocks of [`BLOCK`] bytes to the
/// brim, carrying a block's unfinished last line into the next: one buffer grown to the
/// input's size would double its way there, holding up to twice the input (and the last
/// smaller buffer beside it while it moves).
async fn read_blocks(input: &mut Input, eol: u8, blocks: &mut Vec<Vec<u8>>) {
    if input.in_memory().is_some() {
        let mut bytes = input.read_all().await;
        if bytes.last().is_some_and(|&b| b != eol) {
            bytes.push(eol);
        }
        if !bytes.is_empty() {
            blocks.push(bytes);
        }
        return;
    }
    let mut block: Vec<u8> = Vec::new();
    while let Some(chunk) = input.read_chunk().await {
        let mut rest = &chunk[..];
        while !rest.is_empty() {
            if block.len() == block.capacity() {
                match memchr::memrchr(eol, &block) {
                    Some(at) if block.len() >= BLOCK => {
                        let mut next = Vec::with_capacity(BLOCK.max(2 * (block.len() - at)));
                        next.extend_from_slice(&block[at + 1..]);
                        block.truncate(at + 1);
                        blocks.push(std::mem::replace(&mut block, next));
                    }
                    at if input.past_limit(block.len() - at.map_or(0, |at| at + 1), &mut block) => {
                        blocks.clear();
                        return;
                    }
                    // Still small, or a line longer than a block: grow.
                    _ => block.reserve(rest.len()),
                }
            }
            let n = rest.len().min(block.capacity() - block.len());
            block.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
        }
    }
    if block.last().is_some_and(|&b| b != eol) {
        block.reserve_exact(1);
        block.push(eol);
    }
    if !block.is_empty() {
        blocks.push(block);
    }
}

fn check_letter(check: Check) -> char {
    if check == Check::Quiet {
        'C'
    } else {
        'c'
    }
}

type OptionsError = (String, bool);

fn options(opts: &[crate::applets::common::Opt], seed: u64) -> Result<Options, OptionsError> {
    let mut global = Flags::default();
    let mut keys = Vec::new();
    let (mut tab, mut unique, mut stable) = (None, false, false);
    let (mut check, mut output, mut eol) = (Check::None, None, b'\n');
    let mut merge = false;
    for opt in opts {
        let value = opt.value();
        match opt {
            crate::applets::common::Opt::Short(c, None) if global.set(*c, false) => {
                if *c == 'b' {
                    global.blanks_end = true;
                }
                continue;
            }
            _ => {}
        }
        if let Some(letter) = long_order(opt) {
            global.set(letter, false);
            if letter == 'b' {
                global.blanks_end = true;
            }
        } else if opt.is('k', "key") {
            keys.push(parse_key(value).map_err(|m| (m, false))?);
        } else if opt.is('t', "field-separator") {
            tab = Some(parse_tab(value)?);
        } else if opt.is('u', "unique") {
            unique = true;
        } else if opt.is('s', "stable") {
            stable = true;
        } else if opt.is('c', "check") {
            check = Check::Report;
        } else if opt.is('C', "") {
            check = Check::Quiet;
        } else if opt.is('m', "merge") {
            merge = true;
        } else if opt.is('o', "output") {
            output = Some(value.to_string());
        } else if opt.is('z', "zero-terminated") {
            eol = 0;
        } else if opt.is('\0', "sort") {
            let letter = match value {
                "general-numeric" => 'g',
                "human-numeric" => 'h',
                "month" => 'M',
                "numeric" => 'n',
                "random" => 'R',
                "version" => 'V',
                _ => return Err((format!("invalid argument '{value}' for '--sort'"), true)),
            };
            global.set(letter, false);
        }
    }
    if check != Check::None && output.is_some() {
        let letter = check_letter(check);
        return Err((format!("options '-{letter}o' are incompatible"), false));
    }
    inherit(&mut keys, global);
    let reverse = global.reverse;
    if keys.is_empty() && !global.is_default() {
        keys.push(Key::whole(global));
    }
    if let Some(message) = keys.iter().find_map(|k| k.flags.incompatible()) {
        return Err((message, false));
    }
    Ok(Options {
        order: Order {
            keys,
            tab,
            reverse,
            unique,
            stable,
            seed,
        },
        merge,
        check,
        output,
        eol,
    })
}

/// The ordering letter a long option stands for.
fn long_order(opt: &crate::applets::common::Opt) -> Option<char> {
    let crate::applets::common::Opt::Long(name, _) = opt else {
        return None;
    };
    Some(match name.as_str() {
        "ignore-leading-blanks" => 'b',
        "dictionary-order" => 'd',
        "ignore-case" => 'f',
        "general-numeric-sort" => 'g',
        "human-numeric-sort" => 'h',
        "ignore-nonprinting" => 'i',
        "month-sort" => 'M',
        "numeric-sort" => 'n',
        "random-sort" => 'R',
        "reverse" => 'r',
        "version-sort" => 'V',
        _ => return None,
    })
}

fn parse_tab(value: &str) -> Result<u8, OptionsError> {
    match value.as_bytes() {
        [b] => Ok(*b),
        b"\\0" => Ok(0),
        [] => Err(("empty tab".to_string(), false)),
        // GNU's quoting doubles backslashes: `-t '\t'` is reported as '\\t'.
        _ => Err((
            format!("multi-character tab '{}'", value.replace('\\', "\\\\")),
            false,
        )),
    }
}

/// Keys with no ordering option of their own take all the global ones.
fn inherit(keys: &mut [Key], global: Flags) {
    for key in keys.iter_mut() {
        if key.flags.is_default() && !key.flags.reverse {
            key.flags = global;
        }
    }
}

/// Sorts. Each line carries a small hint from its first key (its first bytes, or its value
/// when it is a number that fits), so most comparisons never touch the lines themselves.
fn sort_lines<'a>(data: &'a [Vec<u8>], order: &Order, eol: u8) -> Vec<&'a [u8]> {
    if order.keys.is_empty() {
        return sort_whole_lines(data, order, eol);
    }
    let first = order.keys.first();
    let mut hinted: Vec<(Hint, &[u8])> = Vec::with_capacity(line_count(data, eol));
    hinted.extend(lines(data, eol).map(|line| (hint(line, first, order.tab), line)));
    let reverse_hint = first.map_or(order.reverse, |key| key.flags.reverse);
    let cmp = |a: &(Hint, &[u8]), b: &(Hint, &[u8])| match a.0.partial_cmp(&b.0) {
        Some(by_hint) if by_hint != Ordering::Equal && a.0.same_kind(&b.0) => {
            if reverse_hint {
                by_hint.reverse()
            } else {
                by_hint
            }
        }
        _ => compare(a.1, b.1, order),
    };
    if order.keys.is_empty() {
        // Only whole-line comparisons: equal lines are identical, so stability is moot.
        hinted.sort_unstable_by(cmp);
    } else {
        hinted.sort_by(cmp);
    }
    let mut lines: Vec<&[u8]> = hinted.into_iter().map(|(_, line)| line).collect();
    if order.unique {
        lines.dedup_by(|b, a| compare(a, b, order) == Ordering::Equal);
    }
    lines
}

/// Without keys lines compare as bytes, so equal lines are identical: an unstable sort on
/// (first 8 bytes, line) pairs (16 bytes each on wasm32, a third of the general path's) is
/// exact.
fn sort_whole_lines<'a>(data: &'a [Vec<u8>], order: &Order, eol: u8) -> Vec<&'a [u8]> {
    // Sized exactly (a collected iterator of unknown length doubles its way up, to twice the
    // size at worst), and with an array prefix of alignment 4 like the lines': the list of
    // lines below reuses the allocation instead of taking one more.
    let mut tagged: Vec<([u8; 8], &[u8])> = Vec::with_capacity(line_count(data, eol));
    tagged.extend(lines(data, eol).map(|l| (prefix_u64(l).to_be_bytes(), l)));
    tagged.sort_unstable_by(|a, b| {
        let (x, y) = (u64::from_be_bytes(a.0), u64::from_be_bytes(b.0));
        x.cmp(&y).then_with(|| past_prefix(a.1, b.1))
    });
    let mut lines: Vec<&[u8]> = tagged.into_iter().map(|(_, line)| line).collect();
    if order.reverse {
        lines.reverse();
    }
    if order.unique {
        lines.dedup_by(|b, a| crate::sort::eq_bytes(a, b));
    }
    lines
}

/// The order of two lines whose [`prefix_u64`] are equal: their first 8 bytes are the same
/// when both have them, so only the rest is compared.
fn past_prefix(a: &[u8], b: &[u8]) -> Ordering {
    match (a.get(8..), b.get(8..)) {
        (Some(x), Some(y)) => cmp_bytes(x, y),
        _ => cmp_bytes(a, b),
    }
}

fn prefix_u64(text: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = text.len().min(8);
    bytes[..n].copy_from_slice(&text[..n]);
    u64::from_be_bytes(bytes)
}

/// What a line's first key decides on its own when two hints differ.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Hint {
    /// The first 8 bytes of a plain text key, zero-padded.
    Prefix(u64),
    /// A `-n` or `-M` key's exact value (fixed point, 18 fraction digits).
    Value(i128),
    /// Nothing: compare the lines.
    Unknown,
}

impl Hint {
    fn same_kind(&self, other: &Hint) -> bool {
        matches!(
            (self, other),
            (Hint::Prefix(_), Hint::Prefix(_)) | (Hint::Value(_), Hint::Value(_))
        )
    }
}

fn hint(line: &[u8], key: Option<&Key>, tab: Option<u8>) -> Hint {
    let Some(key) = key else {
        return prefix(line);
    };
    let text = key::key_text(line, key, tab);
    let flags = &key.flags;
    match flags.order {
        key::Order::Text if !(flags.fold || flags.dictionary || flags.printable) => prefix(text),
        key::Order::Numeric => compare::fixed_point(text).map_or(Hint::Unknown, Hint::Value),
        key::Order::Month => Hint::Value(compare::month(text) as i128),
        _ => Hint::Unknown,
    }
}

fn prefix(text: &[u8]) -> Hint {
    Hint::Prefix(prefix_u64(text))
}

/// The lines of `blocks`, without their terminators.
fn lines_of(blocks: &[Vec<u8>], eol: u8) -> Vec<&[u8]> {
    let mut all = Vec::with_capacity(line_count(blocks, eol));
    all.extend(lines(blocks, eol));
    all
}

/// How many lines `blocks` hold (each ends in `eol`).
fn line_count(blocks: &[Vec<u8>], eol: u8) -> usize {
    blocks
        .iter()
        .map(|block| memchr::memchr_iter(eol, block).count())
        .sum()
}

fn lines(blocks: &[Vec<u8>], eol: u8) -> impl Iterator<Item = &[u8]> {
    blocks.iter().flat_map(move |block| {
        split_lines(block, eol).map(move |l| l.strip_suffix(&[eol]).unwrap_or(l))
    })
}

/// `-m`: merges already sorted inputs (ties go to the earlier input), without sorting them.
fn merge_lines<'a>(inputs: Vec<Vec<&'a [u8]>>, order: &Order) -> Vec<&'a [u8]> {
    let total = inputs.iter().map(Vec::len).sum();
    let mut heads = vec![0; inputs.len()];
    let mut out: Vec<&[u8]> = Vec::with_capacity(total);
    loop {
        let mut best: Option<usize> = None;
        for (i, input) in inputs.iter().enumerate() {
            let Some(line) = input.get(heads[i]) else {
                continue;
            };
            let better =
                best.is_none_or(|b| compare(line, inputs[b][heads[b]], order) == Ordering::Less);
            if better {
                best = Some(i);
            }
        }
        let Some(i) = best else {
            return out;
        };
        let line = inputs[i][heads[i]];
        heads[i] += 1;
        let duplicate = order.unique
            && out
                .last()
                .is_some_and(|last| compare(last, line, order) == Ordering::Equal);
        if !duplicate {
            out.push(line);
        }
    }
}

/// GNU's `compare`: the keys in turn, then (unless -s or -u) the whole lines.
fn compare(a: &[u8], b: &[u8], order: &Order) -> Ordering {
    if !order.keys.is_empty() {
        let by_keys = compare_by_keys(a, b, order);
        if by_keys != Ordering::Equal || order.unique || order.stable {
            return by_keys;
        }
    }
    let last = cmp_bytes(a, b);
    if order.reverse {
        last.reverse()
    } else {
        last
    }
}

fn compare_by_keys(a: &[u8], b: &[u8], order: &Order) -> Ordering {
    for key in &order.keys {
        let ka = key::key_text(a, key, order.tab);
        let kb = key::key_text(b, key, order.tab);
        let by_key = compare_keys(ka, kb, &key.flags, order.seed);
        if by_key != Ordering::Equal {
            return if key.flags.reverse {
                by_key.reverse()
            } else {
                by_key
            };
        }
    }
    Ordering::Equal
}

/// `-c`/`-C`: the first line out of order (or equal to the previous one with `-u`).
async fn check(ctx: &mut Ctx, lines: &[&[u8]], options: &Options, path: &str) -> i32 {
    let bad = lines.windows(2).position(|pair| {
        let order = compare(pair[0], pair[1], &options.order);
        order == Ordering::Greater || (options.order.unique && order == Ordering::Equal)
    });
    let Some(at) = bad else {
        return 0;
    };
    if options.check == Check::Report {
        let line = String::from_utf8_lossy(lines[at + 1]);
        let message = format!("{path}:{}: disorder: {line}", at + 2);
        warn(ctx, message).await;
    }
    1
}

#[cfg(test)]
mod tests;
