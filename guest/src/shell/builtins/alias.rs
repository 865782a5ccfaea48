//! `alias` and `unalias`. Aliases expand, as in a bash script, only after
//! `shopt -s expand_aliases`, in commands read after the definition (a later line, or an
//! `eval`); see [`crate::shell::interp::state::State::alias_for`].

use super::{Builtin, Ctx};
use crate::shell::interp::quote;
use crate::shell::interp::state::Alias;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `alias`.
pub(crate) const ALIAS: Builtin = Builtin {
    name: "alias",
    synopsis: "alias [-p] [name[=value] ...] — define or show aliases (expanded after \
               `shopt -s expand_aliases`; a function is often clearer)",
    run,
};

/// `unalias`.
pub(crate) const UNALIAS: Builtin = Builtin {
    name: "unalias",
    synopsis: "unalias [-a] name ... — remove aliases",
    run: run_unalias,
};

fn shown(name: &str, value: &str) -> String {
    format!("alias {name}={}\n", quote::single(value))
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args: Vec<String> = ctx
            .operands()
            .iter()
            .skip_while(|a| *a == "-p")
            .cloned()
            .collect();
        if args.is_empty() {
            let text: String = {
                let s = ctx.sh.state.borrow();
                s.aliases.iter().map(|(n, a)| shown(n, &a.value)).collect()
            };
            return ctx.print_status(&text).await;
        }
        let mut status = 0;
        for arg in &args {
            match arg.split_once('=') {
                Some((name, value)) => {
                    let mut s = ctx.sh.state.borrow_mut();
                    let alias = Alias {
                        value: value.to_string(),
                        unit: s.code_unit,
                        line: s.line,
                    };
                    s.aliases.insert(name.to_string(), alias);
                }
                None => {
                    let value = ctx
                        .sh
                        .state
                        .borrow()
                        .aliases
                        .get(arg)
                        .map(|a| a.value.clone());
                    match value {
                        Some(value) => {
                            ctx.out(&shown(arg, &value)).await;
                        }
                        None => {
                            ctx.fail(&format!("{arg}: not found"), 1).await;
                            status = 1;
                        }
                    }
                }
            }
        }
        Flow::Normal(status)
    })
}

fn run_unalias(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands();
        if args.is_empty() {
            let flow = ctx.fail("usage: unalias [-a] name [name ...]", 2).await;
            return flow;
        }
        if args.iter().any(|a| a == "-a") {
            ctx.sh.state.borrow_mut().aliases.clear();
            return Flow::Normal(0);
        }
        let mut status = 0;
        for name in args {
            let removed = ctx.sh.state.borrow_mut().aliases.remove(name);
            if removed.is_none() {
                ctx.fail(&format!("{name}: not found"), 1).await;
                status = 1;
            }
        }
        Flow::Normal(status)
    })
}
