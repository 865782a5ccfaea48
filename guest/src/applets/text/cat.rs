//! `cat [-nbsAET] [FILE]...`: concatenate files (or stdin) to stdout.

use crate::applets::common::{finish, parse_args};
use crate::applets::common::{inputs_or_stdin, open_each, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;

/// The `cat` applet.
pub const APPLET: Applet = Applet {
    name: "cat",
    usage: "cat [-nbsvAETet] [FILE]...\n  -n  number all lines\n  -b  number non-empty lines\n  -s  squeeze repeated empty lines\n  -v  show nonprinting bytes as ^X and M-X (except tab and newline)\n  -E  show $ at line ends\n  -T  show tabs as ^I\n  -A  same as -vET\n  -e  same as -vE\n  -t  same as -vT",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "nbsAETuvet",
    long: &[
        "number",
        "number-nonblank",
        "squeeze-blank",
        "show-all",
        "show-ends",
        "show-tabs",
        "show-nonprinting",
    ],
    short_val: "",
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

#[derive(Default)]
struct Options {
    number: bool,
    nonblank: bool,
    squeeze: bool,
    ends: bool,
    tabs: bool,
    nonprinting: bool,
}

impl Options {
    fn plain(&self) -> bool {
        !(self.number
            || self.nonblank
            || self.squeeze
            || self.ends
            || self.tabs
            || self.nonprinting)
    }
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut options = Options::default();
        for opt in &opts {
            if opt.is('n', "number") {
                options.number = true;
            } else if opt.is('b', "number-nonblank") {
                options.nonblank = true;
            } else if opt.is('s', "squeeze-blank") {
                options.squeeze = true;
            } else if opt.is('E', "show-ends") {
                options.ends = true;
            } else if opt.is('T', "show-tabs") {
                options.tabs = true;
            } else if opt.is('v', "show-nonprinting") {
                options.nonprinting = true;
            } else if opt.is('A', "show-all") {
                (options.ends, options.tabs, options.nonprinting) = (true, true, true);
            } else if opt.is('e', "\0") {
                (options.ends, options.nonprinting) = (true, true);
            } else if opt.is('t', "\0") {
                (options.tabs, options.nonprinting) = (true, true);
            }
        }
        let mut status = 0;
        let mut state = LineState::default();
        for path in inputs_or_stdin(operands) {
            let Some(input) = open_each(&mut ctx, &path, &mut status).await else {
                continue;
            };
            if let Err(e) = copy(&mut ctx, input, &options, &mut state).await {
                return finish(&mut ctx, Err(e)).await;
            }
        }
        finish(&mut ctx, Ok(status)).await
    })
}

#[derive(Default)]
struct LineState {
    line_no: u64,
    blank_run: bool,
}

async fn copy(
    ctx: &mut Ctx,
    mut input: crate::task::Input,
    options: &Options,
    state: &mut LineState,
) -> Result<(), crate::task::WriteError> {
    if options.plain() {
        while let Some(chunk) = input.read_chunk().await {
            ctx.stdout.write(&chunk).await?;
        }
        return Ok(());
    }
    let mut line = Vec::new();
    while {
        line.clear();
        input.read_line_into(&mut line).await
    } {
        let blank = line == b"\n";
        if options.squeeze && blank && state.blank_run {
            continue;
        }
        state.blank_run = blank;
        let out = decorate(&line, options, state);
        ctx.stdout.write(&out).await?;
    }
    Ok(())
}

fn decorate(line: &[u8], options: &Options, state: &mut LineState) -> Vec<u8> {
    let mut out = Vec::with_capacity(line.len() + 8);
    let blank = line == b"\n";
    if options.nonblank && !blank || options.number && !options.nonblank {
        state.line_no += 1;
        out.extend_from_slice(format!("{:>6}\t", state.line_no).as_bytes());
    }
    let (body, newline) = match line.strip_suffix(b"\n") {
        Some(body) => (body, true),
        None => (line, false),
    };
    for &b in body {
        if options.tabs && b == b'\t' {
            out.extend_from_slice(b"^I");
        } else if options.nonprinting && b != b'\t' && !(0x20..0x7f).contains(&b) {
            out.extend_from_slice(crate::applets::text::cmp::show(b).as_bytes());
        } else {
            out.push(b);
        }
    }
    if options.ends && newline {
        out.push(b'$');
    }
    if newline {
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::{ok, run, run_in, vfs_with, Outcome};

    #[test]
    fn cat_cases() {
        assert_eq!(run("cat", &[], "a\nb\n"), ok("a\nb\n"));
        assert_eq!(run("cat", &["-n"], "a\nb"), ok("     1\ta\n     2\tb"));
        assert_eq!(
            run("cat", &["-b"], "a\n\nb\n"),
            ok("     1\ta\n\n     2\tb\n")
        );
        assert_eq!(run("cat", &["-s"], "a\n\n\n\nb\n"), ok("a\n\nb\n"));
        assert_eq!(run("cat", &["-A"], "a\tb\n"), ok("a^Ib$\n"));
        let vfs = vfs_with(&[("f", "one\n"), ("g", "two\n")]);
        assert_eq!(
            run_in(&vfs, "cat", &["f", "-", "g"], "in\n"),
            ok("one\nin\ntwo\n")
        );
        assert_eq!(
            run_in(&vfs, "cat", &["f", "missing"], ""),
            Outcome {
                stdout: "one\n".into(),
                stderr: "cat: missing: No such file or directory\n".into(),
                status: 1
            }
        );
        assert_eq!(run("cat", &["-z"], "").status, 1);
        assert!(run("cat", &["--help"], "").stdout.starts_with("Usage: cat"));
        assert_eq!(run("cat", &["-E", "-"], "x\n"), ok("x$\n"));
    }

    #[test]
    fn cat_shows_nonprinting() {
        let text = "a\tb\u{1}\u{7f}\r\n\u{e9}";
        assert_eq!(run("cat", &["-v"], text), ok("a\tb^A^?^M\nM-CM-)"));
        assert_eq!(run("cat", &["-e"], text), ok("a\tb^A^?^M$\nM-CM-)"));
        assert_eq!(run("cat", &["-t"], text), ok("a^Ib^A^?^M\nM-CM-)"));
        assert_eq!(run("cat", &["-A"], text), ok("a^Ib^A^?^M$\nM-CM-)"));
    }
}
