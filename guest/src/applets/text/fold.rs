//! `fold [-bs] [-w WIDTH] [FILE]...`: wrap lines to a width (columns count bytes, with TAB,
//! backspace and carriage return moving the column as GNU's fold does).

use crate::applets::common::inputs_or_stdin;
use crate::applets::common::{finish, open, parse_args, quote_if_needed};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `fold` applet.
pub const APPLET: Applet = Applet {
    name: "fold",
    usage: "fold [OPTION]... [FILE]...\n  -w, --width=WIDTH  use WIDTH columns instead of 80 (also -WIDTH)\n  -s, --spaces       break after the last blank within the width\n  -b, --bytes        count bytes rather than columns (TAB is one byte)",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "bs",
    short_val: "w",
    long: &["bytes", "spaces"],
    long_val: &["width"],
    digits: Some('w'),
    stop_at_operand: false,
};

#[derive(Clone, Copy)]
struct Options {
    width: usize,
    spaces: bool,
    bytes: bool,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut options = Options {
        width: 80,
        spaces: false,
        bytes: false,
    };
    for opt in &opts {
        if opt.is('b', "bytes") {
            options.bytes = true;
        } else if opt.is('s', "spaces") {
            options.spaces = true;
        } else if opt.is('w', "width") {
            match opt.value().parse::<usize>() {
                Ok(0) => {
                    let message = format!(
                        "invalid number of columns: '{}': Numerical result out of range",
                        opt.value()
                    );
                    warn(&mut ctx, message).await;
                    return 1;
                }
                Ok(width) => options.width = width,
                Err(_) => {
                    let message = format!("invalid number of columns: '{}'", opt.value());
                    warn(&mut ctx, message).await;
                    return 1;
                }
            }
        }
    }
    let paths = inputs_or_stdin(operands);
    let result = fold_all(&mut ctx, &paths, options).await;
    finish(&mut ctx, result).await
}

async fn fold_all(ctx: &mut Ctx, paths: &[String], options: Options) -> Result<i32, WriteError> {
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
            fold_line(&line, options, &mut out);
            ctx.stdout.write(&out).await?;
        }
    }
    Ok(status)
}

fn advance(column: usize, b: u8, bytes: bool) -> usize {
    if bytes {
        return column + 1;
    }
    match b {
        b'\x08' => column.saturating_sub(1),
        b'\r' => 0,
        b'\t' => column + 8 - column % 8,
        _ => column + 1,
    }
}

/// GNU's algorithm: add bytes to the pending output line; when one would pass the width,
/// break (after the last blank with `-s`) and rescan it on the new line.
fn fold_line(line: &[u8], o: Options, out: &mut Vec<u8>) {
    let (body, newline) = match line.strip_suffix(b"\n") {
        Some(body) => (body, true),
        None => (line, false),
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut column = 0;
    let mut at = 0;
    while at < body.len() {
        let b = body[at];
        let next = advance(column, b, o.bytes);
        if next <= o.width {
            pending.push(b);
            column = next;
            at += 1;
            continue;
        }
        if o.spaces {
            if let Some(blank) = pending.iter().rposition(|&c| c == b' ' || c == b'\t') {
                out.extend_from_slice(&pending[..=blank]);
                out.push(b'\n');
                pending.drain(..=blank);
                column = pending.iter().fold(0, |c, &p| advance(c, p, o.bytes));
                continue;
            }
        }
        if pending.is_empty() {
            pending.push(b);
            column = next;
            at += 1;
            continue;
        }
        out.extend_from_slice(&pending);
        out.push(b'\n');
        pending.clear();
        column = 0;
    }
    out.extend_from_slice(&pending);
    if newline {
        out.push(b'\n');
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "fold",
        files: &[("n3", "1\n2\n3\n")],
        ok: &[
            (&["-w", "4"], "ééééé\n", "éé\néé\né\n"),
            (
                &["-w", "8"],
                "hello world foo bar\n",
                "hello wo\nrld foo \nbar\n",
            ),
            (
                &["-s", "-w", "8"],
                "hello world foo bar\n",
                "hello \nworld \nfoo bar\n",
            ),
            (&["-w", "10"], "a\tb\tc\n", "a\tb\n\tc\n"),
            (&["-w", "3"], "abcdefghij", "abc\ndef\nghi\nj"),
            (&["-sw", "3"], "a b c d e f\n", "a \nb \nc \nd \ne f\n"),
            (
                &["-s", "-w", "5"],
                "aaaaaaaaaaaa bb\n",
                "aaaaa\naaaaa\naa bb\n",
            ),
            (&["-w5"], "12345\n", "12345\n"),
            (&["-sw5"], "1234 67\n", "1234 \n67\n"),
            (&["-b", "-w", "3"], "x\ty\n", "x\ty\n"),
            (&["-3"], "abcdefg\n", "abc\ndef\ng\n"),
            (&[], "short\n", "short\n"),
            (&["-w", "2", "n3"], "", "1\n2\n3\n"),
            (&["--width=4", "--spaces"], "ab cd ef\n", "ab \ncd \nef\n"),
            (&["-w", "3"], "ab\rcdef\n", "ab\rcde\nf\n"),
        ],
        err: &[
            (
                &["-w", "0", "n3"],
                "",
                "",
                "fold: invalid number of columns: '0': Numerical result out of range\n",
                1,
            ),
            (
                &["-w", "x", "n3"],
                "",
                "",
                "fold: invalid number of columns: 'x'\n",
                1,
            ),
            (
                &["missing"],
                "",
                "",
                "fold: missing: No such file or directory\n",
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
