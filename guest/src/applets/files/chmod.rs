//! `chmod [-Rcfv] MODE[,MODE]... FILE...` and `chmod --reference=RFILE FILE...`: change the
//! permission bits the VFS keeps (shown by `ls -l` and `stat`, not enforced).

use crate::applets::common::{
    conclude, join, mode_string, out_str, parse_args, quote, quote_if_needed, ModeChange, Res,
};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{FileKind, Stat};

/// The `chmod` applet.
pub const APPLET: Applet = Applet {
    name: "chmod",
    usage: "chmod [OPTION]... MODE[,MODE]... FILE...\n  or:  chmod [OPTION]... OCTAL-MODE FILE...\n  or:  chmod [OPTION]... --reference=RFILE FILE...\nChange the mode of each FILE to MODE. Each MODE is [ugoa]*([-+=]([rwxXst]*|[ugo]))+\nor an octal number.\n  -c, --changes          like verbose but report only when a change is made\n  -f, --silent, --quiet  suppress most error messages\n  -v, --verbose          output a diagnostic for every file processed\n      --reference=RFILE  use RFILE's mode instead of MODE values\n  -R, --recursive        change files and directories recursively",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "Rcfv",
    short_val: "",
    long: &["changes", "silent", "quiet", "verbose", "recursive"],
    long_val: &["reference"],
    digits: None,
    stop_at_operand: false,
};

/// Letters that make `-w`, `-x`, `-rwx`... a mode rather than options, as GNU reads them.
const MODE_LETTERS: &str = "rwxXstugoa,+-=01234567";

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verbosity {
    Off,
    Changes,
    All,
}

struct Options {
    recursive: bool,
    silent: bool,
    verbosity: Verbosity,
    /// The mode came as an option (`chmod -w f`): warn when the umask kept a bit as it was.
    diagnose: bool,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (mode_option, args) = mode_options(&ctx.args);
        ctx.args = args;
        let (opts, mut operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = Options {
            recursive: false,
            silent: false,
            verbosity: Verbosity::Off,
            diagnose: mode_option.is_some(),
        };
        let mut reference = None;
        for opt in &opts {
            match opt {
                _ if opt.is('R', "recursive") => o.recursive = true,
                _ if opt.is('c', "changes") => o.verbosity = Verbosity::Changes,
                _ if opt.is('v', "verbose") => o.verbosity = Verbosity::All,
                _ if opt.is('f', "silent") || opt.is('f', "quiet") => o.silent = true,
                _ if opt.is('\0', "reference") => reference = Some(opt.value().to_string()),
                _ => {}
            }
        }
        let mode = match (&reference, mode_option) {
            (Some(_), _) => None,
            (None, Some(mode)) => Some(mode),
            (None, None) if operands.is_empty() => None,
            (None, None) => Some(operands.remove(0)),
        };
        if operands.is_empty() {
            let message = match &mode {
                Some(mode) => format!("missing operand after {}", quote(mode)),
                None => "missing operand".to_string(),
            };
            return usage_error(&mut ctx, message, 1).await;
        }
        let change = match (&reference, &mode) {
            (Some(file), _) => {
                let stat = ctx.vfs.borrow().stat(&ctx.cwd, file);
                match stat {
                    Ok(stat) => ModeChange::exactly(stat.mode),
                    Err(e) => {
                        let message =
                            format!("failed to get attributes of {}: {}", quote(file), e.code);
                        warn(&mut ctx, message).await;
                        return 1;
                    }
                }
            }
            (None, mode) => {
                let mode = mode.as_deref().unwrap_or_default();
                match ModeChange::parse(mode) {
                    Some(change) => change,
                    None => {
                        let message = format!("invalid mode: {}", quote(mode));
                        return usage_error(&mut ctx, message, 1).await;
                    }
                }
            }
        };
        let result = change_all(&mut ctx, &operands, &change, &o).await;
        conclude(&mut ctx, result).await
    })
}

/// Takes the arguments GNU reads as a mode (`-w`, `-x,+r`) out of `args`: the mode (joined
/// with commas, as GNU does) and the other arguments.
fn mode_options(args: &[String]) -> (Option<String>, Vec<String>) {
    let mut modes: Vec<&str> = Vec::new();
    let mut rest = Vec::new();
    let mut options_end = false;
    for arg in args {
        options_end |= arg == "--";
        let is_mode = !options_end
            && arg.len() > 1
            && arg.starts_with('-')
            && !arg.starts_with("--")
            && arg[1..].chars().all(|c| MODE_LETTERS.contains(c));
        match is_mode {
            true => modes.push(arg),
            false => rest.push(arg.clone()),
        }
    }
    let mode = (!modes.is_empty()).then(|| modes.join(","));
    (mode, rest)
}

async fn change_all(
    ctx: &mut Ctx,
    operands: &[String],
    change: &ModeChange,
    o: &Options,
) -> Res<i32> {
    let mut status = 0;
    for path in operands {
        if !change_tree(ctx, path, change, o).await? {
            status = 1;
        }
    }
    Ok(status)
}

/// Changes `path` (following a symlink named on the command line) and, with `-R`, what is
/// below it, skipping the symlinks met on the way like GNU; false if anything failed.
async fn change_tree(ctx: &mut Ctx, path: &str, change: &ModeChange, o: &Options) -> Res<bool> {
    let mut ok = true;
    let mut todo = vec![(path.to_string(), true)];
    while let Some((path, top)) = todo.pop() {
        let found = {
            let vfs = ctx.vfs.borrow();
            match top {
                true => vfs.stat(&ctx.cwd, &path),
                false => vfs.lstat(&ctx.cwd, &path),
            }
        };
        let stat = match found {
            Ok(stat) => stat,
            Err(e) => {
                let dangling = top && ctx.vfs.borrow().lstat(&ctx.cwd, &path).is_ok();
                let message = match dangling {
                    true => format!("cannot operate on dangling symlink {}", quote(&path)),
                    false => format!("cannot access {}: {}", quote(&path), e.code),
                };
                if !o.silent {
                    warn(ctx, message).await;
                }
                ok = false;
                continue;
            }
        };
        if stat.kind == FileKind::Symlink {
            if o.verbosity == Verbosity::All {
                let line = format!(
                    "neither symbolic link {} nor referent has been changed\n",
                    quote(&path)
                );
                out_str(ctx, &line).await?;
            }
            continue;
        }
        ok &= change_one(ctx, &path, &stat, change, o).await?;
        if o.recursive && stat.kind == FileKind::Dir {
            let entries = ctx.vfs.borrow().read_dir(&ctx.cwd, &path);
            let children = entries.unwrap_or_default().into_iter().rev();
            todo.extend(children.map(|(name, _)| (join(&path, &name), false)));
        }
    }
    Ok(ok)
}

/// Sets one file's mode and says so as `-v`/`-c` ask; false if it failed.
async fn change_one(
    ctx: &mut Ctx,
    path: &str,
    stat: &Stat,
    change: &ModeChange,
    o: &Options,
) -> Res<bool> {
    let is_dir = stat.kind == FileKind::Dir;
    let (old, new) = (
        stat.mode,
        change.apply(stat.mode, is_dir, ctx.vfs.borrow().umask()),
    );
    // Always set it, like GNU: an unchanged mode in a read-only area still fails.
    let set = ctx.vfs.borrow_mut().set_mode(&ctx.cwd, path, new);
    if let Err(e) = &set {
        if !o.silent {
            let message = format!("changing permissions of {}: {}", quote(path), e.code);
            warn(ctx, message).await;
        }
    }
    let perms = |mode: u32| mode_string(stat.kind, mode)[1..].to_string();
    let (name, was, now) = (quote(path), perms(old), perms(new));
    let line = match &set {
        Err(_) => {
            format!("failed to change mode of {name} from {old:04o} ({was}) to {new:04o} ({now})")
        }
        Ok(()) if old == new => format!("mode of {name} retained as {new:04o} ({now})"),
        Ok(()) => format!("mode of {name} changed from {old:04o} ({was}) to {new:04o} ({now})"),
    };
    let changed = set.is_ok() && old != new;
    if o.verbosity == Verbosity::All || (o.verbosity == Verbosity::Changes && changed) {
        out_str(ctx, &format!("{line}\n")).await?;
    }
    if set.is_err() {
        return Ok(false);
    }
    let naive = change.apply(old, is_dir, 0);
    if o.diagnose && new & !naive != 0 {
        let message = format!(
            "{}: new permissions are {}, not {}",
            quote_if_needed(path),
            perms(new),
            perms(naive)
        );
        warn(ctx, message).await;
        return Ok(false);
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err};
    use crate::applets::testing::{ok, run_in, vfs_with};

    fn mode(vfs: &std::rc::Rc<std::cell::RefCell<crate::vfs::Vfs>>, path: &str) -> u32 {
        vfs.borrow().lstat("/workspace", path).map_or(0, |s| s.mode)
    }

    #[test]
    fn octal_symbolic_and_reference() {
        let vfs = vfs_with(&[("f", ""), ("g", ""), ("d/e", "")]);
        assert_eq!(run_in(&vfs, "chmod", &["750", "f"], ""), ok(""));
        assert_eq!(mode(&vfs, "f"), 0o750);
        assert_eq!(run_in(&vfs, "chmod", &["u-w,o+r", "f", "g"], ""), ok(""));
        assert_eq!((mode(&vfs, "f"), mode(&vfs, "g")), (0o554, 0o444));
        assert_eq!(run_in(&vfs, "chmod", &["--reference=f", "g"], ""), ok(""));
        assert_eq!(mode(&vfs, "g"), 0o554);
        assert_eq!(run_in(&vfs, "chmod", &["-R", "go=", "d"], ""), ok(""));
        assert_eq!((mode(&vfs, "d"), mode(&vfs, "d/e")), (0o700, 0o600));
    }

    #[test]
    fn verbose_changes_and_symlinks() {
        let vfs = vfs_with(&[("d/f", "")]);
        let _ = vfs.borrow_mut().symlink("/workspace", "f", "d/l");
        let _ = vfs.borrow_mut().symlink("/workspace", "d/f", "top");
        assert_eq!(
            run_in(&vfs, "chmod", &["-v", "600", "top"], ""),
            ok("mode of 'top' changed from 0644 (rw-r--r--) to 0600 (rw-------)\n")
        );
        assert_eq!((mode(&vfs, "d/f"), mode(&vfs, "top")), (0o600, 0o777));
        assert_eq!(
            run_in(&vfs, "chmod", &["-Rc", "700", "d"], ""),
            ok("mode of 'd' changed from 0755 (rwxr-xr-x) to 0700 (rwx------)\nmode of 'd/f' changed from 0600 (rw-------) to 0700 (rwx------)\n")
        );
        assert_eq!(
            run_in(&vfs, "chmod", &["-Rv", "700", "d"], ""),
            ok("mode of 'd' retained as 0700 (rwx------)\nmode of 'd/f' retained as 0700 (rwx------)\nneither symbolic link 'd/l' nor referent has been changed\n")
        );
    }

    #[test]
    fn modes_given_as_options() {
        let vfs = vfs_with(&[("f", "")]);
        assert_eq!(run_in(&vfs, "chmod", &["-x", "-w", "f"], ""), ok(""));
        assert_eq!(mode(&vfs, "f"), 0o444);
        assert_eq!(run_in(&vfs, "chmod", &["a+w", "f"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "chmod", &["-w", "f"], ""),
            err(
                "chmod: f: new permissions are r--rw-rw-, not r--r--r--\n",
                1
            )
        );
        assert_eq!(mode(&vfs, "f"), 0o466);
    }

    #[test]
    fn errors() {
        let vfs = vfs_with(&[("f", "")]);
        let try_help = "Try 'chmod --help' for more information.\n";
        assert_eq!(
            run_in(&vfs, "chmod", &["q", "f"], ""),
            err(&format!("chmod: invalid mode: 'q'\n{try_help}"), 1)
        );
        assert_eq!(
            run_in(&vfs, "chmod", &["755"], ""),
            err(
                &format!("chmod: missing operand after '755'\n{try_help}"),
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "chmod", &[], ""),
            err(&format!("chmod: missing operand\n{try_help}"), 1)
        );
        assert_eq!(
            run_in(&vfs, "chmod", &["644", "nope", "f"], ""),
            err(
                "chmod: cannot access 'nope': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "chmod", &["-f", "644", "nope"], ""),
            err("", 1)
        );
        let _ = vfs.borrow_mut().symlink("/workspace", "nope", "dangling");
        assert_eq!(
            run_in(&vfs, "chmod", &["644", "dangling"], ""),
            err("chmod: cannot operate on dangling symlink 'dangling'\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "chmod", &["-v", "644", "/etc"], ""),
            both(
                "failed to change mode of '/etc' from 0755 (rwxr-xr-x) to 0644 (rw-r--r--)\n",
                "chmod: changing permissions of '/etc': Permission denied\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "chmod", &["--reference=nope", "f"], ""),
            err(
                "chmod: failed to get attributes of 'nope': No such file or directory\n",
                1
            )
        );
    }
}
