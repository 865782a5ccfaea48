//! `set [-euxfCav] [-o name] [--] [args]`: shell options and positional parameters; with no
//! arguments, list the variables and functions.

use super::{Builtin, Ctx};
use crate::shell::interp::quote;
use crate::shell::interp::state::SET_OPTIONS;
use crate::shell::interp::unparse;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `set`.
pub(crate) const SET: Builtin = Builtin {
    name: "set",
    synopsis: "set [-euxfCav] [-o option] [--] [arg ...] — options (-e errexit, -E errtrace, -u nounset, -x xtrace, -o pipefail) and positional parameters",
    run,
};

const USAGE: &str = "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]";

/// Options bash has that are accepted and have no effect here.
const IGNORED: &[&str] = &[
    "braceexpand",
    "emacs",
    "hashall",
    "histexpand",
    "history",
    "ignoreeof",
    "interactive-comments",
    "keyword",
    "monitor",
    "nolog",
    "notify",
    "onecmd",
    "physical",
    "privileged",
    "vi",
];

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands().to_vec();
        if args.is_empty() {
            return list(&ctx).await;
        }
        let errexit_was = ctx.sh.state.borrow().opts.errexit;
        let mut i = 0;
        let mut positional: Option<Vec<String>> = None;
        while i < args.len() {
            let arg = &args[i];
            if arg == "--" {
                positional = Some(args[i + 1..].to_vec());
                break;
            }
            if arg == "-" {
                let mut s = ctx.sh.state.borrow_mut();
                s.opts.xtrace = false;
                s.opts.verbose = false;
                drop(s);
                // `set -` alone keeps the positional parameters (`set --` clears them).
                let rest = &args[i + 1..];
                positional = (!rest.is_empty()).then(|| rest.to_vec());
                break;
            }
            if arg == "+" {
                // A lone `+` is an ignored flag.
                i += 1;
                continue;
            }
            let on = match arg.chars().next() {
                Some('-') if arg.len() > 1 => true,
                Some('+') if arg.len() > 1 => false,
                _ => {
                    positional = Some(args[i..].to_vec());
                    break;
                }
            };
            for c in arg[1..].chars() {
                if c == 'o' {
                    i += 1;
                    let Some(name) = args.get(i) else {
                        return print_options(&ctx, on).await;
                    };
                    if IGNORED.contains(&name.as_str()) {
                        continue;
                    }
                    let known = SET_OPTIONS.iter().any(|(n, _)| n == name);
                    let set = {
                        let mut s = ctx.sh.state.borrow_mut();
                        match s.opts.flag(name).filter(|_| known) {
                            Some(flag) => {
                                *flag = on;
                                true
                            }
                            None => false,
                        }
                    };
                    if !set {
                        return ctx.fail(&format!("{name}: invalid option name"), 2).await;
                    }
                    continue;
                }
                if matches!(c, 'h' | 'B' | 'H' | 'm' | 'b' | 'k' | 'p' | 't' | 'P') {
                    continue;
                }
                let set = {
                    let mut s = ctx.sh.state.borrow_mut();
                    match s.opts.letter(c) {
                        Some(flag) => {
                            *flag = on;
                            true
                        }
                        None => false,
                    }
                };
                if !set {
                    let sign = if on { '-' } else { '+' };
                    return ctx.bad_option(&format!("{sign}{c}"), USAGE).await;
                }
            }
            i += 1;
        }
        let mut s = ctx.sh.state.borrow_mut();
        if !errexit_was && s.opts.errexit {
            s.errexit_turned_on();
        }
        if let Some(p) = positional {
            s.positional = p;
        }
        Flow::Normal(0)
    })
}

async fn print_options(ctx: &Ctx, on: bool) -> Flow {
    let opts = ctx.sh.state.borrow().opts.clone();
    let mut names: Vec<(&str, bool)> = SET_OPTIONS
        .iter()
        .map(|(n, _)| (*n, opts.get(n) == Some(true)))
        .collect();
    names.extend(IGNORED.iter().map(|n| {
        (
            *n,
            matches!(*n, "braceexpand" | "hashall" | "interactive-comments"),
        )
    }));
    crate::sort::sort(&mut names);
    let mut out = String::new();
    for (name, value) in names {
        if on {
            out.push_str(&format!(
                "{name:<15}\t{}\n",
                if value { "on" } else { "off" }
            ));
        } else {
            out.push_str(&format!("set {}o {name}\n", if value { '-' } else { '+' }));
        }
    }
    ctx.print_status(&out).await
}

async fn list(ctx: &Ctx) -> Flow {
    let state = ctx.sh.state.borrow().clone();
    let mut out = String::new();
    for name in state.names() {
        if let Some(value) = state
            .var(&name)
            .and_then(|v| quote::value_text(v, quote::word))
        {
            out.push_str(&format!("{name}={value}\n"));
        }
    }
    for (name, body) in &state.funcs {
        out.push_str(&unparse::function(name, body));
        out.push('\n');
    }
    ctx.print_status(&out).await
}
