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

/// The signal name bash prints (`INT` → `SIGINT`; `EXIT`, `ERR`, `DEBUG`, `RETURN` as is).
fn canonical(sig: &str) -> Option<String> {
    let upper = sig.to_uppercase();
    let bare = upper.strip_prefix("SIG").unwrap_or(&upper);
    Some(match bare {
        "0" | "EXIT" => "EXIT".into(),
        "ERR" | "DEBUG" | "RETURN" => bare.into(),
        "1" | "HUP" => "SIGHUP".into(),
        "2" | "INT" => "SIGINT".into(),
        "3" | "QUIT" => "SIGQUIT".into(),
        "6" | "ABRT" => "SIGABRT".into(),
        "9" | "KILL" => "SIGKILL".into(),
        "10" | "USR1" => "SIGUSR1".into(),
        "12" | "USR2" => "SIGUSR2".into(),
        "13" | "PIPE" => "SIGPIPE".into(),
        "14" | "ALRM" => "SIGALRM".into(),
        "15" | "TERM" => "SIGTERM".into(),
        "17" | "CHLD" => "SIGCHLD".into(),
        "28" | "WINCH" => "SIGWINCH".into(),
        _ => return None,
    })
}

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
            let traps = ctx.sh.state.borrow().traps.clone();
            let mut out = String::new();
            for (sig, action) in traps {
                if wanted.is_empty() || wanted.contains(&sig) {
                    out.push_str(&format!("trap -- {} {sig}\n", quote::single(&action)));
                }
            }
            return ctx.print_status(&out).await;
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
