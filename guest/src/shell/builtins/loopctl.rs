//! `break [n]` and `continue [n]`: leave, or go to the next iteration of, the nth enclosing
//! loop.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `break`.
pub(crate) const BREAK: Builtin = Builtin {
    name: "break",
    synopsis: "break [n] — leave the n-th enclosing for, while or until loop",
    run: run_break,
};

/// `continue`.
pub(crate) const CONTINUE: Builtin = Builtin {
    name: "continue",
    synopsis: "continue [n] — next iteration of the n-th enclosing loop",
    run: run_continue,
};

fn run_break(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(jump(ctx, true))
}

fn run_continue(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(jump(ctx, false))
}

async fn jump(ctx: Ctx, is_break: bool) -> Flow {
    let depth = ctx.sh.state.borrow().loop_depth;
    if depth == 0 {
        return ctx
            .fail("only meaningful in a `for', `while', or `until' loop", 0)
            .await;
    }
    let n = match ctx.operands().first() {
        None => 1,
        Some(arg) => match arg.parse::<i64>() {
            Ok(n) if n >= 1 => n as usize,
            Ok(_) => {
                // bash leaves every enclosing loop, with status 1.
                ctx.fail(&format!("{arg}: loop count out of range"), 1)
                    .await;
                return Flow::Break(depth as u32, 1);
            }
            Err(_) => {
                // bash abandons the script there (status 128).
                ctx.fail(&format!("{arg}: numeric argument required"), 1)
                    .await;
                return Flow::Exit(128);
            }
        },
    };
    let n = n.min(depth) as u32;
    if is_break {
        Flow::Break(n, 0)
    } else {
        Flow::Continue(n)
    }
}
