//! `nl [-b STYLE] [-n FORMAT] [-w N] [-s SEP] [-v N] [-i N] [FILE]...`: number lines.

use crate::applets::common::inputs_or_stdin;

use crate::applets::common::regex::{Dialect, Flags, Posix, Tool};
use crate::applets::common::{finish, open, parse_args, quote_if_needed};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `nl` applet.
pub const APPLET: Applet = Applet {
    name: "nl",
    usage: "nl [OPTION]... [FILE]...\n  -b, --body-numbering=STYLE    a all lines, t non-empty lines (default), n none,\n                                pBRE lines matching the basic regular expression\n  -h, --header-numbering=STYLE  the same for header sections (default n)\n  -f, --footer-numbering=STYLE  the same for footer sections (default n)\n  -n, --number-format=FORMAT    ln left-justified, rn right-justified (default),\n                                rz right-justified with leading zeros\n  -w, --number-width=N          width of the number (default 6)\n  -s, --number-separator=STRING  after the number (default TAB)\n  -v, --starting-line-number=N  first number (default 1)\n  -i, --line-increment=N        step (default 1)\n  -l, --join-blank-lines=N      count N consecutive empty lines as one\n  -p, --no-renumber             do not restart numbering at a section\n  -d, --section-delimiter=CC    section delimiter characters (default \\:)",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "p",
    short_val: "bhfnwsvild",
    long: &["no-renumber"],
    long_val: &[
        "body-numbering",
        "header-numbering",
        "footer-numbering",
        "number-format",
        "number-width",
        "number-separator",
        "starting-line-number",
        "line-increment",
        "join-blank-lines",
        "section-delimiter",
    ],
    digits: None,
    stop_at_operand: false,
};

/// Which lines of a section get a number.
enum Style {
    All,
    NonEmpty,
    None,
    Matching(Posix),
}

impl Style {
    fn parse(text: &str) -> Option<Style> {
        match text {
            "a" => Some(Style::All),
            "t" => Some(Style::NonEmpty),
            "n" => Some(Style::None),
            _ => {
                let pattern = text.strip_prefix('p')?;
                let dialect = Dialect::posix(false, Tool::Expr);
                let re = Posix::new(pattern, dialect, Flags::default()).ok()?;
                Some(Style::Matching(re))
            }
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Format {
    Left,
    Right,
    Zeros,
}

struct Options {
    styles: [Style; 3],
    format: Format,
    width: usize,
    sep: String,
    start: i64,
    step: i64,
    join_blank: u64,
    renumber: bool,
    delim: String,
}

/// Numbering state carried across lines and files.
struct State {
    number: i64,
    section: usize,
    blank_run: u64,
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
        Err((message, usage)) => {
            if usage {
                return usage_error(&mut ctx, message, 1).await;
            }
            warn(&mut ctx, message).await;
            return 1;
        }
    };
    let paths = inputs_or_stdin(operands);
    let result = number_all(&mut ctx, &paths, &options).await;
    finish(&mut ctx, result).await
}

/// The options, or the message and whether it is a usage error (followed by `Try ...`).
fn options(opts: &[crate::applets::common::Opt]) -> Result<Options, (String, bool)> {
    let mut o = Options {
        styles: [Style::None, Style::NonEmpty, Style::None],
        format: Format::Right,
        width: 6,
        sep: "\t".to_string(),
        start: 1,
        step: 1,
        join_blank: 1,
        renumber: true,
        delim: "\\:".to_string(),
    };
    for opt in opts {
        let value = opt.value();
        let style_slot = [('h', "header"), ('b', "body"), ('f', "footer")]
            .iter()
            .position(|&(c, name)| opt.is(c, &format!("{name}-numbering")));
        if let Some(slot) = style_slot {
            let names = ["header", "body", "footer"];
            o.styles[slot] = Style::parse(value).ok_or_else(|| {
                let name = names[slot];
                (format!("invalid {name} numbering style: '{value}'"), true)
            })?;
        } else if opt.is('n', "number-format") {
            o.format = match value {
                "ln" => Format::Left,
                "rn" => Format::Right,
                "rz" => Format::Zeros,
                _ => return Err((format!("invalid line numbering format: '{value}'"), true)),
            };
        } else if opt.is('w', "number-width") {
            o.width = match value.parse::<i64>() {
                Ok(w) if w > 0 => usize::try_from(w).unwrap_or(6),
                Ok(_) => {
                    let message = format!(
                        "invalid line number field width: '{value}': Numerical result out of range"
                    );
                    return Err((message, false));
                }
                Err(_) => {
                    return Err((format!("invalid line number field width: '{value}'"), false))
                }
            };
        } else if opt.is('s', "number-separator") {
            o.sep = value.to_string();
        } else if opt.is('v', "starting-line-number") {
            o.start = value
                .parse()
                .map_err(|_| (format!("invalid starting line number: '{value}'"), false))?;
        } else if opt.is('i', "line-increment") {
            o.step = value
                .parse()
                .map_err(|_| (format!("invalid line number increment: '{value}'"), false))?;
        } else if opt.is('l', "join-blank-lines") {
            o.join_blank = value.parse().map_err(|_| {
                (
                    format!("invalid line number of blank lines: '{value}'"),
                    false,
                )
            })?;
        } else if opt.is('p', "no-renumber") {
            o.renumber = false;
        } else if opt.is('d', "section-delimiter") {
            o.delim = match value.len() {
                1 => format!("{value}:"),
                _ => value.to_string(),
            };
        }
    }
    Ok(o)
}

async fn number_all(ctx: &mut Ctx, paths: &[String], o: &Options) -> Result<i32, WriteError> {
    let mut state = State {
        number: o.start,
        section: 1,
        blank_run: 0,
    };
    let mut status = 0;
    let mut line = Vec::new();
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
            let out = number_line(&line, o, &mut state);
            ctx.stdout.write(&out).await?;
        }
    }
    Ok(status)
}

fn number_line(line: &[u8], o: &Options, state: &mut State) -> Vec<u8> {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    if let Some(section) = section_of(body, &o.delim) {
        state.section = section;
        if o.renumber {
            state.number = o.start;
        }
        return b"\n".to_vec();
    }
    let numbered = match &o.styles[state.section] {
        Style::All if body.is_empty() => {
            state.blank_run += 1;
            if state.blank_run >= o.join_blank {
                state.blank_run = 0;
                true
            } else {
                false
            }
        }
        Style::All => {
            state.blank_run = 0;
            true
        }
        Style::NonEmpty => !body.is_empty(),
        Style::None => false,
        Style::Matching(re) => re.is_match(body),
    };
    let mut out = Vec::with_capacity(line.len() + o.width + o.sep.len());
    if numbered {
        let n = state.number;
        let w = o.width;
        let text = match o.format {
            Format::Left => format!("{n:<w$}"),
            Format::Right => format!("{n:>w$}"),
            Format::Zeros if n < 0 => format!("-{:0>width$}", -n, width = w.saturating_sub(1)),
            Format::Zeros => format!("{n:0>w$}"),
        };
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(o.sep.as_bytes());
        state.number += o.step;
    } else {
        out.resize(o.width + o.sep.len(), b' ');
    }
    // GNU ends every line, even a last one without a newline.
    out.extend_from_slice(body);
    out.push(b'\n');
    out
}

/// A line made only of the delimiter 3, 2 or 1 times starts a header, body or footer.
fn section_of(body: &[u8], delim: &str) -> Option<usize> {
    if delim.is_empty() || body.is_empty() || !body.len().is_multiple_of(delim.len()) {
        return None;
    }
    let count = body.len() / delim.len();
    if count > 3 || !body.chunks(delim.len()).all(|c| c == delim.as_bytes()) {
        return None;
    }
    Some(3 - count)
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "nl",
        files: &[("f", "a\nb\n"), ("g", "c\n")],
        ok: &[
            (&[], "a\n\nb\n", "     1\ta\n       \n     2\tb\n"),
            (&["-b", "a"], "a\n\nb\n", "     1\ta\n     2\t\n     3\tb\n"),
            (&["-ba"], "a\n\nb", "     1\ta\n     2\t\n     3\tb\n"),
            (&["-n", "ln"], "a\n\nb\n", "1     \ta\n       \n2     \tb\n"),
            (
                &["-n", "rz", "-w", "3", "-s", ": "],
                "a\n\nb\n",
                "001: a\n     \n002: b\n",
            ),
            (&["-v", "10", "-i", "5"], "a\nb\n", "    10\ta\n    15\tb\n"),
            (&["-ba", "-w1"], "a\n\nb", "1\ta\n2\t\n3\tb\n"),
            (&["-b", "n"], "a\n", "       a\n"),
            (
                &["-b", "pa"],
                "apple\nbanana\ncherry\n",
                "     1\tapple\n     2\tbanana\n       cherry\n",
            ),
            (
                &["-b", "p^b"],
                "apple\nbanana\n",
                "       apple\n     1\tbanana\n",
            ),
            (&[], "a\n\\:\\:\nb\n", "     1\ta\n\n     1\tb\n"),
            (&["-p"], "a\n\\:\\:\nb\n", "     1\ta\n\n     2\tb\n"),
            (
                &[],
                "h\n\\:\\:\\:\nhead\n\\:\\:\nbody\n\\:\nfoot\n",
                "     1\th\n\n       head\n\n     1\tbody\n\n       foot\n",
            ),
            (
                &["-ba", "-l", "2"],
                "\n\n\na\n",
                "       \n     1\t\n       \n     2\ta\n",
            ),
            (&["f", "g"], "", "     1\ta\n     2\tb\n     3\tc\n"),
            (&["-s", "|", "f"], "", "     1|a\n     2|b\n"),
            (
                &["--number-width=2", "--number-format=rz", "f"],
                "",
                "01\ta\n02\tb\n",
            ),
            (
                &["-v", "-1", "-n", "rz", "-w", "3"],
                "a\nb\nc\n",
                "-01\ta\n000\tb\n001\tc\n",
            ),
        ],
        err: &[
            (
                &["-x"],
                "",
                "",
                "nl: invalid option -- 'x'\nTry 'nl --help' for more information.\n",
                1,
            ),
            (
                &["-b", "x", "f"],
                "",
                "",
                "nl: invalid body numbering style: 'x'\nTry 'nl --help' for more information.\n",
                1,
            ),
            (
                &["-n", "xx", "f"],
                "",
                "",
                "nl: invalid line numbering format: 'xx'\nTry 'nl --help' for more information.\n",
                1,
            ),
            (
                &["-w", "0", "f"],
                "",
                "",
                "nl: invalid line number field width: '0': Numerical result out of range\n",
                1,
            ),
            (
                &["missing", "f"],
                "",
                "     1\ta\n     2\tb\n",
                "nl: missing: No such file or directory\n",
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
