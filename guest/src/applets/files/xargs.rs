//! `xargs [-0rt] [-d DELIM] [-n N] [-L N] [-I STR] [-E STR] [-s SIZE] [-a FILE] [CMD [ARG]...]`:
//! build command lines from standard input and run them (through the host, one at a time;
//! `-P` is accepted and ignored). Input is read as it comes, so `yes | xargs -n1 | head` ends.

use crate::applets::common::{
    conclude, err_str, open_input, parse_args, parse_count, run_child, Exit, Res,
};
use crate::applets::common::{status_after, usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::limits::MAX_XARGS_CHARS;
use crate::task::{Input, LocalFuture};

/// The `xargs` applet.
pub const APPLET: Applet = Applet {
    name: "xargs",
    usage: "xargs [OPTION]... [COMMAND [INITIAL-ARGS]...]\nRun COMMAND (default: echo) with INITIAL-ARGS and more arguments read from input.\n  -0, --null                 items are separated by a null, not whitespace\n  -a, --arg-file=FILE        read arguments from FILE, not standard input\n  -d, --delimiter=CHAR       items are separated by CHAR (escapes like \\n allowed)\n  -E, --eof=EOF-STR          stop at an item equal to EOF-STR\n  -e[EOF-STR]                same as -E EOF-STR (no EOF-STR: none)\n  -I, --replace=R            replace R in INITIAL-ARGS with each input line\n  -i[R]                      same as -I R (no R: {})\n  -L, --max-lines=N          use at most N non-blank input lines per command line\n  -n, --max-args=N           use at most N arguments per command line\n  -P, --max-procs=N          accepted; commands run one at a time\n  -r, --no-run-if-empty      if there are no arguments, do not run COMMAND\n  -s, --max-chars=N          limit length of command line to N chars\n  -t, --verbose              print commands (to stderr) before running them\n  -x, --exit                 exit if the size (see -s) is exceeded",
    help: Help::BeforeOperand,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "0rtxil",
    short_val: "adEInLPs",
    long: &["null", "no-run-if-empty", "verbose", "exit"],
    long_val: &[
        "arg-file",
        "delimiter",
        "eof",
        "replace",
        "max-args",
        "max-lines",
        "max-procs",
        "max-chars",
    ],
    digits: None,
    stop_at_operand: true,
};

#[derive(Clone, PartialEq, Eq)]
enum Split {
    Blanks,
    Delim(u8),
}

struct Options {
    split: Split,
    eof: Option<String>,
    replace: Option<String>,
    max_args: Option<usize>,
    max_lines: Option<usize>,
    max_chars: usize,
    no_run_empty: bool,
    verbose: bool,
    arg_file: Option<String>,
}

/// Spells GNU's options with an optional value attached (`-e[EOF]`, `-i[R]`) as long
/// options, up to the command.
fn attach_optional(args: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut takes_value = false;
    for (i, arg) in args.iter().enumerate() {
        if !takes_value && (arg == "--" || !arg.starts_with('-') || arg == "-") {
            out.extend(args[i..].iter().cloned());
            break;
        }
        let was_value = takes_value;
        takes_value = !was_value
            && !arg.starts_with("--")
            && arg.len() == 2
            && SPEC.short_val.contains(&arg[1..]);
        match arg.strip_prefix("-e").filter(|_| !was_value) {
            Some(eof) => out.push(format!("--eof={eof}")),
            None => match arg
                .strip_prefix("-i")
                .filter(|r| !was_value && !r.is_empty())
            {
                Some(pattern) => out.push(format!("--replace={pattern}")),
                None => out.push(arg.clone()),
            },
        }
    }
    out
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        ctx.args = attach_optional(&ctx.args);
        let (opts, command) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = Options {
            split: Split::Blanks,
            eof: None,
            replace: None,
            max_args: None,
            max_lines: None,
            max_chars: MAX_XARGS_CHARS,
            no_run_empty: false,
            verbose: false,
            arg_file: None,
        };
        for opt in &opts {
            let value = opt.value();
            let count = parse_count(value)
                .and_then(|n| usize::try_from(n).ok())
                .filter(|n| *n > 0);
            match opt {
                _ if opt.is('0', "null") => o.split = Split::Delim(0),
                _ if opt.is('d', "delimiter") => match delimiter(value) {
                    Some(d) => o.split = Split::Delim(d),
                    None => {
                        let message = format!("Invalid input delimiter specification {value}: the delimiter must be either a single character or an escape sequence starting with \\.");
                        warn(&mut ctx, message).await;
                        return 1;
                    }
                },
                _ if opt.is('r', "no-run-if-empty") => o.no_run_empty = true,
                _ if opt.is('t', "verbose") => o.verbose = true,
                _ if opt.is('x', "exit") => {}
                _ if opt.is('E', "eof") => {
                    o.eof = Some(value.to_string()).filter(|v| !v.is_empty())
                }
                _ if opt.is('I', "replace") => o.replace = Some(value.to_string()),
                _ if opt.is('i', "\0") => o.replace = Some("{}".to_string()),
                _ if opt.is('l', "\0") => o.max_lines = Some(1),
                _ if opt.is('a', "arg-file") => o.arg_file = Some(value.to_string()),
                _ if opt.is('n', "max-args") => match count {
                    Some(n) => o.max_args = Some(n),
                    None => return bad_number(&mut ctx, value, 'n').await,
                },
                _ if opt.is('L', "max-lines") => match count {
                    Some(n) => o.max_lines = Some(n),
                    None => return bad_number(&mut ctx, value, 'L').await,
                },
                _ if opt.is('s', "max-chars") => match count {
                    Some(n) => o.max_chars = n,
                    None => return bad_number(&mut ctx, value, 's').await,
                },
                _ if opt.is('P', "max-procs") => {}
                _ => {}
            }
        }
        let command = if command.is_empty() {
            vec!["echo".to_string()]
        } else {
            command
        };
        let input = match &o.arg_file {
            Some(path) => match open_input(&mut ctx, path) {
                Ok(input) => input,
                Err(message) => {
                    warn(&mut ctx, format_args!("{message}")).await;
                    return 1;
                }
            },
            None => std::mem::replace(&mut ctx.stdin, Input::empty()),
        };
        let result = drive(&mut ctx, input, &command, &o).await;
        conclude(&mut ctx, result).await
    })
}

async fn bad_number(ctx: &mut Ctx, value: &str, flag: char) -> i32 {
    let message = format!("invalid number \"{value}\" for -{flag} option");
    usage_error(ctx, message, 1).await
}

/// `-d` values: one character or an escape (`\n`, `\t`, `\0`, `\\`, `\x41`, `\101`).
fn delimiter(text: &str) -> Option<u8> {
    let bytes = text.as_bytes();
    match bytes {
        [b] => Some(*b),
        [b'\\', rest @ ..] => match rest {
            [b'n'] => Some(b'\n'),
            [b't'] => Some(b'\t'),
            [b'r'] => Some(b'\r'),
            [b'a'] => Some(7),
            [b'b'] => Some(8),
            [b'f'] => Some(12),
            [b'v'] => Some(11),
            [b'\\'] => Some(b'\\'),
            [b'x', hex @ ..] => u8::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok(),
            digits => u8::from_str_radix(std::str::from_utf8(digits).ok()?, 8).ok(),
        },
        _ => None,
    }
}

/// Splits input into items as it arrives.
struct Lexer {
    split: Split,
    /// The item being read.
    item: Vec<u8>,
    /// Whether anything (even `''`) started an item.
    started: bool,
    quote: Option<u8>,
    escape: bool,
    /// With blanks: a line ended, and whether it ended with a blank (continued).
    line_args: usize,
    last_blank: bool,
}

/// What the lexer found.
enum Token {
    Item(String),
    /// The end of a non-blank input line (for `-L`).
    LineEnd,
}

impl Lexer {
    fn new(split: Split) -> Self {
        Lexer {
            split,
            item: Vec::new(),
            started: false,
            quote: None,
            escape: false,
            line_args: 0,
            last_blank: false,
        }
    }

    fn take(&mut self, out: &mut Vec<Token>) {
        if self.started || !self.item.is_empty() {
            out.push(Token::Item(
                String::from_utf8_lossy(&self.item).into_owned(),
            ));
            self.item.clear();
            self.started = false;
            self.line_args += 1;
        }
    }

    /// Feeds bytes; an error is GNU's complaint about an unmatched quote.
    fn feed(&mut self, data: &[u8], out: &mut Vec<Token>) -> Result<(), String> {
        for &b in data {
            if let Split::Delim(d) = self.split {
                if b == d {
                    self.started = true;
                    self.take(out);
                } else {
                    self.item.push(b);
                }
                continue;
            }
            self.blank_byte(b, out)?;
        }
        Ok(())
    }

    fn blank_byte(&mut self, b: u8, out: &mut Vec<Token>) -> Result<(), String> {
        if self.escape {
            self.escape = false;
            self.item.push(b);
            return Ok(());
        }
        if let Some(q) = self.quote {
            if b == q {
                self.quote = None;
            } else if b == b'\n' {
                let which = if q == b'\'' { "single" } else { "double" };
                return Err(format!("unmatched {which} quote; by default quotes are special to xargs unless you use the -0 option"));
            } else {
                self.item.push(b);
            }
            return Ok(());
        }
        match b {
            b'\\' => self.escape = true,
            b'\'' | b'"' => {
                self.quote = Some(b);
                self.started = true;
            }
            b' ' | b'\t' => {
                self.take(out);
                self.last_blank = true;
                return Ok(());
            }
            b'\n' => {
                self.take(out);
                if self.line_args > 0 && !self.last_blank {
                    out.push(Token::LineEnd);
                    self.line_args = 0;
                }
                return Ok(());
            }
            _ => self.item.push(b),
        }
        self.last_blank = false;
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<Token>) -> Result<(), String> {
        if let Some(q) = self.quote {
            let which = if q == b'\'' { "single" } else { "double" };
            return Err(format!("unmatched {which} quote; by default quotes are special to xargs unless you use the -0 option"));
        }
        if self.split == Split::Blanks {
            self.take(out);
        } else if !self.item.is_empty() {
            self.started = true;
            self.take(out);
        }
        if self.line_args > 0 {
            out.push(Token::LineEnd);
        }
        Ok(())
    }
}

/// In `-I` mode each input line is one argument: leading blanks removed, quotes and
/// backslashes still processed. None for a blank line; Err for an unmatched quote.
fn replace_line(line: &[u8]) -> Result<Option<String>, String> {
    let Some(start) = line.iter().position(|b| *b != b' ' && *b != b'\t') else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(line.len());
    let (mut quote, mut escape) = (None, false);
    for &b in &line[start..] {
        match (escape, quote) {
            (true, _) => {
                out.push(b);
                escape = false;
            }
            (false, Some(q)) if b == q => quote = None,
            (false, Some(_)) => out.push(b),
            (false, None) => match b {
                b'\\' => escape = true,
                b'\'' | b'"' => quote = Some(b),
                _ => out.push(b),
            },
        }
    }
    if let Some(q) = quote {
        let which = if q == b'\'' { "single" } else { "double" };
        return Err(format!("unmatched {which} quote; by default quotes are special to xargs unless you use the -0 option"));
    }
    Ok(Some(String::from_utf8_lossy(&out).into_owned()))
}

/// The state of a run: arguments waiting for a command, and the exit status so far.
struct Batch<'a> {
    command: &'a [String],
    o: &'a Options,
    args: Vec<String>,
    /// The bytes `args` take on the command line (kept, not summed per item: a batch holds
    /// up to 64 Ki items).
    args_len: usize,
    lines: usize,
    status: i32,
    ran: bool,
    base_len: usize,
}

async fn drive(ctx: &mut Ctx, mut input: Input, command: &[String], o: &Options) -> Res<i32> {
    let base_len = command.iter().map(|w| w.len() + 1).sum();
    if base_len > o.max_chars {
        warn(ctx, "argument line too long").await;
        return Ok(1);
    }
    let mut batch = Batch {
        command,
        o,
        args: Vec::new(),
        args_len: 0,
        lines: 0,
        status: 0,
        ran: false,
        base_len,
    };
    if o.replace.is_some() {
        return drive_replace(ctx, &mut input, &mut batch).await;
    }
    let mut lexer = Lexer::new(o.split.clone());
    let mut tokens = Vec::new();
    let mut done = false;
    while !done {
        let failure = match input.read_chunk().await {
            // An item that can never fit (GNU's wording): `xargs < /dev/zero` grew one.
            Some(_) if lexer.item.len() > batch.o.max_chars => {
                Some("argument line too long".to_string())
            }
            Some(chunk) => lexer.feed(&chunk, &mut tokens).err(),
            None => {
                done = true;
                lexer.finish(&mut tokens).err()
            }
        };
        for token in tokens.drain(..) {
            if !accept(ctx, &mut batch, token).await? {
                return finish_batch(ctx, &mut batch).await;
            }
        }
        if let Some(message) = failure {
            // What was read before runs (nothing runs when nothing was read, as in GNU).
            if !batch.args.is_empty() {
                run_batch(ctx, &mut batch).await?;
            }
            warn(ctx, message).await;
            return Ok(1);
        }
    }
    finish_batch(ctx, &mut batch).await
}

/// Takes one token; false when `-E` says the input ends here.
async fn accept(ctx: &mut Ctx, batch: &mut Batch<'_>, token: Token) -> Res<bool> {
    match token {
        Token::LineEnd => {
            batch.lines += 1;
            if batch.o.max_lines.is_some_and(|max| batch.lines >= max) {
                run_batch(ctx, batch).await?;
            }
        }
        Token::Item(item) => {
            if batch.o.eof.as_deref() == Some(item.as_str()) {
                return Ok(false);
            }
            let len = batch.args_len + batch.base_len;
            if batch.base_len + item.len() + 1 > batch.o.max_chars {
                warn(ctx, "argument line too long").await;
                return Err(Exit(1));
            }
            if len + item.len() + 1 > batch.o.max_chars {
                run_batch(ctx, batch).await?;
            }
            batch.args_len += item.len() + 1;
            batch.args.push(item);
            if batch.o.max_args.is_some_and(|max| batch.args.len() >= max)
                && batch.o.max_lines.is_none()
            {
                run_batch(ctx, batch).await?;
            }
        }
    }
    Ok(true)
}

async fn finish_batch(ctx: &mut Ctx, batch: &mut Batch<'_>) -> Res<i32> {
    if !batch.args.is_empty() || (!batch.ran && !batch.o.no_run_empty) {
        run_batch(ctx, batch).await?;
    }
    Ok(batch.status)
}

async fn drive_replace(ctx: &mut Ctx, input: &mut Input, batch: &mut Batch<'_>) -> Res<i32> {
    let pattern = batch.o.replace.clone().unwrap_or_default();
    let delimiter = match batch.o.split {
        Split::Delim(d) => d,
        Split::Blanks => b'\n',
    };
    let mut pending: Vec<u8> = Vec::new();
    let mut done = false;
    while !done {
        match input.read_chunk().await {
            Some(_) if pending.len() > batch.o.max_chars => {
                warn(ctx, "argument line too long").await;
                return Ok(1);
            }
            Some(chunk) => pending.extend_from_slice(&chunk),
            None => {
                done = true;
                if !pending.is_empty() {
                    pending.push(delimiter);
                }
            }
        }
        while let Some(at) = pending.iter().position(|&b| b == delimiter) {
            let item: Vec<u8> = pending.drain(..=at).take(at).collect();
            let arg = if batch.o.split == Split::Blanks {
                match replace_line(&item) {
                    Ok(Some(arg)) => arg,
                    Ok(None) => continue,
                    Err(message) => {
                        warn(ctx, message).await;
                        return Ok(1);
                    }
                }
            } else {
                String::from_utf8_lossy(&item).into_owned()
            };
            if batch.o.eof.as_deref() == Some(arg.trim_end()) {
                return Ok(batch.status);
            }
            let argv: Vec<String> = batch
                .command
                .iter()
                .map(|w| w.replace(&pattern, &arg))
                .collect();
            let status = execute(ctx, argv, batch.o.verbose).await?;
            record(ctx, batch, status).await?;
        }
    }
    Ok(batch.status)
}

async fn run_batch(ctx: &mut Ctx, batch: &mut Batch<'_>) -> Res {
    let mut argv = batch.command.to_vec();
    argv.append(&mut batch.args);
    batch.args_len = 0;
    batch.lines = 0;
    batch.ran = true;
    let status = execute(ctx, argv, batch.o.verbose).await?;
    record(ctx, batch, status).await
}

/// Folds a command's exit status into ours, stopping where GNU stops.
async fn record(ctx: &mut Ctx, batch: &mut Batch<'_>, status: i32) -> Res {
    let name = batch.command.first().cloned().unwrap_or_default();
    match status {
        0 => Ok(()),
        1..=125 => {
            batch.status = 123;
            Ok(())
        }
        126 | 127 => Err(Exit(status)),
        255 => {
            warn(
                ctx,
                format_args!("{name}: exited with status 255; aborting"),
            )
            .await;
            Err(Exit(124))
        }
        141 => Err(Exit(141)),
        _ => {
            warn(
                ctx,
                format_args!("{name}: terminated by signal {}", status - 128),
            )
            .await;
            Err(Exit(125))
        }
    }
}

async fn execute(ctx: &mut Ctx, argv: Vec<String>, verbose: bool) -> Res<i32> {
    if verbose {
        err_str(ctx, &format!("{}\n", argv.join(" "))).await;
    }
    match run_child(ctx, argv, Input::empty()).await {
        Ok(status) => Ok(status),
        failed => Err(Exit(status_after(ctx, failed, 1).await)),
    }
}

#[cfg(test)]
mod tests {
    use super::delimiter;
    use crate::applets::files::testutil::{both, err};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn xargs_splitting() {
        assert_eq!(
            run("xargs", &[], "a b\nc \"d e\" f\\ g\n"),
            ok("a b c d e f g\n")
        );
        assert_eq!(
            run("xargs", &["-n", "2"], "a b c d e\n"),
            ok("a b\nc d\ne\n")
        );
        assert_eq!(
            run("xargs", &["-0", "-n1", "echo"], "a\0b c\0"),
            ok("a\nb c\n")
        );
        assert_eq!(run("xargs", &["-d,", "echo"], "a,b,c"), ok("a b c\n"));
        assert_eq!(
            run("xargs", &["-d", "\\n", "echo"], "a b\nc\n"),
            ok("a b c\n")
        );
        assert_eq!(
            run("xargs", &["-L", "1", "echo"], "a\nb c\n"),
            ok("a\nb c\n")
        );
        assert_eq!(run("xargs", &["-L", "1"], "a \nb\nc\n"), ok("a b\nc\n"));
        assert_eq!(run("xargs", &["-E", "b", "echo"], "a b c\n"), ok("a\n"));
        assert_eq!(
            run("xargs", &["-eSTOP", "echo"], "a b\nSTOP\nc\n"),
            ok("a b\n")
        );
        assert_eq!(run("xargs", &["-e", "echo"], "a\n_\nc\n"), ok("a _ c\n"));
        assert_eq!(run("xargs", &["-n", "1", "-e_"], "a\n_\nc\n"), ok("a\n"));
        assert_eq!(
            run("xargs", &["-i[]", "echo", "<[]>"], "  a b\n"),
            ok("<a b>\n")
        );
        assert_eq!(run("xargs", &["echo", "x"], "'' y\n"), ok("x  y\n"));
        assert_eq!(delimiter("\\x41"), Some(b'A'));
        assert_eq!(delimiter("\\0"), Some(0));
        assert_eq!(delimiter("ab"), None);
    }

    #[test]
    fn xargs_replace_and_verbose() {
        assert_eq!(
            run("xargs", &["-I", "{}", "echo", "x{}y"], "a\nb c\n"),
            ok("xay\nxb cy\n")
        );
        assert_eq!(
            run("xargs", &["-I%", "echo", "[%]"], "  a  \n  b\n"),
            ok("[a  ]\n[b]\n")
        );
        assert_eq!(
            run("xargs", &["-i", "echo", "{}-"], "a\nb\n"),
            ok("a-\nb-\n")
        );
        assert_eq!(
            run("xargs", &["-I{}", "echo", "[{}]"], "\"a b\"\n  c d  \n"),
            ok("[a b]\n[c d  ]\n")
        );
        assert_eq!(
            run("xargs", &["-I{}", "echo", "[{}]"], "it's\n"),
            err("xargs: unmatched single quote; by default quotes are special to xargs unless you use the -0 option\n", 1)
        );
        assert_eq!(
            run("xargs", &["-0", "-I", "{}", "echo", "<{}>"], "a b\0'c\0"),
            ok("<a b>\n<'c>\n")
        );
        assert_eq!(
            run("xargs", &["-I", "{}", "-n", "1", "echo", "{}"], "a b\n"),
            ok("a b\n")
        );
        assert_eq!(
            run("xargs", &["-t", "-n1", "echo"], "a\nb\n"),
            both("a\nb\n", "echo a\necho b\n", 0)
        );
        assert_eq!(
            run("xargs", &["-P", "4", "-n", "1", "echo"], "1 2 3\n"),
            ok("1\n2\n3\n")
        );
        let vfs = vfs_with(&[("list", "x\ny\n"), ("f1", "one\n"), ("f2", "two\n")]);
        assert_eq!(
            run_in(&vfs, "xargs", &["-a", "list", "echo"], ""),
            ok("x y\n")
        );
        assert_eq!(run_in(&vfs, "xargs", &["cat"], "f1 f2"), ok("one\ntwo\n"));
    }

    #[test]
    fn xargs_empty_input_and_statuses() {
        assert_eq!(run("xargs", &["echo", "hi"], ""), ok("hi\n"));
        assert_eq!(run("xargs", &["-r", "echo", "hi"], ""), ok(""));
        assert_eq!(run("xargs", &[], ""), ok("\n"));
        assert_eq!(run("xargs", &["-I", "{}", "echo", "{}"], ""), ok(""));
        assert_eq!(run("xargs", &["false"], "x\n"), err("", 123));
        assert_eq!(run("xargs", &["nope-cmd"], "x\n"), err("", 127));
        assert_eq!(
            run("xargs", &["echo"], "a 'b\n"),
            both("a\n", "xargs: unmatched single quote; by default quotes are special to xargs unless you use the -0 option\n", 1)
        );
        assert_eq!(run("xargs", &["-n", "x"], "a\n"), err("xargs: invalid number \"x\" for -n option\nTry 'xargs --help' for more information.\n", 1));
        assert_eq!(
            run("xargs", &["-s", "5", "echo"], "a b c\n"),
            err("xargs: argument line too long\n", 1)
        );
        assert_eq!(
            run("xargs", &["-s", "12", "echo"], "a b c d\n"),
            ok("a b c\nd\n")
        );
        assert_eq!(
            run("xargs", &["-a", "nope"], ""),
            err("xargs: nope: No such file or directory\n", 1)
        );
        assert_eq!(run("xargs", &["-Q"], "").status, 1);
    }
}
