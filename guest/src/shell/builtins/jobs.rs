//! `jobs [-lprs]`: list the running background jobs of this shell.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `jobs`.
pub(crate) const JOBS: Builtin = Builtin {
    name: "jobs",
    synopsis: "jobs [-p] — list running background jobs (-p: their process ids)",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut pids_only = false;
        for arg in ctx.operands() {
            match arg.as_str() {
                "-p" => pids_only = true,
                // -l adds nothing worth its own format here; -r: all jobs run; -s: none stop.
                "-l" | "-r" | "--" => {}
                "-s" => return Flow::Normal(0),
                spec if !spec.starts_with('-') => {} // a jobspec: every job is listed
                other => return ctx.bad_option(other, "jobs [-lnprs] [jobspec ...]").await,
            }
        }
        let owner = ctx.sh.state.borrow().job_owner;
        let text = ctx.sh.jobs.listing(owner, pids_only);
        ctx.print_status(&text).await
    })
}
