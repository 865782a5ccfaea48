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

/// `times`.
pub(crate) const TIMES: Builtin = Builtin {
    name: "times",
    synopsis: "times — user and system times of the shell and its children (all zero here)",
    run: times,
};

/// `caller`.
pub(crate) const CALLER: Builtin = Builtin {
    name: "caller",
    synopsis: "caller — in a function, the line and function it was called from; else status 1",
    run: caller,
};

fn times(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        ctx.print_status("0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n")
            .await
    })
}

fn caller(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (line, outer) = {
            let s = ctx.sh.state.borrow();
            let Some(depth) = s.call_stack.len().checked_sub(1) else {
                return Flow::Normal(1);
            };
            let outer = match depth {
                0 => "main".to_string(),
                _ => s.call_stack[depth - 1].clone(),
            };
            (s.line, outer)
        };
        ctx.print_status(&format!("{line} {outer}\n")).await
    })
}
