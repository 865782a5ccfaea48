//! `rm [-rRfidv] FILE...`: remove files and directory trees.
//!
//! `-i` reads its answers from stdin like GNU (`yes | rm -i f`); with no answer (end of input)
//! nothing is removed. `/` is refused with `-r` unless `--no-preserve-root`.

use crate::applets::common::{
    conclude, err_str, join, out_str, parse_args, quote, strip_trailing_slashes, Res,
};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{Errno, FileKind};

/// The `rm` applet.
pub const APPLET: Applet = Applet {
    name: "rm",
    usage: "rm [OPTION]... [FILE]...\nRemove (unlink) the FILE(s).\n  -f, --force           ignore nonexistent files and arguments, never prompt\n  -i                    prompt before every removal (answers are read from stdin)\n  -I                    prompt once before removing more than three files, or when\n                        removing recursively\n  -r, -R, --recursive   remove directories and their contents recursively\n  -d, --dir             remove empty directories\n  -v, --verbose         explain what is being done\n      --no-preserve-root  do not treat '/' specially",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "rRfidvI",
    short_val: "",
    long: &[
        "recursive",
        "force",
        "dir",
        "verbose",
        "no-preserve-root",
        "preserve-root",
        "one-file-system",
    ],
    long_val: &["interactive"],
    digits: None,
    stop_at_operand: false,
};

#[derive(Default)]
struct Options {
    recursive: bool,
    force: bool,
    interactive: bool,
    once: bool,
    dir: bool,
    verbose: bool,
    no_preserve_root: bool,
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
                _ if opt.is('r', "recursive") || opt.is('R', "recursive") => o.recursive = true,
                _ if opt.is('f', "force") => {
                    (o.force, o.interactive, o.once) = (true, false, false)
                }
                _ if opt.is('i', "\0") => (o.interactive, o.force, o.once) = (true, false, false),
                _ if opt.is('I', "\0") => (o.once, o.interactive, o.force) = (true, false, false),
                _ if opt.is('\0', "interactive") => match opt.value() {
                    "never" | "no" | "none" => (o.interactive, o.once) = (false, false),
                    "once" => (o.once, o.interactive) = (true, false),
                    _ => (o.interactive, o.force) = (true, false),
                },
                _ if opt.is('d', "dir") => o.dir = true,
                _ if opt.is('v', "verbose") => o.verbose = true,
                _ if opt.is('\0', "no-preserve-root") => o.no_preserve_root = true,
                _ if opt.is('\0', "preserve-root") => o.no_preserve_root = false,
                _ => {}
            }
        }
        if operands.is_empty() {
            if o.force {
                return 0;
            }
            return usage_error(&mut ctx, "missing operand", 1).await;
        }
        let result = remove_all(&mut ctx, &operands, &o).await;
        conclude(&mut ctx, result).await
    })
}

async fn remove_all(ctx: &mut Ctx, operands: &[String], o: &Options) -> Res<i32> {
    if o.once && (o.recursive || operands.len() > 3) {
        let count = operands.len();
        let plural = if count == 1 { "" } else { "s" };
        let how = if o.recursive { " recursively" } else { "" };
        if !ask(ctx, &format!("rm: remove {count} argument{plural}{how}? ")).await {
            return Ok(0);
        }
    }
    let mut status = 0;
    for path in operands {
        if !remove_operand(ctx, path, o).await? {
            status = 1;
        }
    }
    Ok(status)
}

/// Removes one operand; false after a reported failure.
async fn remove_operand(ctx: &mut Ctx, path: &str, o: &Options) -> Res<bool> {
    let last = strip_trailing_slashes(path)
        .rsplit('/')
        .next()
        .unwrap_or("");
    if o.recursive && (last == "." || last == "..") {
        let message = format!(
            "refusing to remove '.' or '..' directory: skipping {}",
            quote(path)
        );
        warn(ctx, message).await;
        return Ok(false);
    }
    let is_root = ctx
        .vfs
        .borrow()
        .canonicalize(&ctx.cwd, path)
        .is_ok_and(|p| p == "/");
    if o.recursive && is_root && !o.no_preserve_root {
        let message = format!(
            "it is dangerous to operate recursively on {}\nrm: use --no-preserve-root to override this failsafe",
            quote(path)
        );
        warn(ctx, message).await;
        return Ok(false);
    }
    let stat = ctx.vfs.borrow().lstat(&ctx.cwd, path);
    let stat = match stat {
        Ok(stat) => stat,
        Err(e) if e.code == Errno::ENOENT && o.force => return Ok(true),
        Err(e) => return Ok(cannot(ctx, path, e.code).await),
    };
    if stat.kind != FileKind::Dir {
        return remove_file(ctx, path, stat.kind, stat.size, o).await;
    }
    if o.recursive {
        return remove_tree(ctx, path, o).await;
    }
    if o.dir {
        return remove_dir(ctx, path, o).await;
    }
    Ok(cannot(ctx, path, Errno::EISDIR).await)
}

async fn cannot(ctx: &mut Ctx, path: &str, code: Errno) -> bool {
    warn(ctx, format_args!("cannot remove {}: {code}", quote(path))).await;
    false
}

/// Prompts on stderr and reads one answer line from stdin: yes when it starts with y or Y.
async fn ask(ctx: &mut Ctx, prompt: &str) -> bool {
    err_str(ctx, prompt).await;
    let answer = ctx.stdin.read_line().await.unwrap_or_default();
    matches!(answer.first(), Some(b'y' | b'Y'))
}

async fn remove_file(
    ctx: &mut Ctx,
    path: &str,
    kind: FileKind,
    size: u64,
    o: &Options,
) -> Res<bool> {
    if o.interactive {
        let what = match kind {
            FileKind::Symlink => "symbolic link",
            FileKind::CharDevice => "character special file",
            _ if size == 0 => "regular empty file",
            _ => "regular file",
        };
        if !ask(ctx, &format!("rm: remove {what} {}? ", quote(path))).await {
            return Ok(true);
        }
    }
    let removed = ctx.vfs.borrow_mut().remove_file(&ctx.cwd, path);
    match removed {
        Ok(()) => {
            if o.verbose {
                out_str(ctx, &format!("removed {}\n", quote(path))).await?;
            }
            Ok(true)
        }
        Err(e) => Ok(cannot(ctx, path, e.code).await),
    }
}

async fn remove_dir(ctx: &mut Ctx, path: &str, o: &Options) -> Res<bool> {
    if o.interactive && !ask(ctx, &format!("rm: remove directory {}? ", quote(path))).await {
        return Ok(true);
    }
    let removed = ctx.vfs.borrow_mut().remove_dir(&ctx.cwd, path);
    match removed {
        Ok(()) => {
            if o.verbose {
                out_str(ctx, &format!("removed directory {}\n", quote(path))).await?;
            }
            Ok(true)
        }
        Err(e) => Ok(cannot(ctx, path, e.code).await),
    }
}

/// Work left in a depth-first removal.
enum Step {
    Visit(String),
    Leave(String),
}

/// Removes a directory tree, children first, without recursion (trees may be deep).
async fn remove_tree(ctx: &mut Ctx, path: &str, o: &Options) -> Res<bool> {
    if !o.interactive && !o.verbose {
        let removed = ctx.vfs.borrow_mut().remove_all(&ctx.cwd, path);
        return match removed {
            Ok(()) => Ok(true),
            Err(e) => Ok(cannot(ctx, path, e.code).await),
        };
    }
    let mut ok = true;
    // Directories that cannot go because a descent below them was declined: not asked about.
    let mut kept: Vec<String> = Vec::new();
    let mut stack = vec![Step::Visit(path.to_string())];
    while let Some(step) = stack.pop() {
        match step {
            Step::Leave(dir) => {
                if !kept.iter().any(|k| k.starts_with(&format!("{dir}/"))) {
                    ok &= remove_dir(ctx, &dir, o).await?;
                }
            }
            Step::Visit(entry) => {
                let stat = ctx.vfs.borrow().lstat(&ctx.cwd, &entry);
                match stat {
                    Ok(s) if s.kind == FileKind::Dir => {
                        let children = ctx
                            .vfs
                            .borrow()
                            .read_dir(&ctx.cwd, &entry)
                            .unwrap_or_default();
                        if !children.is_empty() && o.interactive {
                            let prompt = format!("rm: descend into directory {}? ", quote(&entry));
                            if !ask(ctx, &prompt).await {
                                kept.push(format!("{entry}/"));
                                continue;
                            }
                        }
                        stack.push(Step::Leave(entry.clone()));
                        for (name, _) in children.iter().rev() {
                            stack.push(Step::Visit(join(&entry, name)));
                        }
                    }
                    Ok(s) => ok &= remove_file(ctx, &entry, s.kind, s.size, o).await?,
                    Err(e) => ok &= cannot(ctx, &entry, e.code).await,
                }
            }
        }
    }
    Ok(ok)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, tree};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    #[test]
    fn rm_files_and_errors() {
        let vfs = vfs_with(&[("d/e/f", "x"), ("f", ""), ("g", "")]);
        assert_eq!(
            run_in(&vfs, "rm", &["d"], ""),
            err("rm: cannot remove 'd': Is a directory\n", 1)
        );
        assert_eq!(run_in(&vfs, "rm", &["-v", "f"], ""), ok("removed 'f'\n"));
        assert_eq!(
            run_in(&vfs, "rm", &["nope"], ""),
            err("rm: cannot remove 'nope': No such file or directory\n", 1)
        );
        assert_eq!(run_in(&vfs, "rm", &["-f", "nope"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "rm", &[], ""),
            err(
                "rm: missing operand\nTry 'rm --help' for more information.\n",
                1
            )
        );
        assert_eq!(run_in(&vfs, "rm", &["-f"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "rm", &["."], ""),
            err("rm: cannot remove '.': Is a directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "rm", &["-d", "d"], ""),
            err("rm: cannot remove 'd': Directory not empty\n", 1)
        );
        assert_eq!(run_in(&vfs, "rm", &["/etc/passwd"], "").status, 1);
        assert_eq!(run_in(&vfs, "rm", &["-x"], "").status, 1);
        assert_eq!(tree(&vfs), "d/\nd/e/\nd/e/f=x\ng=");
    }

    #[test]
    fn rm_recursive() {
        let vfs = vfs_with(&[("d/e/f", "x"), ("d/a", ""), ("keep", "")]);
        let _ = vfs.borrow_mut().mkdir("/workspace", "empty");
        assert_eq!(
            run_in(&vfs, "rm", &["-rv", "d"], ""),
            ok("removed 'd/a'\nremoved 'd/e/f'\nremoved directory 'd/e'\nremoved directory 'd'\n")
        );
        assert_eq!(
            run_in(&vfs, "rm", &["-d", "-v", "empty"], ""),
            ok("removed directory 'empty'\n")
        );
        let dots = "rm: refusing to remove '.' or '..' directory: skipping ";
        assert_eq!(
            run_in(&vfs, "rm", &["-rf", "."], ""),
            err(&format!("{dots}'.'\n"), 1)
        );
        assert_eq!(
            run_in(&vfs, "rm", &["-r", "./", ".."], ""),
            err(&format!("{dots}'./'\n{dots}'..'\n"), 1)
        );
        let root = "rm: it is dangerous to operate recursively on '/'\nrm: use --no-preserve-root to override this failsafe\n";
        assert_eq!(run_in(&vfs, "rm", &["-rf", "/"], ""), err(root, 1));
        assert_eq!(run_in(&vfs, "rm", &["-r", "/workspace/.."], "").status, 1);
        assert_eq!(tree(&vfs), "keep=");
        let vfs = vfs_with(&[("q/r/s", "1")]);
        assert_eq!(run_in(&vfs, "rm", &["-R", "q"], ""), ok(""));
        assert_eq!(tree(&vfs), "");
    }

    #[test]
    fn rm_interactive_reads_answers() {
        let vfs = vfs_with(&[("h", ""), ("g", "x"), ("q/r/s", "")]);
        let _ = vfs.borrow_mut().symlink("/workspace", "h", "sl");
        assert_eq!(
            run_in(&vfs, "rm", &["-i", "h"], "y\n"),
            err("rm: remove regular empty file 'h'? ", 0)
        );
        assert_eq!(
            run_in(&vfs, "rm", &["-i", "g"], "n\n"),
            err("rm: remove regular file 'g'? ", 0)
        );
        assert_eq!(
            run_in(&vfs, "rm", &["-i", "sl"], ""),
            err("rm: remove symbolic link 'sl'? ", 0)
        );
        assert_eq!(
            run_in(&vfs, "rm", &["-ri", "q"], "y\ny\ny\n"),
            err("rm: descend into directory 'q'? rm: descend into directory 'q/r'? rm: remove regular empty file 'q/r/s'? rm: remove directory 'q/r'? rm: remove directory 'q'? ", 0)
        );
        assert_eq!(tree(&vfs), "g=x\nq/\nq/r/\nsl->h");
        let vfs2 = vfs_with(&[("q/r/s", ""), ("q/t", "")]);
        assert_eq!(
            run_in(&vfs2, "rm", &["-ri", "q"], "y\nn\ny\n"),
            err("rm: descend into directory 'q'? rm: descend into directory 'q/r'? rm: remove regular empty file 'q/t'? ", 0)
        );
        assert_eq!(tree(&vfs2), "q/\nq/r/\nq/r/s=");
        assert_eq!(run_in(&vfs, "rm", &["-I", "g", "sl"], ""), ok(""));
        assert_eq!(
            run_in(&vfs, "rm", &["-I", "-r", "q"], "n\n"),
            err("rm: remove 1 argument recursively? ", 0)
        );
        assert_eq!(
            run_in(&vfs, "rm", &["-fi", "q"], ""),
            both("", "rm: cannot remove 'q': Is a directory\n", 1)
        );
        assert_eq!(tree(&vfs), "q/\nq/r/");
        assert!(run("rm", &["--help"], "").stdout.starts_with("Usage: rm"));
    }
}
