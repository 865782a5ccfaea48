//! `builtin name [args]`: run a builtin even if a function has its name.

use super::{lookup, Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `builtin`.
pub(crate) const BUILTIN: Builtin = Builtin {
    name: "builtin",
    synopsis: "builtin name [args] — run the builtin, not a function of the same name",
    run,
};

fn run(mut ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let Some(name) = ctx.operands().first().cloned() else {
            return Flow::Normal(0);
        };
        let disabled = ctx.sh.state.borrow().disabled.contains(&name);
        let Some(builtin) = lookup(&name).filter(|_| !disabled) else {
            return ctx.fail(&format!("{name}: not a shell builtin"), 1).await;
        };
        ctx.argv.remove(0);
        if !ctx.args.is_empty() {
            ctx.args.remove(0);
        }
        (builtin.run)(ctx).await
    })
}
