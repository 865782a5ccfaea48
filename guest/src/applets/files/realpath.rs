//! `realpath [-e|-m] [-s] [-qz] [--relative-to=DIR] [--relative-base=DIR] FILE...`.

use crate::applets::common::{conclude, out, parse_args, quote_if_needed, relative, Res};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{resolve, Errno, FileKind, Vfs, VfsError};

/// The `realpath` applet.
pub const APPLET: Applet = Applet {
    name: "realpath",
    usage: "realpath [OPTION]... FILE...\nPrint the resolved absolute file name; all but the last component must exist.\n  -e, --canonicalize-existing  all components of the path must exist\n  -m, --canonicalize-missing   no path components need exist or be a directory\n  -L, --logical                resolve '..' components before symlinks\n  -P, --physical               resolve symlinks as encountered (default)\n  -q, --quiet                  suppress most error messages\n  -s, --strip, --no-symlinks   don't expand symlinks\n  -z, --zero                   end each output line with NUL, not newline\n      --relative-to=DIR        print the resolved path relative to DIR\n      --relative-base=DIR      print absolute paths unless paths below DIR",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "emLPqsz",
    short_val: "",
    long: &[
        "canonicalize-existing",
        "canonicalize-missing",
        "logical",
        "physical",
        "quiet",
        "strip",
        "no-symlinks",
        "zero",
    ],
    long_val: &["relative-to", "relative-base"],
    digits: None,
    stop_at_operand: false,
};

/// How much of a path must exist.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Every component (`-e`).
    None,
    /// All but the last (the default).
    Last,
    /// Any (`-m`).
    Any,
}

#[derive(Clone, Copy)]
struct Options {
    missing: Missing,
    logical: bool,
    strip: bool,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = Options {
            missing: Missing::Last,
            logical: false,
            strip: false,
        };
        let (mut quiet, mut zero) = (false, false);
        let (mut relative_to, mut relative_base) = (None, None);
        for opt in &opts {
            match opt {
                _ if opt.is('e', "canonicalize-existing") => o.missing = Missing::None,
                _ if opt.is('m', "canonicalize-missing") => o.missing = Missing::Any,
                _ if opt.is('L', "logical") => o.logical = true,
                _ if opt.is('P', "physical") => o.logical = false,
                _ if opt.is('q', "quiet") => quiet = true,
                _ if opt.is('s', "strip") || opt.is('s', "no-symlinks") => o.strip = true,
                _ if opt.is('z', "zero") => zero = true,
                _ if opt.is('\0', "relative-to") => relative_to = Some(opt.value().to_string()),
                _ if opt.is('\0', "relative-base") => relative_base = Some(opt.value().to_string()),
                _ => {}
            }
        }
        if operands.is_empty() {
            return usage_error(&mut ctx, "missing operand", 1).await;
        }
        let mut bases = Vec::new();
        for dir in [&relative_to, &relative_base].into_iter() {
            let resolved = dir.as_ref().map(|d| resolve_with(&ctx, d, o));
            match resolved {
                Some(Err(e)) => {
                    warn(&mut ctx, e).await;
                    return 1;
                }
                Some(Ok(path)) => bases.push(Some(path)),
                None => bases.push(None),
            }
        }
        let (to, base) = (bases[0].clone(), bases[1].clone());
        let result = print_all(&mut ctx, &operands, o, quiet, zero, to, base).await;
        conclude(&mut ctx, result).await
    })
}

async fn print_all(
    ctx: &mut Ctx,
    operands: &[String],
    o: Options,
    quiet: bool,
    zero: bool,
    to: Option<String>,
    base: Option<String>,
) -> Res<i32> {
    let mut status = 0;
    for path in operands {
        match resolve_with(ctx, path, o) {
            Ok(abs) => {
                let shown = show(&abs, to.as_deref(), base.as_deref());
                let end = if zero { "\0" } else { "\n" };
                out(ctx, format!("{shown}{end}").as_bytes()).await?;
            }
            Err(e) => {
                status = 1;
                if !quiet {
                    let message = format!("{}: {}", quote_if_needed(path), e.code);
                    warn(ctx, message).await;
                }
            }
        }
    }
    Ok(status)
}

/// The path as printed, given `--relative-to` and `--relative-base`.
fn show(abs: &str, to: Option<&str>, base: Option<&str>) -> String {
    let under = |dir: &str, p: &str| dir == "/" || p == dir || p.starts_with(&format!("{dir}/"));
    match (to, base) {
        (Some(to), Some(base)) if under(base, abs) && under(base, to) => relative(to, abs),
        (Some(_), Some(_)) => abs.to_string(),
        (Some(to), None) => relative(to, abs),
        (None, Some(base)) if under(base, abs) => relative(base, abs),
        _ => abs.to_string(),
    }
}

fn resolve_with(ctx: &Ctx, path: &str, o: Options) -> Result<String, VfsError> {
    let vfs = ctx.vfs.borrow();
    if path.is_empty() {
        return Err(VfsError::new(Errno::ENOENT, path));
    }
    if o.strip || o.logical {
        let lexical = resolve(&ctx.cwd, path);
        if o.strip {
            check_lexical(&vfs, &lexical, path, o.missing)?;
            return Ok(lexical);
        }
        return canonical(&vfs, "/", &lexical, o.missing).map_err(|code| VfsError::new(code, path));
    }
    canonical(&vfs, &ctx.cwd, path, o.missing).map_err(|code| VfsError::new(code, path))
}

/// With `-s`, the existence rules still apply to the lexical path.
fn check_lexical(vfs: &Vfs, lexical: &str, path: &str, missing: Missing) -> Result<(), VfsError> {
    let fail = |code| Err(VfsError::new(code, path));
    match missing {
        Missing::Any => Ok(()),
        Missing::None if !vfs.exists("/", lexical) => fail(Errno::ENOENT),
        Missing::Last if !vfs.exists("/", crate::applets::common::dirname(lexical)) => {
            fail(Errno::ENOENT)
        }
        _ => Ok(()),
    }
}

/// Resolves `path` component by component, following symlinks, allowing missing
/// components as `missing` says.
pub fn canonical(vfs: &Vfs, cwd: &str, path: &str, missing: Missing) -> Result<String, Errno> {
    let mut todo: Vec<String> = Vec::new();
    push_names(&mut todo, path);
    if !path.starts_with('/') {
        push_names(&mut todo, cwd);
    }
    let wants_dir = path.ends_with('/') || path.ends_with("/.") || path.ends_with("/..");
    let mut done: Vec<String> = Vec::new();
    let mut hops = 0;
    let mut gone = false; // a component was missing: the rest cannot exist
    while let Some(name) = todo.pop() {
        match name.as_str() {
            "." => continue,
            ".." => {
                done.pop();
                continue;
            }
            _ => {}
        }
        let is_last = todo.iter().all(|n| n == ".");
        let candidate = format!(
            "/{}",
            done.iter()
                .chain([&name])
                .cloned()
                .collect::<Vec<_>>()
                .join("/")
        );
        if gone {
            done.push(name);
            continue;
        }
        match vfs.lstat("/", &candidate).map(|s| s.kind) {
            Ok(FileKind::Symlink) => {
                hops += 1;
                if hops > 40 {
                    return Err(Errno::ELOOP);
                }
                let target = vfs.read_link("/", &candidate).map_err(|e| e.code)?;
                if target.starts_with('/') {
                    done.clear();
                }
                push_names(&mut todo, &target);
            }
            Ok(FileKind::Dir) => done.push(name),
            Ok(_) if is_last && !wants_dir => done.push(name),
            Ok(_) if missing == Missing::Any => {
                gone = true;
                done.push(name);
            }
            Ok(_) => return Err(Errno::ENOTDIR),
            Err(e) if e.code != Errno::ENOENT => return Err(e.code),
            Err(_) if missing == Missing::Any || (missing == Missing::Last && is_last) => {
                gone = true;
                done.push(name);
            }
            Err(_) => return Err(Errno::ENOENT),
        }
    }
    Ok(format!("/{}", done.join("/")))
}

/// Pushes `path`'s components so the first is popped first.
fn push_names(todo: &mut Vec<String>, path: &str) {
    todo.extend(
        path.split('/')
            .filter(|n| !n.is_empty())
            .rev()
            .map(str::to_string),
    );
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err};
    use crate::applets::testing::{ok, run, run_in, vfs_with};
    use std::cell::RefCell;
    use std::rc::Rc;

    fn setup() -> Rc<RefCell<crate::vfs::Vfs>> {
        let vfs = vfs_with(&[("d/f", "")]);
        let _ = vfs.borrow_mut().mkdir("/workspace", "d/e");
        let _ = vfs.borrow_mut().symlink("/workspace", "d/e", "le");
        let _ = vfs.borrow_mut().symlink("/workspace", "nope", "dangling");
        let _ = vfs.borrow_mut().symlink("/workspace", "loop", "loop");
        vfs
    }

    #[test]
    fn realpath_default_and_existing() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "realpath", &["d", "le", "dangling"], ""),
            ok("/workspace/d\n/workspace/d/e\n/workspace/nope\n")
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["nope/x"], ""),
            err("realpath: nope/x: No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["-e", "dangling"], ""),
            err("realpath: dangling: No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["le/.."], ""),
            ok("/workspace/d\n")
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["-e", "d/f/"], ""),
            err("realpath: d/f/: Not a directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "realpath", &[".", "../workspace/./d//e/"], ""),
            ok("/workspace\n/workspace/d/e\n")
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["loop"], ""),
            err("realpath: loop: Too many levels of symbolic links\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["d", "nope/x"], ""),
            both(
                "/workspace/d\n",
                "realpath: nope/x: No such file or directory\n",
                1
            )
        );
    }

    #[test]
    fn realpath_options() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "realpath", &["-m", "nope/x/../y"], ""),
            ok("/workspace/nope/y\n")
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["-m", "d/f/x"], ""),
            ok("/workspace/d/f/x\n")
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["-s", "le/../d/f"], ""),
            ok("/workspace/d/f\n")
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["-s", "le"], ""),
            ok("/workspace/le\n")
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["-L", "le/.."], ""),
            ok("/workspace\n")
        );
        assert_eq!(run_in(&vfs, "realpath", &["-q", "nope/x"], ""), err("", 1));
        assert_eq!(
            run_in(&vfs, "realpath", &["-z", "d"], ""),
            ok("/workspace/d\0")
        );
        assert_eq!(
            run_in(&vfs, "realpath", &["--relative-to=d/e", "d/f"], ""),
            ok("../f\n")
        );
        assert_eq!(
            run_in(
                &vfs,
                "realpath",
                &["--relative-to=/workspace/d", "/tmp"],
                ""
            ),
            ok("../../tmp\n")
        );
        assert_eq!(
            run_in(
                &vfs,
                "realpath",
                &["--relative-base=/workspace", "d", "/usr"],
                ""
            ),
            ok("d\n/usr\n")
        );
        assert_eq!(
            run("realpath", &[], ""),
            err(
                "realpath: missing operand\nTry 'realpath --help' for more information.\n",
                1
            )
        );
    }
}
