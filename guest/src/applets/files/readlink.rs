//! `readlink [-f|-e|-m] [-nqsvz] FILE...`: a symlink's target, or a canonical path.

use super::realpath::{canonical, Missing};
use crate::applets::common::{conclude, out_str, parse_args, quote_if_needed, Res};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::Errno;

/// The `readlink` applet.
pub const APPLET: Applet = Applet {
    name: "readlink",
    usage: "readlink [OPTION]... FILE...\nPrint the value of a symbolic link or canonical file name.\n  -f, --canonicalize           canonicalize by following every symlink in every component\n                               of the given name recursively; all but the last component\n                               must exist\n  -e, --canonicalize-existing  like -f, but all components must exist\n  -m, --canonicalize-missing   like -f, but no component need exist\n  -n, --no-newline             do not output the trailing delimiter\n  -q, --quiet, -s, --silent    suppress most error messages (on by default)\n  -v, --verbose                report error messages\n  -z, --zero                   end each output line with NUL, not newline",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "femnqsvz",
    short_val: "",
    long: &[
        "canonicalize",
        "canonicalize-existing",
        "canonicalize-missing",
        "no-newline",
        "quiet",
        "silent",
        "verbose",
        "zero",
    ],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

struct Options {
    /// How much must exist when canonicalizing; None prints the link's target.
    canonicalize: Option<Missing>,
    /// The delimiter after each name (None: `-n` with one operand).
    end: Option<char>,
    verbose: bool,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = Options {
            canonicalize: None,
            end: Some('\n'),
            verbose: false,
        };
        let mut no_newline = false;
        for opt in &opts {
            match opt {
                _ if opt.is('f', "canonicalize") => o.canonicalize = Some(Missing::Last),
                _ if opt.is('e', "canonicalize-existing") => o.canonicalize = Some(Missing::None),
                _ if opt.is('m', "canonicalize-missing") => o.canonicalize = Some(Missing::Any),
                _ if opt.is('n', "no-newline") => no_newline = true,
                _ if opt.is('q', "quiet") || opt.is('s', "silent") => o.verbose = false,
                _ if opt.is('v', "verbose") => o.verbose = true,
                _ if opt.is('z', "zero") => o.end = Some('\0'),
                _ => {}
            }
        }
        if operands.is_empty() {
            return usage_error(&mut ctx, "missing operand", 1).await;
        }
        if no_newline && operands.len() > 1 {
            warn(&mut ctx, "ignoring --no-newline with multiple arguments").await;
        } else if no_newline {
            o.end = None;
        }
        let result = print_all(&mut ctx, &operands, &o).await;
        conclude(&mut ctx, result).await
    })
}

async fn print_all(ctx: &mut Ctx, operands: &[String], o: &Options) -> Res<i32> {
    let mut status = 0;
    for path in operands {
        match lookup(ctx, path, o.canonicalize) {
            Ok(value) => {
                let end = o.end.map(String::from).unwrap_or_default();
                out_str(ctx, &format!("{value}{end}")).await?;
            }
            Err(code) => {
                status = 1;
                if o.verbose {
                    warn(ctx, format_args!("{}: {code}", quote_if_needed(path))).await;
                }
            }
        }
    }
    Ok(status)
}

/// What `readlink` prints for `path`: the target, or the canonical path.
fn lookup(ctx: &Ctx, path: &str, canonicalize: Option<Missing>) -> Result<String, Errno> {
    let vfs = ctx.vfs.borrow();
    match canonicalize {
        _ if path.is_empty() => Err(Errno::ENOENT),
        Some(missing) => canonical(&vfs, &ctx.cwd, path, missing),
        None => vfs.read_link(&ctx.cwd, path).map_err(|e| e.code),
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err};
    use crate::applets::testing::{ok, run_in, vfs_with};
    use std::cell::RefCell;
    use std::rc::Rc;

    fn setup() -> Rc<RefCell<crate::vfs::Vfs>> {
        let vfs = vfs_with(&[("d/f", "")]);
        let _ = vfs.borrow_mut().symlink("/workspace", "d/f", "lf");
        let _ = vfs.borrow_mut().symlink("/workspace", "lf", "chain");
        let _ = vfs.borrow_mut().symlink("/workspace", "nope/x", "dangling");
        vfs
    }

    #[test]
    fn prints_targets_and_fails_quietly_on_other_files() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "readlink", &["chain", "lf"], ""),
            ok("lf\nd/f\n")
        );
        assert_eq!(run_in(&vfs, "readlink", &["d/f"], ""), err("", 1));
        assert_eq!(
            run_in(&vfs, "readlink", &["-v", "d/f", "missing", "lf"], ""),
            both(
                "d/f\n",
                "readlink: d/f: Invalid argument\nreadlink: missing: No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run_in(&vfs, "readlink", &[], ""),
            err(
                "readlink: missing operand\nTry 'readlink --help' for more information.\n",
                1
            )
        );
    }

    #[test]
    fn canonicalizes_like_realpath() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "readlink", &["-f", "chain", "d/new"], ""),
            ok("/workspace/d/f\n/workspace/d/new\n")
        );
        assert_eq!(
            run_in(&vfs, "readlink", &["-f", "dangling"], ""),
            err("", 1)
        );
        assert_eq!(
            run_in(&vfs, "readlink", &["-m", "dangling"], ""),
            ok("/workspace/nope/x\n")
        );
        assert_eq!(run_in(&vfs, "readlink", &["-e", "d/new"], ""), err("", 1));
        assert_eq!(
            run_in(&vfs, "readlink", &["-e", "chain"], ""),
            ok("/workspace/d/f\n")
        );
    }

    #[test]
    fn delimiters() {
        let vfs = setup();
        assert_eq!(run_in(&vfs, "readlink", &["-n", "lf"], ""), ok("d/f"));
        assert_eq!(
            run_in(&vfs, "readlink", &["-n", "lf", "lf"], ""),
            both(
                "d/f\nd/f\n",
                "readlink: ignoring --no-newline with multiple arguments\n",
                0
            )
        );
        assert_eq!(
            run_in(&vfs, "readlink", &["-z", "lf", "chain"], ""),
            ok("d/f\0lf\0")
        );
        assert_eq!(run_in(&vfs, "readlink", &["-nz", "lf"], ""), ok("d/f"));
    }
}
