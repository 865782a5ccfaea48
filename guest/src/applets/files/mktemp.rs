//! `mktemp [-duq] [-p DIR|--tmpdir[=DIR]] [-t] [--suffix=SUFF] [TEMPLATE]`: create a file or
//! directory with a fresh random name and print it.

use crate::applets::common::{conclude, join, out_str, parse_args, quote, Res};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::entropy;
use crate::task::LocalFuture;
use crate::vfs::{Errno, VfsError};

/// The `mktemp` applet.
pub const APPLET: Applet = Applet {
    name: "mktemp",
    usage: "mktemp [OPTION]... [TEMPLATE]\nCreate a temporary file or directory, safely, and print its name.\nTEMPLATE must contain at least 3 consecutive 'X's in last component.\nIf TEMPLATE is not specified, use tmp.XXXXXXXXXX, and --tmpdir is implied.\nFiles are created u+rw, and directories u+rwx.\n  -d, --directory     create a directory, not a file\n  -u, --dry-run       do not create anything; merely print a name (unsafe)\n  -q, --quiet         suppress diagnostics about file/dir-creation failure\n      --suffix=SUFF   append SUFF to TEMPLATE; SUFF must not contain a slash\n  -p DIR, --tmpdir[=DIR]  interpret TEMPLATE relative to DIR; if DIR is not\n                      specified, use $TMPDIR if set, else /tmp\n  -t                  interpret TEMPLATE as a single file name component,\n                      relative to $TMPDIR if set, else DIR (-p), else /tmp",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "dqtu",
    short_val: "p",
    long: &["directory", "dry-run", "quiet", "tmpdir"],
    long_val: &["suffix"],
    digits: None,
    stop_at_operand: false,
};

/// What a name's X's are replaced with.
const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
/// Names tried before giving up (each collision is a 62^3-to-1 chance at worst).
const ATTEMPTS: usize = 100;

struct Options {
    directory: bool,
    dry_run: bool,
    quiet: bool,
    /// `-t`: the template is one name component, under $TMPDIR first.
    under_tmpdir: bool,
    /// `-p DIR` or `--tmpdir`: relative to a directory (Some("") means $TMPDIR or /tmp).
    dir: Option<String>,
    suffix: Option<String>,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        // `--tmpdir=DIR` is `-p DIR`; a bare `--tmpdir` takes no value (GNU's optional one).
        ctx.args = ctx
            .args
            .iter()
            .flat_map(|arg| match arg.strip_prefix("--tmpdir=") {
                Some(dir) => vec!["-p".to_string(), dir.to_string()],
                None => vec![arg.clone()],
            })
            .collect();
        let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = Options {
            directory: false,
            dry_run: false,
            quiet: false,
            under_tmpdir: false,
            dir: None,
            suffix: None,
        };
        for opt in &opts {
            match opt {
                _ if opt.is('d', "directory") => o.directory = true,
                _ if opt.is('u', "dry-run") => o.dry_run = true,
                _ if opt.is('q', "quiet") => o.quiet = true,
                _ if opt.is('t', "") => o.under_tmpdir = true,
                _ if opt.is('p', "tmpdir") => o.dir = Some(opt.value().to_string()),
                _ if opt.is('\0', "suffix") => o.suffix = Some(opt.value().to_string()),
                _ => {}
            }
        }
        let (template, implied_dir) = match operands.as_slice() {
            [] => ("tmp.XXXXXXXXXX".to_string(), true),
            [one] => (one.clone(), false),
            _ => return usage_error(&mut ctx, "too many templates", 1).await,
        };
        let plan = match plan(&ctx, &template, implied_dir, &o) {
            Ok(plan) => plan,
            Err(message) => {
                warn(&mut ctx, message).await;
                return 1;
            }
        };
        let result = create(&mut ctx, &plan, &o).await;
        conclude(&mut ctx, result).await
    })
}

/// A name to create: the path with its X's as `(before, count, after)`.
struct Plan {
    before: String,
    xs: usize,
    after: String,
}

/// Checks the template and places it in its directory, in GNU's order of complaints.
fn plan(ctx: &Ctx, template: &str, implied_dir: bool, o: &Options) -> Result<Plan, String> {
    let (stem, after) = match &o.suffix {
        Some(suffix) if suffix.contains('/') => {
            return Err(format!(
                "invalid suffix {}, contains directory separator",
                quote(suffix)
            ))
        }
        Some(_) if !template.ends_with('X') => {
            return Err(format!(
                "with --suffix, template {} must end in X",
                quote(template)
            ))
        }
        Some(suffix) => (template, suffix.clone()),
        // Without --suffix, whatever follows the last X is the suffix.
        None => {
            let end = template.rfind('X').map_or(0, |at| at + 1);
            (&template[..end], template[end..].to_string())
        }
    };
    let xs = stem.len() - stem.trim_end_matches('X').len();
    if xs < 3 {
        return Err(format!("too few X's in template {}", quote(template)));
    }
    let tmpdir = ctx.env.get("TMPDIR").filter(|d| !d.is_empty());
    let given_dir = o.dir.as_deref().filter(|d| !d.is_empty());
    let dir = if o.under_tmpdir {
        if template.contains('/') {
            return Err(format!(
                "invalid template, {}, contains directory separator",
                quote(template)
            ));
        }
        Some(tmpdir.map(String::as_str).or(given_dir).unwrap_or("/tmp"))
    } else if o.dir.is_some() || implied_dir {
        if template.starts_with('/') {
            return Err(format!(
                "invalid template, {}; with --tmpdir, it may not be absolute",
                quote(template)
            ));
        }
        Some(given_dir.or(tmpdir.map(String::as_str)).unwrap_or("/tmp"))
    } else {
        None
    };
    let stem = &stem[..stem.len() - xs];
    Ok(Plan {
        before: dir.map_or_else(|| stem.to_string(), |dir| join(dir, stem)),
        xs,
        after,
    })
}

/// Tries random names until one can be created (or, with `-u`, is free), and prints it.
async fn create(ctx: &mut Ctx, plan: &Plan, o: &Options) -> Res<i32> {
    let mut failure = Errno::EEXIST;
    for _ in 0..ATTEMPTS {
        let mut random = vec![0u8; plan.xs];
        entropy::fill(&mut random);
        // 256 is not a multiple of 62: the first 8 letters come up 5/4 as often, which
        // costs a name a little under 0.1 bit of its ~5.95 bits per X.
        let letters: String = random
            .iter()
            .map(|&b| char::from(ALPHABET[usize::from(b) % ALPHABET.len()]))
            .collect();
        let path = format!("{}{letters}{}", plan.before, plan.after);
        match make(ctx, &path, o) {
            Ok(()) => {
                out_str(ctx, &format!("{path}\n")).await?;
                return Ok(0);
            }
            Err(e) if e.code == Errno::EEXIST => continue,
            Err(e) => {
                failure = e.code;
                break;
            }
        }
    }
    if !o.quiet {
        let what = if o.directory { "directory" } else { "file" };
        let template = format!("{}{}{}", plan.before, "X".repeat(plan.xs), plan.after);
        let message = format!(
            "failed to create {what} via template {}: {failure}",
            quote(&template)
        );
        warn(ctx, message).await;
    }
    Ok(1)
}

/// Creates the file (0600) or directory (0700) at `path`, failing with EEXIST if anything is
/// there; `-u` only checks that nothing is.
fn make(ctx: &Ctx, path: &str, o: &Options) -> Result<(), VfsError> {
    let mut vfs = ctx.vfs.borrow_mut();
    if o.dry_run {
        return match vfs.lstat(&ctx.cwd, path) {
            Ok(_) => Err(VfsError::new(Errno::EEXIST, path)),
            Err(_) => Ok(()),
        };
    }
    let mode = if o.directory {
        vfs.mkdir(&ctx.cwd, path)?;
        0o700
    } else {
        vfs.create_exclusive(&ctx.cwd, path, b"")?;
        0o600
    };
    vfs.set_mode(&ctx.cwd, path, mode)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{err, run_full};
    use crate::applets::testing::vfs_with;
    use crate::vfs::FileKind;

    /// Runs mktemp in /workspace with `env`; stdout, stderr and status.
    fn mktemp(
        vfs: &std::rc::Rc<std::cell::RefCell<crate::vfs::Vfs>>,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> (String, String, i32) {
        let (out, stderr, status) = run_full(vfs, "/workspace", env, "mktemp", args, b"");
        (String::from_utf8_lossy(&out).into_owned(), stderr, status)
    }

    /// Whether `name` is `prefix`, `n` letters or digits, then `suffix`.
    fn shaped(name: &str, prefix: &str, n: usize, suffix: &str) -> bool {
        let middle = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_suffix(suffix));
        middle.is_some_and(|m| m.len() == n && m.bytes().all(|b| b.is_ascii_alphanumeric()))
    }

    #[test]
    fn creates_files_and_directories_with_private_modes() {
        let vfs = vfs_with(&[]);
        let (out, _, status) = mktemp(&vfs, &[], &[]);
        let path = out.trim_end();
        assert!(shaped(path, "/tmp/tmp.", 10, "") && status == 0, "{out}");
        let stat = vfs.borrow().stat("/", path).map(|s| (s.kind, s.mode));
        assert_eq!(stat, Ok((FileKind::File, 0o600)));
        let (out, _, _) = mktemp(&vfs, &[], &["-d", "dirXXX.d"]);
        let stat = vfs
            .borrow()
            .stat("/workspace", out.trim_end())
            .map(|s| (s.kind, s.mode));
        assert!(shaped(out.trim_end(), "dir", 3, ".d"), "{out}");
        assert_eq!(stat, Ok((FileKind::Dir, 0o700)));
        let (a, _, _) = mktemp(&vfs, &[], &[]);
        assert_ne!(a, out);
    }

    #[test]
    fn directories_templates_and_dry_runs() {
        let vfs = vfs_with(&[]);
        let (out, _, _) = mktemp(&vfs, &[("TMPDIR", "/workspace")], &["-t", "aXXX"]);
        assert!(shaped(&out, "/workspace/a", 3, "\n"), "{out}");
        let (out, _, _) = mktemp(&vfs, &[], &["-p", "/workspace", "--suffix=.txt", "bXXXX"]);
        assert!(shaped(&out, "/workspace/b", 4, ".txt\n"), "{out}");
        let (out, _, _) = mktemp(&vfs, &[("TMPDIR", "/workspace")], &["--tmpdir"]);
        assert!(shaped(&out, "/workspace/tmp.", 10, "\n"), "{out}");
        let (out, _, _) = mktemp(&vfs, &[], &["--tmpdir=/nope", "-u"]);
        assert!(shaped(&out, "/nope/tmp.", 10, "\n"), "{out}");
        assert!(!vfs.borrow().exists("/", out.trim_end()));
    }

    #[test]
    fn errors() {
        let vfs = vfs_with(&[]);
        let run = |args: &[&str]| {
            let (_, stderr, status) = mktemp(&vfs, &[], args);
            err(&stderr, status)
        };
        assert_eq!(
            run(&["foo"]),
            err("mktemp: too few X's in template 'foo'\n", 1)
        );
        assert_eq!(
            run(&["fooXX.c"]),
            err("mktemp: too few X's in template 'fooXX.c'\n", 1)
        );
        assert_eq!(
            run(&["-p", "/nope"]),
            err("mktemp: failed to create file via template '/nope/tmp.XXXXXXXXXX': No such file or directory\n", 1)
        );
        assert_eq!(run(&["-q", "-d", "/etc/XXX"]), err("", 1));
        assert_eq!(
            run(&["-d", "/etc/XXX"]),
            err(
                "mktemp: failed to create directory via template '/etc/XXX': Permission denied\n",
                1
            )
        );
        assert_eq!(
            run(&["-t", "a/bXXX"]),
            err(
                "mktemp: invalid template, 'a/bXXX', contains directory separator\n",
                1
            )
        );
        assert_eq!(
            run(&["-p", "/tmp", "/abs/XXX"]),
            err(
                "mktemp: invalid template, '/abs/XXX'; with --tmpdir, it may not be absolute\n",
                1
            )
        );
        assert_eq!(
            run(&["--suffix=x", "aXXXb"]),
            err("mktemp: with --suffix, template 'aXXXb' must end in X\n", 1)
        );
        assert_eq!(
            run(&["a", "b"]),
            err(
                "mktemp: too many templates\nTry 'mktemp --help' for more information.\n",
                1
            )
        );
    }

    #[test]
    fn retries_when_names_collide() {
        let vfs = vfs_with(&[]);
        // 62^3 names: among 3000 draws some name comes up twice (all but certainly: the
        // chance of none is e^-19), and each run still creates a new file.
        let mut names = std::collections::BTreeSet::new();
        for _ in 0..3000 {
            let (out, _, status) = mktemp(&vfs, &[], &["cXXX"]);
            assert_eq!(status, 0);
            names.insert(out);
        }
        assert_eq!(names.len(), 3000);
    }
}
