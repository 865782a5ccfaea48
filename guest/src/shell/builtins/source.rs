//! `source file [args]` and `. file [args]`: run a file's commands in this shell.

use super::eval::run_code;
use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;

/// `source`.
pub(crate) const SOURCE: Builtin = Builtin {
    name: "source",
    synopsis: "source file [args] — run the file's commands in this shell",
    run,
};

/// `.`.
pub(crate) const DOT: Builtin = Builtin {
    name: ".",
    synopsis: ". file [args] — same as source",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let Some(file) = ctx.operands().first().cloned() else {
            let flow = ctx.fail("filename argument required", 2).await;
            ctx.fds
                .eprint(&format!(
                    "{}: usage: {} filename [arguments]\n",
                    ctx.name(),
                    ctx.name()
                ))
                .await;
            return flow;
        };
        let cwd = ctx.sh.state.borrow().cwd.clone();
        let path = search_path(&ctx, &file).unwrap_or_else(|| file.clone());
        let read = ctx
            .sh
            .world
            .vfs
            .borrow()
            .read(&cwd, &path)
            .map(crate::shell::bytes::decode);
        let code = match read {
            Ok(code) => code,
            Err(e) => {
                ctx.sh.report(&ctx.fds, &e.to_string()).await;
                return Flow::Normal(1);
            }
        };
        let args = ctx.operands()[1..].to_vec();
        let saved = (!args.is_empty())
            .then(|| std::mem::replace(&mut ctx.sh.state.borrow_mut().positional, args));
        ctx.sh.state.borrow_mut().sourcing.push(file.clone());
        let flow = run_code(&ctx, &code, None).await;
        let flow = ctx.sh.source_return_trap(flow, &ctx.fds).await;
        {
            let mut s = ctx.sh.state.borrow_mut();
            s.sourcing.pop();
            if let Some(saved) = saved {
                s.positional = saved;
            }
        }
        match flow {
            Flow::Return(status) => Flow::Normal(status),
            other => other,
        }
    })
}

/// A name without a `/` is looked for in `$PATH` first, then in the current directory.
fn search_path(ctx: &Ctx, file: &str) -> Option<String> {
    if file.contains('/') {
        return None;
    }
    let (cwd, path) = {
        let s = ctx.sh.state.borrow();
        (s.cwd.clone(), s.get("PATH").unwrap_or_default())
    };
    let vfs = ctx.sh.world.vfs.borrow();
    path.split(':')
        .filter(|dir| !dir.is_empty())
        .map(|dir| format!("{dir}/{file}"))
        .find(|candidate| {
            vfs.stat(&cwd, candidate)
                .is_ok_and(|st| st.kind == crate::vfs::FileKind::File)
        })
}
