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

/// Linux's signal names by number (1-31), for `kill -l N`.
pub(crate) const NAMES: [&str; 31] = [
    "HUP", "INT", "QUIT", "ILL", "TRAP", "ABRT", "BUS", "FPE", "KILL", "USR1", "SEGV", "USR2",
    "PIPE", "ALRM", "TERM", "STKFLT", "CHLD", "CONT", "STOP", "TSTP", "TTIN", "TTOU", "URG",
    "XCPU", "XFSZ", "VTALRM", "PROF", "WINCH", "IO", "PWR", "SYS",
];

/// `kill -l` and `trap -l`: Linux's signals as bash lists them, five a line.
pub(crate) fn listing() -> String {
    let name = |n: usize| match n {
        1..=31 => NAMES[n - 1].to_string(),
        34 => "RTMIN".into(),
        35..=49 => format!("RTMIN+{}", n - 34),
        50..=63 => format!("RTMAX-{}", 64 - n),
        _ => "RTMAX".into(),
    };
    let mut out = String::new();
    for (i, n) in (1..=31).chain(34..=64).enumerate() {
        out.push_str(&format!("{n:2}) SIG{}", name(n)));
        out.push(if i % 5 == 4 { '\n' } else { '\t' });
    }
    out.push('\n');
    out
}

/// `kill -l SPEC...`: a number (or an exit status above 128) gives the signal's name, a
/// name its number; status 1 if one was not a signal.
async fn list_some(ctx: &Ctx, specs: &[String]) -> Flow {
    let mut status = 0;
    for spec in specs {
        let found = match spec.parse::<usize>() {
            Ok(0) => Some("EXIT".to_string()),
            Ok(n) => NAMES
                .get((if n > 128 { n - 128 } else { n }).wrapping_sub(1))
                .map(|name| (*name).to_string()),
            Err(_) => {
                let upper = spec.to_ascii_uppercase();
                let name = upper.strip_prefix("SIG").unwrap_or(&upper).to_string();
                NAMES
                    .iter()
                    .position(|n| *n == name)
                    .map(|i| (i + 1).to_string())
            }
        };
        match found {
            Some(text) => {
                ctx.out(&format!("{text}\n")).await;
            }
            None => {
                ctx.fail(&format!("{spec}: invalid signal specification"), 1)
                    .await;
                status = 1;
            }
        }
    }
    Flow::Normal(status)
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
                "-l" | "-L" if rest.len() > 1 => {
                    let specs = match rest[1].as_str() {
                        "--" => &rest[2..],
                        _ => &rest[1..],
                    };
                    return list_some(&ctx, specs).await;
                }
                "-l" | "-L" => return ctx.print_status(&listing()).await,
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
                if let Some(flow) = signal_self(&ctx, signal).await {
                    return flow;
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

/// `kill -SIG $$`: the shell runs its trap for the signal, ignores it when the trap is
/// empty, and else ends with 128 + the signal's number. Some: the shell ends.
async fn signal_self(ctx: &Ctx, signal: i32) -> Option<Flow> {
    let name = usize::try_from(signal - 1)
        .ok()
        .and_then(|i| NAMES.get(i))?;
    let code = ctx
        .sh
        .state
        .borrow()
        .traps
        .get(&format!("SIG{name}"))
        .cloned();
    let Some(code) = code else {
        return Some(Flow::Exit(128 + signal));
    };
    let program = crate::shell::parse(&code).ok()?;
    let status = ctx.sh.state.borrow().status;
    let flow = ctx.sh.run_list(&program, &ctx.fds).await;
    ctx.sh.state.borrow_mut().status = status;
    matches!(flow, Flow::Exit(_)).then_some(flow)
}
