//! `printf [-v var] format [args]`: the `printf` applet, plus `-v var`, which only the shell
//! can do (the output is stored in the variable instead of printed).

use std::cell::RefCell;
use std::rc::Rc;

use super::{Builtin, Ctx};
use crate::shell::interp::io::{Fd, OutHandle, OutKind};
use crate::shell::interp::state::is_name;
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `printf`.
pub(crate) const PRINTF: Builtin = Builtin {
    name: "printf",
    synopsis: "printf [-v var] format [arguments] — formatted output (-v: into a variable)",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let Some(applet) = crate::applets::lookup("printf") else {
            return ctx.fail("the printf command is not available", 127).await;
        };
        let mut argv = ctx.argv.clone();
        let target = match argv.get(1).map(String::as_str) {
            Some("-v") => match argv.get(2).cloned() {
                Some(name) => {
                    argv.drain(1..3);
                    Some(name)
                }
                None => return ctx.fail("-v: option requires an argument", 2).await,
            },
            Some(arg) if arg.starts_with("-v") && arg.len() > 2 => {
                let name = arg[2..].to_string();
                argv.remove(1);
                Some(name)
            }
            _ => None,
        };
        let Some(name) = target else {
            if ctx.fds.out(1).is_some() {
                return run_applet(&ctx, applet, argv, ctx.fds.clone()).await;
            }
            // A closed stdout: bash formats, then reports the write error (status 1); the
            // applet would only see a broken pipe.
            let (flow, text) = captured(&ctx, applet, argv).await;
            return match text.is_empty() || ctx.out(&text).await {
                true => flow,
                false => Flow::Normal(1),
            };
        };
        let valid = match name.split_once('[') {
            Some((base, rest)) => is_name(base) && rest.ends_with(']'),
            None => is_name(&name),
        };
        if !valid {
            return ctx
                .fail(&format!("`{name}': not a valid identifier"), 2)
                .await;
        }
        let (flow, text) = captured(&ctx, applet, argv).await;
        let result = match name.split_once('[') {
            Some((base, rest)) => {
                let index = rest.trim_end_matches(']');
                match ctx.sh.element_key(base, index, &ctx.fds).await {
                    Ok(key) => ctx
                        .sh
                        .state
                        .borrow_mut()
                        .assign_element(base, key, text, false),
                    Err(e) => Err(e),
                }
            }
            None => ctx.sh.state.borrow_mut().assign(&name, text, false),
        };
        match result {
            Ok(()) => flow,
            Err(message) => ctx.fail(&message, 1).await,
        }
    })
}

/// The applet's status and output, captured.
async fn captured(
    ctx: &Ctx,
    applet: &'static crate::applets::Applet,
    argv: Vec<String>,
) -> (Flow, String) {
    let buf = Rc::new(RefCell::new(Vec::new()));
    let mut fds = ctx.fds.clone();
    fds.set(
        1,
        Some(Fd::Out(OutHandle::new(OutKind::Buffer(Rc::clone(&buf))))),
    );
    let flow = run_applet(ctx, applet, argv, fds).await;
    let text = crate::shell::bytes::decode(&buf.borrow());
    (flow, text)
}

/// Runs the applet, which names itself as bash names the builtin in its messages, so they
/// reach stderr as they happen, between the lines of output they belong to.
async fn run_applet(
    ctx: &Ctx,
    applet: &'static crate::applets::Applet,
    argv: Vec<String>,
    fds: crate::shell::interp::io::Fds,
) -> Flow {
    let shown = format!("{}printf", ctx.sh.prefix());
    ctx.sh.run_applet_as(applet, argv, &[], fds, shown).await
}
