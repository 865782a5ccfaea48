//! `hash [-lr] [-p path] [-dt] [name ...]`: the table of command paths the shell remembers
//! (filled by running commands found along `$PATH`, emptied when `PATH` is assigned), listed
//! in bash's format and order.

use super::type_::is_builtin;
use super::{Builtin, Ctx};
use crate::shell::interp::path::{bash_table_order, Hashed};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

const USAGE: &str = "hash [-lr] [-p pathname] [-dt] [name ...]";

/// `hash`.
pub(crate) const HASH: Builtin = Builtin {
    name: "hash",
    synopsis: "hash [-lr] [-p pathname] [-dt] [name ...] — remember or show command paths",
    run,
};

#[derive(Default)]
struct Opts {
    list: bool,
    reset: bool,
    path: Option<String>,
    delete: bool,
    show: bool,
}

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut opts = Opts::default();
        let mut args = ctx.operands();
        while let Some(arg) = args.first() {
            if arg == "--" {
                args = &args[1..];
                break;
            }
            let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
                break;
            };
            args = &args[1..];
            for (i, letter) in letters.char_indices() {
                match letter {
                    'l' => opts.list = true,
                    'r' => opts.reset = true,
                    'd' => opts.delete = true,
                    't' => opts.show = true,
                    'p' => {
                        let rest = &letters[i + 1..];
                        if !rest.is_empty() {
                            opts.path = Some(rest.to_string());
                        } else if let Some(next) = args.first() {
                            opts.path = Some(next.clone());
                            args = &args[1..];
                        } else {
                            ctx.fail("-p: option requires an argument", 2).await;
                            return usage(&ctx).await;
                        }
                        break;
                    }
                    _ => return ctx.bad_option(&format!("-{letter}"), USAGE).await,
                }
            }
        }
        if (opts.delete || opts.show) && args.is_empty() {
            let flag = if opts.delete { "-d" } else { "-t" };
            return ctx
                .fail(&format!("{flag}: option requires an argument"), 1)
                .await;
        }
        if opts.reset {
            ctx.sh.state.borrow_mut().hash.entries.clear();
        }
        if args.is_empty() {
            if opts.reset || opts.path.is_some() && !opts.list {
                return Flow::Normal(0);
            }
            return ctx.print_status(&listing(&ctx, opts.list)).await;
        }
        names(&ctx, &opts, args).await
    })
}

async fn usage(ctx: &Ctx) -> Flow {
    ctx.fds.eprint(&format!("hash: usage: {USAGE}\n")).await;
    Flow::Normal(2)
}

/// The table as `hash` (or `hash -l`, reusable as input) lists it.
fn listing(ctx: &Ctx, reusable: bool) -> String {
    let _ = ctx.sh.hashed("", false);
    let entries: Vec<Hashed> = ctx.sh.state.borrow().hash.entries.clone();
    if entries.is_empty() {
        return if reusable {
            String::new()
        } else {
            "hash: hash table empty\n".into()
        };
    }
    let entries = bash_table_order(entries, 256, |e| &e.name);
    let mut out = String::new();
    if !reusable {
        out.push_str("hits\tcommand\n");
    }
    for e in entries {
        if reusable {
            out.push_str(&format!("builtin hash -p {} {}\n", e.path, e.name));
        } else {
            out.push_str(&format!("{:4}\t{}\n", e.hits, e.path));
        }
    }
    out
}

/// Adds, deletes or shows the named entries.
async fn names(ctx: &Ctx, opts: &Opts, names: &[String]) -> Flow {
    let mut status = 0;
    let mut out = String::new();
    for name in names {
        if opts.delete {
            let mut s = ctx.sh.state.borrow_mut();
            let before = s.hash.entries.len();
            s.hash.entries.retain(|e| &e.name != name);
            // An empty table is no table in bash: deleting from it succeeds.
            if s.hash.entries.len() != before || before == 0 {
                continue;
            }
        } else if opts.show || opts.list {
            if let Some(path) = ctx.sh.hashed(name, opts.show) {
                out.push_str(&match (opts.list, names.len()) {
                    (true, _) => format!("builtin hash -p {path} {name}\n"),
                    (false, 1) => format!("{path}\n"),
                    (false, _) => format!("{name}\t{path}\n"),
                });
                continue;
            }
        } else if let Some(path) = &opts.path {
            ctx.sh.remember(name, path, 0);
            continue;
        } else if name.contains('/') || is_builtin(name) || has_function(ctx, name) {
            continue;
        } else if let Some(path) = ctx.sh.path_search(name).into_iter().next() {
            ctx.sh.remember(name, &path, 0);
            continue;
        }
        ctx.out(&out).await;
        out.clear();
        ctx.fail(&format!("{name}: not found"), 1).await;
        status = 1;
    }
    ctx.out(&out).await;
    Flow::Normal(status)
}

fn has_function(ctx: &Ctx, name: &str) -> bool {
    ctx.sh.state.borrow().funcs.contains_key(name)
}
