//! `cut -b LIST | -c LIST | -f LIST [-d DELIM] [-s] [--complement] [FILE]...`: select
//! parts of lines. `-c` counts bytes, as GNU's cut does.

use crate::applets::common::inputs_or_stdin;
use crate::applets::common::{finish, open_or_warn, parse_args, split_lines, Records};
use crate::applets::common::{usage_error, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `cut` applet.
pub const APPLET: Applet = Applet {
    name: "cut",
    usage: "cut OPTION... [FILE]...\n  -b, --bytes=LIST        select these bytes\n  -c, --characters=LIST   select these characters (bytes, as GNU cut)\n  -f, --fields=LIST       select these fields; lines without a delimiter print whole\n  -d, --delimiter=DELIM   field delimiter instead of TAB\n  -s, --only-delimited    skip lines without a delimiter\n      --complement        select everything but the LIST\n      --output-delimiter=STRING  join selected parts with STRING\n  -z, --zero-terminated   lines end with NUL\nLIST: N, N-M, N-, -M separated by commas.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "snz",
    short_val: "bcfd",
    long: &["only-delimited", "complement", "zero-terminated"],
    long_val: &[
        "bytes",
        "characters",
        "fields",
        "delimiter",
        "output-delimiter",
    ],
    digits: None,
    stop_at_operand: false,
};

/// A 1-based inclusive range (`hi` = `usize::MAX` for `N-`).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Range {
    lo: usize,
    hi: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Bytes,
    Fields,
}

struct Options {
    mode: Mode,
    ranges: Vec<Range>,
    delim: u8,
    out_delim: Option<Vec<u8>>,
    only_delimited: bool,
    eol: u8,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let options = match options(&opts) {
        Ok(options) => options,
        Err(message) => return usage_error(&mut ctx, message, 1).await,
    };
    let paths = inputs_or_stdin(operands);
    let result = cut_all(&mut ctx, &paths, &options).await;
    finish(&mut ctx, result).await
}

fn options(opts: &[crate::applets::common::Opt]) -> Result<Options, String> {
    let mut list: Option<(Mode, &str)> = None;
    let (mut delim, mut out_delim) = (None, None);
    let (mut only_delimited, mut complement, mut eol) = (false, false, b'\n');
    for opt in opts {
        let mode = if opt.is('b', "bytes") || opt.is('c', "characters") {
            Some(Mode::Bytes)
        } else if opt.is('f', "fields") {
            Some(Mode::Fields)
        } else {
            None
        };
        if let Some(mode) = mode {
            if list.is_some() {
                return Err("only one list may be specified".to_string());
            }
            list = Some((mode, opt.value()));
        } else if opt.is('d', "delimiter") {
            let value = opt.value().as_bytes();
            if value.len() > 1 {
                return Err("the delimiter must be a single character".to_string());
            }
            delim = Some(value.first().copied().unwrap_or(0));
        } else if opt.is('\0', "output-delimiter") {
            let value = opt.value().as_bytes();
            out_delim = Some(if value.is_empty() {
                vec![0]
            } else {
                value.to_vec()
            });
        } else if opt.is('s', "only-delimited") {
            only_delimited = true;
        } else if opt.is('\0', "complement") {
            complement = true;
        } else if opt.is('z', "zero-terminated") {
            eol = 0;
        }
    }
    let Some((mode, text)) = list else {
        return Err("you must specify a list of bytes, characters, or fields".to_string());
    };
    if mode == Mode::Bytes && delim.is_some() {
        return Err("an input delimiter may be specified only when operating on fields".into());
    }
    if mode == Mode::Bytes && only_delimited {
        return Err(
            "suppressing non-delimited lines makes sense\n\tonly when operating on fields".into(),
        );
    }
    let mut ranges = parse_list(text, mode)?;
    if complement {
        ranges = complement_of(&ranges);
    }
    Ok(Options {
        mode,
        ranges,
        delim: delim.unwrap_or(b'\t'),
        out_delim,
        only_delimited,
        eol,
    })
}

/// Parses `N,N-M,N-,-M` into sorted ranges, merging overlapping ones (not adjacent ones:
/// `--output-delimiter` separates them).
fn parse_list(text: &str, mode: Mode) -> Result<Vec<Range>, String> {
    let (what, from_one) = match mode {
        Mode::Fields => ("field", "fields are numbered from 1"),
        Mode::Bytes => (
            "byte/character",
            "byte/character positions are numbered from 1",
        ),
    };
    let mut ranges = Vec::new();
    for item in text.split([',', ' ', '\t']) {
        if item.is_empty() {
            return Err(from_one.to_string());
        }
        let number = |s: &str| -> Result<usize, String> {
            match s.parse::<usize>() {
                Ok(0) => Err(from_one.to_string()),
                Ok(n) => Ok(n),
                Err(_) if s.bytes().all(|b| b.is_ascii_digit() || b == b'-') => Err(match mode {
                    Mode::Fields => "invalid field range".to_string(),
                    Mode::Bytes => "invalid byte or character range".to_string(),
                }),
                Err(_) => Err(format!("invalid {what} value '{item}'")),
            }
        };
        let range = match item.split_once('-') {
            None => {
                let n = number(item)?;
                Range { lo: n, hi: n }
            }
            Some(("", "")) => return Err("invalid range with no endpoint: -".to_string()),
            Some(("", hi)) => Range {
                lo: 1,
                hi: number(hi)?,
            },
            Some((lo, "")) => Range {
                lo: number(lo)?,
                hi: usize::MAX,
            },
            Some((lo, hi)) => {
                let range = Range {
                    lo: number(lo)?,
                    hi: number(hi)?,
                };
                if range.hi < range.lo {
                    return Err("invalid decreasing range".to_string());
                }
                range
            }
        };
        ranges.push(range);
    }
    crate::sort::sort_by_key(&mut ranges, |r| (r.lo, r.hi));
    let mut merged: Vec<Range> = Vec::new();
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.lo <= last.hi => last.hi = last.hi.max(range.hi),
            _ => merged.push(range),
        }
    }
    Ok(merged)
}

fn complement_of(ranges: &[Range]) -> Vec<Range> {
    let mut out = Vec::new();
    let mut next = 1;
    for r in ranges {
        if r.lo > next {
            out.push(Range {
                lo: next,
                hi: r.lo - 1,
            });
        }
        next = r.hi.saturating_add(1);
    }
    if ranges.last().is_none_or(|r| r.hi != usize::MAX) {
        out.push(Range {
            lo: next,
            hi: usize::MAX,
        });
    }
    out
}

async fn cut_all(ctx: &mut Ctx, paths: &[String], o: &Options) -> Result<i32, WriteError> {
    let mut status = 0;
    let (mut line, mut out) = (Vec::new(), Vec::new());
    for path in paths {
        let Some(mut input) = open_or_warn(ctx, path).await else {
            status = 1;
            continue;
        };
        if let Some((data, from)) = input.shared_bytes() {
            // A file: its lines are cut where they lie, not copied out one at a time first.
            input.consume(data.len() - from);
            for line in split_lines(&data[from..], o.eol) {
                cut_line(line, o, &mut out);
                if out.len() >= OUT_CHUNK {
                    ctx.stdout.write(&out).await?;
                    out.clear();
                }
            }
            continue;
        }
        let mut records = Records::new(input, o.eol);
        while {
            line.clear();
            records.next_into(&mut line).await
        } {
            cut_line(&line, o, &mut out);
            // Passed on in chunks, not line by line.
            if out.len() >= OUT_CHUNK {
                ctx.stdout.write(&out).await?;
                out.clear();
            }
        }
    }
    ctx.stdout.write(&out).await?;
    Ok(status)
}

/// Cuts one line (with its terminator, if it has one) onto `out`.
fn cut_line(line: &[u8], o: &Options, out: &mut Vec<u8>) {
    let body = line.strip_suffix(&[o.eol]).unwrap_or(line);
    let keep = match o.mode {
        Mode::Bytes => {
            cut_bytes(body, o, out);
            true
        }
        Mode::Fields => cut_fields(body, o, out),
    };
    if keep {
        out.push(o.eol);
    }
}

/// Bytes of output gathered before they are passed on.
const OUT_CHUNK: usize = 64 * 1024;

fn cut_bytes(body: &[u8], o: &Options, out: &mut Vec<u8>) {
    let mut first = true;
    for r in &o.ranges {
        if r.lo > body.len() {
            break;
        }
        if !first {
            if let Some(d) = &o.out_delim {
                out.extend_from_slice(d);
            }
        }
        first = false;
        let hi = r.hi.min(body.len());
        out.extend_from_slice(&body[r.lo - 1..hi]);
    }
}

/// Selected fields joined by the output delimiter; false to skip the line (`-s`).
fn cut_fields(body: &[u8], o: &Options, out: &mut Vec<u8>) -> bool {
    let Some(first_end) = find(body, 0, o.delim) else {
        if o.only_delimited {
            return false;
        }
        out.extend_from_slice(body);
        return true;
    };
    let default = [o.delim];
    let joiner: &[u8] = o.out_delim.as_deref().unwrap_or(&default);
    // The ranges are sorted and merged: no field past the last one's end is selected.
    let last = o.ranges.last().map_or(0, |r| r.hi);
    let (mut n, mut start, mut end) = (1, 0, first_end);
    let mut first = true;
    // (a plain loop over the line: `split` was a tenth of a CSV group-by)
    while n <= last {
        if o.ranges.iter().any(|r| r.lo <= n && n <= r.hi) {
            if !first {
                out.extend_from_slice(joiner);
            }
            first = false;
            out.extend_from_slice(&body[start..end]);
        }
        if end == body.len() {
            break;
        }
        (n, start) = (n + 1, end + 1);
        end = find(body, start, o.delim).unwrap_or(body.len());
    }
    true
}

/// The index of the first `byte` in `text` from `from`.
fn find(text: &[u8], from: usize, byte: u8) -> Option<usize> {
    // (a plain loop, as for line ends: memchr was slower over a few bytes; bench/README)
    let mut at = from;
    while at < text.len() {
        if text[at] == byte {
            return Some(at);
        }
        at += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "cut",
        files: &[("c1", "a:b:c\nd:e:f\nnodelim\n")],
        ok: &[
            (&["-d", ",", "-f", "2-3", "--complement"], "1,2,3,4\n", "1,4\n"),
            (&["-b", "-3,5-"], "abcdefg\n", "abcefg\n"),
            (&["-d", ";", "-f", "1,3-"], "a;b;c;d\n", "a;c;d\n"),
            (&["-d:", "-f2", "c1"], "", "b\ne\nnodelim\n"),
            (&["-d:", "-f1,3", "c1"], "", "a:c\nd:f\nnodelim\n"),
            (&["-d:", "-f2-", "c1"], "", "b:c\ne:f\nnodelim\n"),
            (&["-d:", "-f-2", "c1"], "", "a:b\nd:e\nnodelim\n"),
            (&["-d:", "-s", "-f2", "c1"], "", "b\ne\n"),
            (&["-d:", "--complement", "-f2", "c1"], "", "a:c\nd:f\nnodelim\n"),
            (&["-d:", "-f1,3", "--output-delimiter= | ", "c1"], "", "a | c\nd | f\nnodelim\n"),
            (&["-c2-3", "c1"], "", ":b\n:e\nod\n"),
            (&["-b1,3", "c1"], "", "ab\nde\nnd\n"),
            (&["-c", "3-", "c1"], "", "b:c\ne:f\ndelim\n"),
            (&["-f2"], "x\ty\tz\n", "y\n"),
            (&["-d:", "-f3,1", "c1"], "", "a:c\nd:f\nnodelim\n"),
            (&["-d:", "-f1-2,2-3", "c1"], "", "a:b:c\nd:e:f\nnodelim\n"),
            (&["-c1-2,4-"], "abcdef\n", "abdef\n"),
            (&["-d:", "-f5", "c1"], "", "\n\nnodelim\n"),
            (&["-c1-3", "--output-delimiter=,"], "abcdef\n", "abc\n"),
            (&["-c1-2,4-", "--output-delimiter=,"], "abcdef\n", "ab,def\n"),
            (&["-c1-3,2-5", "--output-delimiter=,"], "abcdefg\n", "abcde\n"),
            (&["-c1-2,3-4", "--output-delimiter=,"], "abcdef\n", "ab,cd\n"),
            (&["-c3,1", "--output-delimiter=,"], "abcdef\n", "a,c\n"),
            (&["-d:", "-f1,2", "--complement", "--output-delimiter=,"], "a:b:c:d\n", "c,d\n"),
            (&["-c", "2-", "--complement"], "abc\n", "a\n"),
            (&["-c", "-2", "--complement", "--output-delimiter=,"], "abcdef\n", "cdef\n"),
            (&["-f1"], "a\tb", "a\n"),
            (&["-c2"], "abc", "b\n"),
            (&["-d", " ", "-f2"], "a  b\n", "\n"),
            (&["-f2,3", "-d:"], "a:b\n", "b\n"),
            (&["-c1"], "éx\n", "\u{fffd}\n"),
            (&["-b", "2-"], "héllo\n", "éllo\n"),
            (&["-n", "-b1"], "x\n", "x\n"),
            (&["-z", "-d:", "-f1"], "a:b\0c:d\0", "a\0c\0"),
            (&["-f", "1,2", "--output-delimiter="], "a\tb\n", "a\0b\n"),
            (&["-d,", "-f", "1 3"], "a,b,c\n", "a,c\n"),
        ],
        err: &[
            (&["-d:", "-f0", "c1"], "", "", "cut: fields are numbered from 1\nTry 'cut --help' for more information.\n", 1),
            (&["-d:", "-f", "2-1", "c1"], "", "", "cut: invalid decreasing range\nTry 'cut --help' for more information.\n", 1),
            (&["-d::", "-f1", "c1"], "", "", "cut: the delimiter must be a single character\nTry 'cut --help' for more information.\n", 1),
            (&["c1"], "", "", "cut: you must specify a list of bytes, characters, or fields\nTry 'cut --help' for more information.\n", 1),
            (&["-d:", "-f1", "-c1", "c1"], "", "", "cut: only one list may be specified\nTry 'cut --help' for more information.\n", 1),
            (&["-f", "a", "c1"], "", "", "cut: invalid field value 'a'\nTry 'cut --help' for more information.\n", 1),
            (&["-c", "0", "c1"], "", "", "cut: byte/character positions are numbered from 1\nTry 'cut --help' for more information.\n", 1),
            (&["-d:", "-c1", "c1"], "", "", "cut: an input delimiter may be specified only when operating on fields\nTry 'cut --help' for more information.\n", 1),
            (&["-s", "-c1", "c1"], "", "", "cut: suppressing non-delimited lines makes sense\n\tonly when operating on fields\nTry 'cut --help' for more information.\n", 1),
            (&["-f", "", "c1"], "", "", "cut: fields are numbered from 1\nTry 'cut --help' for more information.\n", 1),
            (&["-f1-", "c1", "missing"], "", "a:b:c\nd:e:f\nnodelim\n", "cut: missing: No such file or directory\n", 1),
            (&["-c", "1-2-3", "c1"], "", "", "cut: invalid byte or character range\nTry 'cut --help' for more information.\n", 1),
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
