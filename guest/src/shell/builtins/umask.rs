//! `umask` and `ulimit`: report fixed values; changes are accepted and have no effect.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `umask`.
pub(crate) const UMASK: Builtin = Builtin {
    name: "umask",
    synopsis: "umask [mode] — show the file creation mask (0022; setting it has no effect)",
    run: run_umask,
};

/// `ulimit`.
pub(crate) const ULIMIT: Builtin = Builtin {
    name: "ulimit",
    synopsis:
        "ulimit [-a] [limit] — resource limits (reported as unlimited; the sandbox has its own)",
    run: run_ulimit,
};

fn run_umask(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        match ctx.operands() {
            [] => ctx.print_status("0022\n").await,
            [s] if s == "-S" => ctx.print_status("u=rwx,g=rx,o=rx\n").await,
            _ => Flow::Normal(0),
        }
    })
}

fn run_ulimit(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let setting = ctx.operands().iter().any(|a| !a.starts_with('-'));
        if setting {
            return Flow::Normal(0);
        }
        ctx.print_status("unlimited\n").await
    })
}
