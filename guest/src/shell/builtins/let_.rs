//! `let expr ...`: evaluate arithmetic; status 0 if the last value is non-zero.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `let`.
pub(crate) const LET: Builtin = Builtin {
    name: "let",
    synopsis: "let expr [expr ...] — evaluate arithmetic; status 0 if the last value is non-zero",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        if ctx.operands().is_empty() {
            return ctx.fail("expression expected", 1).await;
        }
        let mut last = 0;
        for expr in ctx.operands() {
            match ctx.sh.arith_text(expr) {
                Ok(n) => last = n,
                Err(e) => {
                    let message = match e {
                        crate::shell::interp::expand::ExpandError::Discard(m)
                        | crate::shell::interp::expand::ExpandError::Exit(m)
                        | crate::shell::interp::expand::ExpandError::Failed(m) => m,
                        crate::shell::interp::expand::ExpandError::Flow(f) => return f,
                    };
                    return ctx.fail(&message, 1).await;
                }
            }
        }
        Flow::Normal(i32::from(last == 0))
    })
}
