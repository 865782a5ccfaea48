//! `trap [-p] [action] [signal ...]`: `EXIT` traps run when the script ends, `ERR` traps after
//! a failing command; other signals are accepted and never fire (there are no signals in the
//! sandbox).

use super::{Builtin, Ctx};
use crate::shell::interp::quote;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `trap`.
pub(crate) const TRAP: Builtin = Builtin {
    name: "trap",
    synopsis:
        "trap [action] [signal ...] — EXIT runs when the script ends, ERR after a failure; signals never fire",
    run,
};

/// The signal name bash prints (`INT` → `SIGINT`, `19` → `SIGSTOP`, `35` → `SIGRTMIN+1`;
/// `EXIT`, `ERR`, `DEBUG`, `RETURN` as is).
fn canonical(sig: &str) -> Option<String> {
    let number = signal_order(sig)?;
    Some(match number {
        0 => "EXIT".into(),
        1..=31 => format!("SIG{}", super::kill::NAMES[number - 1]),
        32 | 33 => number.to_string(),
        34 => "SIGRTMIN".into(),
        35..=49 => format!("SIGRTMIN+{}", number - 34),
        50..=63 => format!("SIGRTMAX-{}", 64 - number),
        64 => "SIGRTMAX".into(),
        65 => "DEBUG".into(),
        66 => "ERR".into(),
        _ => "RETURN".into(),
    })
}

/// Where bash lists a trap: the signal's number (0 for `EXIT`), then `DEBUG`, `ERR` and
/// `RETURN`. None: not a signal.
fn signal_order(sig: &str) -> Option<usize> {
    let upper = sig.to_uppercase();
    if let Ok(n) = upper.parse::<usize>() {
        return (n <= 64).then_some(n);
    }
    let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
    let offset = |text: &str| text.parse::<usize>().ok().filter(|n| *n <= 30);
    Some(match bare {
        "EXIT" => 0,
        "DEBUG" => 65,
        "ERR" => 66,
        "RETURN" => 67,
        "RTMIN" => 34,
        "RTMAX" => 64,
        _ if bare.starts_with("RTMIN+") => 34 + offset(&bare[6..])?,
        _ if bare.starts_with("RTMAX-") => 64 - offset(&bare[6..])?,
        _ => 1 + super::kill::NAMES.iter().position(|n| *n == bare)?,
    })
}

const USAGE: &str = "trap [-lp] [[arg] signal_spec ...]";

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut args: Vec<String> = ctx.operands().to_vec();
        if args.first().map(String::as_str) == Some("--") {
            args.remove(0);
        }
        if args.first().map(String::as_str) == Some("-l") {
            return ctx.print_status(&super::kill::listing()).await;
        }
        let print = args.first().map(String::as_str) == Some("-p");
        if print || args.is_empty() {
            let wanted: Vec<String> = args
                .iter()
                .skip(usize::from(print))
                .filter_map(|s| canonical(s))
                .collect();
            let mut traps: Vec<(String, String)> =
                ctx.sh.state.borrow().traps.clone().into_iter().collect();
            traps.sort_by_key(|(sig, _)| signal_order(sig));
            let mut out = String::new();
            for (sig, action) in traps {
                if wanted.is_empty() || wanted.contains(&sig) {
                    out.push_str(&format!("trap -- {} {sig}\n", quote::single(&action)));
                }
            }
            return ctx.print_status(&out).await;
        }
        if args.len() == 1 && (args[0] == "-" || canonical(&args[0]).is_none()) {
            // One argument resets that signal; an action without a signal is a usage error.
            ctx.fds.eprint(&format!("trap: usage: {USAGE}\n")).await;
            return Flow::Normal(2);
        }
        let (action, signals) =
            if args.len() == 1 || canonical(&args[0]).is_some() && args[0].parse::<u32>().is_ok() {
                ("-".to_string(), args.clone())
            } else {
                (args[0].clone(), args[1..].to_vec())
            };
        let mut status = 0;
        for sig in signals {
            let Some(name) = canonical(&sig) else {
                ctx.fail(&format!("{sig}: invalid signal specification"), 1)
                    .await;
                status = 1;
                continue;
            };
            let mut s = ctx.sh.state.borrow_mut();
            if action == "-" {
                s.traps.remove(&name);
            } else {
                s.traps.insert(name, action.clone());
            }
        }
        Flow::Normal(status)
    })
}
