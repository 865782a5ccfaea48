//! `hash`: command lookups are not cached, so there is nothing to remember or forget.

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
        Flow::Normal(0)
    })
}
