//! `tac [-b] [-s SEP] [FILE]...`: the lines of each input in reverse order.

use crate::applets::common::inputs_or_stdin;
use crate::applets::common::{finish, open, parse_args};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `tac` applet.
pub const APPLET: Applet = Applet {
    name: "tac",
    usage: "tac [OPTION]... [FILE]...\n  -b, --before           attach the separator before each record instead of after\n  -s, --separator=STRING  use STRING instead of newline as the separator",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "b",
    short_val: "s",
    long: &["before"],
    long_val: &["separator"],
    digits: None,
    stop_at_operand: false,
};

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut before = false;
    let mut sep = b"\n".to_vec();
    for opt in &opts {
        if opt.is('b', "before") {
            before = true;
        } else if opt.is('s', "separator") {
            if opt.value().is_empty() {
                warn(&mut ctx, "separator cannot be empty").await;
                return 1;
            }
            sep = opt.value().as_bytes().to_vec();
        }
    }
    let paths = inputs_or_stdin(operands);
    let mut status = 0;
    let mut result = Ok(());
    for path in &paths {
        let mut input = match open(&mut ctx, path) {
            Ok(input) => input,
            Err(e) => {
                let message = if e.is_dir {
                    format!("{path}: read error: Invalid argument")
                } else {
                    format!("failed to open '{path}' for reading: {}", e.reason)
                };
                warn(&mut ctx, message).await;
                status = 1;
                continue;
            }
        };
        let data = input.read_all().await;
        result = write_reversed(&mut ctx, &data, &sep, before).await;
        if result.is_err() {
            break;
        }
    }
    finish(&mut ctx, result.map(|()| status)).await
}

/// Writes the records of `data` last first; each keeps its separator (after it, or before
/// it with `-b`).
async fn write_reversed(
    ctx: &mut Ctx,
    data: &[u8],
    sep: &[u8],
    before: bool,
) -> Result<(), WriteError> {
    let mut starts = vec![0];
    let mut at = 0;
    while let Some(found) = find(&data[at..], sep) {
        let sep_at = at + found;
        starts.push(if before { sep_at } else { sep_at + sep.len() });
        at = sep_at + sep.len();
    }
    if !before || starts.last() != Some(&data.len()) {
        starts.push(data.len());
    }
    starts.dedup();
    for pair in starts.windows(2).rev() {
        ctx.stdout.write(&data[pair[0]..pair[1]]).await?;
    }
    Ok(())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.len() == 1 {
        return haystack.iter().position(|&b| b == needle[0]);
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "tac",
        files: &[("f", "a\nb\n"), ("g", "1\n2")],
        ok: &[
            (&[], "a\nb\nc\n", "c\nb\na\n"),
            (&[], "a\nb\nc", "cb\na\n"),
            (&["f"], "", "b\na\n"),
            (&["f", "g"], "", "b\na\n21\n"),
            (&["g", "-"], "x\ny\n", "21\ny\nx\n"),
            (&["-s", ","], "a,b,c,", "c,b,a,"),
            (&["-s", ","], "a,b,c", "cb,a,"),
            (&["-b"], "a\nb\n", "\n\nba"),
            (&["-b", "-s", ","], ",a,b", ",b,a"),
            (&["--separator=::"], "a::b::", "b::a::"),
            (&[], "", ""),
            (&[], "\n\n", "\n\n"),
        ],
        err: &[
            (
                &["missing", "f"],
                "",
                "b\na\n",
                "tac: failed to open 'missing' for reading: No such file or directory\n",
                1,
            ),
            (
                &["-x"],
                "",
                "",
                "tac: invalid option -- 'x'\nTry 'tac --help' for more information.\n",
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
