//! `exit [n]` (and `logout`): leave the shell with status n (default: the last status).

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `exit`.
pub(crate) const EXIT: Builtin = Builtin {
    name: "exit",
    synopsis: "exit [n] — end the script with status n (default: the last command's)",
    run,
};

/// `logout`.
pub(crate) const LOGOUT: Builtin = Builtin {
    name: "logout",
    synopsis: "logout [n] — same as exit",
    run,
};

/// The status an `exit`/`return` operand asks for: `Err` with bash's message if it is not a
/// number.
pub(crate) fn status_operand(arg: &str) -> Result<i32, String> {
    match arg.trim().parse::<i64>() {
        Ok(n) => Ok((n & 0xff) as i32),
        Err(_) => Err(format!("{arg}: numeric argument required")),
    }
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let last = {
            let mut state = ctx.sh.state.borrow_mut();
            // A real exit, not a discarded line going up (see `State::discarding`).
            state.discarding = false;
            state.exiting_with.unwrap_or(state.status)
        };
        match ctx.operands() {
            [] => Flow::Exit(last),
            [n] => match status_operand(n) {
                Ok(status) => Flow::Exit(status),
                Err(message) => {
                    ctx.fail(&message, 2).await;
                    Flow::Exit(2)
                }
            },
            [n, ..] => match status_operand(n) {
                Ok(_) => ctx.fail("too many arguments", 1).await,
                Err(message) => {
                    ctx.fail(&message, 2).await;
                    Flow::Exit(2)
                }
            },
        }
    })
}
