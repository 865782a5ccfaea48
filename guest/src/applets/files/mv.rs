//! `mv [-fniuvT] [-t DIR] SOURCE... DEST`: move (rename) files and directories.

use crate::applets::common::{
    basename, conclude, dirname, err_str, out_str, parse_args, quote, Placing, Res,
};
use crate::applets::common::{warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{Errno, FileKind};

/// The `mv` applet.
pub const APPLET: Applet = Applet {
    name: "mv",
    usage: "mv [OPTION]... SOURCE DEST\n  or:  mv [OPTION]... SOURCE... DIRECTORY\n  or:  mv [OPTION]... -t DIRECTORY SOURCE...\nRename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.\n  -f, --force                  do not prompt before overwriting\n  -i, --interactive            prompt before overwrite (answers are read from stdin)\n  -n, --no-clobber             do not overwrite an existing file\n  -t, --target-directory=DIR   move all SOURCE arguments into DIR\n  -T, --no-target-directory    treat DEST as a normal file\n  -u, --update                 move only when SOURCE is newer than DEST or DEST is missing\n  -v, --verbose                explain what is being done",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "fniuvT",
    short_val: "t",
    long: &[
        "force",
        "interactive",
        "no-clobber",
        "update",
        "verbose",
        "no-target-directory",
    ],
    long_val: &["target-directory"],
    digits: None,
    stop_at_operand: false,
};

#[derive(Default)]
struct Options {
    place: Placing,
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
                _ if o.place.take(opt, true) => {}
                _ => {}
            }
        }
        let pairs = match o.place.plan(&mut ctx, &operands).await {
            Ok(pairs) => pairs,
            Err(status) => return status,
        };
        let mut status = 0;
        for (src, dst) in &pairs {
            match move_one(&mut ctx, src, dst, &o).await {
                Ok(true) => {}
                Ok(false) => status = 1,
                Err(exit) => return conclude(&mut ctx, Err(exit)).await,
            }
        }
        conclude(&mut ctx, Ok(status)).await
    })
}

/// The node a path names itself (its parent resolved, the last name kept), to compare paths.
fn identity(ctx: &Ctx, path: &str) -> Option<String> {
    let vfs = ctx.vfs.borrow();
    vfs.lstat(&ctx.cwd, path).ok()?;
    let parent = vfs.canonicalize(&ctx.cwd, dirname(path)).ok()?;
    Some(format!("{parent}/{}", basename(path)))
}

async fn move_one(ctx: &mut Ctx, src: &str, dst: &str, o: &Options) -> Res<bool> {
    let stat = ctx.vfs.borrow().lstat(&ctx.cwd, src);
    let stat = match stat {
        Ok(stat) => stat,
        Err(e) => {
            warn(ctx, format_args!("cannot stat {}: {}", quote(src), e.code)).await;
            return Ok(false);
        }
    };
    let same_name = identity(ctx, src).is_some() && identity(ctx, src) == identity(ctx, dst);
    let existing = ctx.vfs.borrow().lstat(&ctx.cwd, dst).ok();
    // Two hard links of one file: GNU mv refuses, as for one name.
    if same_name || existing.as_ref().is_some_and(|old| old.ino == stat.ino) {
        warn(
            ctx,
            format_args!("{} and {} are the same file", quote(src), quote(dst)),
        )
        .await;
        return Ok(false);
    }
    if let Some(old) = &existing {
        match (stat.kind == FileKind::Dir, old.kind == FileKind::Dir) {
            (true, false) => {
                let message = format!(
                    "cannot overwrite non-directory {} with directory {}",
                    quote(dst),
                    quote(src)
                );
                warn(ctx, message).await;
                return Ok(false);
            }
            (false, true) => {
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
            _ => {}
        }
        if o.place.no_clobber || (o.place.update && old.mtime_ms >= stat.mtime_ms) {
            return Ok(true);
        }
        if o.place.interactive {
            err_str(ctx, &format!("mv: overwrite {}? ", quote(dst))).await;
            let answer = ctx.stdin.read_line().await.unwrap_or_default();
            if !matches!(answer.first(), Some(b'y' | b'Y')) {
                return Ok(true);
            }
        }
    }
    let renamed = ctx.vfs.borrow_mut().rename(&ctx.cwd, src, dst);
    if let Err(e) = renamed {
        let message = match e.code {
            Errno::EINVAL => format!(
                "cannot move {} to a subdirectory of itself, {}",
                quote(src),
                quote(dst)
            ),
            code => format!("cannot move {} to {}: {code}", quote(src), quote(dst)),
        };
        warn(ctx, message).await;
        return Ok(false);
    }
    if o.place.verbose {
        out_str(ctx, &format!("renamed {} -> {}\n", quote(src), quote(dst))).await?;
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{err, set_mtime, tree};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn mv_renames_and_moves() {
        let vfs = vfs_with(&[("a", "A"), ("d/.k", ""), ("e/.k", "")]);
        assert_eq!(
            run_in(&vfs, "mv", &["-v", "a", "c"], ""),
            ok("renamed 'a' -> 'c'\n")
        );
        assert_eq!(run_in(&vfs, "mv", &["c", "d"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "mv", &["-v", "d/c", "."], ""),
            ok("renamed 'd/c' -> './c'\n")
        );
        assert_eq!(run_in(&vfs, "mv", &["d", "e"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "mv", &["-t", "/tmp", "c", "-v"], ""),
            ok("renamed 'c' -> '/tmp/c'\n")
        );
        assert_eq!(run_in(&vfs, "mv", &["/tmp/c", "e/d/"], ""), ok(""));
        assert_eq!(tree(&vfs), "e/\ne/.k=\ne/d/\ne/d/.k=\ne/d/c=A");
    }

    #[test]
    fn mv_errors() {
        let vfs = vfs_with(&[
            ("a", "A"),
            ("b", "B"),
            ("d/x", ""),
            ("e/d/z", ""),
            ("f", ""),
        ]);
        let _ = vfs.borrow_mut().mkdir("/workspace", "empty");
        assert_eq!(
            run_in(&vfs, "mv", &["nope", "x"], ""),
            err("mv: cannot stat 'nope': No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mv", &["a", "a"], ""),
            err("mv: 'a' and 'a' are the same file\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mv", &["a", "./a"], ""),
            err("mv: 'a' and './a' are the same file\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mv", &["d", "d/x2"], ""),
            err(
                "mv: cannot move 'd' to a subdirectory of itself, 'd/x2'\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "mv", &["d", "e"], ""),
            err("mv: cannot move 'd' to 'e/d': Directory not empty\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mv", &["-T", "d", "f"], ""),
            err(
                "mv: cannot overwrite non-directory 'f' with directory 'd'\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "mv", &["-T", "a", "empty"], ""),
            err(
                "mv: cannot overwrite directory 'empty' with non-directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "mv", &["a", "nope/x"], ""),
            err(
                "mv: cannot move 'a' to 'nope/x': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "mv", &["a", "/etc/x"], ""),
            err("mv: cannot move 'a' to '/etc/x': Permission denied\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mv", &["a", "b", "x"], ""),
            err("mv: target 'x': No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mv", &["a", "b", "f"], ""),
            err("mv: target 'f': Not a directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mv", &["-t", "a", "b"], ""),
            err("mv: target directory 'a': Not a directory\n", 1)
        );
        assert_eq!(run("mv", &["b"], ""), err("mv: missing destination file operand after 'b'\nTry 'mv --help' for more information.\n", 1));
        assert_eq!(
            run("mv", &[], ""),
            err(
                "mv: missing file operand\nTry 'mv --help' for more information.\n",
                1
            )
        );
    }

    #[test]
    fn mv_clobbering() {
        let vfs = vfs_with(&[("a", "A"), ("b", "B")]);
        assert_eq!(run_in(&vfs, "mv", &["-n", "a", "b"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "mv", &["-i", "a", "b"], "n\n"),
            err("mv: overwrite 'b'? ", 0)
        );
        set_mtime(&vfs, "a", 1.0);
        assert_eq!(run_in(&vfs, "mv", &["-u", "a", "b"], ""), ok(""));
        assert_eq!(tree(&vfs), "a=A\nb=B");
        assert_eq!(run_in(&vfs, "mv", &["-f", "a", "b"], ""), ok(""));
        assert_eq!(tree(&vfs), "b=A");
    }
}
