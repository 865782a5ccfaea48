//! `pwd [-L|-P]`: print the working directory.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `pwd`.
pub(crate) const PWD: Builtin = Builtin {
    name: "pwd",
    synopsis: "pwd [-L|-P] — print the working directory",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let physical = ctx.operands().iter().any(|a| a == "-P");
        let cwd = ctx.sh.state.borrow().cwd.clone();
        let shown = if physical {
            ctx.sh
                .world
                .vfs
                .borrow()
                .canonicalize("/", &cwd)
                .unwrap_or(cwd)
        } else {
            cwd
        };
        ctx.print_status(&format!("{shown}\n")).await
    })
}
