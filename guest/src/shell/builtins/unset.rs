//! `unset [-f|-v] name ...`: remove variables (or array elements, `'a[1]'`) or functions.

use super::{short_options, Builtin, Ctx};
use crate::shell::interp::state::is_name;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `unset`.
pub(crate) const UNSET: Builtin = Builtin {
    name: "unset",
    synopsis: "unset [-f|-v] name ... — remove variables, array elements ('a[1]') or functions",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (letters, start) = short_options(ctx.operands());
        if let Some(c) = letters.iter().find(|c| !matches!(c, 'f' | 'v' | 'n')) {
            return ctx
                .bad_option(&format!("-{c}"), "unset [-f] [-v] [-n] [name ...]")
                .await;
        }
        let functions = letters.contains(&'f');
        let variables = letters.contains(&'v');
        let mut status = 0;
        for name in &ctx.operands()[start..] {
            if functions {
                status |= unset_function(&ctx, name).await;
                continue;
            }
            if let Some((array, rest)) = name.split_once('[') {
                let Some(sub) = rest.strip_suffix(']').filter(|_| is_name(array)) else {
                    status = ctx
                        .fail(&format!("`{name}': not a valid identifier"), 1)
                        .await
                        .status();
                    continue;
                };
                let result = if sub == "@" || sub == "*" {
                    ctx.sh.state.borrow_mut().unset(array)
                } else {
                    match ctx.sh.element_key(array, sub, &ctx.fds).await {
                        Ok(key) => ctx.sh.state.borrow_mut().unset_element(array, &key),
                        Err(message) => Err(message),
                    }
                };
                if let Err(message) = result {
                    status = ctx.fail(&message, 1).await.status();
                }
                continue;
            }
            if !is_name(name) && !variables {
                // Not a variable's name, but a function may have it: no error.
                status |= unset_function(&ctx, name).await;
                continue;
            }
            if !is_name(name) {
                status = ctx
                    .fail(&format!("`{name}': not a valid identifier"), 1)
                    .await
                    .status();
                continue;
            }
            let is_var = ctx.sh.state.borrow().raw_var(name).is_some();
            if !is_var && !variables {
                status |= unset_function(&ctx, name).await;
                continue;
            }
            let result = if letters.contains(&'n') {
                ctx.sh.state.borrow_mut().unset_exact(name)
            } else {
                ctx.sh.state.borrow_mut().unset(name)
            };
            if let Err(message) = result {
                status = ctx.fail(&message, 1).await.status();
            }
        }
        Flow::Normal(status)
    })
}

/// Removes function `name`, unless it is readonly (status 1, as in bash).
async fn unset_function(ctx: &Ctx, name: &str) -> i32 {
    if ctx.sh.state.borrow().readonly_funcs.contains(name) {
        let message = format!("{name}: cannot unset: readonly function");
        return ctx.fail(&message, 1).await.status();
    }
    ctx.sh.state.borrow_mut().funcs.remove(name);
    0
}
