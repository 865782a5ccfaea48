//! `exec [command [args]]`: with a command, run it and end the shell with its status; with
//! only redirections (`exec >log 2>&1`), make them permanent for the rest of the list.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `exec`.
pub(crate) const EXEC: Builtin = Builtin {
    name: "exec",
    synopsis: "exec [command [args]] — run command in place of the shell; exec >file: redirect the rest of the script",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut args: Vec<_> = ctx.args.iter().skip(1).cloned().collect();
        while let Some(crate::shell::interp::exec::simple::ArgValue::Word(w)) = args.first() {
            if w == "-c" || w == "-l" || w == "--" {
                args.remove(0);
            } else {
                break;
            }
        }
        if args.is_empty() {
            ctx.sh.state.borrow_mut().exec_fds = Some(ctx.fds.clone());
            return Flow::Normal(0);
        }
        let flow = ctx
            .sh
            .dispatch_with(args, Vec::new(), ctx.fds.clone(), true)
            .await;
        match flow {
            Flow::Exit(s) => Flow::Exit(s),
            other => Flow::Exit(other.status()),
        }
    })
}
