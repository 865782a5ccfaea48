//! `echo`: a builtin in bash (so `type`, `command -v` and `builtin` see it as one); it runs
//! the `echo` applet.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `echo`.
pub(crate) const ECHO: Builtin = Builtin {
    name: "echo",
    synopsis: "echo [-neE] [arg ...] — print the arguments (-n: no newline, -e: escapes)",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let Some(applet) = crate::applets::lookup("echo") else {
            return ctx.fail("the echo command is not available", 127).await;
        };
        ctx.sh
            .run_applet(applet, ctx.argv.clone(), &[], ctx.fds.clone())
            .await
    })
}
