//! `local [options] name[=value] ...`: variables of the running function.

use super::declare::{declare_like, Mode};
use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `local`.
pub(crate) const LOCAL: Builtin = Builtin {
    name: "local",
    synopsis: "local [-aAilrux] name[=value] ... — variables visible only in the running function",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move { declare_like(&ctx, Mode::Local).await })
}
