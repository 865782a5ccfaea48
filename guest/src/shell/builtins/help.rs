//! `help [name]`: list the builtins and applets, or describe one.

use super::{all, lookup, Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `help`.
pub(crate) const HELP: Builtin = Builtin {
    name: "help",
    synopsis: "help [name] — list the builtins and commands, or show how to use one",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let names: Vec<String> = ctx
            .operands()
            .iter()
            .filter(|a| !a.starts_with('-'))
            .cloned()
            .collect();
        if names.is_empty() {
            return ctx.print_status(&overview()).await;
        }
        let mut out = String::new();
        let mut status = 0;
        for name in &names {
            if let Some(b) = lookup(name) {
                out.push_str(&format!("{}: {}\n", b.name, b.synopsis));
            } else if let Some(applet) = crate::applets::lookup(name) {
                out.push_str(&format!("{}\n", applet.usage));
            } else {
                ctx.out(&out).await;
                out.clear();
                ctx.fail(
                    &format!("no help topics match `{name}'.  Try `help help' or `{name} --help'."),
                    1,
                )
                .await;
                status = 1;
            }
        }
        ctx.out(&out).await;
        Flow::Normal(status)
    })
}

fn overview() -> String {
    let mut out = String::from(
        "corral shell: a bash-compatible interpreter. Pipes, redirections, here-documents, \
         variables and arrays, $(...), $((...)), [[ ]], functions, if/for/while/case work as in \
         bash. Host tools: tool --list, tool NAME --key value.\n\nShell builtins:\n",
    );
    for b in all() {
        out.push_str(&format!("  {}\n", b.synopsis));
    }
    let mut applets: Vec<&str> = crate::applets::all().map(|a| a.name).collect();
    applets.sort_unstable();
    out.push_str("\nCommands (NAME --help for usage):\n");
    let mut line = String::from(" ");
    for name in applets {
        if line.len() + name.len() > 78 {
            out.push_str(&line);
            out.push('\n');
            line = String::from(" ");
        }
        line.push(' ');
        line.push_str(name);
    }
    if line.trim().is_empty() {
        out.push_str("  (none)\n");
    } else {
        out.push_str(&line);
        out.push('\n');
    }
    out
}
