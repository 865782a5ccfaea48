//! `mkdir [-pv] [-m MODE] DIRECTORY...`: make directories.

use crate::applets::common::{conclude, out_str, parse_args, quote, ModeChange, Res};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{Errno, FileKind};

/// The `mkdir` applet.
pub const APPLET: Applet = Applet {
    name: "mkdir",
    usage: "mkdir [OPTION]... DIRECTORY...\nCreate the DIRECTORY(ies), if they do not already exist.\n  -m, --mode=MODE  set the mode of new directories (octal or symbolic, as chmod's)\n  -p, --parents    make parent directories as needed; no error if existing\n  -v, --verbose    print a message for each created directory",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "pv",
    short_val: "m",
    long: &["parents", "verbose"],
    long_val: &["mode"],
    digits: None,
    stop_at_operand: false,
};

struct Options {
    parents: bool,
    verbose: bool,
    mode: Option<u32>,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut options = Options {
            parents: false,
            verbose: false,
            mode: None,
        };
        for opt in &opts {
            if opt.is('p', "parents") {
                options.parents = true;
            } else if opt.is('v', "verbose") {
                options.verbose = true;
            } else if opt.is('m', "mode") {
                // GNU applies the mode to a=rwx: `u+x` leaves 0777, `=r` gives 0444.
                match ModeChange::parse(opt.value()) {
                    Some(change) => {
                        options.mode = Some(change.apply(0o777, true, ctx.vfs.borrow().umask()))
                    }
                    None => {
                        warn(
                            &mut ctx,
                            format_args!("invalid mode {}", quote(opt.value())),
                        )
                        .await;
                        return 1;
                    }
                }
            }
        }
        if operands.is_empty() {
            return usage_error(&mut ctx, "missing operand", 1).await;
        }
        let mut status = 0;
        for dir in &operands {
            match make(&mut ctx, dir, &options).await {
                Ok(true) => {}
                Ok(false) => status = 1,
                Err(exit) => return conclude(&mut ctx, Err(exit)).await,
            }
        }
        conclude(&mut ctx, Ok(status)).await
    })
}

/// Creates one operand; false after reporting a failure.
async fn make(ctx: &mut Ctx, dir: &str, options: &Options) -> Res<bool> {
    let result = if options.parents {
        make_parents(ctx, dir, options.verbose).await?
    } else {
        let made = ctx.vfs.borrow_mut().mkdir(&ctx.cwd, dir);
        match made {
            Ok(()) => {
                created(ctx, dir, options.verbose).await?;
                Ok(())
            }
            Err(e) => Err((dir.to_string(), e.code)),
        }
    };
    match result {
        Ok(()) => {
            if let Some(mode) = options.mode {
                let _ = ctx.vfs.borrow_mut().set_mode(&ctx.cwd, dir, mode);
            }
            Ok(true)
        }
        Err((path, code)) => {
            let message = format!("cannot create directory {}: {code}", quote(&path));
            warn(ctx, message).await;
            Ok(false)
        }
    }
}

async fn created(ctx: &mut Ctx, dir: &str, verbose: bool) -> Res {
    if verbose {
        out_str(ctx, &format!("mkdir: created directory {}\n", quote(dir))).await?;
    }
    Ok(())
}

/// `mkdir -p`: each prefix of the path in turn, so messages name the part that failed.
async fn make_parents(ctx: &mut Ctx, dir: &str, verbose: bool) -> Res<Result<(), (String, Errno)>> {
    let prefixes = prefixes(dir);
    let last = prefixes.len().saturating_sub(1);
    for (i, prefix) in prefixes.iter().enumerate() {
        let existing = ctx.vfs.borrow().stat(&ctx.cwd, prefix).map(|s| s.kind);
        match existing {
            Ok(FileKind::Dir) => continue,
            Ok(_) if i == last => return Ok(Err((prefix.clone(), Errno::EEXIST))),
            Ok(_) => return Ok(Err((prefix.clone(), Errno::ENOTDIR))),
            Err(e) if e.code != Errno::ENOENT => return Ok(Err((prefix.clone(), e.code))),
            Err(_) => {}
        }
        let made = ctx.vfs.borrow_mut().mkdir(&ctx.cwd, prefix);
        if let Err(e) = made {
            return Ok(Err((prefix.clone(), e.code)));
        }
        created(ctx, prefix, verbose).await?;
    }
    Ok(Ok(()))
}

/// `a`, `a/b`, `a/b/c` for `a/b/c/` (an absolute path keeps its leading `/`).
fn prefixes(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    if path.starts_with('/') {
        current.push('/');
    }
    for name in path.split('/').filter(|n| !n.is_empty()) {
        if !current.is_empty() && !current.ends_with('/') {
            current.push('/');
        }
        current.push_str(name);
        if name != "." {
            out.push(current.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, tree};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn mkdir_cases() {
        let vfs = vfs_with(&[("f", "")]);
        assert_eq!(run_in(&vfs, "mkdir", &["a"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "mkdir", &["a"], ""),
            err("mkdir: cannot create directory 'a': File exists\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mkdir", &["-v", "b", "c/d"], ""),
            both(
                "mkdir: created directory 'b'\n",
                "mkdir: cannot create directory 'c/d': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "mkdir", &["-pv", "c/d/e"], ""),
            ok("mkdir: created directory 'c'\nmkdir: created directory 'c/d'\nmkdir: created directory 'c/d/e'\n")
        );
        assert_eq!(run_in(&vfs, "mkdir", &["-p", "a", "c/d/"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "mkdir", &["f"], ""),
            err("mkdir: cannot create directory 'f': File exists\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mkdir", &["-p", "f"], ""),
            err("mkdir: cannot create directory 'f': File exists\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mkdir", &["-p", "f/x"], ""),
            err("mkdir: cannot create directory 'f': Not a directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "mkdir", &["-p", "/etc/x/y"], ""),
            err(
                "mkdir: cannot create directory '/etc/x': Permission denied\n",
                1
            )
        );
        assert_eq!(run_in(&vfs, "mkdir", &["-p", "x/./y/../z"], ""), ok(""));
        assert_eq!(tree(&vfs), "a/\nb/\nc/\nc/d/\nc/d/e/\nf=\nx/\nx/y/\nx/z/");
    }

    #[test]
    fn mkdir_modes_and_usage() {
        let vfs = vfs_with(&[]);
        assert_eq!(run_in(&vfs, "mkdir", &["-m", "700", "m"], ""), ok(""));
        assert_eq!(
            vfs.borrow().stat("/workspace", "m").map(|s| s.mode),
            Ok(0o700)
        );
        assert_eq!(run_in(&vfs, "mkdir", &["-m", "u+x", "n"], ""), ok(""));
        assert_eq!(run_in(&vfs, "mkdir", &["-m", "=r", "r"], ""), ok(""));
        let modes = ["n", "r"].map(|d| vfs.borrow().stat("/workspace", d).map(|s| s.mode));
        assert_eq!(modes, [Ok(0o777), Ok(0o444)]);
        assert_eq!(
            run_in(&vfs, "mkdir", &["-m", "bogus", "o"], ""),
            err("mkdir: invalid mode 'bogus'\n", 1)
        );
        assert_eq!(
            run("mkdir", &[], ""),
            err(
                "mkdir: missing operand\nTry 'mkdir --help' for more information.\n",
                1
            )
        );
        assert_eq!(
            run("mkdir", &["-z"], ""),
            err(
                "mkdir: invalid option -- 'z'\nTry 'mkdir --help' for more information.\n",
                1
            )
        );
        assert!(run("mkdir", &["--help"], "")
            .stdout
            .starts_with("Usage: mkdir"));
    }
}
