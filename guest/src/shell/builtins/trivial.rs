//! `:`, `true`, `false`: do nothing, successfully or not.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `:`.
pub(crate) const COLON: Builtin = Builtin {
    name: ":",
    synopsis: ": [arguments] — do nothing, successfully (arguments are still expanded)",
    run: succeed,
};

/// `true`.
pub(crate) const TRUE: Builtin = Builtin {
    name: "true",
    synopsis: "true — return a successful result",
    run: succeed,
};

/// `false`.
pub(crate) const FALSE: Builtin = Builtin {
    name: "false",
    synopsis: "false — return an unsuccessful result",
    run: fail,
};

fn succeed(_: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async { Flow::Normal(0) })
}

fn fail(_: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async { Flow::Normal(1) })
}
