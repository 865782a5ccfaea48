//! `echo [-neE] [ARG]...`: print the arguments.

use super::printf::{expand_b, Escapes, Flow};
use crate::applets::common::warn;
use crate::applets::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};

/// The `echo` applet.
pub const APPLET: Applet = Applet {
    name: "echo",
    usage: "echo [-neE] [ARG]...\n  -n  no trailing newline\n  -e  interpret backslash escapes\n  -E  do not interpret them (default)",
    help: Help::Own,
    run,
};

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        // The program (`/bin/echo`, `xargs echo`) is coreutils': its `-e` also reads octal
        // as `\NNN` without the leading 0 (bash's builtin prints that as it is).
        let text = escaped(&ctx.args, Escapes::B);
        finish(&mut ctx, &text).await
    })
}

/// What the shell's `echo` builtin writes for `echo ARGS`.
pub fn text(args: &[String]) -> Vec<u8> {
    escaped(args, Escapes::Echo)
}

/// What `echo ARGS` writes, with `-e` decoding by `rules`.
fn escaped(args: &[String], rules: Escapes) -> Vec<u8> {
    let (newline, escapes, words) = parse(args);
    let mut text = Vec::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            text.push(b' ');
        }
        if !escapes {
            text.extend_from_slice(word.as_bytes());
        } else if expand_b(word.as_bytes(), &mut text, rules) == Flow::Stop {
            return text;
        }
    }
    if newline {
        text.push(b'\n');
    }
    text
}

/// Writes `text`: status 0, or 1 on failure (a refused write is reported, a closed pipe is not).
async fn finish(ctx: &mut Ctx, text: &[u8]) -> i32 {
    let mut written = ctx.stdout.write(text).await;
    if written.is_ok() {
        written = ctx.stdout.flush().await;
    }
    match written {
        Ok(()) => 0,
        Err(WriteError::BrokenPipe) => 1,
        Err(WriteError::Refused(message)) => {
            warn(ctx, format_args!("write error: {message}")).await;
            1
        }
    }
}

/// Leading option words (only exact combinations of n, e, E count, as in bash).
fn parse(args: &[String]) -> (bool, bool, &[String]) {
    let (mut newline, mut escapes) = (true, false);
    let mut start = 0;
    for arg in args {
        let Some(flags) = arg.strip_prefix('-') else {
            break;
        };
        if flags.is_empty() || !flags.chars().all(|c| matches!(c, 'n' | 'e' | 'E')) {
            break;
        }
        for c in flags.chars() {
            match c {
                'n' => newline = false,
                'e' => escapes = true,
                _ => escapes = false,
            }
        }
        start += 1;
    }
    (newline, escapes, &args[start..])
}

#[cfg(test)]
mod tests {
    use crate::applets::testing::{ok, run};

    #[test]
    fn echo_cases() {
        assert_eq!(run("echo", &["a", "b"], ""), ok("a b\n"));
        assert_eq!(run("echo", &["-n", "x"], ""), ok("x"));
        assert_eq!(run("echo", &["-e", "a\\tb\\n"], ""), ok("a\tb\n\n"));
        assert_eq!(run("echo", &["-e", "a\\cb"], ""), ok("a"));
        assert_eq!(run("echo", &["-x", "y"], ""), ok("-x y\n"));
        assert_eq!(run("echo", &["-nE", "\\t"], ""), ok("\\t"));
        assert_eq!(run("echo", &[], ""), ok("\n"));
        assert_eq!(run("echo", &["-e", "\\0101"], ""), ok("A\n"));
        // The program reads `\NNN` octal too (coreutils); the builtin does not.
        assert_eq!(
            run(
                "echo",
                &["-e", "\\x41\\x4a|\\101|\\41z|\\0041|\\00041|\\q"],
                ""
            ),
            ok("AJ|A|!z|!|\x041|\\q\n")
        );
        assert_eq!(
            super::text(&["-e".into(), "\\101|\\u00e9|\\E".into()]),
            b"\\101|\xc3\xa9|\x1b\n"
        );
    }
}
