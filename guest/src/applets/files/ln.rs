//! `ln [-sfnvTrLP] TARGET [LINK]` / `ln TARGET... DIRECTORY`: make hard links (the default)
//! or, with `-s`, symbolic links. A hard link is another name for the same file (see
//! [`Vfs::link`](crate::vfs::Vfs::link)); as in GNU ln, a symlink TARGET is linked itself
//! unless `-L` (the last of `-L`/`-P` wins).

use crate::applets::common::{
    basename, conclude, dirname, join, out_str, parse_args, quote, quote_if_needed, relative,
    Placing, Res,
};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{resolve, FileKind};

/// The `ln` applet.
pub const APPLET: Applet = Applet {
    name: "ln",
    usage: "ln [OPTION]... TARGET [LINK_NAME]\n  or:  ln [OPTION]... TARGET... DIRECTORY\n  or:  ln [OPTION]... -t DIRECTORY TARGET...\nCreate hard links by default, symbolic links with --symbolic.\nBy default, each destination (name of new link) should not already exist.\nWhen creating hard links, each TARGET must exist; directories cannot be hard-linked.\n  -f, --force                remove existing destination files\n  -L, --logical              dereference TARGETs that are symbolic links\n  -n, --no-dereference       treat LINK_NAME as a normal file if it is a symlink to a dir\n  -P, --physical             make hard links directly to symbolic links (the default)\n  -r, --relative             with -s, make the link's target relative to the link's location\n  -s, --symbolic             make symbolic links instead of hard links\n  -T, --no-target-directory  treat LINK_NAME as a normal file always\n  -t, --target-directory=DIR create the links in DIR\n  -v, --verbose              print the name of each linked file",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "sfnrTvLP",
    short_val: "t",
    long: &[
        "symbolic",
        "force",
        "no-dereference",
        "relative",
        "no-target-directory",
        "verbose",
        "logical",
        "physical",
    ],
    long_val: &["target-directory"],
    digits: None,
    stop_at_operand: false,
};

#[derive(Default)]
struct Options {
    place: Placing,
    symbolic: bool,
    force: bool,
    no_deref: bool,
    relative: bool,
    /// `-L`: hard-link what a symlink TARGET points to, not the symlink.
    logical: bool,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = Options::default();
        for opt in &opts {
            match opt {
                _ if o.place.take(opt, false) => {}
                _ if opt.is('s', "symbolic") => o.symbolic = true,
                _ if opt.is('f', "force") => o.force = true,
                _ if opt.is('n', "no-dereference") => o.no_deref = true,
                _ if opt.is('r', "relative") => o.relative = true,
                _ if opt.is('L', "logical") => o.logical = true,
                _ if opt.is('P', "physical") => o.logical = false,
                _ => {}
            }
        }
        let pairs = match plan(&mut ctx, &operands, &o).await {
            Ok(pairs) => pairs,
            Err(status) => return status,
        };
        let mut status = 0;
        for (target, link) in pairs {
            match make_link(&mut ctx, &target, &link, &o).await {
                Ok(true) => {}
                Ok(false) => status = 1,
                Err(exit) => return conclude(&mut ctx, Err(exit)).await,
            }
        }
        conclude(&mut ctx, Ok(status)).await
    })
}

/// Whether `path` is a directory to put links in (a symlink to one counts unless `-n`).
fn is_dir(ctx: &Ctx, path: &str, follow: bool) -> bool {
    let vfs = ctx.vfs.borrow();
    let stat = if follow {
        vfs.stat(&ctx.cwd, path)
    } else {
        vfs.lstat(&ctx.cwd, path)
    };
    stat.is_ok_and(|s| s.kind == FileKind::Dir)
}

/// The (target, link name) pairs the operands ask for.
async fn plan(
    ctx: &mut Ctx,
    operands: &[String],
    o: &Options,
) -> Result<Vec<(String, String)>, i32> {
    if operands.is_empty() {
        return Err(usage_error(ctx, "missing file operand", 1).await);
    }
    let into = |dir: &str, targets: &[String]| -> Vec<(String, String)> {
        targets
            .iter()
            .map(|t| (t.clone(), join(dir, basename(t))))
            .collect()
    };
    if let Some(dir) = &o.place.target_dir {
        if !is_dir(ctx, dir, true) {
            warn(
                ctx,
                format_args!("target {}: No such file or directory", quote(dir)),
            )
            .await;
            return Err(1);
        }
        return Ok(into(dir, operands));
    }
    match operands {
        [target] => Ok(into(".", std::slice::from_ref(target))),
        [target, link] if o.place.no_target_dir || !is_dir(ctx, link, !o.no_deref) => {
            Ok(vec![(target.clone(), link.clone())])
        }
        [_, _, extra, ..] if o.place.no_target_dir => {
            Err(usage_error(ctx, format!("extra operand {}", quote(extra)), 1).await)
        }
        [sources @ .., dir] if is_dir(ctx, dir, true) => Ok(into(dir, sources)),
        [.., dir] => {
            let exists = ctx.vfs.borrow().exists(&ctx.cwd, dir);
            let why = if exists {
                "Not a directory"
            } else {
                "No such file or directory"
            };
            warn(ctx, format_args!("target {}: {why}", quote(dir))).await;
            Err(1)
        }
        [] => Ok(Vec::new()),
    }
}

async fn make_link(ctx: &mut Ctx, target: &str, link: &str, o: &Options) -> Res<bool> {
    if !o.symbolic {
        return hard_link(ctx, target, link, o).await;
    }
    let stored = if o.relative {
        let abs_target = resolve(&ctx.cwd, target);
        let link_dir = resolve(&ctx.cwd, dirname(link));
        relative(&link_dir, &abs_target)
    } else {
        target.to_string()
    };
    let existing = ctx.vfs.borrow().lstat(&ctx.cwd, link).map(|s| s.kind);
    if let Ok(kind) = existing {
        if !o.force {
            let message = format!(
                "failed to create symbolic link {}: File exists",
                quote(link)
            );
            warn(ctx, message).await;
            return Ok(false);
        }
        if kind == FileKind::Dir {
            warn(
                ctx,
                format_args!("{}: cannot overwrite directory", quote_if_needed(link)),
            )
            .await;
            return Ok(false);
        }
        let _ = ctx.vfs.borrow_mut().remove_file(&ctx.cwd, link);
    }
    let made = ctx.vfs.borrow_mut().symlink(&ctx.cwd, &stored, link);
    if let Err(e) = made {
        let message = format!("failed to create symbolic link {}: {}", quote(link), e.code);
        warn(ctx, message).await;
        return Ok(false);
    }
    if o.place.verbose {
        out_str(ctx, &format!("{} -> {}\n", quote(link), quote(&stored))).await?;
    }
    Ok(true)
}

/// `ln TARGET LINK` without `-s`: checks what GNU ln checks, in its order, then links.
async fn hard_link(ctx: &mut Ctx, target: &str, link: &str, o: &Options) -> Res<bool> {
    let source = {
        let vfs = ctx.vfs.borrow();
        match o.logical {
            true => vfs.stat(&ctx.cwd, target),
            false => vfs.lstat(&ctx.cwd, target),
        }
    };
    let refusal = match source {
        Err(e) => Some(format!("failed to access {}: {}", quote(target), e.code)),
        Ok(s) if s.kind == FileKind::Dir => Some(format!(
            "{}: hard link not allowed for directory",
            quote_if_needed(target)
        )),
        Ok(_) => replace_existing(ctx, target, link, o.force),
    };
    if let Some(message) = refusal {
        warn(ctx, message).await;
        return Ok(false);
    }
    let made = {
        let mut vfs = ctx.vfs.borrow_mut();
        match o.force {
            true => vfs.link_replacing(&ctx.cwd, target, link, o.logical),
            false => vfs.link(&ctx.cwd, target, link, o.logical),
        }
    };
    if let Err(e) = made {
        let message = format!(
            "failed to create hard link {} => {}: {}",
            quote(link),
            quote(target),
            e.code
        );
        warn(ctx, message).await;
        return Ok(false);
    }
    if o.place.verbose {
        out_str(ctx, &format!("{} => {}\n", quote(link), quote(target))).await?;
    }
    Ok(true)
}

/// Whether a hard link may replace what is at `link`: only with `force`, and never `target`'s
/// own entry or a directory. Returns the message when it must not proceed.
fn replace_existing(ctx: &mut Ctx, target: &str, link: &str, force: bool) -> Option<String> {
    let vfs = ctx.vfs.borrow();
    let existing = vfs.lstat(&ctx.cwd, link).ok()?;
    if !force {
        return Some(format!(
            "failed to create hard link {}: File exists",
            quote(link)
        ));
    }
    let entry = |path: &str| {
        let dir = vfs.canonicalize(&ctx.cwd, dirname(path)).ok();
        dir.map(|dir| join(&dir, basename(path)))
    };
    if entry(target).is_some_and(|t| Some(t) == entry(link)) {
        return Some(format!(
            "{} and {} are the same file",
            quote(target),
            quote(link)
        ));
    }
    if existing.kind == FileKind::Dir {
        return Some(format!(
            "{}: cannot overwrite directory",
            quote_if_needed(link)
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, tree};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn ln_symbolic() {
        let vfs = vfs_with(&[("a", "A"), ("b", ""), ("d/.k", "")]);
        assert_eq!(
            run_in(&vfs, "ln", &["-sv", "a", "d"], ""),
            ok("'d/a' -> 'a'\n")
        );
        assert_eq!(
            run_in(&vfs, "ln", &["-s", "a", "d"], ""),
            err("ln: failed to create symbolic link 'd/a': File exists\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "ln", &["-sfv", "b", "d/a"], ""),
            ok("'d/a' -> 'b'\n")
        );
        assert_eq!(run_in(&vfs, "ln", &["-sr", "a", "d/rel"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "ln", &["-s", "a"], ""),
            err("ln: failed to create symbolic link './a': File exists\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "ln", &["-sT", "a", "d"], ""),
            err("ln: failed to create symbolic link 'd': File exists\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "ln", &["-sfT", "a", "d"], ""),
            err("ln: d: cannot overwrite directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "ln", &["-s", "nowhere", "dangling"], ""),
            ok("")
        );
        assert_eq!(
            tree(&vfs),
            "a=A\nb=\nd/\nd/.k=\nd/a->b\nd/rel->../a\ndangling->nowhere"
        );
    }

    #[test]
    fn ln_directories_and_errors() {
        let vfs = vfs_with(&[("a", ""), ("b", ""), ("d/x", ""), ("e/y", "")]);
        let _ = vfs.borrow_mut().symlink("/workspace", "d", "l");
        assert_eq!(run_in(&vfs, "ln", &["-s", "a", "b", "e"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "ln", &["-s", "a", "b", "z"], ""),
            err("ln: target 'z': No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "ln", &["-s", "a", "b", "a"], ""),
            err("ln: target 'a': Not a directory\n", 1)
        );
        assert_eq!(run_in(&vfs, "ln", &["-sfn", "e", "l"], ""), ok(""));
        assert_eq!(run_in(&vfs, "ln", &["-s", "-t", "d", "a"], ""), ok(""));
        assert_eq!(run_in(&vfs, "ln", &["a", "h"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "ln", &["a", "h"], ""),
            err("ln: failed to create hard link 'h': File exists\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "ln", &["d", "h2"], ""),
            err("ln: d: hard link not allowed for directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "ln", &["/dev/null", "h2"], ""),
            err(
                "ln: failed to create hard link 'h2' => '/dev/null': Invalid cross-device link\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "ln", &["-f", "a", "./a"], ""),
            err("ln: 'a' and './a' are the same file\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "ln", &["-fv", "b", "h"], ""),
            ok("'h' => 'b'\n")
        );
        // A link that cannot be made leaves the destination as it was.
        let refused = run_in(&vfs, "ln", &["-f", "/dev/null", "h"], "");
        assert_eq!(refused.status, 1);
        assert_eq!(vfs.borrow().read("/workspace", "h"), Ok(&b""[..]));
        let _ = vfs.borrow_mut().remove_file("/workspace", "h");
        assert_eq!(
            run_in(&vfs, "ln", &["nope", "h"], ""),
            err(
                "ln: failed to access 'nope': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            tree(&vfs),
            "a=\nb=\nd/\nd/a->a\nd/x=\ne/\ne/a->a\ne/b->b\ne/y=\nl->e"
        );
        assert_eq!(
            run("ln", &[], ""),
            err(
                "ln: missing file operand\nTry 'ln --help' for more information.\n",
                1
            )
        );
        assert_eq!(run("ln", &["-Q"], "").status, 1);
        let _ = both;
    }
}
