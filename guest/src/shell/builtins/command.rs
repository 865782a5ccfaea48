//! `command [-v|-V] name [args]`: run a command skipping functions, or describe it.

use super::type_::{kinds, short, Lookup};
use super::{Builtin, Ctx};
use crate::shell::interp::exec::simple::{ArgValue, AssignArg, AssignVal};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `command`.
pub(crate) const COMMAND: Builtin = Builtin {
    name: "command",
    synopsis:
        "command [-v|-V] name [args] — run name ignoring functions; -v: print how it resolves",
    run,
};

/// The `PATH` of `command -p`: bash's standard path on Linux (`getconf PATH`), where every
/// standard utility is found whatever `$PATH` says.
const STANDARD_PATH: &str = "/bin:/usr/bin";

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut i = 0;
        let (mut describe, mut verbose, mut standard) = (false, false, false);
        let operands = ctx.operands().to_vec();
        while let Some(arg) = operands.get(i) {
            match arg.as_str() {
                "--" => {
                    i += 1;
                    break;
                }
                a if a.starts_with('-') && a.len() > 1 => {
                    for c in a[1..].chars() {
                        match c {
                            'v' => describe = true,
                            'V' => verbose = true,
                            'p' => standard = true,
                            _ => {
                                let usage = "command [-pVv] command [arg ...]";
                                return ctx.bad_option(&format!("-{c}"), usage).await;
                            }
                        }
                    }
                }
                _ => break,
            }
            i += 1;
        }
        let rest = operands[i..].to_vec();
        if !standard {
            return resolve(ctx, rest, describe, verbose).await;
        }
        // As bash does, `PATH` holds the standard path while the command is found and run.
        let path = AssignArg {
            name: "PATH".to_string(),
            index: None,
            append: false,
            value: AssignVal::Scalar(STANDARD_PATH.to_string()),
        };
        let sh = ctx.sh.clone();
        sh.with_temps(&[path], resolve(ctx, rest, describe, verbose))
            .await
    })
}

/// Describes (`-v`, `-V`) or runs the command `rest`, skipping functions.
async fn resolve(ctx: Ctx, rest: Vec<String>, describe: bool, verbose: bool) -> Flow {
    if describe || verbose {
        let mut out = String::new();
        let mut found_any = false;
        for name in &rest {
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
    let args = rest.into_iter().map(ArgValue::Word).collect();
    ctx.sh
        .dispatch_with(args, Vec::new(), ctx.fds.clone(), false)
        .await
}
