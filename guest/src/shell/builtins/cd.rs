//! `cd [-L|-P] [dir]`: change the working directory (`-` is `$OLDPWD`, no operand `$HOME`).

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;
use crate::vfs::{resolve, FileKind};

/// `cd`.
pub(crate) const CD: Builtin = Builtin {
    name: "cd",
    synopsis: "cd [-L|-P] [dir] — change the working directory (`cd -`: the previous one)",
    run,
};

fn run(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut physical = false;
        let mut operands: Vec<&String> = Vec::new();
        let mut options_done = false;
        for arg in ctx.operands() {
            match arg.as_str() {
                "-L" if !options_done => physical = false,
                "-P" if !options_done => physical = true,
                "--" if !options_done => options_done = true,
                _ => {
                    options_done = true;
                    operands.push(arg);
                }
            }
        }
        if operands.len() > 1 {
            return ctx.fail("too many arguments", 1).await;
        }
        let (home, oldpwd) = {
            let s = ctx.sh.state.borrow();
            (s.get("HOME"), s.get("OLDPWD"))
        };
        let (target, print) = match operands.first().map(|s| s.as_str()) {
            None => match home {
                Some(home) => (home, false),
                None => return ctx.fail("HOME not set", 1).await,
            },
            Some("-") => match oldpwd {
                Some(old) => (old, true),
                None => return ctx.fail("OLDPWD not set", 1).await,
            },
            Some(dir) => search_cdpath(&ctx, dir).unwrap_or((dir.to_string(), false)),
        };
        if target.is_empty() {
            return Flow::Normal(0);
        }
        let cwd = ctx.sh.state.borrow().cwd.clone();
        let stat = ctx.sh.world.vfs.borrow().stat(&cwd, &target);
        match stat {
            Ok(s) if s.kind == FileKind::Dir => {}
            Ok(_) => return ctx.fail(&format!("{target}: Not a directory"), 1).await,
            Err(e) => return ctx.fail(&e.to_string(), 1).await,
        }
        let new = if physical {
            ctx.sh
                .world
                .vfs
                .borrow()
                .canonicalize(&cwd, &target)
                .unwrap_or_else(|_| resolve(&cwd, &target))
        } else {
            resolve(&cwd, &target)
        };
        {
            let mut s = ctx.sh.state.borrow_mut();
            let old = std::mem::replace(&mut s.cwd, new.clone());
            let _ = s.assign("OLDPWD", old, false);
            let _ = s.assign("PWD", new.clone(), false);
        }
        if print {
            return ctx.print_status(&format!("{new}\n")).await;
        }
        Flow::Normal(0)
    })
}

/// The directory `$CDPATH` finds for a relative `dir` (not `./x` or `../x`), and whether `cd`
/// prints where it went (it does unless the entry that matched is empty, the current
/// directory).
fn search_cdpath(ctx: &Ctx, dir: &str) -> Option<(String, bool)> {
    let first = dir.split('/').next().unwrap_or_default();
    if dir.starts_with('/') || first == "." || first == ".." {
        return None;
    }
    let (cwd, cdpath) = {
        let s = ctx.sh.state.borrow();
        (s.cwd.clone(), s.get("CDPATH")?)
    };
    let vfs = ctx.sh.world.vfs.borrow();
    cdpath.split(':').find_map(|entry| {
        let candidate = if entry.is_empty() {
            dir.to_string()
        } else {
            format!("{}/{dir}", entry.trim_end_matches('/'))
        };
        let found = vfs
            .stat(&cwd, &candidate)
            .is_ok_and(|st| st.kind == FileKind::Dir);
        found.then_some((candidate, !entry.is_empty()))
    })
}
