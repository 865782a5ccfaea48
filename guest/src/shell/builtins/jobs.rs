//! `jobs`: there are no background jobs.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `jobs`.
pub(crate) const JOBS: Builtin = Builtin {
    name: "jobs",
    synopsis: "jobs — list background jobs (there are none: & runs commands in the foreground)",
    run,
};

fn run(_ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async { Flow::Normal(0) })
}
