//! `kill [-s SIG | -SIG] pid|%job ...`: end background jobs (see
//! [`crate::shell::interp::jobs`]). There are no other processes: a job ends at once with
//! status 128 + the signal's number (INT and QUIT are ignored, as by bash's jobs when there is
//! no job control); signal 0 only checks that the job runs; `$$` names this script, which
//! then exits.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

const USAGE: &str =
    "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]";

/// The signals a job can be sent, by number (all of them end it).
const SIGNALS: &[(&str, i32)] = &[
    ("HUP", 1),
    ("INT", 2),
    ("QUIT", 3),
    ("ABRT", 6),
    ("KILL", 9),
    ("USR1", 10),
    ("USR2", 12),
    ("PIPE", 13),
    ("ALRM", 14),
    ("TERM", 15),
];

/// The shell's own pretend process id (`$$`).
const SHELL_PID: &str = "1000";

/// `kill`.
pub(crate) const KILL: Builtin = Builtin {
    name: "kill",
    synopsis: "kill [-s SIG | -SIG] pid|%job ... — end background jobs (TERM by default; \
               HUP INT QUIT ABRT KILL USR1 USR2 PIPE ALRM TERM, or 0 to test)",
    run,
};

/// The number of a signal given as `TERM`, `SIGTERM`, `term` or `15`.
fn signal_number(spec: &str) -> Option<i32> {
    if let Ok(number) = spec.parse::<i32>() {
        return (number == 0 || SIGNALS.iter().any(|&(_, n)| n == number)).then_some(number);
    }
    let upper = spec.to_ascii_uppercase();
    let name = upper.strip_prefix("SIG").unwrap_or(&upper);
    SIGNALS.iter().find(|&&(n, _)| n == name).map(|&(_, n)| n)
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands().to_vec();
        let mut signal = 15;
        let mut rest = args.as_slice();
        if let Some(first) = rest.first() {
            let spec = match first.as_str() {
                "-s" | "-n" => {
                    let Some(spec) = rest.get(1) else {
                        return ctx
                            .fail(&format!("{first}: option requires an argument"), 2)
                            .await;
                    };
                    rest = &rest[2..];
                    Some(spec.as_str())
                }
                "-l" | "-L" => {
                    let names: Vec<String> = SIGNALS
                        .iter()
                        .map(|(name, n)| format!("{n}) SIG{name}"))
                        .collect();
                    return ctx.print_status(&format!("{}\n", names.join("\n"))).await;
                }
                "--" => {
                    rest = &rest[1..];
                    None
                }
                option if option.starts_with('-') && option.len() > 1 => {
                    rest = &rest[1..];
                    Some(&option[1..])
                }
                _ => None,
            };
            if let Some(spec) = spec {
                match signal_number(spec) {
                    Some(number) => signal = number,
                    None => {
                        let message = format!("{spec}: invalid signal specification");
                        return ctx.fail(&message, 1).await;
                    }
                }
            }
        }
        if rest.is_empty() {
            ctx.fds.eprint(&format!("kill: usage: {USAGE}\n")).await;
            return Flow::Normal(2);
        }
        let owner = ctx.sh.state.borrow().job_owner;
        let mut status = 0;
        for target in rest {
            if target == SHELL_PID {
                if signal != 0 {
                    return Flow::Exit(128 + signal);
                }
                continue;
            }
            let pid = if target.starts_with('%') {
                match ctx.sh.jobs.find(owner, target) {
                    Some(pid) => pid,
                    None => {
                        status = ctx
                            .fail(&format!("{target}: no such job"), 1)
                            .await
                            .status();
                        continue;
                    }
                }
            } else {
                match target.parse::<u32>() {
                    Ok(pid) => pid,
                    Err(_) => {
                        let message = format!("{target}: arguments must be process or job IDs");
                        status = ctx.fail(&message, 1).await.status();
                        continue;
                    }
                }
            };
            // Without job control, bash's background jobs ignore SIGINT and SIGQUIT.
            let alive = if matches!(signal, 0 | 2 | 3) {
                ctx.sh.jobs.is_running(pid)
            } else {
                ctx.sh.jobs.kill(pid, 128 + signal)
            };
            if !alive {
                status = ctx
                    .fail(&format!("({pid}) - No such process"), 1)
                    .await
                    .status();
            }
        }
        Flow::Normal(status)
    })
}
