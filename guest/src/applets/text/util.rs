//! Helpers the text applets share: `--help`, option parsing, opening inputs with each tool's
//! own error wording, GNU file-name quoting, numbers with size suffixes, and ending a run
//! (flush, broken pipe → 141).

use crate::applets::common::{getopt, open_path, usage_error, warn, Opt, OptSpec};
use crate::applets::{Applet, Ctx};
use crate::task::{Input, WriteError};
use crate::vfs::Errno;

/// The exit status of a process killed by SIGPIPE (`yes | head -n 1`).
pub const SIGPIPE_STATUS: i32 = 141;

/// A failed open: the system's description and whether the path is a directory.
pub struct OpenError {
    /// `No such file or directory`, `Is a directory`...
    pub reason: &'static str,
    /// The path names a directory (tools word "read" errors on them differently).
    pub is_dir: bool,
}

/// Whether `args` ask for help: `--help` before any `--`.
pub fn wants_help(args: &[String]) -> bool {
    args.iter()
        .take_while(|arg| arg.as_str() != "--")
        .any(|arg| arg == "--help")
}

/// Prints the applet's usage to stdout (for `--help`); resolves to the exit status 0.
pub async fn print_help(ctx: &mut Ctx, applet: &Applet) -> i32 {
    let text = format!("Usage: {}\n", applet.usage);
    let written = ctx.stdout.write_str(&text).await;
    finish(ctx, written.map(|()| 0)).await
}

/// Handles `--help`, then parses options; `Err(status)` means the run is over (help printed,
/// or a usage error reported with exit status 1).
pub async fn parse_args(
    ctx: &mut Ctx,
    applet: &Applet,
    spec: &OptSpec,
) -> Result<(Vec<Opt>, Vec<String>), i32> {
    if wants_help(&ctx.args) {
        return Err(print_help(ctx, applet).await);
    }
    match getopt(&ctx.args, spec) {
        Ok(parsed) => Ok(parsed),
        Err(message) => Err(usage_error(ctx, message, 1).await),
    }
}

/// Opens an input operand (`-` is stdin, taken once) without formatting the error.
pub fn open(ctx: &mut Ctx, path: &str) -> Result<Input, OpenError> {
    if path == "-" {
        return Ok(std::mem::replace(&mut ctx.stdin, Input::empty()));
    }
    open_path(&ctx.vfs.borrow(), &ctx.cwd, path).map_err(|e| OpenError {
        reason: e.code.description(),
        is_dir: e.code == Errno::EISDIR,
    })
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

/// Opens `path` or prints `tool: path: reason` (the most common GNU wording).
pub async fn open_or_warn(ctx: &mut Ctx, path: &str) -> Option<Input> {
    match open(ctx, path) {
        Ok(input) => Some(input),
        Err(e) => {
            warn(ctx, format!("{}: {}", quotef(path), e.reason)).await;
            None
        }
    }
}

/// Flushes stdout and turns a write failure into the exit status: 141 for a closed pipe
/// (as if killed by SIGPIPE), 1 with a message when the destination refused the bytes.
pub async fn finish(ctx: &mut Ctx, result: Result<i32, WriteError>) -> i32 {
    let result = match result {
        Ok(status) => ctx.stdout.flush().await.map(|()| status),
        Err(e) => Err(e),
    };
    match result {
        Ok(status) => status,
        Err(WriteError::BrokenPipe) => SIGPIPE_STATUS,
        Err(WriteError::Refused(message)) => {
            warn(ctx, format!("write error: {message}")).await;
            1
        }
    }
}

/// GNU's `quotef`: a file name bare when it is shell-safe, else in single quotes.
pub fn quotef(name: &str) -> String {
    let safe = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-/+,:@%^=".contains(&b) || b >= 0x80);
    if safe {
        name.to_string()
    } else {
        quote(name)
    }
}

/// GNU's `quote`: always quoted, `'name'`, or `"it's"` when it holds a single quote.
pub fn quote(name: &str) -> String {
    if name.contains('\'') {
        format!("\"{name}\"")
    } else {
        format!("'{name}'")
    }
}

/// Parses a count with GNU's optional multiplier suffix: `b` 512, `K`/`KiB` 1024, `KB`
/// 1000, and likewise M, G, T, P, E. None when it is not such a number.
pub fn parse_size(text: &str) -> Option<u64> {
    let digits_end = text
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(text.len());
    if digits_end == 0 {
        return None;
    }
    let value: u64 = text[..digits_end].parse().ok()?;
    let factor = size_suffix(&text[digits_end..])?;
    Some(value.saturating_mul(factor))
}

fn size_suffix(suffix: &str) -> Option<u64> {
    if suffix.is_empty() {
        return Some(1);
    }
    if suffix == "b" {
        return Some(512);
    }
    let mut chars = suffix.chars();
    let unit = chars.next()?;
    let power = "kKMGTPEZY".find(unit).map(|at| at.max(1) as u32)?;
    let base: u64 = match chars.as_str() {
        "" | "iB" => 1024,
        "B" => 1000,
        _ => return None,
    };
    Some(base.saturating_pow(power))
}

/// Records of an input ending at a terminator byte: newline-terminated lines, or NUL-terminated
/// records for `-z`.
pub struct Records {
    input: Input,
    delim: u8,
    pending: Vec<u8>,
    start: usize,
}

impl Records {
    /// Records of `input` ending at `delim`.
    pub fn new(input: Input, delim: u8) -> Self {
        Records {
            input,
            delim,
            pending: Vec::new(),
            start: 0,
        }
    }

    /// Appends the next record (with its terminator, if it has one) to `out`; false at the end.
    pub async fn next_into(&mut self, out: &mut Vec<u8>) -> bool {
        if self.delim == b'\n' {
            return self.input.read_line_into(out).await;
        }
        loop {
            let rest = &self.pending[self.start..];
            if let Some(at) = rest.iter().position(|&b| b == self.delim) {
                out.extend_from_slice(&rest[..=at]);
                self.start += at + 1;
                return true;
            }
            match self.input.read_chunk().await {
                Some(chunk) => {
                    self.pending.drain(..self.start);
                    self.start = 0;
                    self.pending.extend_from_slice(&chunk);
                }
                None => {
                    let found = self.start < self.pending.len();
                    out.extend_from_slice(&self.pending[self.start..]);
                    self.start = self.pending.len();
                    return found;
                }
            }
        }
    }
}

/// Splits `data` into lines ending at `delim`; the last line may lack it.
pub fn split_lines(data: &[u8], delim: u8) -> impl Iterator<Item = &[u8]> {
    let mut rest = data;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .iter()
            .position(|&b| b == delim)
            .map_or(rest.len(), |at| at + 1);
        let (line, tail) = rest.split_at(end);
        rest = tail;
        Some(line)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_quotes_and_lines() {
        assert_eq!(parse_size("10"), Some(10));
        assert_eq!(parse_size("2K"), Some(2048));
        assert_eq!(parse_size("2KB"), Some(2000));
        assert_eq!(parse_size("1MiB"), Some(1 << 20));
        assert_eq!(parse_size("3b"), Some(1536));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("5Q"), None);
        assert_eq!(quotef("a.txt"), "a.txt");
        assert_eq!(quotef("a b"), "'a b'");
        assert_eq!(quote("it's"), "\"it's\"");
        let lines: Vec<&[u8]> = split_lines(b"a\nb", b'\n').collect();
        assert_eq!(lines, vec![&b"a\n"[..], &b"b"[..]]);
    }
}
