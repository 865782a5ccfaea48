//! `rev [FILE]...`: reverse the characters of each line, as util-linux's rev does (UTF-8
//! characters; NUL ends a line's text; bytes that are not UTF-8 are an error).

use crate::applets::common::{finish, open, parse_args};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture, WriteError};

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
        let name = if path.is_empty() {
            "stdin"
        } else {
            path.as_str()
        };
        if !rev_file(ctx, &mut input, name, &mut line, &mut out).await? {
            status = 1;
        }
    }
    Ok(status)
}

/// Reverses one input's lines as util-linux's rev does, which reads wide-character lines:
/// a line ends at its first NUL (what follows, up to the newline, is dropped, and the next
/// line joins it), and a byte that is not UTF-8 stops the file with an error naming the line
/// (counted from 0). False after such an error.
async fn rev_file(
    ctx: &mut Ctx,
    input: &mut Input,
    name: &str,
    line: &mut Vec<u8>,
    out: &mut Vec<u8>,
) -> Result<bool, WriteError> {
    let mut pending: Vec<u8> = Vec::new();
    let mut done = 0usize;
    while {
        line.clear();
        input.read_line_into(line).await
    } {
        let segment = match line.iter().position(|&b| b == 0) {
            Some(nul) => &line[..nul],
            None => &line[..],
        };
        let Ok(text) = std::str::from_utf8(segment) else {
            let message =
                format!("{name}: {done}: Invalid or incomplete multibyte or wide character");
            warn(ctx, message).await;
            return Ok(false);
        };
        pending.extend_from_slice(text.as_bytes());
        if pending.last() == Some(&b'\n') {
            pending.pop();
            reverse_into(&pending, out);
            out.push(b'\n');
            ctx.stdout.write(out).await?;
            out.clear();
            pending.clear();
            done += 1;
        }
    }
    if !pending.is_empty() {
        reverse_into(&pending, out);
        ctx.stdout.write(out).await?;
        out.clear();
    }
    Ok(true)
}

/// Reverses the characters of valid UTF-8 text.
fn reverse_into(body: &[u8], out: &mut Vec<u8>) {
    let text = std::str::from_utf8(body).unwrap_or_default();
    let mut buf = [0u8; 4];
    for c in text.chars().rev() {
        out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
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
            (&[], "lin\0e 1\n\nline 3\n", "nil\n3 enil\n"),
            (&[], "ab\0cd\nxy\n", "yxba\n"),
            (&[], "\0abc\nxyz\n", "zyx\n"),
            (&[], "a\0\nb", "ba"),
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
