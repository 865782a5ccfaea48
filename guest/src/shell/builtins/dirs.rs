//! `pushd`, `popd`, `dirs`: the directory stack.

use super::{Builtin, Ctx};
use crate::shell::interp::Flow;
use crate::task::LocalFuture;
use crate::vfs::{resolve, FileKind};

/// `dirs`.
pub(crate) const DIRS: Builtin = Builtin {
    name: "dirs",
    synopsis: "dirs [-clpv] [+N] [-N] — show the directory stack (-p one a line, -v numbered, -l no ~, +N/-N: one entry)",
    run: run_dirs,
};

/// `pushd`.
pub(crate) const PUSHD: Builtin = Builtin {
    name: "pushd",
    synopsis: "pushd [-n] [+N | -N | dir] — change to dir, remembering the current directory (+N/-N: rotate the stack)",
    run: run_pushd,
};

/// `popd`.
pub(crate) const POPD: Builtin = Builtin {
    name: "popd",
    synopsis:
        "popd [-n] [+N | -N] — return to the directory saved by pushd (+N/-N: drop that entry)",
    run: run_popd,
};

/// How `dirs` shows the stack: `-l` full paths (no `~`), `-p` one a line, `-v` numbered.
#[derive(Default, Clone, Copy)]
struct Style {
    long: bool,
    lines: bool,
    numbered: bool,
    /// Only this entry (`dirs +N`).
    only: Option<usize>,
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
    let mut items: Vec<(usize, String)> = items.into_iter().enumerate().collect();
    if let Some(i) = style.only {
        items.retain(|(n, _)| *n == i);
    }
    if style.numbered {
        let numbered: Vec<String> = items.iter().map(|(i, d)| format!("{i:2}  {d}\n")).collect();
        return numbered.concat();
    }
    let sep = if style.lines { "\n" } else { " " };
    let items: Vec<String> = items.into_iter().map(|(_, d)| d).collect();
    format!("{}\n", items.join(sep))
}

fn set_cwd(ctx: &Ctx, dir: String) {
    let mut s = ctx.sh.state.borrow_mut();
    let old = std::mem::replace(&mut s.cwd, dir.clone());
    let _ = s.assign("OLDPWD", old, false);
    let _ = s.assign("PWD", dir, false);
}

/// The whole stack as `dirs` numbers it: the working directory first.
fn stack(ctx: &Ctx) -> Vec<String> {
    let s = ctx.sh.state.borrow();
    std::iter::once(s.cwd.clone())
        .chain(s.dirstack.iter().rev().cloned())
        .collect()
}

/// Stores a stack whose first entry is the working directory, changing to it when asked.
fn set_stack(ctx: &Ctx, mut full: Vec<String>, change_dir: bool) {
    let top = full.remove(0);
    full.reverse();
    ctx.sh.state.borrow_mut().dirstack = full;
    if change_dir {
        set_cwd(ctx, top);
    }
}

/// `+N` (from the left, 0 being the working directory) or `-N` (from the right): `None`
/// when `arg` is neither.
fn stack_index(arg: &str) -> Option<(bool, usize)> {
    let from_left = arg.starts_with('+');
    let digits = arg.strip_prefix(['+', '-'])?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((from_left, digits.parse().unwrap_or(usize::MAX)))
}

/// Where `+N`/`-N` points in a stack of `len` entries, or bash's message.
fn position(len: usize, (from_left, n): (bool, usize), arg: &str) -> Result<usize, String> {
    if len <= 1 {
        return Err("directory stack empty".into());
    }
    let at = if from_left {
        Some(n)
    } else {
        (len - 1).checked_sub(n)
    };
    at.filter(|&i| i < len)
        .ok_or(format!("{arg}: directory stack index out of range"))
}

const DIRS_USAGE: &str = "dirs [-clpv] [+N] [-N]";
const PUSHD_USAGE: &str = "pushd [-n] [+N | -N | dir]";
const POPD_USAGE: &str = "popd [-n] [+N | -N]";

fn run_dirs(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let mut style = Style::default();
        let mut index = None;
        for arg in ctx.operands() {
            if let Some(at) = stack_index(arg) {
                index = Some((at, arg.trim_start_matches(['+', '-']).to_string()));
                continue;
            }
            if arg.starts_with('+') {
                return invalid(&ctx, &format!("{arg}: invalid number"), DIRS_USAGE).await;
            }
            let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
                return ctx.bad_option(arg, DIRS_USAGE).await;
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
                    _ => return ctx.bad_option(arg, DIRS_USAGE).await,
                }
            }
        }
        if let Some((at, shown)) = index {
            match position(stack(&ctx).len(), at, &shown) {
                Ok(i) => style.only = Some(i),
                Err(message) => return ctx.fail(&message, 1).await,
            }
        }
        let text = styled(&ctx, style);
        ctx.print_status(&text).await
    })
}

/// A bad operand: the message and the usage, status 2.
async fn invalid(ctx: &Ctx, message: &str, usage: &str) -> Flow {
    ctx.sh
        .report(&ctx.fds, &format!("{}: {message}", ctx.name()))
        .await;
    ctx.fds
        .eprint(&format!("{}: usage: {usage}\n", ctx.name()))
        .await;
    Flow::Normal(2)
}

/// `pushd`'s and `popd`'s operands: `-n`, and the one other operand.
fn split_operands(ctx: &Ctx) -> (bool, Vec<String>) {
    let mut no_cd = false;
    let mut rest = Vec::new();
    let mut options = true;
    for arg in ctx.operands() {
        match arg.as_str() {
            "-n" if options => no_cd = true,
            "--" if options => options = false,
            _ => {
                options = false;
                rest.push(arg.clone());
            }
        }
    }
    (no_cd, rest)
}

fn run_pushd(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (no_cd, operands) = split_operands(&ctx);
        let mut full = stack(&ctx);
        match operands.as_slice() {
            [] if full.len() < 2 => {
                if no_cd {
                    return Flow::Normal(0);
                }
                return ctx.fail("no other directory", 1).await;
            }
            [] => full.swap(0, 1),
            [arg] if stack_index(arg).is_some() || arg.starts_with('+') => {
                let Some(at) = stack_index(arg) else {
                    return invalid(&ctx, &format!("{arg}: invalid number"), PUSHD_USAGE).await;
                };
                match position(full.len(), at, arg) {
                    Ok(i) => full.rotate_left(i),
                    Err(message) => return ctx.fail(&message, 1).await,
                }
            }
            [arg] if arg.starts_with('-') && arg.len() > 1 => {
                return invalid(&ctx, &format!("{arg}: invalid number"), PUSHD_USAGE).await;
            }
            [dir] => {
                let target = resolve(&full[0], dir);
                let is_dir = ctx
                    .sh
                    .world
                    .vfs
                    .borrow()
                    .stat("/", &target)
                    .is_ok_and(|s| s.kind == FileKind::Dir);
                if !is_dir {
                    return ctx
                        .fail(&format!("{dir}: No such file or directory"), 1)
                        .await;
                }
                full.insert(usize::from(no_cd), target);
            }
            _ => return ctx.fail("too many arguments", 1).await,
        }
        set_stack(&ctx, full, !no_cd);
        let text = listing(&ctx);
        ctx.print_status(&text).await
    })
}

fn run_popd(ctx: Ctx) -> LocalFuture<'static, Flow> {
    Box::pin(async move {
        let (no_cd, operands) = split_operands(&ctx);
        let mut full = stack(&ctx);
        let at = match operands.as_slice() {
            [] => usize::from(no_cd),
            [arg] => match stack_index(arg) {
                Some(at) => match position(full.len(), at, arg) {
                    Ok(i) => i,
                    Err(message) => return ctx.fail(&message, 1).await,
                },
                None if arg.starts_with(['+', '-']) => {
                    return invalid(&ctx, &format!("{arg}: invalid number"), POPD_USAGE).await;
                }
                None => {
                    return invalid(&ctx, &format!("{arg}: invalid argument"), POPD_USAGE).await;
                }
            },
            _ => return ctx.fail("too many arguments", 1).await,
        };
        if full.len() < 2 {
            return ctx.fail("directory stack empty", 1).await;
        }
        full.remove(at);
        set_stack(&ctx, full, at == 0);
        let text = listing(&ctx);
        ctx.print_status(&text).await
    })
}
