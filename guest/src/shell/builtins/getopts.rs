//! `getopts optstring name [args]`: parse options one at a time (`OPTIND`, `OPTARG`; a
//! leading `:` selects silent error reporting).

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `getopts`.
pub(crate) const GETOPTS: Builtin = Builtin {
    name: "getopts",
    synopsis: "getopts optstring name [arg ...] — parse options: while getopts \"ab:\" o; do case $o in ...; esac; done",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let [spec, name, rest @ ..] = ctx.operands() else {
            ctx.fds
                .eprint("getopts: usage: getopts optstring name [arg ...]\n")
                .await;
            return Flow::Normal(2);
        };
        // An invalid name still consumes the option (bash sets OPTIND and OPTARG first).
        let valid = crate::shell::interp::state::is_name(name);
        let args: Vec<String> = if rest.is_empty() {
            ctx.sh.state.borrow().positional.clone()
        } else {
            rest.to_vec()
        };
        let (silent, spec) = match spec.strip_prefix(':') {
            Some(s) => (true, s),
            None => (false, spec.as_str()),
        };
        let step = next(&ctx, spec, &args);
        let (value, optarg, message, status) = match step {
            Step::Done => ("?".to_string(), None, None, 1),
            Step::Opt(c, arg) => (c.to_string(), arg, None, 0),
            Step::Illegal(c) if silent => ("?".into(), Some(c.to_string()), None, 0),
            Step::Illegal(c) => ("?".into(), None, Some(format!("illegal option -- {c}")), 0),
            Step::Missing(c) if silent => (":".into(), Some(c.to_string()), None, 0),
            Step::Missing(c) => (
                "?".into(),
                None,
                Some(format!("option requires an argument -- {c}")),
                0,
            ),
        };
        {
            let mut s = ctx.sh.state.borrow_mut();
            if valid {
                let _ = s.assign(name, value, false);
            }
            match optarg {
                Some(a) => {
                    let _ = s.assign("OPTARG", a, false);
                }
                None => {
                    let _ = s.unset("OPTARG");
                }
            }
        }
        if !valid {
            return ctx
                .fail(&format!("`{name}': not a valid identifier"), 1)
                .await;
        }
        // `OPTERR=0` silences the messages as a leading `:` does.
        let quiet = ctx.sh.state.borrow().get("OPTERR").as_deref() == Some("0");
        if let Some(message) = message.filter(|_| !quiet) {
            ctx.fds
                .eprint(&format!("{}: {message}\n", ctx.sh.script_name()))
                .await;
        }
        Flow::Normal(status)
    })
}

enum Step {
    Done,
    Opt(char, Option<String>),
    Illegal(char),
    Missing(char),
}

/// Advances `OPTIND` and the position inside a group of letters (`-abc`).
fn next(ctx: &Ctx, spec: &str, args: &[String]) -> Step {
    let mut s = ctx.sh.state.borrow_mut();
    let optind = s
        .get("OPTIND")
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(1)
        .max(1);
    if optind != s.getopts.0 {
        s.getopts = (optind, 0);
    }
    let (mut index, mut pos) = s.getopts;
    let store = |s: &mut crate::shell::interp::state::State, index: usize, pos: usize| {
        s.getopts = (index, pos);
        let _ = s.assign("OPTIND", index.to_string(), false);
    };
    if pos > 0 && args.get(index - 1).is_none_or(|a| pos >= a.chars().count()) {
        // The arguments changed under a group of letters: go on with the next argument.
        index += 1;
        pos = 0;
    }
    let Some(arg) = args.get(index - 1) else {
        // Past the end (the arguments were reset): OPTIND points just after the last one.
        if index > args.len() + 1 {
            store(&mut s, args.len() + 1, 0);
        }
        return Step::Done;
    };
    let chars: Vec<char> = arg.chars().collect();
    if pos == 0 {
        if arg == "--" {
            store(&mut s, index + 1, 0);
            return Step::Done;
        }
        if chars.len() < 2 || chars[0] != '-' {
            return Step::Done;
        }
        pos = 1;
    }
    let c = chars[pos];
    pos += 1;
    let at_end = pos >= chars.len();
    let wanted = spec.find(c).filter(|_| c != ':');
    let Some(at) = wanted else {
        if at_end {
            index += 1;
            pos = 0;
        }
        store(&mut s, index, pos);
        return Step::Illegal(c);
    };
    let takes_arg = spec[at + c.len_utf8()..].starts_with(':');
    if !takes_arg {
        if at_end {
            index += 1;
            pos = 0;
        }
        store(&mut s, index, pos);
        return Step::Opt(c, None);
    }
    if !at_end {
        let value: String = chars[pos..].iter().collect();
        store(&mut s, index + 1, 0);
        return Step::Opt(c, Some(value));
    }
    match args.get(index) {
        Some(value) => {
            let value = value.clone();
            store(&mut s, index + 2, 0);
            Step::Opt(c, Some(value))
        }
        None => {
            store(&mut s, index + 1, 0);
            Step::Missing(c)
        }
    }
}
