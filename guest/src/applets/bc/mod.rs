//! bc: an arbitrary-precision calculator (GNU bc 1.07 language and output), with its own
//! decimal arithmetic.

mod interp;
mod lexer;
mod num;
mod parser;

#[cfg(test)]
mod tests;

use std::rc::Rc;

use super::common::{getopt, OptSpec};
use super::{Applet, Ctx, Help};
use crate::task::{LocalFuture, WriteError};
use interp::{Interp, Stop};
use lexer::LexError;
use parser::Item;

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[&APPLET];

/// The `bc` applet.
pub const APPLET: Applet = Applet {
    name: "bc",
    usage: USAGE,
    help: Help::Own,
    run,
};

const USAGE: &str = "usage: bc [options] [file ...]
  -h  --help         print this usage and exit
  -i  --interactive  force interactive mode
  -l  --mathlib      use the predefined math routines
  -q  --quiet        don't print initial banner
  -s  --standard     non-standard bc constructs are errors
  -w  --warn         warn about non-standard bc constructs
  -v  --version      print version information and exit";

const SPEC: OptSpec = OptSpec {
    short: "hilqswv",
    short_val: "",
    long: &[
        "help",
        "interactive",
        "mathlib",
        "quiet",
        "standard",
        "warn",
        "version",
    ],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

const MATHLIB: &str = include_str!("mathlib.bc");

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, files) = match getopt(&ctx.args, &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => {
            // GNU bc prints the usage (to stdout) instead of a `Try` hint
            let _ = ctx.stderr.write_str(&format!("bc: {message}\n")).await;
            let _ = ctx.stdout.write_str(&format!("{USAGE}\n")).await;
            return finish(&mut ctx, 1).await;
        }
    };
    if opts.iter().any(|o| o.is('h', "help")) {
        let _ = ctx.stdout.write_str(&format!("{USAGE}\n")).await;
        return finish(&mut ctx, 0).await;
    }
    if opts.iter().any(|o| o.is('v', "version")) {
        let _ = ctx.stdout.write_str("bc 1.07.1\n").await;
        return finish(&mut ctx, 0).await;
    }
    let line_len = ctx
        .env
        .get("BC_LINE_LENGTH")
        .and_then(|v| v.parse::<usize>().ok())
        .map_or(70, |n| if n == 1 { 70 } else { n });
    let mut session = Session {
        interp: Interp::new(line_len),
        done: false,
    };
    if opts.iter().any(|o| o.is('l', "mathlib")) {
        let mut source = Source::new("(mathlib)");
        source.feed(&mut session, MATHLIB);
        source.finish(&mut session);
        session.interp.out.clear();
    }
    // Like GNU bc, the files and then stdin form one stream: an item may run on from one
    // into the next.
    let mut source = Source::new("(standard_in)");
    for file in &files {
        let data = ctx.vfs.borrow().read_shared(&ctx.cwd, file);
        let Ok(data) = data else {
            let _ = ctx
                .stderr
                .write_str(&format!("File {file} is unavailable.\n"))
                .await;
            return finish(&mut ctx, 1).await;
        };
        source.switch_to(file);
        source.feed(&mut session, &String::from_utf8_lossy(&data));
        if let Err(status) = flush(&mut ctx, &mut session).await {
            return status;
        }
        if session.done {
            return finish(&mut ctx, 0).await;
        }
    }
    source.switch_to("(standard_in)");
    let mut line = Vec::new();
    while !session.done {
        line.clear();
        if !ctx.stdin.read_line_into(&mut line).await {
            break;
        }
        source.feed(&mut session, &String::from_utf8_lossy(&line));
        if let Err(status) = flush(&mut ctx, &mut session).await {
            return status;
        }
    }
    if !session.done {
        source.finish(&mut session);
    }
    if let Err(status) = flush(&mut ctx, &mut session).await {
        return status;
    }
    finish(&mut ctx, 0).await
}

async fn flush(ctx: &mut Ctx, session: &mut Session) -> Result<(), i32> {
    let err = std::mem::take(&mut session.interp.err);
    if !err.is_empty() {
        let _ = ctx.stderr.write(&err).await;
        let _ = ctx.stderr.flush().await;
    }
    let out = std::mem::take(&mut session.interp.out);
    match ctx.stdout.write(&out).await {
        Ok(()) => Ok(()),
        Err(WriteError::BrokenPipe) => Err(141),
        Err(WriteError::Refused(msg)) => {
            let _ = ctx.stderr.write_str(&format!("bc: {msg}\n")).await;
            Err(1)
        }
    }
}

async fn finish(ctx: &mut Ctx, status: i32) -> i32 {
    match ctx.stdout.flush().await {
        Ok(()) => status,
        Err(WriteError::BrokenPipe) => 141,
        Err(WriteError::Refused(_)) => 1,
    }
}

/// The interpreter and whether `quit` or `halt` ended the session.
struct Session {
    interp: Interp,
    done: bool,
}

/// One input (a file or stdin): text not yet parsed, and the line it starts on.
struct Source {
    name: String,
    pending: String,
    line: usize,
}

impl Source {
    fn new(name: &str) -> Self {
        Source {
            name: name.to_string(),
            pending: String::new(),
            line: 1,
        }
    }

    /// Goes on reading from another input (errors name it, lines count from 1).
    fn switch_to(&mut self, name: &str) {
        self.name = name.to_string();
        self.line = 1;
    }

    fn error(&self, session: &mut Session, line: usize, msg: &str) {
        let text = format!("{} {line}: {msg}\n", self.name);
        session.interp.err.extend_from_slice(text.as_bytes());
    }

    /// Adds text and runs every item it completes.
    fn feed(&mut self, session: &mut Session, text: &str) {
        self.pending.push_str(text);
        self.process(session, false);
    }

    /// Ends the input: whatever is left unfinished is an error.
    fn finish(&mut self, session: &mut Session) {
        self.process(session, true);
    }

    fn process(&mut self, session: &mut Session, at_eof: bool) {
        if session.done || self.pending.is_empty() {
            return;
        }
        let lexed = match lexer::lex(&self.pending, self.line) {
            Ok(lexed) => lexed,
            Err(LexError::Incomplete(string)) => {
                if at_eof {
                    if string {
                        self.error(session, self.line, "illegal character: \"");
                    } else {
                        session
                            .interp
                            .err
                            .extend_from_slice(b"EOF encountered in a comment.\n");
                    }
                    self.pending.clear();
                }
                return;
            }
        };
        for (line, c) in &lexed.illegal {
            self.error(session, *line, &format!("illegal character: {c}"));
        }
        let chunk = parser::parse(&lexed.tokens);
        for item in chunk.items {
            match item {
                Item::Stmts(stmts) => match session.interp.run_line(&stmts) {
                    Ok(()) | Err(Stop::Error) => {}
                    Err(Stop::Halt | Stop::OutOfTime) => {
                        session.done = true;
                        return;
                    }
                },
                Item::Define(f) => session.interp.define(Rc::clone(&f)),
                Item::Error(line, msg) => self.error(session, line, &msg),
                Item::Quit => {
                    session.done = true;
                    return;
                }
            }
        }
        let consumed = if chunk.incomplete {
            chunk.consumed
        } else {
            self.pending.len()
        };
        self.line += self.pending[..consumed].matches('\n').count();
        self.pending.drain(..consumed);
        if at_eof && chunk.incomplete {
            let line = self.line + self.pending.matches('\n').count();
            self.error(
                session,
                line.max(1) - usize::from(self.pending.ends_with('\n')),
                "syntax error",
            );
            self.pending.clear();
        }
    }
}

/// Lexes and parses a bc program without running it; true when it lexes. The entry point of
/// the `bc` fuzz target (`guest/fuzz/`).
pub fn check_program(text: &str) -> bool {
    match lexer::lex(text, 1) {
        Ok(lexed) => {
            parser::parse(&lexed.tokens);
            true
        }
        Err(_) => false,
    }
}
