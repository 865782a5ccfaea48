//! What `head` and `tail` share: their options (`-n N`, `-c N`, `-N`, `-q`, `-v`, `-z`, a
//! count with a sign that means "all but" for head and "from" for tail), and their operands
//! opened in turn with `==> NAME <==` headers.

use crate::applets::common::{open, parse_args, parse_size, warn, Opt, OptSpec};
use crate::applets::Ctx;
use crate::task::{Input, WriteError};

/// What the options ask for.
pub struct Request {
    /// Lines (`-n`) rather than bytes (`-c`).
    pub lines: bool,
    /// The count had the applet's sign (`head -n -5`: all but; `tail -n +5`: from).
    pub signed: bool,
    /// The count.
    pub count: u64,
    /// Print `==> NAME <==` before each input.
    pub headers: bool,
    /// The record terminator: newline, or NUL with `-z`.
    pub delim: u8,
    /// The operands, `-` when there are none.
    pub paths: Vec<String>,
    /// The options not shared (tail's `-f`).
    pub rest: Vec<Opt>,
}

/// Parses the options of `head` (`sign` `-`) or `tail` (`sign` `+`); `Err` holds the exit
/// status of a run that is over (a bad option or count, reported).
pub async fn parse(ctx: &mut Ctx, spec: &OptSpec, sign: char) -> Result<Request, i32> {
    let (opts, operands) = parse_args(ctx, spec, 1).await?;
    let mut request = Request {
        lines: true,
        signed: false,
        count: 10,
        headers: false,
        delim: b'\n',
        paths: crate::applets::common::inputs_or_stdin(operands),
        rest: Vec::new(),
    };
    let mut headers = None;
    for opt in opts {
        if opt.is('n', "lines") || opt.is('c', "bytes") {
            let lines = opt.is('n', "lines");
            let text = opt.value();
            let other = if sign == '-' { '+' } else { '-' };
            let (signed, digits) = match text.strip_prefix(sign) {
                Some(rest) => (true, rest),
                None => (false, text.strip_prefix(other).unwrap_or(text)),
            };
            let Some(count) = parse_size(digits) else {
                let what = if lines { "lines" } else { "bytes" };
                warn(ctx, format!("invalid number of {what}: '{text}'")).await;
                return Err(1);
            };
            (request.lines, request.signed, request.count) = (lines, signed, count);
        } else if opt.is('q', "quiet") || opt.is('q', "silent") {
            headers = Some(false);
        } else if opt.is('v', "verbose") {
            headers = Some(true);
        } else if opt.is('z', "zero-terminated") {
            request.delim = 0;
        } else {
            request.rest.push(opt);
        }
    }
    request.headers = headers.unwrap_or(request.paths.len() > 1);
    Ok(request)
}
/// The operands of `head` and `tail`, opened in turn: one that cannot be opened is reported
/// the way both do and skipped (the status becomes 1); with `headers`, GNU's `==> NAME <==`
/// goes before each, separated by a blank line.
pub struct HeadedInputs<'a> {
    paths: std::slice::Iter<'a, String>,
    headers: bool,
    first: bool,
    /// 1 once an operand could not be opened.
    pub status: i32,
}

impl<'a> HeadedInputs<'a> {
    /// The inputs of `paths`.
    pub fn new(paths: &'a [String], headers: bool) -> Self {
        HeadedInputs {
            paths: paths.iter(),
            headers,
            first: true,
            status: 0,
        }
    }

    /// The next input, its header written; None after the last.
    pub async fn next(&mut self, ctx: &mut Ctx) -> Result<Option<Input>, WriteError> {
        for path in self.paths.by_ref() {
            let input = match open(ctx, path) {
                Ok(input) => input,
                Err(e) => {
                    let message = if e.is_dir {
                        format!("error reading '{path}': {}", e.reason)
                    } else {
                        format!("cannot open '{path}' for reading: {}", e.reason)
                    };
                    warn(ctx, message).await;
                    self.status = 1;
                    continue;
                }
            };
            if self.headers {
                let name = if path == "-" { "standard input" } else { path };
                let sep = if self.first { "" } else { "\n" };
                ctx.stdout
                    .write_str(&format!("{sep}==> {name} <==\n"))
                    .await?;
            }
            self.first = false;
            return Ok(Some(input));
        }
        Ok(None)
    }
}
