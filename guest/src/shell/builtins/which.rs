//! `which [-a] name ...`: the path of each command (applets are `/usr/bin/NAME`); builtins
//! and functions print nothing, like GNU which.

use super::type_::file_path;
use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `which`.
pub(crate) const WHICH: Builtin = Builtin {
    name: "which",
    synopsis: "which name ... — print the path of each command (builtins and functions have none)",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut status = 0;
        let mut out = String::new();
        for name in ctx.operands().iter().filter(|a| !a.starts_with('-')) {
            match file_path(&ctx.sh, name) {
                Some(path) => out.push_str(&format!("{path}\n")),
                None => status = 1,
            }
        }
        ctx.out(&out).await;
        Flow::Normal(status)
    })
}
