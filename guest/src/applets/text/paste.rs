//! `paste [-s] [-d LIST] [FILE]...`: merge lines of files side by side (or serially).

use crate::applets::common::inputs_or_stdin;
use crate::applets::common::{finish, open, parse_args, quote_if_needed, Records};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::{Input, LocalFuture, WriteError};

/// The `paste` applet.
pub const APPLET: Applet = Applet {
    name: "paste",
    usage: "paste [OPTION]... [FILE]...\n  -d, --delimiters=LIST   use the characters of LIST in turn instead of TAB\n                          (\\n \\t \\\\ and \\0 for none)\n  -s, --serial            paste one file at a time instead of in parallel\n  -z, --zero-terminated   lines end with NUL\n  -                       standard input (read line by line when repeated)",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "sz",
    short_val: "d",
    long: &["serial", "zero-terminated"],
    long_val: &["delimiters"],
    digits: None,
    stop_at_operand: false,
};

/// An opened operand: a file of its own, or a turn at the shared standard input.
enum Source {
    File(Records, bool),
    Stdin,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let (mut serial, mut eol) = (false, b'\n');
    let mut delims = vec![Some(b'\t')];
    for opt in &opts {
        if opt.is('s', "serial") {
            serial = true;
        } else if opt.is('z', "zero-terminated") {
            eol = 0;
        } else if opt.is('d', "delimiters") {
            match parse_delims(opt.value()) {
                Some(list) => delims = list,
                None => {
                    let message = format!(
                        "delimiter list ends with an unescaped backslash: {}",
                        opt.value()
                    );
                    warn(&mut ctx, message).await;
                    return 1;
                }
            }
        }
    }
    let paths = inputs_or_stdin(operands);
    let mut sources = Vec::new();
    let mut failed = false;
    for path in &paths {
        if path == "-" {
            sources.push(Source::Stdin);
            continue;
        }
        match open(&mut ctx, path) {
            Ok(input) => sources.push(Source::File(Records::new(input, eol), false)),
            Err(e) => {
                warn(&mut ctx, format!("{}: {}", quote_if_needed(path), e.reason)).await;
                failed = true;
            }
        }
    }
    if failed {
        return 1;
    }
    let mut stdin = Records::new(std::mem::replace(&mut ctx.stdin, Input::empty()), eol);
    let result = if serial {
        paste_serial(&mut ctx, &mut sources, &mut stdin, &delims, eol).await
    } else {
        paste_parallel(&mut ctx, &mut sources, &mut stdin, &delims, eol).await
    };
    finish(&mut ctx, result.map(|()| 0)).await
}

/// The delimiter list: `\n \t \\ \0` escapes, `\0` being no delimiter at all. None when it
/// ends with a lone backslash.
fn parse_delims(text: &str) -> Option<Vec<Option<u8>>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'\\' {
            out.push(Some(bytes[at]));
            at += 1;
            continue;
        }
        let c = *bytes.get(at + 1)?;
        out.push(match c {
            b'n' => Some(b'\n'),
            b't' => Some(b'\t'),
            b'0' => None,
            other => Some(other),
        });
        at += 2;
    }
    if out.is_empty() {
        out.push(None);
    }
    Some(out)
}

/// The next line of a source without its terminator; None once it is exhausted.
async fn next_line(source: &mut Source, stdin: &mut Records, eol: u8) -> Option<Vec<u8>> {
    let (records, done) = match source {
        Source::File(records, done) => (records, Some(done)),
        Source::Stdin => (stdin, None),
    };
    if done.as_deref() == Some(&true) {
        return None;
    }
    let mut line = Vec::new();
    if !records.next_into(&mut line).await {
        if let Some(done) = done {
            *done = true;
        }
        return None;
    }
    if line.last() == Some(&eol) {
        line.pop();
    }
    Some(line)
}

async fn paste_parallel(
    ctx: &mut Ctx,
    sources: &mut [Source],
    stdin: &mut Records,
    delims: &[Option<u8>],
    eol: u8,
) -> Result<(), WriteError> {
    let mut out = Vec::new();
    let count = sources.len();
    loop {
        out.clear();
        let mut any = false;
        for (i, source) in sources.iter_mut().enumerate() {
            if let Some(line) = next_line(source, stdin, eol).await {
                any = true;
                out.extend_from_slice(&line);
            }
            if i + 1 < count {
                if let Some(d) = delims[i % delims.len()] {
                    out.push(d);
                }
            }
        }
        if !any {
            return Ok(());
        }
        out.push(eol);
        ctx.stdout.write(&out).await?;
    }
}

async fn paste_serial(
    ctx: &mut Ctx,
    sources: &mut [Source],
    stdin: &mut Records,
    delims: &[Option<u8>],
    eol: u8,
) -> Result<(), WriteError> {
    let mut out = Vec::new();
    for source in sources.iter_mut() {
        out.clear();
        let mut column = 0;
        while let Some(line) = next_line(source, stdin, eol).await {
            if column > 0 {
                if let Some(d) = delims[(column - 1) % delims.len()] {
                    out.push(d);
                }
            }
            out.extend_from_slice(&line);
            column += 1;
        }
        out.push(eol);
        ctx.stdout.write(&out).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::applets::text::cases::Table;

    const TABLE: Table = Table {
        name: "paste",
        files: &[
            ("n3", "1\n2\n3\n"),
            ("f1", "a\nb\n"),
            ("empty", ""),
            ("nonl", "x\ny"),
        ],
        ok: &[
            (&["n3", "f1"], "", "1\ta\n2\tb\n3\t\n"),
            (&["-d,", "n3", "f1"], "", "1,a\n2,b\n3,\n"),
            (&["-s", "n3"], "", "1\t2\t3\n"),
            (&["-s", "-d,", "n3", "f1"], "", "1,2,3\na,b\n"),
            (&["-d", ":,", "n3", "f1", "n3"], "", "1:a,1\n2:b,2\n3:,3\n"),
            (&["-", "-"], "x\ny\n", "x\ty\n"),
            (&["-d", " ", "-", "-"], "x\ny\nz\n", "x y\nz \n"),
            (&["-d", "", "n3", "f1"], "", "1a\n2b\n3\n"),
            (
                &["-d", "\\t-", "n3", "f1", "n3"],
                "",
                "1\ta-1\n2\tb-2\n3\t-3\n",
            ),
            (&["-s", "-d", "\\n", "n3"], "", "1\n2\n3\n"),
            (&["-", "n3"], "a\nb", "a\t1\nb\t2\n\t3\n"),
            (&["-s", "empty"], "", "\n"),
            (&["empty", "n3"], "", "\t1\n\t2\n\t3\n"),
            (&["-s", "n3", "empty", "f1"], "", "1\t2\t3\n\na\tb\n"),
            (&["-d", "\\0", "n3", "f1"], "", "1a\n2b\n3\n"),
            (&["-sd", ",;"], "a\nb\nc\nd\ne\n", "a,b;c,d;e\n"),
            (&["-s", "-d", "\\n,"], "1\n2\n3\n4\n", "1\n2,3\n4\n"),
            (&["-", "-", "-"], "1\n2\n3\n4\n", "1\t2\t3\n4\t\t\n"),
            (&["nonl", "f1"], "", "x\ta\ny\tb\n"),
            (&["-z", "n3"], "", "1\n2\n3\n\0"),
        ],
        err: &[
            (
                &["n3", "missing"],
                "",
                "",
                "paste: missing: No such file or directory\n",
                1,
            ),
            (
                &["-d", "ab\\", "n3"],
                "",
                "",
                "paste: delimiter list ends with an unescaped backslash: ab\\\n",
                1,
            ),
            (
                &["-x"],
                "",
                "",
                "paste: invalid option -- 'x'\nTry 'paste --help' for more information.\n",
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
