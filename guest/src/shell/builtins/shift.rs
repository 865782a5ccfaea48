//! `shift [n]`: drop the first n positional parameters.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `shift`.
pub(crate) const SHIFT: Builtin = Builtin {
    name: "shift",
    synopsis: "shift [n] — drop the first n positional parameters (default 1)",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let n = match ctx.operands().first() {
            None => 1,
            Some(arg) => match arg.parse::<i64>() {
                Ok(n) if n >= 0 => n as usize,
                Ok(_) => {
                    return ctx
                        .fail(&format!("{arg}: shift count out of range"), 1)
                        .await
                }
                Err(_) => {
                    return ctx
                        .fail(&format!("{arg}: numeric argument required"), 1)
                        .await
                }
            },
        };
        let mut s = ctx.sh.state.borrow_mut();
        if n > s.positional.len() {
            return Flow::Normal(1);
        }
        s.positional.drain(..n);
        Flow::Normal(0)
    })
}
