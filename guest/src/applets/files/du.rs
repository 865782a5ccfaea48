//! `du [-sahcbk] [-d N] [FILE]...`: disk usage of files and directory trees.
//!
//! Sizes are apparent sizes (GNU's `--apparent-size`): the bytes of each file, the target
//! length of each symlink, 4096 per directory, summed and shown in KiB rounded up. A file with
//! several names (hard links) counts once, under the first name met, unless `-l`.

use std::collections::HashSet;

use crate::applets::common::{conclude, human, join, out_str, parse_args, parse_count, quote, Res};
use crate::applets::common::{usage_error, warn, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{FileKind, Stat};

/// The `du` applet.
pub const APPLET: Applet = Applet {
    name: "du",
    usage: "du [OPTION]... [FILE]...\nSummarize the (apparent) size of each FILE, recursively for directories.\n  -a, --all             write counts for all files, not just directories\n      --apparent-size   print apparent sizes (always the case here)\n  -b, --bytes           print sizes in bytes\n  -c, --total           produce a grand total\n  -d, --max-depth=N     print the total for a directory only if it is N or fewer levels\n                        below the command line argument\n  -h, --human-readable  print sizes in human readable format (e.g., 1K 234M 2G)\n  -k                    print sizes in KiB (the default)\n  -m                    print sizes in MiB\n  -l, --count-links     count sizes many times if hard linked\n  -s, --summarize       display only a total for each argument",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "abchklmsxDLP",
    short_val: "d",
    long: &[
        "all",
        "apparent-size",
        "bytes",
        "total",
        "human-readable",
        "summarize",
        "one-file-system",
        "count-links",
    ],
    long_val: &["max-depth"],
    digits: None,
    stop_at_operand: false,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Kib,
    Mib,
    Bytes,
    Human,
}

struct Options {
    all: bool,
    /// `-l`: a hard-linked file counts under each of its names.
    count_links: bool,
    total: bool,
    unit: Unit,
    max_depth: usize,
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let (opts, mut operands) = match parse_args(&mut ctx, &SPEC, 1).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = Options {
            all: false,
            count_links: false,
            total: false,
            unit: Unit::Kib,
            max_depth: usize::MAX,
        };
        let mut summarize = false;
        for opt in &opts {
            match opt {
                _ if opt.is('a', "all") => o.all = true,
                _ if opt.is('b', "bytes") => o.unit = Unit::Bytes,
                _ if opt.is('c', "total") => o.total = true,
                _ if opt.is('h', "human-readable") => o.unit = Unit::Human,
                _ if opt.is('k', "\0") => o.unit = Unit::Kib,
                _ if opt.is('m', "\0") => o.unit = Unit::Mib,
                _ if opt.is('l', "count-links") => o.count_links = true,
                _ if opt.is('s', "summarize") => summarize = true,
                _ if opt.is('d', "max-depth") => match parse_count(opt.value()) {
                    Some(n) => o.max_depth = usize::try_from(n).unwrap_or(usize::MAX),
                    None => {
                        let message = format!("invalid maximum depth {}", quote(opt.value()));
                        return usage_error(&mut ctx, message, 1).await;
                    }
                },
                _ => {}
            }
        }
        if summarize {
            if o.max_depth != usize::MAX && o.max_depth != 0 {
                let message = format!(
                    "warning: summarizing conflicts with --max-depth={}",
                    o.max_depth
                );
                return usage_error(&mut ctx, message, 1).await;
            }
            o.max_depth = 0;
        }
        if o.all && summarize {
            return usage_error(&mut ctx, "cannot both summarize and show all entries", 1).await;
        }
        if operands.is_empty() {
            operands.push(".".to_string());
        }
        let result = measure_all(&mut ctx, &operands, &o).await;
        conclude(&mut ctx, result).await
    })
}

fn show(bytes: u64, unit: Unit) -> String {
    match unit {
        Unit::Bytes => bytes.to_string(),
        Unit::Human => human(bytes),
        Unit::Kib => bytes.div_ceil(1024).to_string(),
        Unit::Mib => bytes.div_ceil(1024 * 1024).to_string(),
    }
}

async fn line(ctx: &mut Ctx, bytes: u64, path: &str, unit: Unit) -> Res {
    out_str(ctx, &format!("{}\t{path}\n", show(bytes, unit))).await
}

async fn measure_all(ctx: &mut Ctx, operands: &[String], o: &Options) -> Res<i32> {
    let mut status = 0;
    let mut grand = 0;
    let mut seen = HashSet::new();
    for path in operands {
        match measure(ctx, path, o, &mut seen).await? {
            Some(bytes) => grand += bytes,
            None => status = 1,
        }
    }
    if o.total {
        line(ctx, grand, "total", o.unit).await?;
    }
    Ok(status)
}

/// A directory being summed: its path, depth, entries still to visit (last first) and total.
struct Frame {
    path: String,
    depth: usize,
    todo: Vec<String>,
    bytes: u64,
}

/// Sums one operand, printing as it goes; None after reporting it missing.
async fn measure(
    ctx: &mut Ctx,
    root: &str,
    o: &Options,
    seen: &mut HashSet<u64>,
) -> Res<Option<u64>> {
    let stat = ctx.vfs.borrow().lstat(&ctx.cwd, root);
    let stat = match stat {
        Ok(stat) => stat,
        Err(e) => {
            warn(
                ctx,
                format_args!("cannot access {}: {}", quote(root), e.code),
            )
            .await;
            return Ok(None);
        }
    };
    if stat.kind != FileKind::Dir {
        if !first_name(seen, &stat, o) {
            return Ok(Some(0));
        }
        line(ctx, stat.size, root, o.unit).await?;
        return Ok(Some(stat.size));
    }
    if !seen.insert(stat.ino) {
        return Ok(Some(0));
    }
    let mut stack = vec![open_dir(ctx, root, 0, stat.size).await];
    let mut result = 0;
    while let Some(frame) = stack.last_mut() {
        let Some(name) = frame.todo.pop() else {
            let Some(done) = stack.pop() else { break };
            if done.depth <= o.max_depth {
                line(ctx, done.bytes, &done.path, o.unit).await?;
            }
            match stack.last_mut() {
                Some(parent) => parent.bytes += done.bytes,
                None => result = done.bytes,
            }
            continue;
        };
        let path = join(&frame.path, &name);
        let depth = frame.depth + 1;
        let stat = ctx.vfs.borrow().lstat(&ctx.cwd, &path);
        match stat {
            Ok(s) if s.kind == FileKind::Dir => {
                if seen.insert(s.ino) {
                    let child = open_dir(ctx, &path, depth, s.size).await;
                    stack.push(child);
                }
            }
            Ok(s) if !first_name(seen, &s, o) => {}
            Ok(s) => {
                frame.bytes += s.size;
                if o.all && depth <= o.max_depth {
                    line(ctx, s.size, &path, o.unit).await?;
                }
            }
            Err(e) => {
                warn(
                    ctx,
                    format_args!("cannot access {}: {}", quote(&path), e.code),
                )
                .await
            }
        }
    }
    Ok(Some(result))
}

/// Whether a file is met by its first name: one with several names counts only once.
fn first_name(seen: &mut HashSet<u64>, stat: &Stat, o: &Options) -> bool {
    o.count_links || stat.nlink < 2 || seen.insert(stat.ino)
}

async fn open_dir(ctx: &mut Ctx, path: &str, depth: usize, size: u64) -> Frame {
    let entries = ctx.vfs.borrow().read_dir(&ctx.cwd, path);
    let todo = match entries {
        Ok(entries) => entries.into_iter().rev().map(|(name, _)| name).collect(),
        Err(e) => {
            warn(
                ctx,
                format_args!("cannot read directory {}: {}", quote(path), e.code),
            )
            .await;
            Vec::new()
        }
    };
    Frame {
        path: path.to_string(),
        depth,
        todo,
        bytes: size,
    }
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err};
    use crate::applets::testing::{ok, run, run_in, vfs_with};

    fn setup() -> std::rc::Rc<std::cell::RefCell<crate::vfs::Vfs>> {
        let big = "0".repeat(5000);
        let vfs = vfs_with(&[("d/a", &big), ("d/e/b", "x")]);
        let _ = vfs.borrow_mut().mkdir("/workspace", "d/e/f");
        let _ = vfs.borrow_mut().symlink("/workspace", "a", "d/l");
        vfs
    }

    #[test]
    fn du_counts_a_hard_linked_file_once() {
        let vfs = vfs_with(&[("d/a", &"x".repeat(5000))]);
        let _ = vfs.borrow_mut().link("/workspace", "d/a", "d/b", false);
        let _ = vfs.borrow_mut().link("/workspace", "d/a", "c", false);
        assert_eq!(
            run_in(&vfs, "du", &["-ab", "d"], ""),
            ok("5000\td/a\n9096\td\n")
        );
        assert_eq!(run_in(&vfs, "du", &["-b", "c", "d/a"], ""), ok("5000\tc\n"));
        assert_eq!(
            run_in(&vfs, "du", &["-lb", "c", "d/a"], ""),
            ok("5000\tc\n5000\td/a\n")
        );
    }

    #[test]
    fn du_trees() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "du", &["d"], ""),
            ok("4\td/e/f\n9\td/e\n17\td\n")
        );
        assert_eq!(
            run_in(&vfs, "du", &["-a", "d"], ""),
            ok("5\td/a\n1\td/e/b\n4\td/e/f\n9\td/e\n1\td/l\n17\td\n")
        );
        assert_eq!(run_in(&vfs, "du", &["-s", "d", "d/e"], ""), ok("17\td\n"));
        assert_eq!(
            run_in(&vfs, "du", &["-c", "d/a", "d/e"], ""),
            ok("5\td/a\n4\td/e/f\n9\td/e\n13\ttotal\n")
        );
        assert_eq!(run_in(&vfs, "du", &["-sh", "d"], ""), ok("17K\td\n"));
        assert_eq!(
            run_in(&vfs, "du", &["-d", "1", "d"], ""),
            ok("9\td/e\n17\td\n")
        );
        assert_eq!(
            run_in(&vfs, "du", &["--max-depth=0", "d/"], ""),
            ok("17\td/\n")
        );
        assert_eq!(
            run_in(&vfs, "du", &["-b", "d"], ""),
            ok("4096\td/e/f\n8193\td/e\n17290\td\n")
        );
        assert_eq!(
            run_in(&vfs, "du", &["-hc", "d/a", "d/e/b"], ""),
            ok("4.9K\td/a\n1\td/e/b\n4.9K\ttotal\n")
        );
        assert_eq!(
            run_in(&vfs, "du", &["-k", "--apparent-size", "d/e"], ""),
            ok("4\td/e/f\n9\td/e\n")
        );
        // -m rounds up to whole MiB, as -k does to KiB.
        assert_eq!(run_in(&vfs, "du", &["-ms", "d"], ""), ok("1\td\n"));
    }

    #[test]
    fn du_defaults_and_errors() {
        let vfs = setup();
        let at = crate::applets::files::testutil::run_at(&vfs, "/workspace/d", "du", &[]);
        assert_eq!(at, ok("4\t./e/f\n9\t./e\n17\t.\n"));
        assert_eq!(
            run_in(&vfs, "du", &["nope"], ""),
            err("du: cannot access 'nope': No such file or directory\n", 1)
        );
        assert_eq!(
            run_in(&vfs, "du", &["nope", "d/a"], ""),
            both(
                "5\td/a\n",
                "du: cannot access 'nope': No such file or directory\n",
                1
            )
        );
        assert_eq!(
            run("du", &["-d", "x"], ""),
            err(
                "du: invalid maximum depth 'x'\nTry 'du --help' for more information.\n",
                1
            )
        );
        assert_eq!(run("du", &["-Q"], "").status, 1);
        assert!(run("du", &["--help"], "").stdout.starts_with("Usage: du"));
    }
}
