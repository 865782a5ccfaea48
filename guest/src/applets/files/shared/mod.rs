//! Helpers the file applets share: writing with GNU exit codes, option parsing with `--help`,
//! quoting names in messages, paths, modes and sizes, time and dates, globbing.

mod fmt;
mod glob;
mod mode;
mod names;
mod targets;
mod time;

pub use crate::applets::common::{run_child, run_child_in};
pub use fmt::{blocks_kib, human, mode_string, recent, type_name};
pub use glob::Glob;
pub use mode::{ModeChange, UMASK};
pub use names::{
    basename, dirname, join, quote, quote_if_needed, relative, strip_trailing_slashes,
};
pub use targets::plan_targets;
pub use time::{civil, days_from_civil, parse_date, strftime};

use crate::applets::common::{getopt, usage_error, warn, Opt, OptSpec};
use crate::applets::Ctx;
use crate::task::WriteError;

/// An applet must stop now with this exit status (a broken pipe is 141, like SIGPIPE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit(pub i32);

/// Results of the steps of an applet that may have to stop early.
pub type Res<T = ()> = Result<T, Exit>;

/// Maps a failed write to the exit status, reporting a refused write (a full quota).
async fn write_failed(ctx: &mut Ctx, err: WriteError) -> Exit {
    match err {
        WriteError::BrokenPipe => Exit(141),
        WriteError::Refused(message) => {
            warn(ctx, format_args!("write error: {message}")).await;
            Exit(1)
        }
    }
}

/// Writes bytes to stdout.
pub async fn out(ctx: &mut Ctx, data: &[u8]) -> Res {
    match ctx.stdout.write(data).await {
        Ok(()) => Ok(()),
        Err(e) => Err(write_failed(ctx, e).await),
    }
}

/// Writes text to stdout.
pub async fn out_str(ctx: &mut Ctx, text: &str) -> Res {
    out(ctx, text.as_bytes()).await
}

/// Flushes stdout and returns `status`, or the status a failed flush calls for.
pub async fn finish(ctx: &mut Ctx, status: i32) -> i32 {
    match ctx.stdout.flush().await {
        Ok(()) => status,
        Err(e) => write_failed(ctx, e).await.0,
    }
}

/// Flushes stdout and turns the outcome of an applet body into its exit status.
pub async fn conclude(ctx: &mut Ctx, result: Res<i32>) -> i32 {
    match result {
        Ok(status) => finish(ctx, status).await,
        Err(Exit(status)) => {
            let _ = ctx.stdout.flush().await;
            status
        }
    }
}

/// Writes `text` to stderr as is (a prompt, `-v` output of a few tools, a raw line).
pub async fn err_str(ctx: &mut Ctx, text: &str) {
    // Nothing can report a failing stderr.
    let _ = ctx.stderr.write_str(text).await;
    let _ = ctx.stderr.flush().await;
}

/// Whether `--help` comes before any operand or `--` (where GNU tools look for it).
pub fn asks_help(args: &[String]) -> bool {
    args.iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--help")
}

/// Prints the applet's usage to stdout: what `NAME --help` does.
pub async fn print_help(ctx: &mut Ctx, usage: &str) -> i32 {
    let text = format!("Usage: {usage}\n");
    let result = out_str(ctx, &text).await;
    conclude(ctx, result.map(|()| 0)).await
}

/// Parses the options GNU-style, answering `--help` and reporting bad options with
/// `bad_status`; `Err` holds the status to return at once.
pub async fn parse_args(
    ctx: &mut Ctx,
    usage: &str,
    spec: &OptSpec,
    bad_status: i32,
) -> Result<(Vec<Opt>, Vec<String>), i32> {
    if asks_help(&ctx.args) {
        return Err(print_help(ctx, usage).await);
    }
    match getopt(&ctx.args, spec) {
        Ok(parsed) => Ok(parsed),
        Err(message) => Err(usage_error(ctx, message, bad_status).await),
    }
}

/// Opens an input operand like `common::open_input` (`-` is stdin), for applets that take
/// a file from an option's value.
pub fn open_input_at(ctx: &mut Ctx, path: &str) -> Result<crate::task::Input, String> {
    crate::applets::common::open_input(ctx, path)
}

/// Parses a non-negative decimal count (an option's value), GNU-style errors aside.
pub fn parse_count(text: &str) -> Option<u64> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}
