//! `wait`: there are no background jobs (`&` runs in the foreground), so nothing to wait for.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `wait`.
pub(crate) const WAIT: Builtin = Builtin {
    name: "wait",
    synopsis:
        "wait [id ...] — wait for background jobs (commands with & already ran to completion)",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut status = 0;
        for arg in ctx.operands().iter().filter(|a| !a.starts_with('-')) {
            let pid = arg.trim_start_matches('%').parse::<u32>().ok();
            let job = ctx
                .sh
                .state
                .borrow()
                .jobs
                .iter()
                .find(|(p, _)| Some(*p) == pid)
                .copied();
            match job {
                Some((_, s)) => status = s,
                None => {
                    status = ctx
                        .fail(&format!("pid {arg} is not a child of this shell"), 127)
                        .await
                        .status()
                }
            }
        }
        Flow::Normal(status)
    })
}
