//! `time command`: run the command, then print the elapsed time on stderr as bash does.

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

fn format(seconds: f64) -> String {
    let minutes = (seconds / 60.0).floor();
    format!("{}m{:.3}s", minutes as u64, seconds - minutes * 60.0)
}

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
        let elapsed = (ctx.sh.world.host.now_ms() - start).max(0.0) / 1000.0;
        let report = format!(
            "\nreal\t{}\nuser\t{}\nsys\t{}\n",
            format(elapsed),
            format(0.0),
            format(0.0)
        );
        ctx.fds.eprint(&report).await;
        flow
    })
}
