//! `rmdir [-pv] [--ignore-fail-on-non-empty] DIRECTORY...`: remove empty directories.

use crate::applets::common::{conclude, out_str, parse_args, quote, strip_trailing_slashes, Res};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::Errno;

/// The `rmdir` applet.
pub const APPLET: Applet = Applet {
    name: "rmdir",
    usage: "rmdir [OPTION]... DIRECTORY...\nRemove the DIRECTORY(ies), if they are empty.\n      --ignore-fail-on-non-empty  ignore failures due only to non-empty directories\n  -p, --parents   remove DIRECTORY and its ancestors (`rmdir -p a/b` = `rmdir a/b a`)\n  -v, --verbose   output a diagnostic for every directory processed",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "pv",
    short_val: "",
    long: &["parents", "verbose", "ignore-fail-on-non-empty"],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

struct Options {
    parents: bool,
    verbose: bool,
    ignore_non_empty: bool,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let options = Options {
            parents: opts.iter().any(|o| o.is('p', "parents")),
            verbose: opts.iter().any(|o| o.is('v', "verbose")),
            ignore_non_empty: opts.iter().any(|o| o.is('\0', "ignore-fail-on-non-empty")),
        };
        if operands.is_empty() {
            return usage_error(&mut ctx, "missing operand", 1).await;
        }
        let mut status = 0;
        for dir in &operands {
            match remove(&mut ctx, dir, &options).await {
                Ok(true) => {}
                Ok(false) => status = 1,
                Err(exit) => return conclude(&mut ctx, Err(exit)).await,
            }
        }
        conclude(&mut ctx, Ok(status)).await
    })
}

/// Removes one operand (and with `-p` its ancestors); false after a reported failure.
async fn remove(ctx: &mut Ctx, dir: &str, options: &Options) -> Res<bool> {
    let mut path = dir.to_string();
    let mut first = true;
    loop {
        if options.verbose {
            out_str(
                ctx,
                &format!("rmdir: removing directory, {}\n", quote(&path)),
            )
            .await?;
        }
        let removed = ctx.vfs.borrow_mut().remove_dir(&ctx.cwd, &path);
        if let Err(e) = removed {
            if options.ignore_non_empty && e.code == Errno::ENOTEMPTY {
                return Ok(true);
            }
            let what = if first { "" } else { "directory " };
            let message = format!("failed to remove {what}{}: {}", quote(&path), e.code);
            warn(ctx, message).await;
            return Ok(false);
        }
        first = false;
        if !options.parents {
            return Ok(true);
        }
        let trimmed = strip_trailing_slashes(&path);
        match trimmed.rfind('/') {
            Some(at) if !trimmed[..at].trim_end_matches('/').is_empty() => {
                path = trimmed[..at].trim_end_matches('/').to_string();
            }
            _ => return Ok(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, tree};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn rmdir_cases() {
        let vfs = vfs_with(&[("c/d/e/.keep", ""), ("x/y/k", ""), ("f", "")]);
        let _ = vfs.borrow_mut().remove_file("/workspace", "c/d/e/.keep");
        let _ = vfs.borrow_mut().mkdir_all("/workspace", "x/y/z");
        let _ = vfs.borrow_mut().mkdir_all("/workspace", "a");
        assert_eq!(run_in(&vfs, "rmdir", &["a"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "rmdir", &["a"], ""),
            err(
                "rmdir: failed to remove 'a': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "rmdir", &["c"], ""),
            err("rmdir: failed to remove 'c': Directory not empty\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "rmdir", &["f"], ""),
            err("rmdir: failed to remove 'f': Not a directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "rmdir", &["-pv", "c/d/e/"], ""),
            ok("rmdir: removing directory, 'c/d/e/'\nrmdir: removing directory, 'c/d'\nrmdir: removing directory, 'c'\n")
        );
        assert_eq!(
            run_in(&vfs, "rmdir", &["-p", "x/y/z"], ""),
            err(
                "rmdir: failed to remove directory 'x/y': Directory not empty\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "rmdir", &["--ignore-fail-on-non-empty", "x"], ""),
            ok("")
        );
        assert_eq!(
            run_in(&vfs, "rmdir", &["-v", "x/y"], ""),
            both(
                "rmdir: removing directory, 'x/y'\n",
                "rmdir: failed to remove 'x/y': Directory not empty\n",
                1
            )
        );
        assert_eq!(tree(&vfs), "f=\nx/\nx/y/\nx/y/k=");
        assert_eq!(
            run("rmdir", &[], ""),
            err(
                "rmdir: missing operand\nTry 'rmdir --help' for more information.\n",
                1
            )
        );
        assert_eq!(run("rmdir", &["-q"], "").status, 1);
    }
}
