//! `return [n]`: leave the current function (or sourced file) with status n.

use super::exit::status_operand;
use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `return`.
pub(crate) const RETURN: Builtin = Builtin {
    name: "return",
    synopsis: "return [n] — return from a function or sourced script with status n",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (in_function, last) = {
            let s = ctx.sh.state.borrow();
            (!s.call_stack.is_empty() || !s.sourcing.is_empty(), s.status)
        };
        if !in_function {
            return ctx
                .fail("can only `return' from a function or sourced script", 2)
                .await;
        }
        match ctx.operands().first() {
            None => Flow::Return(last),
            Some(n) => match status_operand(n) {
                Ok(status) => Flow::Return(status),
                Err(message) => {
                    ctx.fail(&message, 2).await;
                    Flow::Return(2)
                }
            },
        }
    })
}
