//! `time` as a command name (`'time' cmd`, `command time cmd`), where bash runs the program
//! `time`: run the command, then print the elapsed time on stderr. At a pipeline's start
//! `time` is the reserved word (the parser's).

use super::{Builtin, Ctx};
use crate::shell::interp::exec::simple::ArgValue;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `time`.
pub(crate) const TIME: Builtin = Builtin {
    name: "time",
    synopsis: "time command [args] — run a command and report the elapsed time on stderr",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut args: Vec<ArgValue> = ctx.args.iter().skip(1).cloned().collect();
        if matches!(args.first(), Some(ArgValue::Word(w)) if w == "-p") {
            args.remove(0);
        }
        let start = ctx.sh.world.host.now_ms();
        let flow = if args.is_empty() {
            Flow::Normal(0)
        } else {
            ctx.sh
                .dispatch_with(args, Vec::new(), ctx.fds.clone(), true)
                .await
        };
        ctx.sh.report_time(start, &ctx.fds).await;
        flow
    })
}
