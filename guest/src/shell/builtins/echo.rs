//! `echo`: a builtin in bash (so `type`, `command -v` and `builtin` see it as one). It writes
//! what the `echo` applet (`/bin/echo`, `xargs echo`) writes, itself: the shell's most common
//! command pays for no applet context, environment or output pump.

use super::{Builtin, Ctx};
use crate::shell::bytes::has_raw;
use crate::shell::interp::Flow;
use crate::task::{LocalFuture, WriteError};

/// `echo`.
pub(crate) const ECHO: Builtin = Builtin {
    name: "echo",
    synopsis: "echo [-neE] [arg ...] — print the arguments (-n: no newline, -e: escapes)",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands();
        let text = crate::applets::echo_text(args);
        // Raw bytes the arguments carry are written back as bytes; without them, what `-e`
        // made is written as it is (as the applet's output is).
        let written = match ctx.fds.out(1) {
            Some(out) if !args.iter().any(|a| has_raw(a)) => out.write_bytes(&text).await,
            _ => ctx.fds.write(1, &text).await,
        };
        match written {
            Ok(()) => Flow::Normal(0),
            Err(WriteError::BrokenPipe) => Flow::Normal(1),
            Err(WriteError::Refused(message)) => {
                ctx.fail(&format!("write error: {message}"), 1).await
            }
        }
    })
}
