//! `yes [STRING]...`: print the arguments (or `y`) forever, until the reader goes away.

use crate::applets::common::finish;
use crate::applets::{Applet, Ctx, Help};
use crate::task::{yield_now, LocalFuture, WriteError};

/// The `yes` applet.
pub const APPLET: Applet = Applet {
    name: "yes",
    usage: "yes [STRING]...\n  Repeatedly output a line with all the STRINGs, or 'y'. Ends when the reader of the\n  output goes away (yes | head -n 3) or the output is refused (a full disk quota).",
    help: Help::Alone,
    run,
};

/// Bytes written per call: whole lines, about this many.
const BLOCK: usize = 16 * 1024;
/// Bytes written between two yields to the executor.
const YIELD_EVERY: usize = 4 << 20;

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let mut args = ctx.args.clone();
    if args.first().is_some_and(|a| a == "--") {
        args.remove(0);
    }
    let mut line = if args.is_empty() {
        "y".to_string()
    } else {
        args.join(" ")
    };
    line.push('\n');
    let block = line.repeat((BLOCK / line.len()).max(1));
    let mut written = 0usize;
    let result: Result<i32, WriteError> = loop {
        if let Err(e) = ctx.stdout.write_str(&block).await {
            break Err(e);
        }
        if let Err(e) = ctx.stdout.flush().await {
            break Err(e);
        }
        written += block.len();
        // A sink that never pushes back (/dev/null, captured output) would let this loop
        // run forever without yielding: let the executor look at the deadline now and
        // then. A local yield, not a host call: JavaScript's synchronous `shell()` runs
        // commands that need no host.
        if written >= YIELD_EVERY {
            written = 0;
            yield_now().await;
        }
    };
    finish(&mut ctx, result).await
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::rc::Rc;
    use std::task::Poll;

    use crate::applets::testing::{vfs_with, TestHost};
    use crate::applets::{lookup, Ctx};
    use crate::task::{pipe, run_until_stalled, Input, LocalFuture, Output, Sink};

    /// Runs `yes ARGS` into a pipe, reads `want` bytes, closes the pipe; the output and status.
    fn yes_then_close(args: &[&str], want: usize) -> (String, i32) {
        let (mut reader, writer) = pipe();
        let vfs = vfs_with(&[]);
        let err = Rc::new(RefCell::new(Vec::new()));
        let ctx = Ctx {
            name: "yes".into(),
            args: args.iter().map(|s| s.to_string()).collect(),
            stdin: Input::empty(),
            stdout: Output::new(Sink::Pipe(writer)),
            stderr: Output::new(Sink::Buffer(err)),
            cwd: "/workspace".into(),
            env: Rc::new(BTreeMap::new()),
            vfs: Rc::clone(&vfs),
            host: Rc::new(TestHost {
                vfs: Rc::clone(&vfs),
            }),
            commands: Rc::new(TestHost { vfs }),
        };
        let Some(applet) = lookup("yes") else {
            return (String::new(), -2);
        };
        let mut future = applet.start(ctx);
        let mut got = Vec::new();
        let mut read: LocalFuture<'_, Option<Vec<u8>>> = Box::pin(reader.read_chunk());
        loop {
            let _ = run_until_stalled(&mut future);
            if let Poll::Ready(Some(chunk)) = run_until_stalled(&mut read) {
                got.extend(chunk);
                if got.len() >= want {
                    break;
                }
                drop(read);
                read = Box::pin(reader.read_chunk());
            }
        }
        drop(read);
        drop(reader);
        let status = match run_until_stalled(&mut future) {
            Poll::Ready(status) => status,
            Poll::Pending => -1,
        };
        got.truncate(want);
        (String::from_utf8_lossy(&got).into_owned(), status)
    }

    #[test]
    fn yes_stops_when_the_reader_goes() {
        assert_eq!(yes_then_close(&[], 6), ("y\ny\ny\n".to_string(), 141));
        assert_eq!(
            yes_then_close(&["a", "b"], 8),
            ("a b\na b\n".to_string(), 141)
        );
        assert_eq!(yes_then_close(&["--", "-n"], 3), ("-n\n".to_string(), 141));
        assert_eq!(yes_then_close(&["x"], 100_000).0.len(), 100_000);
        let help = crate::applets::testing::run("yes", &["--help"], "");
        assert!(help.stdout.starts_with("Usage: yes"));
    }
}
