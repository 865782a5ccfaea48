//! `ls [-laA1RhStrdFpisnogGUL] [FILE]...`: list directory contents.
//!
//! Output is one name per line (what GNU prints when stdout is not a terminal, which it
//! never is here). Names sort bytewise (the C locale). Owner and group are `user`; sizes,
//! link counts and mtimes come from the VFS; block counts assume 4 KiB blocks.

use crate::applets::common::{
    blocks_kib, conclude, human, join, mode_string, out_str, parse_args, quote, strftime, Res,
};
use crate::applets::common::{usage_error, warn, Opt, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::{FileKind, Stat};

/// The `ls` applet.
pub const APPLET: Applet = Applet {
    name: "ls",
    usage: "ls [OPTION]... [FILE]...\nList information about the FILEs (the current directory by default), one per line,\nsorted by name.\n  -a, --all              do not ignore entries starting with .\n  -A, --almost-all       do not list implied . and ..\n  -d, --directory        list directories themselves, not their contents\n  -F, --classify         append indicator (one of */@) to entries\n  -g                     like -l, but do not list owner\n  -G, --no-group         in a long listing, don't print group names\n  -h, --human-readable   with -l and -s, print sizes like 1K 234M 2G\n  -i, --inode            print the index number of each file\n  -l                     use a long listing format\n  -L, --dereference      show information for the file a symlink references\n  -m                     fill width with a comma separated list of entries\n  -n, --numeric-uid-gid  like -l, but list numeric user and group IDs\n  -o                     like -l, but do not list group information\n  -p                     append / indicator to directories\n  -r, --reverse          reverse order while sorting\n  -R, --recursive        list subdirectories recursively\n  -s, --size             print the allocated size of each file, in blocks\n  -S                     sort by file size, largest first\n  -t                     sort by modification time, newest first\n  -U                     do not sort; list entries in directory order\n  -1                     list one file per line (the default here)\n      --full-time        like -l --time-style=full-iso\n      --time-style=STYLE full-iso, long-iso, iso, locale, or +FORMAT",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "laA1RhStrdFpisnogGULfcukCmx",
    short_val: "",
    long: &[
        "all",
        "almost-all",
        "directory",
        "classify",
        "no-group",
        "human-readable",
        "inode",
        "dereference",
        "numeric-uid-gid",
        "reverse",
        "recursive",
        "size",
        "full-time",
        "color",
    ],
    long_val: &["time-style", "sort"],
    digits: None,
    stop_at_operand: false,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Sort {
    Name,
    Time,
    Size,
    None,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Hidden {
    Skip,
    AlmostAll,
    All,
}

struct Options {
    long: bool,
    hidden: Hidden,
    recursive: bool,
    human: bool,
    sort: Sort,
    reverse: bool,
    directory: bool,
    classify: bool,
    slash: bool,
    inode: bool,
    size: bool,
    numeric: bool,
    owner: bool,
    group: bool,
    deref: bool,
    commas: bool,
    /// `-C` (vertical) or `-x` (horizontal) columns.
    columns: Option<bool>,
    width: usize,
    time_style: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            long: false,
            hidden: Hidden::Skip,
            recursive: false,
            human: false,
            sort: Sort::Name,
            reverse: false,
            directory: false,
            classify: false,
            slash: false,
            inode: false,
            size: false,
            numeric: false,
            owner: true,
            group: true,
            deref: false,
            commas: false,
            columns: None,
            width: 80,
            time_style: "locale".into(),
        }
    }
}

/// `--color` takes an optional value (`--color=never`): fold it away before parsing.
fn normalize(args: &[String]) -> Vec<String> {
    args.iter()
        .map(|a| {
            if a.starts_with("--color=") {
                "--color".to_string()
            } else {
                a.clone()
            }
        })
        .collect()
}

fn options(opts: &[Opt]) -> Result<Options, String> {
    let mut o = Options::default();
    for opt in opts {
        match opt {
            _ if opt.is('l', "\0") => o.long = true,
            _ if opt.is('a', "all") => o.hidden = Hidden::All,
            _ if opt.is('A', "almost-all") => o.hidden = Hidden::AlmostAll,
            _ if opt.is('1', "\0") => (o.commas, o.columns) = (false, None),
            _ if opt.is('C', "\0") => (o.commas, o.columns) = (false, Some(true)),
            _ if opt.is('x', "\0") => (o.commas, o.columns) = (false, Some(false)),
            _ if opt.is('R', "recursive") => o.recursive = true,
            _ if opt.is('h', "human-readable") => o.human = true,
            _ if opt.is('S', "\0") => o.sort = Sort::Size,
            _ if opt.is('t', "\0") => o.sort = Sort::Time,
            _ if opt.is('U', "\0") => o.sort = Sort::None,
            _ if opt.is('f', "\0") => (o.sort, o.hidden) = (Sort::None, Hidden::All),
            _ if opt.is('r', "reverse") => o.reverse = true,
            _ if opt.is('d', "directory") => o.directory = true,
            _ if opt.is('F', "classify") => o.classify = true,
            _ if opt.is('p', "\0") => o.slash = true,
            _ if opt.is('i', "inode") => o.inode = true,
            _ if opt.is('s', "size") => o.size = true,
            _ if opt.is('n', "numeric-uid-gid") => (o.long, o.numeric) = (true, true),
            _ if opt.is('g', "\0") => (o.long, o.owner) = (true, false),
            _ if opt.is('o', "\0") => (o.long, o.group) = (true, false),
            _ if opt.is('G', "no-group") => o.group = false,
            _ if opt.is('L', "dereference") => o.deref = true,
            _ if opt.is('m', "\0") => (o.commas, o.columns) = (true, None),
            _ if opt.is('\0', "full-time") => (o.long, o.time_style) = (true, "full-iso".into()),
            _ if opt.is('\0', "time-style") => o.time_style = check_style(opt.value())?,
            _ if opt.is('\0', "sort") => {
                o.sort = match opt.value() {
                    "name" => Sort::Name,
                    "time" => Sort::Time,
                    "size" => Sort::Size,
                    "none" => Sort::None,
                    other => return Err(format!("invalid argument {} for '--sort'", quote(other))),
                }
            }
            _ => {}
        }
    }
    Ok(o)
}

fn check_style(style: &str) -> Result<String, String> {
    let style = style.strip_prefix("posix-").unwrap_or(style);
    match style {
        "full-iso" | "long-iso" | "iso" | "locale" => Ok(style.to_string()),
        _ if style.starts_with('+') => Ok(style.to_string()),
        _ => Err(format!(
            "invalid argument {} for 'time style'",
            quote(style)
        )),
    }
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        ctx.args = normalize(&ctx.args);
        let (opts, mut operands) = match parse_args(&mut ctx, &SPEC, 2).await {
            Ok(parsed) => parsed,
            Err(status) => return status,
        };
        let mut o = match options(&opts) {
            Ok(o) => o,
            Err(message) => return usage_error(&mut ctx, message, 2).await,
        };
        if let Some(width) = ctx
            .env
            .get("COLUMNS")
            .and_then(|c| c.parse::<usize>().ok())
            .filter(|w| *w > 0)
        {
            o.width = width;
        }
        if operands.is_empty() {
            operands.push(".".to_string());
        }
        let result = list_operands(&mut ctx, &operands, &o).await;
        conclude(&mut ctx, result).await
    })
}

/// One thing to print: its name as shown, metadata, and a symlink's target.
struct Entry {
    name: String,
    stat: Stat,
    target: Option<String>,
    /// For `-F` on a symlink target in long listings: what the target is.
    target_stat: Option<Stat>,
}

fn entry(ctx: &Ctx, path: &str, name: &str, follow: bool) -> Result<Entry, crate::vfs::VfsError> {
    let vfs = ctx.vfs.borrow();
    let stat = if follow {
        vfs.stat(&ctx.cwd, path)?
    } else {
        vfs.lstat(&ctx.cwd, path)?
    };
    let (target, target_stat) = if stat.kind == FileKind::Symlink {
        (
            vfs.read_link(&ctx.cwd, path).ok(),
            vfs.stat(&ctx.cwd, path).ok(),
        )
    } else {
        (None, None)
    };
    Ok(Entry {
        name: name.to_string(),
        stat,
        target,
        target_stat,
    })
}

async fn list_operands(ctx: &mut Ctx, operands: &[String], o: &Options) -> Res<i32> {
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    // Command-line symlinks are followed unless the link itself is what is shown.
    let follow_args = o.deref || !(o.long || o.directory || o.classify);
    for path in operands {
        match entry(ctx, path, path, follow_args) {
            Ok(e) => {
                let is_dir = e.stat.kind == FileKind::Dir
                    || e.target_stat
                        .as_ref()
                        .is_some_and(|t| t.kind == FileKind::Dir)
                        && path.ends_with('/');
                if is_dir && !o.directory {
                    dirs.push(e);
                } else {
                    files.push(e);
                }
            }
            Err(e) => {
                warn(
                    ctx,
                    format_args!("cannot access {}: {}", quote(path), e.code),
                )
                .await;
                status = 2;
            }
        }
    }
    sort(&mut files, o);
    sort(&mut dirs, o);
    let mut first = true;
    if !files.is_empty() {
        print_entries(ctx, &files, o, false).await?;
        first = false;
    }
    let headers = operands.len() > 1 || o.recursive;
    for dir in &dirs {
        status = status.max(list_tree(ctx, &dir.name, o, headers, &mut first).await?);
    }
    Ok(status)
}

/// Lists a directory (and with `-R` everything below it, depth first).
async fn list_tree(
    ctx: &mut Ctx,
    root: &str,
    o: &Options,
    headers: bool,
    first: &mut bool,
) -> Res<i32> {
    let mut status = 0;
    let mut stack = vec![root.to_string()];
    while let Some(dir) = stack.pop() {
        let entries = match read_entries(ctx, &dir, o) {
            Ok(entries) => entries,
            Err(e) => {
                warn(
                    ctx,
                    format_args!("cannot open directory {}: {}", quote(&dir), e.code),
                )
                .await;
                status = if dir == root { 2 } else { 1 };
                continue;
            }
        };
        if headers {
            let sep = if *first { "" } else { "\n" };
            out_str(ctx, &format!("{sep}{dir}:\n")).await?;
        }
        *first = false;
        print_entries(ctx, &entries, o, true).await?;
        if o.recursive {
            for e in entries.iter().rev() {
                if e.stat.kind == FileKind::Dir && e.name != "." && e.name != ".." {
                    stack.push(join(&dir, &e.name));
                }
            }
        }
    }
    Ok(status)
}

fn read_entries(ctx: &Ctx, dir: &str, o: &Options) -> Result<Vec<Entry>, crate::vfs::VfsError> {
    let names = ctx.vfs.borrow().read_dir(&ctx.cwd, dir)?;
    let mut entries = Vec::with_capacity(names.len() + 2);
    if o.hidden == Hidden::All {
        for dot in [".", ".."] {
            if let Ok(e) = entry(ctx, &join(dir, dot), dot, false) {
                entries.push(e);
            }
        }
    }
    for (name, _) in names {
        if name.starts_with('.') && o.hidden == Hidden::Skip {
            continue;
        }
        let path = join(dir, &name);
        let found = entry(ctx, &path, &name, o.deref).or_else(|_| entry(ctx, &path, &name, false));
        if let Ok(e) = found {
            entries.push(e);
        }
    }
    sort(&mut entries, o);
    Ok(entries)
}

fn sort(entries: &mut [Entry], o: &Options) {
    let by_name = |a: &Entry, b: &Entry| a.name.as_bytes().cmp(b.name.as_bytes());
    // One comparator for every order: each `sort_by` call site is a separate copy of the
    // sorting code in the module.
    let compare = |a: &Entry, b: &Entry| match o.sort {
        Sort::Name | Sort::None => by_name(a, b),
        Sort::Time => b
            .stat
            .mtime_ms
            .total_cmp(&a.stat.mtime_ms)
            .then_with(|| by_name(a, b)),
        Sort::Size => b.stat.size.cmp(&a.stat.size).then_with(|| by_name(a, b)),
    };
    if o.sort != Sort::None {
        crate::sort::sort_by(entries, compare);
    }
    if o.reverse {
        entries.reverse();
    }
}

/// `/`, `@`, `*` after a name as `-F` (or `/` as `-p`) asks.
fn indicator(stat: &Stat, o: &Options) -> &'static str {
    match stat.kind {
        FileKind::Dir if o.classify || o.slash => "/",
        FileKind::Symlink if o.classify => "@",
        FileKind::File if o.classify && stat.mode & 0o111 != 0 => "*",
        _ => "",
    }
}

fn size_text(stat: &Stat, human_sizes: bool) -> String {
    if let Some((major, minor)) = stat.device.map(|d| d.numbers()) {
        return format!("{major}, {minor}");
    }
    if human_sizes {
        human(stat.size)
    } else {
        stat.size.to_string()
    }
}

fn blocks_text(stat: &Stat, human_sizes: bool) -> String {
    let kib = blocks_kib(stat);
    if human_sizes {
        human(kib * 1024)
    } else {
        kib.to_string()
    }
}

async fn print_entries(ctx: &mut Ctx, entries: &[Entry], o: &Options, is_dir: bool) -> Res {
    if is_dir && (o.long || o.size) {
        let total: u64 = entries.iter().map(|e| blocks_kib(&e.stat)).sum();
        let shown = if o.human {
            human(total * 1024)
        } else {
            total.to_string()
        };
        out_str(ctx, &format!("total {shown}\n")).await?;
    }
    if o.commas && !o.long {
        return print_commas(ctx, entries, o).await;
    }
    if let (Some(vertical), false) = (o.columns, o.long) {
        let widths = Widths::of(entries, o);
        let cells: Vec<String> = entries
            .iter()
            .map(|e| line(e, o, &widths, 0.0).trim_end_matches('\n').to_string())
            .collect();
        return out_str(ctx, &columns(&cells, vertical, o.width)).await;
    }
    let now = ctx.host.now_ms() / 1000.0;
    let widths = Widths::of(entries, o);
    let mut text = String::new();
    for e in entries {
        text.push_str(&line(e, o, &widths, now));
        if text.len() > 32 * 1024 {
            out_str(ctx, &std::mem::take(&mut text)).await?;
        }
    }
    out_str(ctx, &text).await
}

/// `ls -m`: names separated by `, `, wrapped before 80 columns.
async fn print_commas(ctx: &mut Ctx, entries: &[Entry], o: &Options) -> Res {
    let mut text = String::new();
    let mut column = 0;
    for (i, e) in entries.iter().enumerate() {
        let item = format!("{}{}", e.name, indicator(&e.stat, o));
        let sep = if i + 1 < entries.len() { "," } else { "" };
        let len = item.chars().count() + sep.len();
        if column > 0 && column + 1 + len > 80 {
            text.push('\n');
            column = 0;
        } else if column > 0 {
            text.push(' ');
            column += 1;
        }
        text.push_str(&item);
        text.push_str(sep);
        column += len;
    }
    if !entries.is_empty() {
        text.push('\n');
    }
    out_str(ctx, &text).await
}

/// `ls -C` (down the columns) and `ls -x` (across): as many columns as fit in `width`,
/// each as wide as its widest name plus two, padded with tabs where they fit (GNU's layout).
fn columns(cells: &[String], vertical: bool, width: usize) -> String {
    let n = cells.len();
    if n == 0 {
        return String::new();
    }
    let lens: Vec<usize> = cells.iter().map(|c| c.chars().count()).collect();
    let max_cols = (width / 3).max(1).min(n);
    let mut best = vec![lens[0]];
    for cols in (1..=max_cols).rev() {
        let rows = n.div_ceil(cols);
        let mut widths = vec![3usize; cols];
        let mut total = 3 * cols;
        let mut fits = true;
        for (i, len) in lens.iter().enumerate() {
            let col = if vertical { i / rows } else { i % cols };
            let real = len + if col == cols - 1 { 0 } else { 2 };
            if col < cols && widths[col] < real {
                total += real - widths[col];
                widths[col] = real;
                fits = total < width;
            }
            if !fits {
                break;
            }
        }
        if fits || cols == 1 {
            best = widths;
            break;
        }
    }
    let cols = best.len();
    let rows = n.div_ceil(cols);
    let mut out = String::new();
    for row in 0..rows {
        let mut pos = 0;
        let mut col = 0;
        let mut index = if vertical { row } else { row * cols };
        loop {
            out.push_str(&cells[index]);
            let step = if vertical { rows } else { 1 };
            index += step;
            let row_done = if vertical {
                index >= n
            } else {
                index >= n || index % cols == 0
            };
            if row_done {
                break;
            }
            indent(&mut out, pos + lens[index - step], pos + best[col]);
            pos += best[col];
            col += 1;
        }
        out.push('\n');
    }
    out
}

/// Pads from column `from` to `to` with tabs (every 8 columns) and spaces.
fn indent(out: &mut String, mut from: usize, to: usize) {
    while from < to {
        if to / 8 > (from + 1) / 8 {
            out.push('\t');
            from += 8 - from % 8;
        } else {
            out.push(' ');
            from += 1;
        }
    }
}

/// Column widths of one listing.
#[derive(Default)]
struct Widths {
    inode: usize,
    blocks: usize,
    links: usize,
    owner: usize,
    size: usize,
}

impl Widths {
    fn of(entries: &[Entry], o: &Options) -> Widths {
        let mut w = Widths::default();
        for e in entries {
            w.inode = w.inode.max(e.stat.ino.to_string().len());
            w.blocks = w.blocks.max(blocks_text(&e.stat, o.human).len());
            w.links = w.links.max(e.stat.nlink.to_string().len());
            w.size = w.size.max(size_text(&e.stat, o.human).len());
        }
        w.owner = 4; // "user" or "1000"
        w
    }
}

fn line(e: &Entry, o: &Options, w: &Widths, now: f64) -> String {
    let mut s = String::new();
    if o.inode {
        s.push_str(&format!("{:>width$} ", e.stat.ino, width = w.inode));
    }
    if o.size {
        s.push_str(&format!(
            "{:>width$} ",
            blocks_text(&e.stat, o.human),
            width = w.blocks
        ));
    }
    if !o.long {
        s.push_str(&e.name);
        s.push_str(indicator(&e.stat, o));
        s.push('\n');
        return s;
    }
    let who = if o.numeric { "1000" } else { "user" };
    s.push_str(&mode_string(e.stat.kind, e.stat.mode));
    s.push_str(&format!(" {:>width$} ", e.stat.nlink, width = w.links));
    if o.owner {
        s.push_str(&format!("{who:<width$} ", width = w.owner));
    }
    if o.group {
        s.push_str(&format!("{who:<width$} ", width = w.owner));
    }
    s.push_str(&format!(
        "{:>width$} ",
        size_text(&e.stat, o.human),
        width = w.size
    ));
    s.push_str(&time_text(e.stat.mtime_ms, &o.time_style, now));
    s.push(' ');
    s.push_str(&e.name);
    match (&e.target, &e.target_stat) {
        (Some(target), target_stat) => {
            s.push_str(" -> ");
            s.push_str(target);
            if let Some(t) = target_stat.as_ref().filter(|_| o.classify) {
                s.push_str(indicator(t, o));
            }
        }
        (None, _) => s.push_str(indicator(&e.stat, o)),
    }
    s.push('\n');
    s
}

/// The date column: `Nov 14 22:13` within six months of now, `Nov 14  2023` otherwise.
fn time_text(mtime_ms: f64, style: &str, now: f64) -> String {
    let secs = (mtime_ms / 1000.0).floor();
    let nanos = ((mtime_ms - secs * 1000.0) * 1e6).round() as u32;
    let when = mtime_ms / 1000.0;
    let recent = crate::applets::common::recent(when, now);
    let format = match style {
        "full-iso" => "%Y-%m-%d %H:%M:%S.%N %z".to_string(),
        "long-iso" => "%Y-%m-%d %H:%M".to_string(),
        "iso" if recent => "%m-%d %H:%M".to_string(),
        "iso" => "%Y-%m-%d ".to_string(),
        custom if custom.starts_with('+') => {
            let mut parts = custom[1..].splitn(2, '\n');
            let old = parts.next().unwrap_or("").to_string();
            match parts.next() {
                Some(new) if recent => new.to_string(),
                _ => old,
            }
        }
        _ if recent => "%b %e %H:%M".to_string(),
        _ => "%b %e  %Y".to_string(),
    };
    strftime(&format, secs as i64, nanos)
}

#[cfg(test)]
mod tests {
    use crate::applets::files::testutil::{both, err, set_mtime};
    use crate::applets::testing::{ok, run, run_in, vfs_with};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// The tree GNU listings below were recorded on: a.txt (5 bytes), big (20000, executable),
    /// sub/deep/, links to a.txt, sub and nowhere, and .hidden.
    fn setup() -> Rc<RefCell<crate::vfs::Vfs>> {
        let big = "0".repeat(20000);
        let vfs = vfs_with(&[("a.txt", "hello"), ("big", &big), (".hidden", "")]);
        let mut v = vfs.borrow_mut();
        let _ = v.mkdir_all("/workspace", "sub/deep");
        let _ = v.set_mode("/workspace", "big", 0o755);
        let _ = v.symlink("/workspace", "a.txt", "link");
        let _ = v.symlink("/workspace", "sub", "dlink");
        let _ = v.symlink("/workspace", "nope", "dang");
        drop(v);
        vfs
    }

    #[test]
    fn ls_short() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "ls", &[], ""),
            ok("a.txt\nbig\ndang\ndlink\nlink\nsub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-a"], ""),
            ok(".\n..\n.hidden\na.txt\nbig\ndang\ndlink\nlink\nsub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-A", "-1"], ""),
            ok(".hidden\na.txt\nbig\ndang\ndlink\nlink\nsub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-F"], ""),
            ok("a.txt\nbig*\ndang@\ndlink@\nlink@\nsub/\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-p"], ""),
            ok("a.txt\nbig\ndang\ndlink\nlink\nsub/\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-r"], ""),
            ok("sub\nlink\ndlink\ndang\nbig\na.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-S"], ""),
            ok("big\nsub\na.txt\nlink\ndang\ndlink\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-m"], ""),
            ok("a.txt, big, dang, dlink, link, sub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-s1"], ""),
            ok("total 28\n 4 a.txt\n20 big\n 0 dang\n 0 dlink\n 0 link\n 4 sub\n")
        );
        assert_eq!(run_in(&vfs, "ls", &["dlink"], ""), ok("deep\n"));
        assert_eq!(run_in(&vfs, "ls", &["-F", "dlink"], ""), ok("dlink@\n"));
        assert_eq!(run_in(&vfs, "ls", &["-p", "dlink/"], ""), ok("deep/\n"));
        assert_eq!(
            run_in(&vfs, "ls", &["-d", "dlink", "sub"], ""),
            ok("dlink\nsub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["--color=never", "sub"], ""),
            ok("deep\n")
        );
    }

    #[test]
    fn ls_long() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "ls", &["-l"], ""),
            ok("total 28\n-rw-r--r-- 1 user user     5 Nov 14 22:13 a.txt\n-rwxr-xr-x 1 user user 20000 Nov 14 22:13 big\nlrwxrwxrwx 1 user user     4 Nov 14 22:13 dang -> nope\nlrwxrwxrwx 1 user user     3 Nov 14 22:13 dlink -> sub\nlrwxrwxrwx 1 user user     5 Nov 14 22:13 link -> a.txt\ndrwxr-xr-x 3 user user  4096 Nov 14 22:13 sub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-lF"], ""),
            ok("total 28\n-rw-r--r-- 1 user user     5 Nov 14 22:13 a.txt\n-rwxr-xr-x 1 user user 20000 Nov 14 22:13 big*\nlrwxrwxrwx 1 user user     4 Nov 14 22:13 dang -> nope\nlrwxrwxrwx 1 user user     3 Nov 14 22:13 dlink -> sub/\nlrwxrwxrwx 1 user user     5 Nov 14 22:13 link -> a.txt\ndrwxr-xr-x 3 user user  4096 Nov 14 22:13 sub/\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-lsh"], ""),
            ok("total 28K\n4.0K -rw-r--r-- 1 user user    5 Nov 14 22:13 a.txt\n 20K -rwxr-xr-x 1 user user  20K Nov 14 22:13 big\n   0 lrwxrwxrwx 1 user user    4 Nov 14 22:13 dang -> nope\n   0 lrwxrwxrwx 1 user user    3 Nov 14 22:13 dlink -> sub\n   0 lrwxrwxrwx 1 user user    5 Nov 14 22:13 link -> a.txt\n4.0K drwxr-xr-x 3 user user 4.0K Nov 14 22:13 sub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-l", "dlink"], ""),
            ok("lrwxrwxrwx 1 user user 3 Nov 14 22:13 dlink -> sub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-ld", "sub"], ""),
            ok("drwxr-xr-x 3 user user 4096 Nov 14 22:13 sub\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-g", "a.txt"], ""),
            ok("-rw-r--r-- 1 user 5 Nov 14 22:13 a.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-o", "a.txt"], ""),
            ok("-rw-r--r-- 1 user 5 Nov 14 22:13 a.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-n", "a.txt"], ""),
            ok("-rw-r--r-- 1 1000 1000 5 Nov 14 22:13 a.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-lG", "a.txt"], ""),
            ok("-rw-r--r-- 1 user 5 Nov 14 22:13 a.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-l", "/dev/null"], "").stdout,
            "crw-rw-rw- 1 user user 1, 3 Nov 14 22:13 /dev/null\n"
        );
        assert_eq!(
            run_in(&vfs, "ls", &["--full-time", "a.txt"], ""),
            ok("-rw-r--r-- 1 user user 5 2023-11-14 22:13:20.000000000 +0000 a.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-l", "--time-style=long-iso", "a.txt"], ""),
            ok("-rw-r--r-- 1 user user 5 2023-11-14 22:13 a.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-l", "--time-style=+%s", "a.txt"], ""),
            ok("-rw-r--r-- 1 user user 5 1700000000 a.txt\n")
        );
    }

    #[test]
    fn ls_old_files_and_sorting_by_time() {
        let vfs = setup();
        set_mtime(&vfs, "a.txt", 1_600_000_000.0);
        set_mtime(&vfs, "big", 1_700_003_600.0);
        assert_eq!(
            run_in(&vfs, "ls", &["-l", "a.txt"], ""),
            ok("-rw-r--r-- 1 user user 5 Sep 13  2020 a.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-l", "--time-style=iso", "a.txt"], ""),
            ok("-rw-r--r-- 1 user user 5 2020-09-13  a.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-l", "big"], ""),
            ok("-rwxr-xr-x 1 user user 20000 Nov 14  2023 big\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-t"], ""),
            ok("big\ndang\ndlink\nlink\nsub\na.txt\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["-tr"], ""),
            ok("a.txt\nsub\nlink\ndlink\ndang\nbig\n")
        );
    }

    #[test]
    fn ls_columns_match_gnu() {
        let mut files: Vec<(String, &str)> =
            (1..=25).map(|i| (format!("file_{i}.txt"), "")).collect();
        files.extend([
            ("a".to_string(), ""),
            ("bb".to_string(), ""),
            ("ccc".to_string(), ""),
        ]);
        let refs: Vec<(&str, &str)> = files.iter().map(|(n, c)| (n.as_str(), *c)).collect();
        let vfs = vfs_with(&refs);
        let out = run_in(&vfs, "ls", &["-C"], "").stdout;
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            "a\t     file_11.txt  file_16.txt  file_20.txt  file_25.txt  file_7.txt"
        );
        assert_eq!(
            lines[1],
            "bb\t     file_12.txt  file_17.txt  file_21.txt  file_3.txt\t file_8.txt"
        );
        assert_eq!(
            lines[4],
            "file_10.txt  file_15.txt  file_2.txt   file_24.txt  file_6.txt"
        );
        let out = run_in(&vfs, "ls", &["-x"], "").stdout;
        assert_eq!(
            out.lines().next(),
            Some("a\t     bb\t\t  ccc\t       file_1.txt   file_10.txt  file_11.txt")
        );
        assert_eq!(
            out.lines().nth(1),
            Some("file_12.txt  file_13.txt  file_14.txt  file_15.txt  file_16.txt  file_17.txt")
        );
        let (narrow, _, _) = crate::applets::files::testutil::run_full(
            &vfs,
            "/workspace",
            &[("COLUMNS", "40")],
            "ls",
            &["-C"],
            b"",
        );
        let narrow = String::from_utf8_lossy(&narrow).into_owned();
        assert_eq!(
            narrow.lines().take(3).collect::<Vec<_>>(),
            vec![
                "a\t     file_16.txt  file_25.txt",
                "bb\t     file_17.txt  file_3.txt",
                "ccc\t     file_18.txt  file_4.txt"
            ]
        );
    }

    #[test]
    fn ls_operands_and_recursion() {
        let vfs = setup();
        assert_eq!(
            run_in(&vfs, "ls", &["-R"], ""),
            ok(".:\na.txt\nbig\ndang\ndlink\nlink\nsub\n\n./sub:\ndeep\n\n./sub/deep:\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["sub", "a.txt"], ""),
            ok("a.txt\n\nsub:\ndeep\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["sub", "sub/deep"], ""),
            ok("sub:\ndeep\n\nsub/deep:\n")
        );
        assert_eq!(
            run_in(&vfs, "ls", &["sub", "nonexist", "a.txt"], ""),
            both(
                "a.txt\n\nsub:\ndeep\n",
                "ls: cannot access 'nonexist': No such file or directory\n",
                2
            )
        );
        assert_eq!(run_in(&vfs, "ls", &["-A", "sub"], ""), ok("deep\n"));
        assert_eq!(run_in(&vfs, "ls", &["-a", "sub"], ""), ok(".\n..\ndeep\n"));
        assert_eq!(run_in(&vfs, "ls", &["-d"], ""), ok(".\n"));
        assert_eq!(run_in(&vfs, "ls", &["/workspace/sub"], ""), ok("deep\n"));
        assert_eq!(
            run("ls", &["-Z"], ""),
            err(
                "ls: invalid option -- 'Z'\nTry 'ls --help' for more information.\n",
                2
            )
        );
        assert_eq!(run("ls", &["--time-style=bad"], "").status, 2);
        assert_eq!(run("ls", &[], ""), ok(""));
    }
}
