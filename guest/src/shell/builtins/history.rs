//! `history`: a script has no command history, as in a non-interactive bash; the options
//! are checked and do nothing (`-p` prints its arguments).

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `history`.
pub(crate) const HISTORY: Builtin = Builtin {
    name: "history",
    synopsis: "history [-c] [n] — the command history, always empty in a script",
    run,
};

const USAGE: &str =
    "history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]";

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands().to_vec();
        let (letters, first) = super::short_options(&args);
        let rest = &args[first..];
        for c in letters {
            match c {
                'c' => {}
                // A file name, or the entry to add: nothing to check.
                'a' | 'n' | 'r' | 'w' | 's' => return Flow::Normal(0),
                'p' => return ctx.print_status(&format!("{}\n", rest.join("\n"))).await,
                'd' => {
                    let Some(offset) = rest.first() else {
                        let flow = ctx.fail("-d: option requires an argument", 2).await;
                        ctx.fds.eprint(&format!("history: usage: {USAGE}\n")).await;
                        return flow;
                    };
                    return ctx
                        .fail(&format!("{offset}: history position out of range"), 1)
                        .await;
                }
                _ => return ctx.bad_option(&format!("-{c}"), USAGE).await,
            }
        }
        match rest {
            [] => Flow::Normal(0),
            [n] if n.parse::<i64>().is_ok() => Flow::Normal(0),
            [n] => {
                ctx.fail(&format!("{n}: numeric argument required"), 1)
                    .await
            }
            _ => ctx.fail("too many arguments", 1).await,
        }
    })
}
