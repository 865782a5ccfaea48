//! `hash`: command lookups are not cached, so there is nothing to remember or forget; a
//! name that is no command fails, as in bash.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `hash`.
pub(crate) const HASH: Builtin = Builtin {
    name: "hash",
    synopsis: "hash [-r] [name ...] — accepted; commands are not cached",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        if ctx.operands().is_empty() {
            return ctx.print_status("hash: hash table empty\n").await;
        }
        let mut status = 0;
        for name in ctx.operands().iter().filter(|a| !a.starts_with('-')) {
            if super::type_::kinds(&ctx.sh, name).is_empty() {
                ctx.fail(&format!("{name}: not found"), 1).await;
                status = 1;
            }
        }
        Flow::Normal(status)
    })
}
