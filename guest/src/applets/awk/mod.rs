//! awk: a real awk (gawk-compatible on what agents write) in its own lexer, parser, compiler
//! and bytecode interpreter.
//!
//! Layout: `lexer` → `parser` (syntax tree in `ast`) → `compile` (bytecode in `code`) →
//! `interp` (the machine; `io` for files, `record` for RS/FS, `value`/`array` for data,
//! `format` for printf, `ere` for regexes, `chars` for UTF-8 character counting).
//!
//! Known differences from gawk: `for (k in a)` visits keys in insertion order (gawk's order
//! is unspecified; `PROCINFO["sorted_in"]` is honoured); regexes match leftmost-first, not
//! leftmost-longest, for alternations (`/a|ab/`); commands (`print | cmd`, `cmd | getline`,
//! `system()`) cannot run in the sandbox and stop with a clear error; `rand()` is
//! deterministic per seed but not gawk's sequence; times are UTC.

mod array;
mod ast;
mod chars;
mod code;
mod compile;
mod ere;
mod format;
mod interp;
mod io;
mod lexer;
mod parser;
mod record;
mod value;

#[cfg(test)]
mod tests;

use super::common::{getopt, usage_error, OptSpec};
use super::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use interp::{process_escapes, Interp, Setup};

/// The `awk` applet.
pub const APPLET: Applet = Applet {
    name: "awk",
    usage: "awk [-F fs] [-v var=value]... 'program' [file | var=value]...\n\
awk [-F fs] [-v var=value]... -f progfile [file | var=value]...\n\
  -F fs            field separator (a character, or a regex; '\\t' for tab)\n\
  -v var=value     assign a variable before the program starts\n\
  -f progfile      read the program from a file (may be repeated)\n\
  -e 'text'        program text (may be repeated, mixed with -f)\n\
  --               end of options\n\
Operands are files ('-' is standard input) or var=value assignments done when reached.\n\
The language is POSIX awk with gawk's extensions: gensub, asort/asorti, strftime/systime/\n\
mktime, bit functions, IGNORECASE, PROCINFO[\"sorted_in\"], BEGINFILE/ENDFILE, nextfile.\n\
print > \"file\" and >> write into the sandbox filesystem; getline < \"file\" reads it.\n\
Commands (print | \"cmd\", \"cmd\" | getline, system()) cannot run here: pipe awk's output\n\
to the command in the shell instead.",
    help: Help::Own,
    run,
};

/// The applets of this group.
pub static APPLETS: &[&Applet] = &[&APPLET];

const SPEC: OptSpec = OptSpec {
    short: "bcPrSsOtNgh",
    short_val: "Fvfe",
    long: &[
        "posix",
        "traditional",
        "re-interval",
        "sandbox",
        "characters-as-bytes",
        "help",
        "version",
        "optimize",
        "no-optimize",
        "use-lc-numeric",
    ],
    long_val: &["field-separator", "assign", "file", "source"],
    digits: None,
    stop_at_operand: true,
};

/// What the command line asks for.
struct Command {
    sources: Vec<(String, Vec<u8>)>,
    fs: Option<Vec<u8>>,
    assigns: Vec<(String, Vec<u8>)>,
    operands: Vec<String>,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let cmd = match parse_command(&mut ctx).await {
            Ok(cmd) => cmd,
            Err(status) => return status,
        };
        let (text, source) = program_text(&cmd.sources);
        let prog = match parser::parse(&text) {
            Ok(prog) => prog,
            Err(e) => return report(&mut ctx, &syntax_message(&text, &source, &e), 1).await,
        };
        for (line, warning) in &prog.warnings {
            let text = format!("awk: {source}:{line}: warning: {warning}\n");
            let _ = ctx.stderr.write_str(&text).await;
        }
        let compiled = match compile::compile(&prog) {
            Ok(c) => c,
            Err(e) => {
                let kind = if e.status == 1 { "error" } else { "fatal" };
                let text = format!("awk: {source}:1: {kind}: {}\n", e.msg);
                return report(&mut ctx, &text, e.status).await;
            }
        };
        for warning in &compiled.warnings {
            let text = format!("awk: {source}:1: warning: {warning}\n");
            let _ = ctx.stderr.write_str(&text).await;
        }
        let mut argv = vec!["awk".to_string()];
        argv.extend(cmd.operands);
        let setup = Setup {
            prog: compiled,
            argv,
            fs: cmd.fs,
            assigns: cmd.assigns,
            source,
        };
        let Ctx {
            stdin,
            stdout,
            stderr,
            cwd,
            env,
            vfs,
            host,
            commands,
            ..
        } = ctx;
        let files = io::Io::new(stdout, stderr, stdin, vfs, cwd, commands);
        Interp::new(setup, files, &env, host).run_program().await
    })
}

async fn report(ctx: &mut Ctx, text: &str, status: i32) -> i32 {
    let _ = ctx.stderr.write_str(text).await;
    let _ = ctx.stderr.flush().await;
    status
}

/// Parses the options; Err is the exit status (after printing help, version or an error).
async fn parse_command(ctx: &mut Ctx) -> Result<Command, i32> {
    let (opts, mut operands) = match getopt(&ctx.args, &SPEC) {
        Ok(parsed) => parsed,
        Err(message) => return Err(usage_error(ctx, message, 1).await),
    };
    let mut cmd = Command {
        sources: Vec::new(),
        fs: None,
        assigns: Vec::new(),
        operands: Vec::new(),
    };
    for opt in &opts {
        if opt.is('h', "help") {
            let text = format!("Usage: {}\n", APPLET.usage);
            let _ = ctx.stdout.write_str(&text).await;
            let _ = ctx.stdout.flush().await;
            return Err(0);
        } else if opt.is('\0', "version") {
            let _ = ctx
                .stdout
                .write_str("GNU Awk 5.2.1 compatible (corral awk)\n")
                .await;
            let _ = ctx.stdout.flush().await;
            return Err(0);
        } else if opt.is('F', "field-separator") {
            let mut warnings = Vec::new();
            cmd.fs = Some(process_escapes(opt.value().as_bytes(), &mut warnings));
            for warning in warnings {
                let _ = ctx
                    .stderr
                    .write_str(&format!("awk: warning: {warning}\n"))
                    .await;
            }
        } else if opt.is('v', "assign") {
            match opt.value().split_once('=') {
                Some((name, value)) if interp::split_assignment(opt.value()).is_some() => {
                    cmd.assigns
                        .push((name.to_string(), value.as_bytes().to_vec()));
                }
                _ => {
                    let msg = format!(
                        "awk: `{}' argument to `-v' not in `var=value' form\n\nUsage: {}\n",
                        opt.value(),
                        APPLET.usage
                    );
                    return Err(report(ctx, &msg, 1).await);
                }
            }
        } else if opt.is('f', "file") {
            let path = opt.value();
            let data = if path == "-" {
                // `-f -`: the program is standard input (read once).
                let mut stdin = std::mem::replace(&mut ctx.stdin, crate::task::Input::empty());
                Ok(stdin.read_all().await)
            } else {
                ctx.vfs.borrow().read(&ctx.cwd, path).map(<[u8]>::to_vec)
            };
            match data {
                Ok(text) => cmd.sources.push((path.to_string(), text)),
                Err(e) => {
                    let msg = format!(
                        "awk: fatal: cannot open source file `{path}' for reading: {}\n",
                        e.code.description()
                    );
                    return Err(report(ctx, &msg, 2).await);
                }
            }
        } else if opt.is('e', "source") {
            cmd.sources
                .push(("cmd. line".to_string(), opt.value().as_bytes().to_vec()));
        }
    }
    if cmd.sources.is_empty() {
        if operands.is_empty() {
            let msg = format!("Usage: {}\n", APPLET.usage);
            return Err(report(ctx, &msg, 1).await);
        }
        let text = operands.remove(0);
        cmd.sources
            .push(("cmd. line".to_string(), text.into_bytes()));
    }
    cmd.operands = operands;
    Ok(cmd)
}

/// The program text (sources joined by newlines) and the name messages use.
fn program_text(sources: &[(String, Vec<u8>)]) -> (Vec<u8>, String) {
    let mut text = Vec::new();
    for (i, (_, src)) in sources.iter().enumerate() {
        if i > 0 {
            text.push(b'\n');
        }
        text.extend_from_slice(src);
    }
    let name = match sources {
        [(name, _)] => name.clone(),
        _ => "cmd. line".to_string(),
    };
    (text, name)
}

/// gawk's two-line syntax error: the source line, then a caret under the offending token
/// (or a one-line `error:` for the errors gawk reports that way).
fn syntax_message(text: &[u8], source: &str, e: &parser::ParseError) -> String {
    if e.plain {
        return format!("awk: {source}:{}: error: {}\n", e.line, e.msg);
    }
    let offset = e.offset.min(text.len());
    let line_start = text[..offset]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line_end = text[line_start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |p| line_start + p);
    let line = String::from_utf8_lossy(&text[line_start..line_end]);
    let column = offset - line_start;
    let prefix = format!("awk: {source}:{}: ", e.line);
    format!(
        "{prefix}{line}\n{prefix}{}^ {}\n",
        " ".repeat(column),
        e.msg
    )
}

/// Parses and compiles an awk program without running it; true when it is accepted. The entry
/// point of the `awk` fuzz target (`guest/fuzz/`).
pub fn check_program(text: &[u8]) -> bool {
    parser::parse(text).is_ok_and(|prog| compile::compile(&prog).is_ok())
}
