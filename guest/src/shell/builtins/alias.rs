//! `alias` and `unalias`: not supported; functions do the same job.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `alias`.
pub(crate) const ALIAS: Builtin = Builtin {
    name: "alias",
    synopsis: "alias — not supported; define a function instead: name() { command \"$@\"; }",
    run,
};

/// `unalias`.
pub(crate) const UNALIAS: Builtin = Builtin {
    name: "unalias",
    synopsis: "unalias — not supported (there are no aliases)",
    run: run_unalias,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        if ctx.operands().is_empty() {
            return Flow::Normal(0);
        }
        ctx.fail(
            "aliases are not supported in this sandbox; define a function instead, e.g. ll() { ls -l \"$@\"; }",
            1,
        )
        .await
    })
}

fn run_unalias(_ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async { Flow::Normal(0) })
}
