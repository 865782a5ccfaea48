//! `tree [-adfi] [-L LEVEL] [-I PATTERN] [-P PATTERN] [DIRECTORY]...`: directories drawn as
//! an indented tree, as `tree` 2.x draws them: entries by name (hidden ones with `-a`),
//! symlinks with their targets and not followed, then a count of what was listed (a
//! directory shown with entries counts itself too, as tree's count does).

use crate::applets::common::{conclude, join, out_str, parse_args, warn, Glob, Opt, OptSpec, Res};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::FileKind;

/// The `tree` applet.
pub const APPLET: Applet = Applet {
    name: "tree",
    usage: "tree [OPTION]... [DIRECTORY]...\nList the contents of directories as a tree (default: the current directory).\n  -a            all files (names starting with . too)\n  -d            directories only\n  -f            each entry's path from its DIRECTORY\n  -i            no indentation lines\n  -L LEVEL      descend at most LEVEL directories deep\n  -I PATTERN    leave out names matching PATTERN (a wildcard; | separates several)\n  -P PATTERN    list only the files matching PATTERN (all directories are listed)\n  --dirsfirst   directories before files\n  --noreport    no count of directories and files at the end\n  -C, -n        accepted (no colors)",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "adfiCn",
    short_val: "LIP",
    long: &["dirsfirst", "noreport"],
    long_val: &[],
    digits: None,
    stop_at_operand: false,
};

#[derive(Default)]
struct Options {
    all: bool,
    dirs_only: bool,
    full_path: bool,
    no_indent: bool,
    dirs_first: bool,
    no_report: bool,
    max_level: Option<usize>,
    /// The line-drawing pieces: last entry, other entry, below a last one, below another.
    lines: [&'static str; 4],
    exclude: Vec<Glob>,
    only: Vec<Glob>,
}

/// What was listed: directories and other files.
#[derive(Default)]
struct Counts {
    dirs: usize,
    files: usize,
}

/// A directory being listed: its path, the line prefix of its entries, what is left of them.
struct Frame {
    path: String,
    prefix: String,
    level: usize,
    todo: std::vec::IntoIter<Entry>,
}

struct Entry {
    name: String,
    is_dir: bool,
    is_link: bool,
}

fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(main(ctx))
}

async fn main(mut ctx: Ctx) -> i32 {
    let (opts, operands) = match parse_args(&mut ctx, &SPEC, 1).await {
        Ok(parsed) => parsed,
        Err(status) => return status,
    };
    let mut o = Options {
        lines: if utf8_locale(&ctx) {
            // tree's own spacing: the bar is followed by two no-break spaces.
            ["└── ", "├── ", "    ", "│\u{a0}\u{a0} "]
        } else {
            ["`-- ", "|-- ", "    ", "|   "]
        },
        ..Options::default()
    };
    for opt in &opts {
        let patterns = || {
            opt.value()
                .split('|')
                .map(|p| Glob::new(p, false))
                .collect()
        };
        let Opt::Short(letter, _) = opt else {
            o.dirs_first |= opt.is('-', "dirsfirst");
            o.no_report |= opt.is('-', "noreport");
            continue;
        };
        match letter {
            'a' => o.all = true,
            'd' => o.dirs_only = true,
            'f' => o.full_path = true,
            'i' => o.no_indent = true,
            'I' => o.exclude = patterns(),
            'P' => o.only = patterns(),
            'L' => match opt.value().parse::<usize>() {
                Ok(level) if level > 0 => o.max_level = Some(level),
                _ => {
                    warn(&mut ctx, "Invalid level, must be greater than 0.").await;
                    return 1;
                }
            },
            _ => {}
        }
    }
    let roots = if operands.is_empty() {
        vec![".".to_string()]
    } else {
        operands
    };
    let mut counts = Counts::default();
    let mut status = 0;
    let mut result = Ok(());
    for root in &roots {
        result = list(&mut ctx, root, &o, &mut counts, &mut status).await;
        if result.is_err() {
            break;
        }
    }
    if result.is_ok() && !o.no_report {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut report = format!("\n{}", plural(counts.dirs, "directory", "directories"));
        if !o.dirs_only {
            report += &format!(", {}", plural(counts.files, "file", "files"));
        }
        result = out_str(&mut ctx, &(report + "\n")).await;
    }
    conclude(&mut ctx, result.map(|()| status)).await
}

/// Draws one DIRECTORY operand and what is under it.
async fn list(
    ctx: &mut Ctx,
    root: &str,
    o: &Options,
    counts: &mut Counts,
    status: &mut i32,
) -> Res {
    let stat = ctx.vfs.borrow().stat(&ctx.cwd, root);
    let Some(entries) = stat
        .ok()
        .filter(|s| s.kind == FileKind::Dir)
        .map(|_| listed(ctx, root, o))
    else {
        // tree's words for an operand it cannot list; a file still counts as one.
        match ctx.vfs.borrow().lstat(&ctx.cwd, root) {
            Ok(_) => counts.files += 1,
            Err(_) => *status = 2,
        }
        return out_str(ctx, &format!("{root}  [error opening dir]\n")).await;
    };
    out_str(ctx, &format!("{root}\n")).await?;
    if !entries.is_empty() {
        counts.dirs += 1;
    }
    let mut stack = vec![Frame {
        path: root.to_string(),
        prefix: String::new(),
        level: 1,
        todo: entries.into_iter(),
    }];
    while let Some(frame) = stack.last_mut() {
        let Some(entry) = frame.todo.next() else {
            stack.pop();
            continue;
        };
        let last = frame.todo.len() == 0;
        let path = join(&frame.path, &entry.name);
        let mut line = frame.prefix.clone();
        if !o.no_indent {
            line += o.lines[usize::from(!last)];
        }
        line += if o.full_path { &path } else { &entry.name };
        if entry.is_link {
            if let Ok(target) = ctx.vfs.borrow().read_link(&ctx.cwd, &path) {
                line += &format!(" -> {target}");
            }
        }
        out_str(ctx, &(line + "\n")).await?;
        if !entry.is_dir {
            counts.files += 1;
            continue;
        }
        counts.dirs += 1;
        if entry.is_link || o.max_level.is_some_and(|max| frame.level >= max) {
            continue;
        }
        let indent = if o.no_indent {
            ""
        } else {
            o.lines[2 + usize::from(!last)]
        };
        let child = Frame {
            prefix: format!("{}{indent}", frame.prefix),
            level: frame.level + 1,
            todo: listed(ctx, &path, o).into_iter(),
            path,
        };
        stack.push(child);
    }
    Ok(())
}

/// Whether the locale's characters are UTF-8 (`LC_ALL`, else `LC_CTYPE`, else `LANG`): tree
/// draws its lines with box characters then, and with ASCII otherwise.
fn utf8_locale(ctx: &Ctx) -> bool {
    let locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .find_map(|name| ctx.env.get(*name).filter(|v| !v.is_empty()));
    locale.is_some_and(|l| {
        let l = l.to_ascii_lowercase();
        l.contains("utf-8") || l.contains("utf8")
    })
}

/// The entries of directory `path` that are listed, in the order they are.
fn listed(ctx: &Ctx, path: &str, o: &Options) -> Vec<Entry> {
    let vfs = ctx.vfs.borrow();
    let listed = vfs.read_dir(&ctx.cwd, path).unwrap_or_default();
    let mut out: Vec<Entry> = listed
        .into_iter()
        .filter(|(name, _)| o.all || !name.starts_with('.'))
        .filter(|(name, _)| !o.exclude.iter().any(|g| g.matches(name)))
        .map(|(name, kind)| {
            let full = join(path, &name);
            let is_link = kind == FileKind::Symlink;
            let is_dir = kind == FileKind::Dir
                || is_link
                    && vfs
                        .stat(&ctx.cwd, &full)
                        .is_ok_and(|s| s.kind == FileKind::Dir);
            Entry {
                name,
                is_dir,
                is_link,
            }
        })
        .filter(|e| {
            e.is_dir && (o.dirs_only || !e.is_link)
                || !o.dirs_only && (o.only.is_empty() || o.only.iter().any(|g| g.matches(&e.name)))
        })
        .collect();
    if o.dirs_first {
        crate::sort::sort_by_key(&mut out, |e| !e.is_dir);
    }
    out
}
