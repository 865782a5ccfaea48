//! `command [-v|-V] name [args]`: run a command skipping functions, or describe it.

use super::type_::{kinds, short, Lookup};
use super::{Builtin, Ctx};
use crate::shell::interp::exec::simple::ArgValue;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `command`.
pub(crate) const COMMAND: Builtin = Builtin {
    name: "command",
    synopsis:
        "command [-v|-V] name [args] — run name ignoring functions; -v: print how it resolves",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut i = 0;
        let (mut describe, mut verbose) = (false, false);
        let operands = ctx.operands().to_vec();
        while let Some(arg) = operands.get(i) {
            match arg.as_str() {
                "-v" => describe = true,
                "-V" => verbose = true,
                "-p" => {}
                "--" => {
                    i += 1;
                    break;
                }
                a if a.starts_with('-') && a.len() > 1 => {
                    return ctx.bad_option(a, "command [-pVv] command [arg ...]").await;
                }
                _ => break,
            }
            i += 1;
        }
        let rest = &operands[i..];
        if describe || verbose {
            let mut out = String::new();
            let mut found_any = false;
            for name in rest {
                let Some(kind) = kinds(&ctx.sh, name, Lookup::default()).into_iter().next() else {
                    if verbose {
                        ctx.out(&out).await;
                        out.clear();
                        ctx.fail(&format!("{name}: not found"), 1).await;
                    }
                    continue;
                };
                found_any = true;
                out.push_str(&if verbose {
                    super::type_::describe(&ctx.sh, name, &kind)
                } else {
                    short(name, &kind)
                });
            }
            ctx.out(&out).await;
            return Flow::Normal(i32::from(!found_any));
        }
        if rest.is_empty() {
            return Flow::Normal(0);
        }
        let args = rest.iter().cloned().map(ArgValue::Word).collect();
        ctx.sh
            .dispatch_with(args, Vec::new(), ctx.fds.clone(), false)
            .await
    })
}
