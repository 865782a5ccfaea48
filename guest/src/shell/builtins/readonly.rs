//! `readonly [-p] name[=value] ...`: variables that cannot change.

use super::declare::{declare_like, Mode};
use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `readonly`.
pub(crate) const READONLY: Builtin = Builtin {
    name: "readonly",
    synopsis: "readonly [-aA] [-p] name[=value] ... — variables that cannot be changed or unset",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move { declare_like(&ctx, Mode::Readonly).await })
}
