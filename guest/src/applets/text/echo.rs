//! `echo [-neE] [ARG]...`: print the arguments.

use crate::applets::common::warn;
use crate::applets::{Applet, Ctx};
use crate::task::{LocalFuture, WriteError};

/// The `echo` applet.
pub const APPLET: Applet = Applet {
    name: "echo",
    usage: "echo [-neE] [ARG]...\n  -n  no trailing newline\n  -e  interpret backslash escapes\n  -E  do not interpret them (default)",
    run,
};

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (newline, escapes, words) = parse(&ctx.args);
        let mut text = String::new();
        for (i, word) in words.iter().enumerate() {
            if i > 0 {
                text.push(' ');
            }
            if escapes {
                let (decoded, stop) = decode(word);
                text.push_str(&decoded);
                if stop {
                    return finish(&mut ctx, &text).await;
                }
            } else {
                text.push_str(word);
            }
        }
        if newline {
            text.push('\n');
        }
        finish(&mut ctx, &text).await
    })
}

/// Writes `text`: status 0, or 1 on failure (a refused write is reported, a closed pipe is not).
async fn finish(ctx: &mut Ctx, text: &str) -> i32 {
    let mut written = ctx.stdout.write_str(text).await;
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

/// Decodes `echo -e` escapes; the flag is true at `\c` (stop printing).
fn decode(word: &str) -> (String, bool) {
    let mut out = String::new();
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('e') => out.push('\x1b'),
            Some('\\') => out.push('\\'),
            Some('c') => return (out, true),
            Some('0') => out.push(octal(&mut chars)),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    (out, false)
}

fn octal(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> char {
    let mut value = 0u32;
    for _ in 0..3 {
        match chars.peek().and_then(|c| c.to_digit(8)) {
            Some(d) => {
                value = value * 8 + d;
                chars.next();
            }
            None => break,
        }
    }
    char::from_u32(value).unwrap_or('\0')
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
    }
}
