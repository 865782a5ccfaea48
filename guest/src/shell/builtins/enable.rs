//! `enable [-anps] [name ...]`: list the builtins, or turn some off (`-n`) so that a command
//! of that name runs from `PATH` instead, and back on.

use super::type_::is_builtin;
use super::{Builtin, Ctx};
use crate::shell::interp::exec::simple::is_special_builtin;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `enable`.
pub(crate) const ENABLE: Builtin = Builtin {
    name: "enable",
    synopsis: "enable [-a] [-nps] [name ...] — list the builtins, turn some off (-n) or back on",
    run,
};

const USAGE: &str = "enable [-a] [-dnps] [-f filename] [name ...]";

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (letters, first) = super::short_options(ctx.operands());
        let (mut off, mut all, mut special) = (false, false, false);
        for c in letters {
            match c {
                'n' => off = true,
                'a' => all = true,
                's' => special = true,
                'p' => {}
                _ => return ctx.bad_option(&format!("-{c}"), USAGE).await,
            }
        }
        let names = ctx.operands()[first..].to_vec();
        if names.is_empty() {
            let disabled = ctx.sh.state.borrow().disabled.clone();
            let mut out = String::new();
            let mut listed: Vec<&str> = super::all()
                .map(|b| b.name)
                .filter(|name| is_builtin(name) && (!special || is_special_builtin(name)))
                .collect();
            // In bash's order: by bytes (`.` before `:`).
            listed.sort_unstable();
            for name in listed {
                let is_off = disabled.contains(name);
                if all || is_off == off {
                    out.push_str(if is_off { "enable -n " } else { "enable " });
                    out.push_str(name);
                    out.push('\n');
                }
            }
            return ctx.print_status(&out).await;
        }
        let mut status = 0;
        for name in names {
            if !is_builtin(&name) {
                ctx.fail(&format!("{name}: not a shell builtin"), 1).await;
                status = 1;
                continue;
            }
            let mut s = ctx.sh.state.borrow_mut();
            if off {
                s.disabled.insert(name);
            } else {
                s.disabled.remove(&name);
            }
        }
        Flow::Normal(status)
    })
}
