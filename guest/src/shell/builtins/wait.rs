//! `wait [-n] [id ...]`: wait for background jobs (see [`crate::shell::interp::jobs`]).

use std::rc::Rc;

use super::{Builtin, Ctx};
use crate::shell::interp::jobs::until;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

const USAGE: &str = "wait [-fn] [id ...]";

/// `wait`.
pub(crate) const WAIT: Builtin = Builtin {
    name: "wait",
    synopsis: "wait [-n] [id ...] — wait for background jobs (all, the next one, or these) \
               and return the status of the last one waited for",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let jobs = Rc::clone(&ctx.sh.jobs);
        let owner = ctx.sh.state.borrow().job_owner;
        let mut next = false;
        let mut specs = Vec::new();
        for arg in ctx.operands() {
            match arg.as_str() {
                "-n" => next = true,
                "-f" | "--" => {}
                option if option.starts_with('-') && option.len() > 1 => {
                    return ctx.bad_option(option, USAGE).await;
                }
                spec => specs.push(spec.to_string()),
            }
        }
        if next {
            // The next job of this shell to end (or one that ended unreported).
            if !jobs.any_unreported(owner) {
                return Flow::Normal(127);
            }
            return Flow::Normal(until(|| jobs.reap_next(owner)).await);
        }
        if specs.is_empty() {
            until(|| (!jobs.any_running(owner)).then_some(())).await;
            jobs.reap_all(owner);
            return Flow::Normal(0);
        }
        let mut status = 0;
        for spec in specs {
            status = match jobs.find(owner, &spec) {
                Some(pid) => until(|| jobs.reap(pid)).await,
                None if !spec.starts_with('%') && spec.parse::<u32>().is_err() => {
                    let message = format!("`{spec}': not a pid or valid job spec");
                    ctx.fail(&message, 1).await.status()
                }
                None if spec.starts_with('%') => ctx
                    .fail(&format!("{spec}: no such job"), 127)
                    .await
                    .status(),
                None => {
                    let message = format!("pid {spec} is not a child of this shell");
                    ctx.fail(&message, 127).await.status()
                }
            };
        }
        Flow::Normal(status)
    })
}
