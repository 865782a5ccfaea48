//! `shopt [-s|-u|-p|-q] [name ...]`: the glob options (nullglob, dotglob, failglob,
//! nocaseglob, nocasematch, globstar; extglob, which a script's lines that use extended
//! patterns need, as in bash); other bash options are accepted.

use super::{Builtin, Ctx};
use crate::shell::interp::state::SET_OPTIONS;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `shopt`.
pub(crate) const SHOPT: Builtin = Builtin {
    name: "shopt",
    synopsis: "shopt [-s|-u|-p|-q] [optname ...] — glob options: nullglob dotglob failglob nocaseglob nocasematch globstar",
    run,
};

/// Every bash 5.2 option, in the order `shopt` lists them; those not in [`SHOPT_OPTIONS`]
/// are accepted without effect.
const NAMES: &[&str] = &[
    "autocd",
    "assoc_expand_once",
    "cdable_vars",
    "cdspell",
    "checkhash",
    "checkjobs",
    "checkwinsize",
    "cmdhist",
    "compat31",
    "compat32",
    "compat40",
    "compat41",
    "compat42",
    "compat43",
    "compat44",
    "complete_fullquote",
    "direxpand",
    "dirspell",
    "dotglob",
    "execfail",
    "expand_aliases",
    "extdebug",
    "extglob",
    "extquote",
    "failglob",
    "force_fignore",
    "globasciiranges",
    "globskipdots",
    "globstar",
    "gnu_errfmt",
    "histappend",
    "histreedit",
    "histverify",
    "hostcomplete",
    "huponexit",
    "inherit_errexit",
    "interactive_comments",
    "lastpipe",
    "lithist",
    "localvar_inherit",
    "localvar_unset",
    "login_shell",
    "mailwarn",
    "no_empty_cmd_completion",
    "nocaseglob",
    "nocasematch",
    "noexpand_translation",
    "nullglob",
    "patsub_replacement",
    "progcomp",
    "progcomp_alias",
    "promptvars",
    "restricted_shell",
    "shift_verbose",
    "sourcepath",
    "varredir_close",
    "xpg_echo",
];

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut mode = None;
        let mut quiet = false;
        let mut set_o = false;
        let mut print = false;
        let mut names = Vec::new();
        for arg in ctx.operands() {
            // Letters combine (`shopt -po name`) until the first name.
            let letters = arg
                .strip_prefix('-')
                .filter(|l| !l.is_empty() && names.is_empty());
            let Some(letters) = letters else {
                names.push(arg.to_string());
                continue;
            };
            for c in letters.chars() {
                match c {
                    's' => mode = Some(true),
                    'u' => mode = Some(false),
                    'p' => print = true,
                    'q' => quiet = true,
                    'o' => set_o = true,
                    _ => {
                        let usage = "shopt [-pqsu] [-o] [optname ...]";
                        return ctx.bad_option(&format!("-{c}"), usage).await;
                    }
                }
            }
        }
        let known = |n: &str| {
            if set_o {
                SET_OPTIONS.iter().any(|(o, _)| *o == n)
            } else {
                NAMES.contains(&n)
            }
        };
        let printing = names.is_empty();
        if printing {
            names = if set_o {
                SET_OPTIONS.iter().map(|(n, _)| n.to_string()).collect()
            } else {
                NAMES.iter().map(|n| n.to_string()).collect()
            };
        }
        let mut status = 0;
        let mut out = String::new();
        for name in &names {
            if !known(name) {
                ctx.fail(&format!("{name}: invalid shell option name"), 1)
                    .await;
                status = 1;
                continue;
            }
            let value = ctx.sh.state.borrow().shopt_value(name);
            match mode {
                Some(on) if !printing => ctx.sh.state.borrow_mut().set_shopt(name, on),
                _ => {
                    if mode.is_some_and(|on| on != value) {
                        continue;
                    }
                    if !value {
                        status = 1;
                    }
                    if quiet {
                        continue;
                    }
                    if print && set_o {
                        let sign = if value { '-' } else { '+' };
                        out.push_str(&format!("set {sign}o {name}\n"));
                    } else if print {
                        let flag = if value { "-s" } else { "-u" };
                        out.push_str(&format!("shopt {flag} {name}\n"));
                    } else {
                        out.push_str(&format!(
                            "{name:<15}\t{}\n",
                            if value { "on" } else { "off" }
                        ));
                    }
                }
            }
        }
        ctx.out(&out).await;
        Flow::Normal(status)
    })
}
