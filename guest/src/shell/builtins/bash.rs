//! `bash` and `sh`: run a script in a new shell: `bash -c 'code' [name [args]]`,
//! `bash file [args]`, or the script on stdin. Options `-e -u -x -o name` apply to it.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `bash`.
pub(crate) const BASH: Builtin = Builtin {
    name: "bash",
    synopsis:
        "bash [-euxo opt] [-c 'code' [name args] | file [args]] — run a script in a new shell",
    run,
};

/// `sh`.
pub(crate) const SH: Builtin = Builtin {
    name: "sh",
    synopsis: "sh [-eux] [-c 'code' [name args] | file [args]] — same as bash",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let args = ctx.operands().to_vec();
        let mut command = false;
        let mut check_only = false;
        // `-s`: the script is stdin even when arguments follow (they are its `$@`).
        let mut stdin = false;
        let mut options: Vec<(String, bool)> = Vec::new();
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            match arg.as_str() {
                "--" => {
                    i += 1;
                    break;
                }
                "--version" => {
                    return ctx
                        .print_status("GNU bash, version 5.2.15(1)-release (corral)\n")
                        .await;
                }
                "--norc" | "--noprofile" | "--posix" | "--login" | "-i" | "-l" => {}
                a if a.starts_with("--") => {
                    return ctx.fail(&format!("{a}: invalid option"), 2).await;
                }
                a if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 => {
                    let on = a.starts_with('-');
                    for c in a[1..].chars() {
                        match c {
                            'c' => command = true,
                            'n' => check_only = true,
                            'o' => {
                                i += 1;
                                if let Some(name) = args.get(i) {
                                    options.push((name.clone(), on));
                                }
                            }
                            'e' => options.push(("errexit".into(), on)),
                            'u' => options.push(("nounset".into(), on)),
                            'x' => options.push(("xtrace".into(), on)),
                            'f' => options.push(("noglob".into(), on)),
                            'v' => options.push(("verbose".into(), on)),
                            'C' => options.push(("noclobber".into(), on)),
                            'a' => options.push(("allexport".into(), on)),
                            's' => stdin = true,
                            'i' | 'l' | 'h' | 'B' | 'H' | 'm' | 'p' | 'r' => {}
                            c => return ctx.fail(&format!("-{c}: invalid option"), 2).await,
                        }
                    }
                }
                _ => break,
            }
            i += 1;
        }
        let rest = &args[i.min(args.len())..];
        let name = ctx.name().to_string();
        let (code, arg0, positional) = if command {
            let Some(code) = rest.first() else {
                return ctx.fail("-c: option requires an argument", 2).await;
            };
            let arg0 = rest.get(1).cloned().unwrap_or_else(|| name.clone());
            (
                code.clone(),
                arg0,
                rest.get(2..).unwrap_or_default().to_vec(),
            )
        } else if let Some(file) = rest.first().filter(|_| !stdin) {
            let cwd = ctx.sh.state.borrow().cwd.clone();
            let read = ctx
                .sh
                .world
                .vfs
                .borrow()
                .read(&cwd, file)
                .map(|d| d.to_vec());
            match read {
                Ok(data) if crate::shell::interp::exec::simple::is_binary(&data) => {
                    let message = format!("{file}: {file}: cannot execute binary file\n");
                    ctx.fds.eprint(&message).await;
                    return Flow::Normal(126);
                }
                Ok(data) => {
                    let code = crate::shell::bytes::decode(&data);
                    (code, file.clone(), rest[1..].to_vec())
                }
                Err(e) => {
                    ctx.fds.eprint(&format!("{name}: {e}\n")).await;
                    return Flow::Normal(127);
                }
            }
        } else {
            let code = match ctx.fds.input(0) {
                Some(input) => crate::shell::bytes::decode(&input.read_all().await),
                None => String::new(),
            };
            (code, name.clone(), rest.to_vec())
        };
        if check_only {
            return match crate::shell::parse(&code) {
                Ok(_) => Flow::Normal(0),
                Err(e) => {
                    ctx.sh.syntax_error(&code, &e, &ctx.fds, "").await;
                    Flow::Normal(2)
                }
            };
        }
        let child = match ctx.sh.child_shell(&arg0, positional, &[]) {
            Ok(child) => child,
            Err(message) => return ctx.fail(&message, 1).await,
        };
        {
            let mut s = child.state.borrow_mut();
            s.opts.command_string = command;
            s.opts.script_file = !command && !stdin && !rest.is_empty();
            if command {
                // Ignored when a readonly variable of that name came along.
                let _ = s.assign("BASH_EXECUTION_STRING", code.clone(), false);
            }
            for (name, on) in &options {
                if let Some(flag) = s.opts.flag(name) {
                    *flag = *on;
                }
            }
        }
        Flow::Normal(child.run_script_text(&code, ctx.fds.clone()).await)
    })
}
