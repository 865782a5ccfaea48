//! Writing an applet's output and ending its run: a closed pipe is exit status 141 (as if
//! killed by SIGPIPE), a refused write (a full quota) is 1 with a message.

use super::warn;
use crate::applets::Ctx;
use crate::task::WriteError;

/// The exit status of a process killed by SIGPIPE (`yes | head -n 1`).
pub const SIGPIPE_STATUS: i32 = 141;

/// An applet must stop now with this exit status (a broken pipe is 141, like SIGPIPE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit(pub i32);

/// Results of the steps of an applet that may have to stop early.
pub type Res<T = ()> = Result<T, Exit>;

/// Maps a failed write to the exit status, reporting a refused write (a full quota).
async fn write_failed(ctx: &mut Ctx, err: WriteError) -> Exit {
    match err {
        WriteError::BrokenPipe => Exit(SIGPIPE_STATUS),
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

/// Flushes stdout and turns the outcome of writing into the exit status: `status` when all
/// went well, else what the failed write calls for.
pub async fn finish(ctx: &mut Ctx, result: Result<i32, WriteError>) -> i32 {
    let result = match result {
        Ok(status) => ctx.stdout.flush().await.map(|()| status),
        Err(e) => Err(e),
    };
    match result {
        Ok(status) => status,
        Err(e) => write_failed(ctx, e).await.0,
    }
}

/// Writes the whole output `data` of a run, flushes, and returns `status` (or what a failed
/// write calls for): the end of applets that build their output first (basename, hexdump).
pub async fn write_and_finish(ctx: &mut Ctx, data: &[u8], status: i32) -> i32 {
    let written = ctx.stdout.write(data).await;
    finish(ctx, written.map(|()| status)).await
}

/// Flushes stdout and turns the outcome of an applet body into its exit status.
pub async fn conclude(ctx: &mut Ctx, result: Res<i32>) -> i32 {
    match result {
        Ok(status) => finish(ctx, Ok(status)).await,
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
