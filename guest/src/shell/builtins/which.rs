//! `which [-a] name ...`: the path of each command along `$PATH`, as Debian's `which` prints
//! it (applets are `/usr/bin/NAME` and `/bin/NAME`); builtins and functions are no files.

use super::type_::{kinds, Kind, Lookup};
use super::{Builtin, Ctx};
use crate::shell::interp::path::DEFAULT_PATH;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `which`.
pub(crate) const WHICH: Builtin = Builtin {
    name: "which",
    synopsis: "which [-a] name ... — print the path of each command along $PATH",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut how = Lookup {
            files_only: true,
            ..Lookup::default()
        };
        let mut names = ctx.operands();
        while let Some(arg) = names.first().filter(|a| a.starts_with('-')) {
            match arg.as_str() {
                "-a" => how.all = true,
                "--" => {
                    names = &names[1..];
                    break;
                }
                _ => {
                    return ctx
                        .fail(
                            &format!("{arg}: invalid option; usage: which [-a] name ..."),
                            2,
                        )
                        .await;
                }
            }
            names = &names[1..];
        }
        // `which` is a program: with no PATH in its environment it searches the default
        // one a new shell sets (as Debian's and BusyBox's do), where bash would find nothing.
        let unset = ctx.sh.state.borrow().get("PATH").is_none();
        let sh = match unset.then(|| ctx.sh.subshell()) {
            Some(Ok(sub)) => {
                let _ = sub
                    .state
                    .borrow_mut()
                    .assign("PATH", DEFAULT_PATH.to_string(), false);
                sub
            }
            _ => ctx.sh.clone(),
        };
        let mut status = i32::from(names.is_empty());
        let mut out = String::new();
        for name in names {
            let found = kinds(&sh, name, how);
            if found.is_empty() {
                status = 1;
            }
            for kind in found {
                if let Kind::File(path, _) = kind {
                    out.push_str(&format!("{path}\n"));
                }
            }
        }
        ctx.out(&out).await;
        Flow::Normal(status)
    })
}
