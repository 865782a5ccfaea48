//! `export [-n] [-p] name[=value] ...`: pass variables to commands' environment.

use super::declare::{declare_like, Mode};
use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `export`.
pub(crate) const EXPORT: Builtin = Builtin {
    name: "export",
    synopsis: "export [-n] [-p] name[=value] ... — put variables in commands' environment",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move { declare_like(&ctx, Mode::Export).await })
}
