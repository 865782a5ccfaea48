//! `rev [FILE]...`: reverse the characters of each line (UTF-8 aware, as util-linux's).

use crate::applets::common::{finish, open, parse_args};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `rev` applet.
pub const APPLET: Applet = Applet {
    name: "rev",
    usage: "rev [FILE]...\n  Reverse the characters of every line.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "",
    short_val: "",
    long: &[],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (_, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let result = rev_all(&mut ctx, &operands).await;
    finish(&mut ctx, result).await
}

/// Reverses each file's lines, or stdin's when there are none.
async fn rev_all(ctx: &mut Ctx, paths: &[String]) -> Result<i32, WriteError> {
    let mut status = 0;
    let (mut line, mut out) = (Vec::new(), Vec::new());
    let stdin = [String::new()];
    let paths = if paths.is_empty() { &stdin[..] } else { paths };
    for path in paths {
        // util-linux's rev reads a file named `-`, not stdin.
        let opened = if path.is_empty() {
            open(ctx, "-")
        } else if path == "-" {
            Err(crate::applets::common::OpenError {
                reason: "No such file or directory",
                is_dir: false,
            })
        } else {
            open(ctx, path)
        };
        let mut input = match opened {
            Ok(input) => input,
            Err(e) => {
                warn(ctx, format!("cannot open {path}: {}", e.reason)).await;
                status = 1;
                continue;
            }
        };
        while {
            line.clear();
            input.read_line_into(&mut line).await
        } {
            out.clear();
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            reverse_into(body, &mut out);
            if body.len() < line.len() {
                out.push(b'\n');
            }
            ctx.stdout.write(&out).await?;
        }
    }
    Ok(status)
}

/// Reverses UTF-8 characters (an invalid byte counts as one character).
fn reverse_into(body: &[u8], out: &mut Vec<u8>) {
    let mut end = body.len();
    while end > 0 {
        let mut start = end - 1;
        // Step back over continuation bytes to the lead byte of a valid sequence.
        while start > 0 && end - start < 4 && body[start] & 0xc0 == 0x80 {
            start -= 1;
        }
        if std::str::from_utf8(&body[start..end]).is_err() {
            start = end - 1;
        }
        out.extend_from_slice(&body[start..end]);
        end = start;
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "rev",
        files: &[("f", "one\ntwo\n"), ("g", "xyz")],
        ok: &[
            (&[], "abc\n", "cba\n"),
            (&[], "héllo\n", "olléh\n"),
            (&[], "abc\n\nx", "cba\n\nx"),
            (&["f"], "", "eno\nowt\n"),
            (&["f", "g"], "", "eno\nowt\nzyx"),
            (&[], "日本語\n", "語本日\n"),
            (&[], "a b\tc\n", "c\tb a\n"),
            (&[], "", ""),
        ],
        err: &[
            (
                &["f", "-"],
                "in\n",
                "eno\nowt\n",
                "rev: cannot open -: No such file or directory\n",
                1,
            ),
            (
                &["missing", "f"],
                "",
                "eno\nowt\n",
                "rev: cannot open missing: No such file or directory\n",
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
