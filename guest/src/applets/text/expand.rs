//! `expand [-i] [-t N | -t LIST] [FILE]...`: turn tabs into spaces (columns count bytes);
//! `unexpand [-a] [-t N | -t LIST] [FILE]...`: turn runs of blanks that reach a tab stop back
//! into tabs (leading blanks only, unless `-a` or `-t`), as GNU does.

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

/// The `unexpand` applet.
pub const UNEXPAND: Applet = Applet {
    name: "unexpand",
    usage: "unexpand [OPTION]... [FILE]...\n  -a, --all        convert every run of blanks, not only leading ones\n  -t, --tabs=N     tab stops every N columns (default 8; implies -a); also -N\n  -t, --tabs=LIST  explicit stops, as for expand\n      --first-only convert only leading blanks, even with -t",
    help: Help::Anywhere,
    run,
};

const UNEXPAND_SPEC: OptSpec = OptSpec {
    short: "a",
    short_val: "t",
    long: &["all", "first-only"],
    long_val: &["tabs"],
    digits: Some('t'),
    stop_at_operand: false,
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
    /// Whether no tab stop follows `column` (past a list with no repeat).
    fn past_list(&self, column: usize) -> bool {
        self.every.is_none() && self.list.last().is_some_and(|&last| column >= last)
    }

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
    let unexpand = ctx.name == "unexpand";
    let spec = if unexpand { &UNEXPAND_SPEC } else { &SPEC };
    let (opts, operands) = match parse_args(&mut ctx, spec, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut stops = Stops {
        list: Vec::new(),
        every: Some((8, true)),
    };
    // unexpand converts leading blanks only, unless -a, or -t without --first-only.
    let (mut initial, mut all, mut first_only) = (false, false, false);
    let mut specs = Vec::new();
    for opt in &opts {
        if opt.is('i', "initial") && !unexpand {
            initial = true;
        } else if opt.is('a', "all") && unexpand {
            all = true;
        } else if opt.is('\0', "first-only") {
            first_only = true;
        } else if opt.is('t', "tabs") {
            specs.push(opt.value().to_string());
        }
    }
    if unexpand {
        initial = first_only || (!all && specs.is_empty());
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
    let convert = if unexpand { unexpand_line } else { expand_line };
    let result = expand_all(&mut ctx, &paths, &stops, initial, convert).await;
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
    convert: fn(&[u8], &Stops, bool, &mut Vec<u8>),
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
            convert(&line, stops, initial, &mut out);
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

/// A run of two or more blanks that reaches a tab stop becomes a tab; a lone space reaching
/// one does too when another blank follows, as in GNU; a tab swallows the spaces before it.
/// With `initial`, only the leading blanks.
fn unexpand_line(line: &[u8], stops: &Stops, initial: bool, out: &mut Vec<u8>) {
    let (mut column, mut spaces, mut lone) = (0, 0, false);
    let mut blank_before = false;
    for (at, &b) in line.iter().enumerate() {
        let blank = matches!(b, b' ' | b'\t');
        if blank && stops.past_list(column) {
            // No tab stop is left: GNU copies the rest of the line as it is.
            out.resize(out.len() + spaces, b' ');
            out.extend_from_slice(&line[at..]);
            return;
        }
        if lone && blank {
            out.push(b'\t');
            (spaces, lone) = (0, false);
        }
        let after_blank = std::mem::replace(&mut blank_before, blank);
        match b {
            b' ' => {
                let stop = stops.next(column);
                column += 1;
                spaces += 1;
                if column == stop && (spaces > 1 || after_blank) {
                    out.push(b'\t');
                    spaces = 0;
                }
                lone = column == stop && spaces == 1;
            }
            b'\t' => {
                column = stops.next(column);
                out.push(b'\t');
                spaces = 0;
            }
            _ => {
                out.resize(out.len() + spaces, b' ');
                (spaces, lone) = (0, false);
                if initial {
                    out.extend_from_slice(&line[at..]);
                    return;
                }
                column = if b == b'\x08' {
                    column.saturating_sub(1)
                } else {
                    column + 1
                };
                out.push(b);
            }
        }
    }
    out.resize(out.len() + spaces, b' ');
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

    const UNEXPAND: Table = Table {
        name: "unexpand",
        files: &[],
        ok: &[
            (&[], "        x\n         y\n", "\tx\n\t y\n"),
            (&[], "       \tx  \t y\n", "\tx  \t y\n"),
            (&["-a"], "1234567 8\n123456  8\n", "1234567 8\n123456\t8\n"),
            (&["-a"], "ab  \t  c       d\n", "ab\t  c\t  d\n"),
            (&["-a"], "1234567 \tx 1234  z\n", "1234567\t\tx 1234\tz\n"),
            (&["-t", "4"], "        a   b\n", "\t\ta\tb\n"),
            (&["-t4", "--first-only"], "    a    b\n", "\ta    b\n"),
            (&["--all", "-2"], "a   b", "a\t\tb"),
            (&["-t1"], "trail  \na  b\n", "trail\t\t\na\t\tb\n"),
            (&["-t", "2,5"], "x     y  z\n", "x\t\t y  z\n"),
            (&["-t", "2,5"], "ab  c     d\n", "ab  c     d\n"),
        ],
        err: &[(
            &["-i"],
            "",
            "",
            "unexpand: invalid option -- 'i'\nTry 'unexpand --help' for more information.\n",
            1,
        )],
    };

    #[test]
    fn cases() {
        TABLE.check();
        UNEXPAND.check();
    }

    #[test]
    #[ignore = "compares the tables with the real GNU tools"]
    fn gnu() {
        TABLE.check_gnu();
        UNEXPAND.check_gnu();
    }
}
