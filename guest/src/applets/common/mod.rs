//! What applets share, below all of them (and below the shell): GNU-style option parsing and
//! the `--help` rule, raw bytes in strings, quoting text back into shell syntax,
//! messages, opening inputs, writing output and exit statuses, reading records, numbers
//! with size suffixes, names and paths, modes, file listings, time and dates, wildcard
//! patterns (the shell's too), POSIX regular expressions, and running a child command.

mod args;
pub mod bytes;
mod child;
pub mod float;
mod fmt;
mod glob;
mod mode;
mod names;
mod numbers;
mod output;
pub mod pattern;
pub mod quote;
mod records;
pub mod regex;
mod targets;
mod time;
mod zone;

pub use args::{getopt, parse_args, print_help, print_version, Help, Opt, OptSpec};
pub use child::{run_child, run_child_in, run_forwarded, status_after, Child};
pub use fmt::{blocks_kib, human, map_case, mode_string, recent, type_name};
pub use glob::Glob;
pub use mode::ModeChange;
pub use names::{
    basename, dirname, join, quote, quote_if_needed, relative, strip_trailing_slashes,
};
pub use numbers::{parse_count, parse_size};
pub use output::{
    conclude, err_str, finish, out, out_str, write_and_finish, Exit, Res, SIGPIPE_STATUS,
};
pub use records::{split_lines, Records};
pub use targets::{plan_targets, Placing};
pub use time::{
    civil, days_from_civil, parse_date, parse_date_in, strftime, strftime_in, DAYS, MONTHS,
};
pub use zone::Zone;

use std::fmt::Display;

use super::Ctx;
use crate::entropy::Stream;
use crate::task::{Input, WriteError};
use crate::vfs::{Device, Errno, Vfs, VfsError};

/// Writes `name: message` to the applet's stderr (the form GNU tools use).
pub async fn warn(ctx: &mut Ctx, message: impl Display) {
    let mut line = format!("{}: {message}\n", ctx.name);
    // What stdout holds goes first and the message at once, so where both reach one place
    // (`2>&1`) the lines come out in the order the applet wrote them. stderr failing is
    // nothing an applet can report anywhere else.
    if let Err(WriteError::Refused(refused)) = ctx.stdout.flush().await {
        line = format!("{}: write error: {refused}\n{line}", ctx.name);
    }
    let _ = ctx.stderr.write_str(&line).await;
    let _ = ctx.stderr.flush().await;
}

/// Reports a usage error the GNU way and returns exit status 2 (1 for some tools: pass it).
pub async fn usage_error(ctx: &mut Ctx, message: impl Display, status: i32) -> i32 {
    warn(ctx, message).await;
    let hint = format!("Try '{} --help' for more information.\n", ctx.name);
    let _ = ctx.stderr.write_str(&hint).await;
    status
}

/// A failed open: the system's description and whether the path is a directory.
pub struct OpenError {
    /// `No such file or directory`, `Is a directory`...
    pub reason: &'static str,
    /// The path names a directory (tools word "read" errors on them differently).
    pub is_dir: bool,
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

/// Opens an input operand: `-` is standard input (taken from the context once), anything else
/// a VFS file. The error is the message to print (`foo: No such file or directory`).
pub fn open_input(ctx: &mut Ctx, path: &str) -> Result<Input, String> {
    if path == "-" {
        return Ok(std::mem::replace(&mut ctx.stdin, Input::empty()));
    }
    open_path(&ctx.vfs.borrow(), &ctx.cwd, path).map_err(|e| e.to_string())
}

/// Opens an input operand as [`open_input`] does, or prints why not (`tool: FILE: reason`)
/// and sets `status` to 1: one step of the FILE... loop of `cat`, `sum`, `md5sum`...
pub async fn open_each(ctx: &mut Ctx, path: &str, status: &mut i32) -> Option<Input> {
    match open_input(ctx, path) {
        Ok(input) => Some(input),
        Err(message) => {
            warn(ctx, message).await;
            *status = 1;
            None
        }
    }
}

/// Opens `path` or prints `tool: path: reason` (the most common GNU wording).
pub async fn open_or_warn(ctx: &mut Ctx, path: &str) -> Option<Input> {
    match open(ctx, path) {
        Ok(input) => Some(input),
        Err(e) => {
            warn(ctx, format!("{}: {}", quote_if_needed(path), e.reason)).await;
            None
        }
    }
}

/// Opens a VFS path as an input: a file's shared buffer, or a device's stream (`/dev/zero`
/// and `/dev/urandom` never end).
pub fn open_path(vfs: &Vfs, cwd: &str, path: &str) -> Result<Input, VfsError> {
    match vfs.device(cwd, path) {
        Some(Device::Null) => Ok(Input::empty()),
        Some(Device::Zero) => Ok(Input::endless(|chunk| chunk.fill(0))),
        Some(Device::Random) => {
            let mut stream = Stream::new();
            Ok(Input::endless(move |chunk| stream.fill(chunk)))
        }
        None => vfs.read_shared(cwd, path).map(Input::bytes),
    }
}

/// The operands to read, with `-` (stdin) when there are none.
pub fn inputs_or_stdin(operands: Vec<String>) -> Vec<String> {
    if operands.is_empty() {
        vec!["-".to_string()]
    } else {
        operands
    }
}
