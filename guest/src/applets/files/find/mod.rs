//! `find [-H|-L|-P] [PATH]... [EXPRESSION]`: walk directory trees, evaluate an expression.
//!
//! Directories are read in VFS order, which is sorted by name (GNU uses readdir order, which
//! on a real disk is unpredictable): `find` output here is deterministic.

mod eval;
mod parse;

use std::collections::HashSet;

use eval::{Entry, Walker};
use parse::Env;

use crate::applets::common::warn;
use crate::applets::common::{
    basename, conclude, join, print_help, quote, strip_trailing_slashes, Res,
};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{FileKind, Stat};

/// The `find` applet.
pub const APPLET: Applet = Applet {
    name: "find",
    usage: "find [-H] [-L] [-P] [PATH...] [EXPRESSION]\nSearch directory trees (default: .) and evaluate EXPRESSION (default: -print) on each file.\nOperators: ( EXPR ), ! EXPR, -not EXPR, EXPR -a EXPR, EXPR -o EXPR, EXPR , EXPR\nGlobal options: -maxdepth N, -mindepth N, -depth, -follow, -xdev, -regextype TYPE\nTests: -name PAT, -iname PAT, -path PAT, -ipath PAT, -regex RE, -iregex RE,\n  -type [fdlc], -xtype [fdlc], -size [+-]N[ckMGbw], -mtime [+-]N, -mmin [+-]N, -newer FILE,\n  -newermt DATE, -empty, -perm [-/]MODE, -links N, -inum N, -samefile FILE, -user NAME, -group NAME,\n  -readable, -writable, -executable, -true, -false\nActions: -print, -print0, -printf FORMAT, -ls, -delete, -prune, -quit,\n  -exec CMD {} ;, -exec CMD {} +, -execdir CMD {} ;, -execdir CMD {} +, -ok CMD {} ;\nDirectories are visited in name order.",
    help: Help::First,
    run,
};

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        if ctx.args.first().is_some_and(|a| a == "-help") {
            return print_help(&mut ctx, APPLET.usage).await;
        }
        let cmd = {
            let vfs = ctx.vfs.borrow();
            let cwd = ctx.cwd.clone();
            let mtime = |path: &str| {
                vfs.stat(&cwd, path)
                    .map(|s| s.mtime_ms)
                    .map_err(|e| format!("{}: {}", quote(path), e.code))
            };
            let inode = |path: &str| {
                vfs.lstat(&cwd, path)
                    .map(|s| s.ino)
                    .map_err(|e| format!("{}: {}", quote(path), e.code))
            };
            let env = Env {
                now_secs: (ctx.host.now_ms() / 1000.0).floor() as i64,
                mtime: &mtime,
                inode: &inode,
            };
            parse::parse(&ctx.args, &env)
        };
        let cmd = match cmd {
            Ok(cmd) => cmd,
            Err(message) => {
                warn(&mut ctx, message).await;
                return 1;
            }
        };
        for warning in &cmd.warnings {
            warn(&mut ctx, warning).await;
        }
        let mut walker = Walker::new(&mut ctx, &cmd);
        let result = walk_all(&mut walker).await;
        let status = walker.status;
        conclude(&mut ctx, result.map(|()| status)).await
    })
}

async fn walk_all(w: &mut Walker<'_>) -> Res {
    let roots = w.cmd.roots.clone();
    for root in &roots {
        walk(w, root).await?;
        if w.quit {
            break;
        }
    }
    w.flush_all().await
}

/// What is left to do in the depth-first walk.
enum Step {
    /// Evaluate (unless `-depth`) and maybe descend.
    Visit(Entry),
    /// `-depth`: evaluate a directory after its contents.
    After(Entry),
}

fn metadata(w: &Walker<'_>, path: &str, follow: bool) -> Result<Stat, crate::vfs::VfsError> {
    let vfs = w.ctx.vfs.borrow();
    if follow {
        vfs.stat(&w.ctx.cwd, path)
            .or_else(|_| vfs.lstat(&w.ctx.cwd, path))
    } else {
        vfs.lstat(&w.ctx.cwd, path)
    }
}

async fn walk(w: &mut Walker<'_>, root: &str) -> Res {
    let g = w.cmd.globals.clone();
    let follow_root = g.follow || g.follow_roots;
    let stat = {
        let vfs = w.ctx.vfs.borrow();
        if follow_root {
            vfs.stat(&w.ctx.cwd, root)
        } else {
            vfs.lstat(&w.ctx.cwd, root)
        }
    };
    let stat = match stat {
        Ok(stat) => stat,
        Err(e) => {
            warn(w.ctx, format_args!("{}: {}", quote(root), e.code)).await;
            w.status = 1;
            return Ok(());
        }
    };
    let name = basename(strip_trailing_slashes(root)).to_string();
    let mut seen = HashSet::new();
    let mut stack = vec![Step::Visit(Entry {
        path: root.to_string(),
        name,
        depth: 0,
        stat,
        root: root.to_string(),
    })];
    while let Some(step) = stack.pop() {
        let entry = match step {
            Step::After(entry) => {
                if entry.depth >= g.min_depth {
                    w.visit(&entry).await?;
                }
                if w.quit {
                    return Ok(());
                }
                continue;
            }
            Step::Visit(entry) => entry,
        };
        let is_dir = entry.stat.kind == FileKind::Dir;
        if !g.depth_first && entry.depth >= g.min_depth {
            w.visit(&entry).await?;
            if w.quit {
                return Ok(());
            }
        } else {
            w.prune = false;
        }
        let descend = is_dir && entry.depth < g.max_depth && (g.depth_first || !w.prune);
        if !descend {
            if g.depth_first && entry.depth >= g.min_depth {
                w.visit(&entry).await?;
                if w.quit {
                    return Ok(());
                }
            }
            continue;
        }
        if g.follow && !seen.insert(entry.stat.ino) {
            let message = format!("File system loop detected; {} is part of the same file system loop as an ancestor.", quote(&entry.path));
            warn(w.ctx, message).await;
            w.status = 1;
            continue;
        }
        let children = w.ctx.vfs.borrow().read_dir(&w.ctx.cwd, &entry.path);
        let children = match children {
            Ok(children) => children,
            Err(e) => {
                warn(w.ctx, format_args!("{}: {}", quote(&entry.path), e.code)).await;
                w.status = 1;
                continue;
            }
        };
        let (path, depth, root) = (entry.path.clone(), entry.depth + 1, entry.root.clone());
        if g.depth_first {
            stack.push(Step::After(entry));
        }
        for (name, _) in children.into_iter().rev() {
            let child = join(&path, &name);
            match metadata(w, &child, g.follow) {
                Ok(stat) => stack.push(Step::Visit(Entry {
                    path: child,
                    name,
                    depth,
                    stat,
                    root: root.clone(),
                })),
                Err(e) => {
                    warn(w.ctx, format_args!("{}: {}", quote(&child), e.code)).await;
                    w.status = 1;
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
