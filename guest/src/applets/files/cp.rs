//! `cp [-rRapfnuvdlHLP] [--parents] [-t DIR] [-T] SOURCE... DEST`: copy files and directory
//! trees; the last of `-H`, `-L`, `-P` says which symlinks are followed. `-l` makes hard links
//! instead of copies, and `-a` and `-d` (`--preserve=links`) keep files that have several names
//! among the sources linked in the copy.
//! Copies share their bytes with the original until either changes (the VFS copies on write).

use std::cell::RefCell;
use std::collections::HashMap;

use crate::applets::common::{conclude, err_str, join, out_str, parse_args, quote, Placing, Res};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{FileKind, Stat};

/// The `cp` applet.
pub const APPLET: Applet = Applet {
    name: "cp",
    usage: "cp [OPTION]... SOURCE DEST\n  or:  cp [OPTION]... SOURCE... DIRECTORY\n  or:  cp [OPTION]... -t DIRECTORY SOURCE...\nCopy SOURCE to DEST, or multiple SOURCE(s) to DIRECTORY.\n  -a, --archive                same as -dR --preserve=all\n  -d                           same as --no-dereference --preserve=links\n  -P, --no-dereference         copy symlinks as symlinks\n  -f, --force                  overwrite without asking\n  -H                           follow symbolic links given as SOURCE, not those inside\n  -i, --interactive            prompt before overwrite (answers are read from stdin)\n  -l, --link                   hard link files instead of copying\n  -L, --dereference            always follow symbolic links in SOURCE\n  -n, --no-clobber             do not overwrite an existing file\n  -p, --preserve[=ATTRS]       preserve mode and timestamps (and hard links\n                               between the copied files, with =links or =all)\n      --parents                use full source file name under DIRECTORY\n  -r, -R, --recursive          copy directories recursively\n  -t, --target-directory=DIR   copy all SOURCE arguments into DIR\n  -T, --no-target-directory    treat DEST as a normal file\n  -u, --update                 copy only when SOURCE is newer than DEST or DEST is missing\n  -v, --verbose                explain what is being done",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "rRapfnuvdlLPTiH",
    short_val: "t",
    long: &[
        "recursive",
        "archive",
        "force",
        "no-clobber",
        "update",
        "verbose",
        "no-dereference",
        "dereference",
        "no-target-directory",
        "interactive",
        "preserve",
        "parents",
        "link",
    ],
    long_val: &["target-directory"],
    digits: None,
    stop_at_operand: false,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Deref {
    Never,
    Operands,
    Always,
}

#[derive(Default)]
struct Options {
    place: Placing,
    recursive: bool,
    preserve: bool,
    /// Which symlinks are followed: `-P` (none), `-H` (operands), `-L` (all); None: the
    /// default (operands, and none inside trees with `-R`).
    deref: Option<Deref>,
    /// `--parents`: each source keeps its path under the target directory.
    parents: bool,
    /// `-f`: with `-l`, an existing destination is replaced.
    force: bool,
    /// `-l`: files are hard-linked, not copied.
    link: bool,
    /// `-a`, `--preserve=links`: files with several names among the sources keep them.
    preserve_links: bool,
    /// What each file with several names was copied to, by inode, for `preserve_links`.
    copied: RefCell<HashMap<u64, String>>,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let preserve_links = ctx.args.iter().any(|a| {
            a.strip_prefix("--preserve=")
                .is_some_and(|attrs| attrs.split(',').any(|x| x == "links" || x == "all"))
        });
        let args = ctx
            .args
            .iter()
            .map(|a| {
                if a.starts_with("--preserve=") {
                    "--preserve".to_string()
                } else {
                    a.clone()
                }
            })
            .collect();
        ctx.args = args;
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = Options {
            preserve_links,
            ..Options::default()
        };
        for opt in &opts {
            o.force |= opt.is('f', "force");
            match opt {
                _ if o.place.take(opt, true) => {}
                _ if opt.is('r', "recursive") || opt.is('R', "recursive") => o.recursive = true,
                _ if opt.is('a', "archive") => {
                    (o.recursive, o.deref, o.preserve) = (true, Some(Deref::Never), true);
                    o.preserve_links = true;
                }
                _ if opt.is('l', "link") => o.link = true,
                _ if opt.is('p', "preserve") => o.preserve = true,
                // -d is --no-dereference --preserve=links, as in GNU.
                _ if opt.is('d', "\0") => (o.deref, o.preserve_links) = (Some(Deref::Never), true),
                _ if opt.is('P', "no-dereference") => o.deref = Some(Deref::Never),
                _ if opt.is('H', "\0") => o.deref = Some(Deref::Operands),
                _ if opt.is('L', "dereference") => o.deref = Some(Deref::Always),
                _ if opt.is('\0', "parents") => o.parents = true,
                _ => {}
            }
        }
        let planned = if o.parents {
            with_parents(&mut ctx, &operands, &o.place).await
        } else {
            o.place.plan(&mut ctx, &operands).await
        };
        let pairs = match planned {
            Ok(pairs) => pairs,
            Err(status) => return status,
        };
        let mut status = 0;
        // GNU names the destination operand (not the path inside it) in some messages.
        let shown = o
            .place
            .target_dir
            .clone()
            .or_else(|| operands.last().cloned())
            .unwrap_or_default();
        for (src, dst) in &pairs {
            match copy_operand(&mut ctx, src, dst, &shown, &o).await {
                Ok(true) => {}
                Ok(false) => status = 1,
                Err(exit) => return conclude(&mut ctx, Err(exit)).await,
            }
        }
        conclude(&mut ctx, Ok(status)).await
    })
}

/// `--parents`: each source goes to its own path under the directory (the last operand or
/// `-t DIR`), the directories on the way made as needed.
async fn with_parents(
    ctx: &mut Ctx,
    operands: &[String],
    place: &Placing,
) -> Result<Vec<(String, String)>, i32> {
    let (dir, sources) = match (&place.target_dir, operands.split_last()) {
        (Some(dir), _) => (dir.clone(), operands),
        (None, Some((last, rest))) if !rest.is_empty() => (last.clone(), rest),
        _ => return place.plan(ctx, operands).await,
    };
    let is_dir = metadata(ctx, &dir, true).is_ok_and(|s| s.kind == FileKind::Dir);
    if place.no_target_dir || !is_dir {
        let message = "with --parents, the destination must be a directory";
        return Err(usage_error(ctx, message, 1).await);
    }
    let mut pairs = Vec::new();
    for src in sources {
        let relative = src.trim_start_matches('/');
        // Each missing directory on the way, made and (with -v) told as GNU does, unquoted.
        let mut at = 0;
        while let Some(slash) = relative[at..].find('/') {
            at += slash + 1;
            let part = relative[..at].trim_end_matches('/');
            let made = join(&dir, part);
            if metadata(ctx, &made, true).is_ok() {
                continue;
            }
            let result = ctx.vfs.borrow_mut().mkdir(&ctx.cwd, &made);
            if let Err(e) = result {
                warn(
                    ctx,
                    format_args!("cannot make directory {}: {}", quote(&made), e.code),
                )
                .await;
                return Err(1);
            }
            if place.verbose {
                out_str(ctx, &format!("{part} -> {made}\n"))
                    .await
                    .map_err(|e| e.0)?;
            }
        }
        pairs.push((src.clone(), join(&dir, relative)));
    }
    Ok(pairs)
}

/// Whether symlinks are followed at the operands (`inner` false) or inside trees.
fn follows(o: &Options, inner: bool) -> bool {
    match o.deref {
        Some(Deref::Always) => true,
        Some(Deref::Operands) => !inner,
        Some(Deref::Never) => false,
        None => !inner && !o.recursive,
    }
}

fn metadata(ctx: &Ctx, path: &str, follow: bool) -> Result<Stat, crate::vfs::VfsError> {
    let vfs = ctx.vfs.borrow();
    if follow {
        vfs.stat(&ctx.cwd, path)
    } else {
        vfs.lstat(&ctx.cwd, path)
    }
}

/// Copies one command-line source; false after a reported failure.
async fn copy_operand(ctx: &mut Ctx, src: &str, dst: &str, shown: &str, o: &Options) -> Res<bool> {
    let follow = follows(o, false);
    let stat = match metadata(ctx, src, follow) {
        Ok(stat) => stat,
        Err(e) => {
            warn(ctx, format_args!("cannot stat {}: {}", quote(src), e.code)).await;
            return Ok(false);
        }
    };
    if same_file(ctx, src, dst) {
        warn(
            ctx,
            format_args!("{} and {} are the same file", quote(src), quote(dst)),
        )
        .await;
        return Ok(false);
    }
    if stat.kind != FileKind::Dir {
        return copy_leaf(ctx, src, dst, &stat, o).await;
    }
    if !o.recursive {
        warn(
            ctx,
            format_args!("-r not specified; omitting directory {}", quote(src)),
        )
        .await;
        return Ok(false);
    }
    let inside = {
        let vfs = ctx.vfs.borrow();
        let from = vfs.canonicalize(&ctx.cwd, src).unwrap_or_default();
        let to = super::realpath::canonical(&vfs, &ctx.cwd, dst, super::realpath::Missing::Any)
            .unwrap_or_default();
        to == from || to.starts_with(&format!("{from}/"))
    };
    if inside {
        let message = format!(
            "cannot copy a directory, {}, into itself, {}",
            quote(src),
            quote(shown)
        );
        warn(ctx, message).await;
        return Ok(false);
    }
    copy_tree(ctx, src, dst, o).await
}

/// Whether directory `path` (reached through a symlink) is `path`'s own ancestor: following
/// it would copy forever.
fn loops(ctx: &Ctx, path: &str) -> bool {
    let vfs = ctx.vfs.borrow();
    let parent = crate::applets::common::dirname(path);
    match (
        vfs.canonicalize(&ctx.cwd, path),
        vfs.canonicalize(&ctx.cwd, parent),
    ) {
        (Ok(target), Ok(parent)) => parent == target || parent.starts_with(&format!("{target}/")),
        _ => false,
    }
}

/// Whether `a` and `b` lead to one node (the same path, or hard links of one file).
fn same_file(ctx: &Ctx, a: &str, b: &str) -> bool {
    let vfs = ctx.vfs.borrow();
    match (vfs.stat(&ctx.cwd, a), vfs.stat(&ctx.cwd, b)) {
        (Ok(x), Ok(y)) => x.ino == y.ino,
        _ => false,
    }
}

async fn ask(ctx: &mut Ctx, prompt: &str) -> bool {
    err_str(ctx, prompt).await;
    let answer = ctx.stdin.read_line().await.unwrap_or_default();
    matches!(answer.first(), Some(b'y' | b'Y'))
}

/// Copies a file or symlink to `dst`; false after a reported failure.
async fn copy_leaf(ctx: &mut Ctx, src: &str, dst: &str, stat: &Stat, o: &Options) -> Res<bool> {
    let existing = metadata(ctx, dst, false).ok();
    if let Some(old) = &existing {
        let target_kind = metadata(ctx, dst, true).map(|s| s.kind).unwrap_or(old.kind);
        if target_kind == FileKind::Dir {
            warn(
                ctx,
                format_args!(
                    "cannot overwrite directory {} with non-directory",
                    quote(dst)
                ),
            )
            .await;
            return Ok(false);
        }
        if o.place.no_clobber || (o.place.update && old.mtime_ms >= stat.mtime_ms) {
            return Ok(true);
        }
        if o.place.interactive && !ask(ctx, &format!("cp: overwrite {}? ", quote(dst))).await {
            return Ok(true);
        }
    }
    if let Some(original) = link_source(src, stat, o) {
        let linked = hard_link(ctx, &original, dst, stat, existing.is_some(), o).await;
        if linked && o.place.verbose {
            out_str(ctx, &format!("{} -> {}\n", quote(src), quote(dst))).await?;
        }
        return Ok(linked);
    }
    let result = {
        let mut vfs = ctx.vfs.borrow_mut();
        if stat.kind == FileKind::Symlink {
            let target = vfs.read_link(&ctx.cwd, src).unwrap_or_default();
            if existing.is_some() {
                let _ = vfs.remove_file(&ctx.cwd, dst);
            }
            vfs.symlink(&ctx.cwd, &target, dst)
                .map_err(|e| ("symbolic link", e))
        } else {
            vfs.copy_file(&ctx.cwd, src, dst)
                .map_err(|e| ("regular file", e))
        }
    };
    if let Err((what, e)) = result {
        warn(
            ctx,
            format_args!("cannot create {what} {}: {}", quote(dst), e.code),
        )
        .await;
        return Ok(false);
    }
    if o.preserve_links && stat.nlink > 1 {
        o.copied.borrow_mut().insert(stat.ino, dst.to_string());
    }
    if stat.kind != FileKind::Symlink {
        let mut vfs = ctx.vfs.borrow_mut();
        if existing.is_none() || o.preserve {
            // A new copy gets the source's mode less the umask, unless preserved (GNU).
            let mask = if o.preserve { 0 } else { vfs.umask() };
            let _ = vfs.set_mode(&ctx.cwd, dst, stat.mode & !mask);
        }
        if o.preserve {
            let _ = vfs.set_mtime(&ctx.cwd, dst, Some(stat.mtime_ms));
        }
    }
    if o.place.verbose {
        out_str(ctx, &format!("{} -> {}\n", quote(src), quote(dst))).await?;
    }
    Ok(true)
}

/// What `dst` is to be a hard link to instead of a copy: `src` itself with `-l`, or where an
/// earlier name of the same file went when links are preserved.
fn link_source(src: &str, stat: &Stat, o: &Options) -> Option<String> {
    if o.link {
        return Some(src.to_string());
    }
    match o.preserve_links && stat.nlink > 1 {
        true => o.copied.borrow().get(&stat.ino).cloned(),
        false => None,
    }
}

/// Makes `dst` a hard link to `original` (replacing what is there with `-f`, or when links
/// are preserved); false after a reported failure.
async fn hard_link(
    ctx: &mut Ctx,
    original: &str,
    dst: &str,
    stat: &Stat,
    exists: bool,
    o: &Options,
) -> bool {
    let follow = stat.kind != FileKind::Symlink;
    let replace = exists && (o.force || !o.link);
    let made = {
        let mut vfs = ctx.vfs.borrow_mut();
        match replace {
            true => vfs.link_replacing(&ctx.cwd, original, dst, follow),
            false => vfs.link(&ctx.cwd, original, dst, follow),
        }
    };
    if let Err(e) = made {
        let message = format!(
            "cannot create hard link {} to {}: {}",
            quote(dst),
            quote(original),
            e.code
        );
        warn(ctx, message).await;
        return false;
    }
    true
}

/// Copies a directory tree, parents before children, without recursion.
async fn copy_tree(ctx: &mut Ctx, src: &str, dst: &str, o: &Options) -> Res<bool> {
    let mut ok = true;
    let mut stack = vec![(src.to_string(), dst.to_string())];
    let mut stamps = Vec::new();
    while let Some((from, to)) = stack.pop() {
        let inner = from != src;
        let stat = match metadata(ctx, &from, follows(o, inner)) {
            Ok(stat) => stat,
            Err(e) => {
                warn(
                    ctx,
                    format_args!("cannot stat {}: {}", quote(&from), e.code),
                )
                .await;
                ok = false;
                continue;
            }
        };
        if stat.kind != FileKind::Dir {
            ok &= copy_leaf(ctx, &from, &to, &stat, o).await?;
            continue;
        }
        if inner && follows(o, true) && loops(ctx, &from) {
            let message = format!("cannot copy cyclic symbolic link {}", quote(&from));
            warn(ctx, message).await;
            ok = false;
            continue;
        }
        if !make_dir(ctx, &from, &to, &stat, o).await? {
            ok = false;
            continue;
        }
        if o.preserve {
            stamps.push((to.clone(), stat.mtime_ms));
        }
        let entries = ctx
            .vfs
            .borrow()
            .read_dir(&ctx.cwd, &from)
            .unwrap_or_default();
        for (name, _) in entries.iter().rev() {
            stack.push((join(&from, name), join(&to, name)));
        }
    }
    let mut vfs = ctx.vfs.borrow_mut();
    for (dir, mtime) in stamps.iter().rev() {
        let _ = vfs.set_mtime(&ctx.cwd, dir, Some(*mtime));
    }
    Ok(ok)
}

/// Makes (or reuses) the destination directory of a copied one.
async fn make_dir(ctx: &mut Ctx, from: &str, to: &str, stat: &Stat, o: &Options) -> Res<bool> {
    let existing = metadata(ctx, to, true).map(|s| s.kind);
    match existing {
        Ok(FileKind::Dir) => return Ok(true),
        Ok(_) => {
            let message = format!(
                "cannot overwrite non-directory {} with directory {}",
                quote(to),
                quote(from)
            );
            warn(ctx, message).await;
            return Ok(false);
        }
        Err(_) => {}
    }
    let made = ctx.vfs.borrow_mut().mkdir(&ctx.cwd, to);
    if let Err(e) = made {
        warn(
            ctx,
            format_args!("cannot create directory {}: {}", quote(to), e.code),
        )
        .await;
        return Ok(false);
    }
    {
        let mut vfs = ctx.vfs.borrow_mut();
        let mask = if o.preserve { 0 } else { vfs.umask() };
        let _ = vfs.set_mode(&ctx.cwd, to, stat.mode & !mask);
    }
    if o.place.verbose {
        out_str(ctx, &format!("{} -> {}\n", quote(from), quote(to))).await?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, mtime, set_mtime, tree};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn cp_files() {
        let vfs = vfs_with(&[("a", "hi\n"), ("d/.k", "")]);
        assert_eq!(run_in(&vfs, "cp", &["a", "b"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "cp", &["-v", "a", "d"], ""),
            ok("'a' -> 'd/a'\n")
        );
        assert_eq!(
            run_in(&vfs, "cp", &["-v", "a", "d/"], ""),
            ok("'a' -> 'd/a'\n")
        );
        assert_eq!(
            run_in(&vfs, "cp", &["a", "nope/x"], ""),
            err(
                "cp: cannot create regular file 'nope/x': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "cp", &["nope", "x"], ""),
            err("cp: cannot stat 'nope': No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cp", &["a", "a"], ""),
            err("cp: 'a' and 'a' are the same file\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cp", &["a", "./d/../a"], ""),
            err("cp: 'a' and './d/../a' are the same file\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cp", &["-T", "a", "d"], ""),
            err("cp: cannot overwrite directory 'd' with non-directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cp", &["a", "/etc/x"], ""),
            err(
                "cp: cannot create regular file '/etc/x': Permission denied\n",
                1
            )
        );
        assert_eq!(tree(&vfs), "a=hi\n\nb=hi\n\nd/\nd/.k=\nd/a=hi\n");
    }

    #[test]
    fn cp_clobbering() {
        let vfs = vfs_with(&[("a", "new"), ("b", "old")]);
        assert_eq!(run_in(&vfs, "cp", &["-n", "a", "b"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "cp", &["-i", "a", "b"], "n\n"),
            err("cp: overwrite 'b'? ", 0)
        );
        assert_eq!(tree(&vfs), "a=new\nb=old");
        set_mtime(&vfs, "a", 5.0);
        assert_eq!(run_in(&vfs, "cp", &["-u", "a", "b"], ""), ok(""));
        assert_eq!(tree(&vfs), "a=new\nb=old");
        assert_eq!(
            run_in(&vfs, "cp", &["-i", "a", "b"], "y\n"),
            err("cp: overwrite 'b'? ", 0)
        );
        assert_eq!(tree(&vfs), "a=new\nb=new");
        assert_eq!(run_in(&vfs, "cp", &["-p", "a", "c"], ""), ok(""));
        assert_eq!((mtime(&vfs, "b"), mtime(&vfs, "c")), (1.7e9, 5.0));
        assert_eq!(run_in(&vfs, "cp", &["-f", "a", "b"], ""), ok(""));
    }

    #[test]
    fn cp_directories() {
        let vfs = vfs_with(&[("a", "A"), ("b", "B"), ("d/a", "1"), ("d/sub/x", "2")]);
        let _ = vfs.borrow_mut().symlink("/workspace", "../a", "d/l");
        assert_eq!(
            run_in(&vfs, "cp", &["d", "e"], ""),
            err("cp: -r not specified; omitting directory 'd'\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cp", &["-rv", "d", "e"], ""),
            ok("'d' -> 'e'\n'd/a' -> 'e/a'\n'd/l' -> 'e/l'\n'd/sub' -> 'e/sub'\n'd/sub/x' -> 'e/sub/x'\n")
        );
        assert_eq!(run_in(&vfs, "cp", &["-rv", "d", "e"], ""), ok("'d' -> 'e/d'\n'd/a' -> 'e/d/a'\n'd/l' -> 'e/d/l'\n'd/sub' -> 'e/d/sub'\n'd/sub/x' -> 'e/d/sub/x'\n"));
        assert_eq!(
            run_in(&vfs, "cp", &["-r", "d", "d/sub"], ""),
            err(
                "cp: cannot copy a directory, 'd', into itself, 'd/sub'\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "cp", &["-r", "d", "a"], ""),
            err(
                "cp: cannot overwrite non-directory 'a' with directory 'd'\n",
                1
            )
        );
        assert_eq!(run_in(&vfs, "rm", &["-r", "e"], ""), ok(""));
        assert_eq!(run_in(&vfs, "cp", &["-a", "d/", "f/"], ""), ok(""));
        assert_eq!(tree(&vfs), "a=A\nb=B\nd/\nd/a=1\nd/l->../a\nd/sub/\nd/sub/x=2\nf/\nf/a=1\nf/l->../a\nf/sub/\nf/sub/x=2");
    }

    /// The last of -H, -L, -P says which symlinks are followed (as GNU cp does).
    #[test]
    fn cp_follows_symlinks_as_told() {
        let vfs = vfs_with(&[("d/f", "hi"), ("d/sub/x", "")]);
        for (link, target) in [("dl", "d"), ("d/l", "f"), ("d/sl", "sub")] {
            let _ = vfs.borrow_mut().symlink("/workspace", target, link);
        }
        let copy = |opt: &str| {
            let _ = run_in(&vfs, "rm", &["-rf", "out"], "");
            let out = run_in(&vfs, "cp", &[opt, "dl", "out"], "");
            let listing: Vec<String> = tree(&vfs)
                .lines()
                .filter(|l| l.starts_with("out"))
                .map(str::to_string)
                .collect();
            (out.status, listing.join(" "))
        };
        assert_eq!(copy("-R"), (0, "out->d".to_string()));
        assert_eq!(copy("-RP"), (0, "out->d".to_string()));
        let operands_only = "out/ out/f=hi out/l->f out/sl->sub out/sub/ out/sub/x=";
        assert_eq!(copy("-RH"), (0, operands_only.to_string()));
        assert_eq!(copy("-RLH"), (0, operands_only.to_string()));
        let all = "out/ out/f=hi out/l=hi out/sl/ out/sl/x= out/sub/ out/sub/x=";
        assert_eq!(copy("-RL"), (0, all.to_string()));
        assert_eq!(copy("-RHL"), (0, all.to_string()));
        // A symlink to an ancestor is not followed forever.
        let _ = vfs.borrow_mut().symlink("/workspace", "..", "d/sub/up");
        let out = run_in(&vfs, "cp", &["-RL", "d", "loop"], "");
        assert_eq!(
            (out.status, out.stderr.as_str()),
            (
                1,
                "cp: cannot copy cyclic symbolic link 'd/sl/up'\n\
                 cp: cannot copy cyclic symbolic link 'd/sub/up'\n"
            )
        );
    }

    #[test]
    fn cp_parents_keeps_the_source_path() {
        let vfs = vfs_with(&[("a/b/c", "1"), ("a/e", "2"), ("t/.k", "")]);
        assert_eq!(
            run_in(&vfs, "cp", &["--parents", "-v", "a/b/c", "a/e", "t"], ""),
            ok("a -> t/a\na/b -> t/a/b\n'a/b/c' -> 't/a/b/c'\n'a/e' -> 't/a/e'\n")
        );
        assert_eq!(
            tree(&vfs),
            "a/\na/b/\na/b/c=1\na/e=2\nt/\nt/.k=\nt/a/\nt/a/b/\nt/a/b/c=1\nt/a/e=2"
        );
        assert_eq!(
            run_in(&vfs, "cp", &["--parents", "a/e", "a/e"], ""),
            err(
                "cp: with --parents, the destination must be a directory\nTry 'cp --help' for more information.\n",
                1
            )
        );
    }

    #[test]
    fn cp_dot_copies_contents() {
        let vfs = vfs_with(&[("src/a", "1"), ("src/sub/b", "2"), ("t/.k", "")]);
        assert_eq!(
            run_in(&vfs, "cp", &["-rv", "src/.", "t/"], ""),
            ok("'src/./a' -> 't/./a'\n'src/./sub' -> 't/./sub'\n'src/./sub/b' -> 't/./sub/b'\n")
        );
        assert_eq!(
            tree(&vfs),
            "src/\nsrc/a=1\nsrc/sub/\nsrc/sub/b=2\nt/\nt/.k=\nt/a=1\nt/sub/\nt/sub/b=2"
        );
    }

    #[test]
    fn cp_hard_links() {
        let vfs = vfs_with(&[("a", "A"), ("b", "B"), ("d/f", "F")]);
        let _ = vfs.borrow_mut().link("/workspace", "d/f", "d/g", false);
        let links = |p: &str| vfs.borrow().stat("/workspace", p).map(|s| (s.ino, s.nlink));
        assert_eq!(
            run_in(&vfs, "cp", &["-lv", "a", "c"], ""),
            ok("'a' -> 'c'\n")
        );
        assert_eq!(links("c"), links("a"));
        assert_eq!(
            run_in(&vfs, "cp", &["-l", "a", "b"], ""),
            err("cp: cannot create hard link 'b' to 'a': File exists\n", 1)
        );
        assert_eq!(run_in(&vfs, "cp", &["-lf", "a", "b"], ""), ok(""));
        assert_eq!(links("a").map(|l| l.1), Ok(3));
        assert_eq!(
            run_in(&vfs, "cp", &["a", "c"], ""),
            err("cp: 'a' and 'c' are the same file\n", 1)
        );
        assert_eq!(run_in(&vfs, "cp", &["-a", "d", "e"], ""), ok(""));
        assert_eq!(links("e/f"), links("e/g"));
        assert_eq!(links("e/f").map(|l| l.1), Ok(2));
        assert_eq!(run_in(&vfs, "cp", &["-r", "d", "r"], ""), ok(""));
        assert_eq!(links("r/f").map(|l| l.1), Ok(1));
        let args = ["-r", "--preserve=links", "d", "p"];
        assert_eq!(run_in(&vfs, "cp", &args, ""), ok(""));
        assert_eq!(links("p/g").map(|l| l.1), Ok(2));
        // -d keeps the links between operands too; -P alone does not.
        let _ = vfs.borrow_mut().mkdir("/workspace", "k");
        assert_eq!(run_in(&vfs, "cp", &["-d", "d/f", "d/g", "k"], ""), ok(""));
        assert_eq!(links("k/f"), links("k/g"));
        let _ = vfs.borrow_mut().mkdir("/workspace", "q");
        assert_eq!(run_in(&vfs, "cp", &["-P", "d/f", "d/g", "q"], ""), ok(""));
        assert_eq!(links("q/f").map(|l| l.1), Ok(1));
    }

    #[test]
    fn cp_many_and_usage() {
        let vfs = vfs_with(&[("a", "A"), ("b", "B"), ("d/.k", "")]);
        let _ = vfs.borrow_mut().symlink("/workspace", "a", "l");
        assert_eq!(
            run_in(&vfs, "cp", &["-t", "d", "a", "b", "-v"], ""),
            ok("'a' -> 'd/a'\n'b' -> 'd/b'\n")
        );
        assert_eq!(
            run_in(&vfs, "cp", &["a", "b", "x"], ""),
            err("cp: target 'x': No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cp", &["a", "b", "a"], ""),
            err("cp: target 'a': Not a directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "cp", &["-T", "a", "b", "c"], ""),
            err(
                "cp: extra operand 'c'\nTry 'cp --help' for more information.\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "cp", &["-t", "nope", "a"], ""),
            err(
                "cp: target directory 'nope': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "cp", &[], ""),
            err(
                "cp: missing file operand\nTry 'cp --help' for more information.\n",
                1
            )
        );
        assert_eq!(run_in(&vfs, "cp", &["a"], ""), err("cp: missing destination file operand after 'a'\nTry 'cp --help' for more information.\n", 1));
        assert_eq!(run_in(&vfs, "cp", &["l", "c"], ""), ok(""));
        assert_eq!(run_in(&vfs, "cp", &["-d", "l", "c2"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "cp", &["--preserve=mode,timestamps", "a", "c3"], ""),
            ok("")
        );
        assert_eq!(
            run_in(&vfs, "cp", &["nope", "a", "c4"], ""),
            both("", "cp: target 'c4': No such file or directory\n", 1)
        );
        assert_eq!(
            tree(&vfs),
            "a=A\nb=B\nc=A\nc2->a\nc3=A\nd/\nd/.k=\nd/a=A\nd/b=B\nl->a"
        );
        assert_eq!(run("cp", &["-Z"], "").status, 1);
    }
}
