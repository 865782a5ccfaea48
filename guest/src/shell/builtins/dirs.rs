//! `pushd`, `popd`, `dirs`: the directory stack.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;
use crate::vfs::{resolve, FileKind};

/// `dirs`.
pub(crate) const DIRS: Builtin = Builtin {
    name: "dirs",
    synopsis: "dirs [-clpv] — show the directory stack (-p one a line, -v numbered, -l no ~)",
    run: run_dirs,
};

/// `pushd`.
pub(crate) const PUSHD: Builtin = Builtin {
    name: "pushd",
    synopsis: "pushd dir — change to dir, remembering the current directory",
    run: run_pushd,
};

/// `popd`.
pub(crate) const POPD: Builtin = Builtin {
    name: "popd",
    synopsis: "popd — return to the directory saved by pushd",
    run: run_popd,
};

/// How `dirs` shows the stack: `-l` full paths (no `~`), `-p` one a line, `-v` numbered.
#[derive(Default, Clone, Copy)]
struct Style {
    long: bool,
    lines: bool,
    numbered: bool,
}

fn listing(ctx: &Ctx) -> String {
    styled(ctx, Style::default())
}

fn styled(ctx: &Ctx, style: Style) -> String {
    let s = ctx.sh.state.borrow();
    let home = s.get("HOME").unwrap_or_default();
    let show = |d: &str| match d.strip_prefix(&home) {
        Some(rest)
            if !style.long && !home.is_empty() && (rest.is_empty() || rest.starts_with('/')) =>
        {
            format!("~{rest}")
        }
        _ => d.to_string(),
    };
    let mut items = vec![show(&s.cwd)];
    items.extend(s.dirstack.iter().rev().map(|d| show(d)));
    if style.numbered {
        let numbered: Vec<String> = items
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{i:2}  {d}\n"))
            .collect();
        return numbered.concat();
    }
    let sep = if style.lines { "\n" } else { " " };
    format!("{}\n", items.join(sep))
}

fn set_cwd(ctx: &Ctx, dir: String) {
    let mut s = ctx.sh.state.borrow_mut();
    let old = std::mem::replace(&mut s.cwd, dir.clone());
    let _ = s.assign("OLDPWD", old, false);
    let _ = s.assign("PWD", dir, false);
}

fn run_dirs(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut style = Style::default();
        for arg in ctx.operands() {
            let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
                return ctx.bad_option(arg, "dirs [-clpv]").await;
            };
            for letter in letters.chars() {
                match letter {
                    'c' => {
                        ctx.sh.state.borrow_mut().dirstack.clear();
                        return Flow::Normal(0);
                    }
                    'l' => style.long = true,
                    'p' => style.lines = true,
                    'v' => (style.lines, style.numbered) = (true, true),
                    _ => return ctx.bad_option(arg, "dirs [-clpv]").await,
                }
            }
        }
        let text = styled(&ctx, style);
        ctx.print_status(&text).await
    })
}

fn run_pushd(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let cwd = ctx.sh.state.borrow().cwd.clone();
        let top = match ctx.operands().first() {
            Some(_) => None,
            None => ctx.sh.state.borrow_mut().dirstack.pop(),
        };
        let target = match (ctx.operands().first(), top) {
            (Some(dir), _) => resolve(&cwd, dir),
            (None, Some(top)) => top,
            (None, None) => return ctx.fail("no other directory", 1).await,
        };
        let is_dir = ctx
            .sh
            .world
            .vfs
            .borrow()
            .stat("/", &target)
            .is_ok_and(|s| s.kind == FileKind::Dir);
        if !is_dir {
            let shown = ctx.operands().first().cloned().unwrap_or(target);
            return ctx
                .fail(&format!("{shown}: No such file or directory"), 1)
                .await;
        }
        ctx.sh.state.borrow_mut().dirstack.push(cwd);
        set_cwd(&ctx, target);
        let text = listing(&ctx);
        ctx.print_status(&text).await
    })
}

fn run_popd(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let top = ctx.sh.state.borrow_mut().dirstack.pop();
        let Some(dir) = top else {
            return ctx.fail("directory stack empty", 1).await;
        };
        set_cwd(&ctx, dir);
        let text = listing(&ctx);
        ctx.print_status(&text).await
    })
}
