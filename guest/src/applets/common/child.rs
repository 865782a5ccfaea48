//! Running another command (`xargs`, `find -exec`, awk's `system()`) with its output
//! forwarded to ours.
//!
//! `Commands::exec` takes the child's streams by value and our `Output`s cannot be shared, so the
//! child writes into two pipes that we drain into our stdout and stderr while it runs (one
//! pipe when they are the same place, `2>&1`, so that its streams keep their order).

use std::collections::BTreeMap;

use super::{warn, SIGPIPE_STATUS};
use crate::applets::{Commands, Ctx};
use crate::task::{join_all, pipe, Input, LocalFuture, Output, PipeReader, Sink, WriteError};

/// Runs `argv` in our working directory with `stdin`; resolves to its exit status, or the
/// error of writing its output to ours (our reader went away, or the sink refused bytes).
pub async fn run_child(ctx: &mut Ctx, argv: Vec<String>, stdin: Input) -> Result<i32, WriteError> {
    let cwd = ctx.cwd.clone();
    run_child_in(ctx, &cwd, argv, stdin).await
}

/// Like [`run_child`], in directory `cwd` (`find -execdir`).
pub async fn run_child_in(
    ctx: &mut Ctx,
    cwd: &str,
    argv: Vec<String>,
    stdin: Input,
) -> Result<i32, WriteError> {
    let commands = ctx.commands.clone();
    let child = Child { cwd, env: None };
    run_forwarded(
        &*commands,
        child,
        argv,
        stdin,
        &mut ctx.stdout,
        &mut ctx.stderr,
    )
    .await
}

/// Where a child command runs: its working directory, and its environment when it is not
/// the shell's.
pub struct Child<'a> {
    /// The working directory.
    pub cwd: &'a str,
    /// The exported environment it gets instead of the shell's.
    pub env: Option<BTreeMap<String, String>>,
}

/// Runs `argv` through `commands` as `child` says, its output forwarded to `stdout` and
/// `stderr`.
pub async fn run_forwarded(
    commands: &dyn Commands,
    child: Child<'_>,
    argv: Vec<String>,
    stdin: Input,
    stdout: &mut Output,
    stderr: &mut Output,
) -> Result<i32, WriteError> {
    let (out_reader, out_writer) = pipe();
    let (err_reader, err_writer) = match stdout.same_sink(stderr) {
        // One place (`2>&1`): one pipe keeps the child's two streams in order.
        true => (pipe().0, out_writer.share()),
        false => pipe(),
    };
    let child = commands.exec(
        argv,
        child.cwd.to_string(),
        child.env,
        stdin,
        Output::new(Sink::Pipe(out_writer)),
        Output::new(Sink::Pipe(err_writer)),
    );
    let mut status = 0;
    let mut failure = None;
    let tasks: Vec<LocalFuture<'_, Step>> = vec![
        Box::pin(async move { Step::Exited(child.await) }),
        Box::pin(forward(out_reader, stdout)),
        Box::pin(forward(err_reader, stderr)),
    ];
    for step in join_all(tasks).await {
        match step {
            Step::Exited(code) => status = code,
            Step::Forwarded(Err(e)) if failure.is_none() => failure = Some(e),
            Step::Forwarded(_) => {}
        }
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(status),
    }
}

/// Our exit status after running a child: its own, 141 when our reader went away, or
/// `failed` (after a `write error:` message) when our output refused its bytes; the way
/// `env`, `timeout`, `nice`, `nohup` and `xargs` end.
pub async fn status_after(ctx: &mut Ctx, ran: Result<i32, WriteError>, failed: i32) -> i32 {
    match ran {
        Ok(status) => status,
        Err(WriteError::BrokenPipe) => SIGPIPE_STATUS,
        Err(WriteError::Refused(message)) => {
            warn(ctx, format_args!("write error: {message}")).await;
            failed
        }
    }
}

enum Step {
    Exited(i32),
    Forwarded(Result<(), WriteError>),
}

/// Copies everything from `reader` to `output`; on a failed write it drops the reader so the
/// child sees a broken pipe, as it would writing to a closed descriptor.
async fn forward(mut reader: PipeReader, output: &mut Output) -> Step {
    while let Some(chunk) = reader.read_chunk().await {
        if let Err(e) = output.write(&chunk).await {
            drop(reader);
            return Step::Forwarded(Err(e));
        }
    }
    Step::Forwarded(output.flush().await)
}
