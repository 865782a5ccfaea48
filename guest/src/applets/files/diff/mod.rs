//! `diff [-u|-U N|-c|-C N] [-q] [-r] [-N] [-i] [-w] [-b] [-B] [-a] [-s] FILE1 FILE2`: compare files
//! line by line (GNU's algorithm, so the same hunks come out), or directories.
//! Exit status: 0 same, 1 different, 2 trouble.

mod analyze;
mod output;

use analyze::{lines, Compare, White};
use output::{Around, Style};

use crate::applets::common::{
    basename, conclude, err_str, join, out, out_str, quote, strftime, Res,
};
use crate::applets::common::{getopt, warn, Opt, OptSpec};
use crate::applets::{Applet, Ctx, Help};
use crate::task::LocalFuture;
use crate::vfs::FileKind;

/// The `diff` applet.
pub const APPLET: Applet = Applet {
    name: "diff",
    usage: "diff [OPTION]... FILE1 FILE2\nCompare files line by line (`-` is standard input); with directories, compare the files\nin them with the same names.\n  -q, --brief                   report only when files differ\n  -s, --report-identical-files  report when two files are the same\n  -u, -U NUM, --unified[=NUM]   output NUM (default 3) lines of unified context\n  -c, -C NUM, --context[=NUM]   output NUM (default 3) lines of copied context\n  -r, --recursive               recursively compare any subdirectories found\n  -N, --new-file                treat absent files as empty\n  -i, --ignore-case             ignore case differences in file contents\n  -b, --ignore-space-change     ignore changes in the amount of white space\n  -w, --ignore-all-space        ignore all white space\n  -B, --ignore-blank-lines      ignore changes where lines are all blank\n  -a, --text                    treat all files as text\n  -d, --minimal                 try hard to find a smaller set of changes\n  -x, --exclude=PAT             exclude files that match PAT\n      --label LABEL             use LABEL instead of file name and timestamp\nExit status is 0 if inputs are the same, 1 if different, 2 if trouble.",
    help: Help::Anywhere,
    run,
};

const SPEC: OptSpec = OptSpec {
    short: "ucqrNiwbBadsTtpe",
    short_val: "UCx",
    long: &[
        "brief",
        "recursive",
        "new-file",
        "ignore-case",
        "ignore-all-space",
        "ignore-space-change",
        "ignore-blank-lines",
        "text",
        "minimal",
        "report-identical-files",
        "unidirectional-new-file",
        "no-dereference",
        "speed-large-files",
        "strip-trailing-cr",
    ],
    long_val: &["unified", "context", "label", "exclude", "color"],
    digits: None,
    stop_at_operand: false,
};

struct Options {
    /// Lines of context and the format (`-u`/`-c`); `None`: the normal format.
    unified: Option<usize>,
    around: Around,
    brief: bool,
    recursive: bool,
    new_file: bool,
    text: bool,
    identical: bool,
    labels: Vec<String>,
    exclude: Vec<crate::applets::common::Glob>,
    compare: Compare,
    ignore_blank: bool,
}

/// `--unified` and `--color` take optional values the option parser cannot express.
fn normalize(args: &[String]) -> Vec<String> {
    args.iter()
        .map(|a| match a.as_str() {
            "--unified" | "--unifie" | "--unifi" | "--unif" | "--uni" | "--un" => {
                "--unified=3".to_string()
            }
            "--context" | "--contex" | "--conte" | "--cont" | "--con" => "--context=3".to_string(),
            "--color" => "--color=auto".to_string(),
            _ => a.clone(),
        })
        .collect()
}

/// The option words as given, shell-quoted where needed, for `diff -r A/f B/f` lines.
fn switches(args: &[String]) -> String {
    let mut words = Vec::new();
    let mut take_next = false;
    for arg in args {
        if take_next {
            words.push(arg.clone());
            take_next = false;
            continue;
        }
        if arg == "--" {
            break;
        }
        if arg.starts_with('-') && arg.len() > 1 {
            take_next = matches!(arg.as_str(), "-U" | "-C" | "-x" | "--label" | "--exclude")
                || (arg.starts_with('-')
                    && !arg.starts_with("--")
                    && (arg.ends_with('U') || arg.ends_with('C') || arg.ends_with('x')));
            words.push(if arg.contains('=') {
                format!("'{arg}'")
            } else {
                arg.clone()
            });
        }
    }
    words.join(" ")
}

/// GNU diff prefixes its hint with `diff: `.
async fn trouble(ctx: &mut Ctx, message: impl std::fmt::Display) -> i32 {
    warn(ctx, message).await;
    err_str(ctx, "diff: Try 'diff --help' for more information.\n").await;
    2
}

fn options(opts: &[Opt]) -> Result<Options, String> {
    let mut compare = Compare {
        ignore_case: false,
        white: White::Exact,
        minimal: false,
        horizon: 0,
    };
    let mut o = Options {
        unified: None,
        around: Around::Unified,
        brief: false,
        recursive: false,
        new_file: false,
        text: false,
        identical: false,
        labels: Vec::new(),
        exclude: Vec::new(),
        compare,
        ignore_blank: false,
    };
    for opt in opts {
        match opt {
            _ if opt.is('u', "\0") || opt.is('c', "\0") => {
                o.unified = Some(3);
                o.around = if opt.is('c', "\0") {
                    Around::Context
                } else {
                    Around::Unified
                };
            }
            _ if opt.is('U', "unified") || opt.is('C', "context") => {
                let n = opt
                    .value()
                    .parse::<usize>()
                    .map_err(|_| format!("invalid context length {}", quote(opt.value())))?;
                o.unified = Some(n);
                o.around = if opt.is('C', "context") {
                    Around::Context
                } else {
                    Around::Unified
                };
            }
            _ if opt.is('q', "brief") => o.brief = true,
            _ if opt.is('r', "recursive") => o.recursive = true,
            _ if opt.is('N', "new-file") || opt.is('\0', "unidirectional-new-file") => {
                o.new_file = true
            }
            _ if opt.is('i', "ignore-case") => compare.ignore_case = true,
            _ if opt.is('w', "ignore-all-space") => compare.white = White::All,
            _ if opt.is('b', "ignore-space-change") && compare.white != White::All => {
                compare.white = White::Change
            }
            _ if opt.is('B', "ignore-blank-lines") => o.ignore_blank = true,
            _ if opt.is('a', "text") => o.text = true,
            _ if opt.is('d', "minimal") => compare.minimal = true,
            _ if opt.is('s', "report-identical-files") => o.identical = true,
            _ if opt.is('\0', "label") => o.labels.push(opt.value().to_string()),
            _ if opt.is('x', "exclude") => o
                .exclude
                .push(crate::applets::common::Glob::new(opt.value(), false)),
            _ => {}
        }
    }
    compare.horizon = o.unified.unwrap_or(0);
    o.compare = compare;
    Ok(o)
}

fn run(mut ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        ctx.args = normalize(&ctx.args);
        let (opts, operands) = match getopt(&ctx.args, &SPEC) {
            Ok(parsed) => parsed,
            Err(message) => return trouble(&mut ctx, message).await,
        };
        let o = match options(&opts) {
            Ok(o) => o,
            Err(message) => return trouble(&mut ctx, message).await,
        };
        let (a, b) = match operands.as_slice() {
            [a, b] => (a.clone(), b.clone()),
            [] => return trouble(&mut ctx, "missing operand after 'diff'").await,
            [a] => {
                return trouble(&mut ctx, format_args!("missing operand after {}", quote(a))).await
            }
            [_, _, extra, ..] => {
                return trouble(&mut ctx, format_args!("extra operand {}", quote(extra))).await
            }
        };
        let mut run = Run {
            switches: switches(&ctx.args),
            o,
            status: 0,
        };
        let result = run.top(&mut ctx, &a, &b).await;
        let status = run.status;
        conclude(&mut ctx, result.map(|()| status)).await
    })
}

/// One side of a comparison: a path and what is there.
struct Side {
    path: String,
    kind: Option<FileKind>,
}

/// A pair of directories being compared: the names left to look at (last first) and which
/// side has each.
struct Frame {
    d0: String,
    d1: String,
    todo: Vec<String>,
    n0: Vec<String>,
    n1: Vec<String>,
}

impl Frame {
    fn open(ctx: &Ctx, d0: &str, d1: &str) -> Frame {
        let list = |path: &str| -> Vec<String> {
            let entries = ctx.vfs.borrow().read_dir(&ctx.cwd, path);
            entries
                .map(|e| e.into_iter().map(|(n, _)| n).collect())
                .unwrap_or_default()
        };
        let (n0, n1) = (list(d0), list(d1));
        let mut todo: Vec<String> = n0.iter().chain(n1.iter()).cloned().collect();
        crate::sort::sort_by(&mut todo, |x, y| y.as_bytes().cmp(x.as_bytes()));
        todo.dedup();
        Frame {
            d0: d0.to_string(),
            d1: d1.to_string(),
            todo,
            n0,
            n1,
        }
    }
}

struct Run {
    switches: String,
    o: Options,
    status: i32,
}

fn kind_of(ctx: &Ctx, path: &str) -> Option<FileKind> {
    if path == "-" {
        return Some(FileKind::File);
    }
    ctx.vfs.borrow().stat(&ctx.cwd, path).ok().map(|s| s.kind)
}

fn type_words(kind: FileKind, empty: bool) -> &'static str {
    match kind {
        FileKind::Dir => "directory",
        FileKind::Symlink => "symbolic link",
        FileKind::CharDevice => "character special file",
        FileKind::File if empty => "regular empty file",
        FileKind::File => "regular file",
    }
}

impl Run {
    async fn top(&mut self, ctx: &mut Ctx, a: &str, b: &str) -> Res {
        let mut sides = [
            Side {
                path: a.to_string(),
                kind: kind_of(ctx, a),
            },
            Side {
                path: b.to_string(),
                kind: kind_of(ctx, b),
            },
        ];
        for side in &sides {
            if side.kind.is_none() && !(self.o.new_file && sides.iter().any(|s| s.kind.is_some())) {
                let message = format!("{}: No such file or directory", side.path);
                warn(ctx, message).await;
                self.status = 2;
            }
        }
        if self.status == 2 {
            return Ok(());
        }
        let dirs = (
            sides[0].kind == Some(FileKind::Dir),
            sides[1].kind == Some(FileKind::Dir),
        );
        match dirs {
            (true, true) => self.dirs(ctx, a, b).await,
            (true, false) | (false, true) => {
                let (dir, file) = if dirs.0 { (0, 1) } else { (1, 0) };
                if sides[file].path == "-" {
                    warn(ctx, "cannot compare '-' to a directory").await;
                    self.status = 2;
                    return Ok(());
                }
                let inside = join(&sides[dir].path, basename(&sides[file].path));
                sides[dir] = Side {
                    kind: kind_of(ctx, &inside),
                    path: inside,
                };
                if sides[dir].kind.is_none() {
                    warn(
                        ctx,
                        format_args!("{}: No such file or directory", sides[dir].path),
                    )
                    .await;
                    self.status = 2;
                    return Ok(());
                }
                self.files(ctx, &sides[0], &sides[1], false).await
            }
            (false, false) => self.files(ctx, &sides[0], &sides[1], false).await,
        }
    }

    /// Compares two directories entry by entry, in name order, descending into common
    /// subdirectories where they come (an explicit stack: trees may be deep).
    async fn dirs(&mut self, ctx: &mut Ctx, a: &str, b: &str) -> Res {
        let mut stack = vec![Frame::open(ctx, a, b)];
        while let Some(frame) = stack.last_mut() {
            let Some(name) = frame.todo.pop() else {
                stack.pop();
                continue;
            };
            if self.o.exclude.iter().any(|g| g.matches(&name)) {
                continue;
            }
            let (d0, d1) = (frame.d0.clone(), frame.d1.clone());
            let (p0, p1) = (join(&d0, &name), join(&d1, &name));
            let s0 = Side {
                kind: frame
                    .n0
                    .contains(&name)
                    .then(|| kind_of(ctx, &p0))
                    .flatten(),
                path: p0,
            };
            let s1 = Side {
                kind: frame
                    .n1
                    .contains(&name)
                    .then(|| kind_of(ctx, &p1))
                    .flatten(),
                path: p1,
            };
            if let Some((sub0, sub1)) = self.entry(ctx, &d0, &d1, &name, s0, s1).await? {
                stack.push(Frame::open(ctx, &sub0, &sub1));
            }
        }
        Ok(())
    }

    /// Handles one name found in either directory; returns a pair of directories to descend.
    async fn entry(
        &mut self,
        ctx: &mut Ctx,
        d0: &str,
        d1: &str,
        name: &str,
        s0: Side,
        s1: Side,
    ) -> Res<Option<(String, String)>> {
        let is_dir = |s: &Side| s.kind == Some(FileKind::Dir);
        match (&s0.kind, &s1.kind) {
            (Some(_), Some(_)) if is_dir(&s0) && is_dir(&s1) => {
                if self.o.recursive {
                    return Ok(Some((s0.path, s1.path)));
                }
                out_str(
                    ctx,
                    &format!("Common subdirectories: {} and {}\n", s0.path, s1.path),
                )
                .await?;
            }
            (Some(k0), Some(k1)) if is_dir(&s0) || is_dir(&s1) => {
                let (e0, e1) = (self.is_empty(ctx, &s0.path), self.is_empty(ctx, &s1.path));
                let line = format!(
                    "File {} is a {} while file {} is a {}\n",
                    s0.path,
                    type_words(*k0, e0),
                    s1.path,
                    type_words(*k1, e1)
                );
                out_str(ctx, &line).await?;
                self.status = self.status.max(1);
            }
            (Some(_), Some(_)) => self.files(ctx, &s0, &s1, true).await?,
            (Some(_), None) | (None, Some(_)) if self.o.new_file => {
                if is_dir(&s0) || is_dir(&s1) {
                    if self.o.recursive {
                        return Ok(Some((s0.path, s1.path)));
                    }
                    let dir = if s0.kind.is_some() { d0 } else { d1 };
                    out_str(ctx, &format!("Only in {dir}: {name}\n")).await?;
                    self.status = self.status.max(1);
                } else {
                    self.files(ctx, &s0, &s1, true).await?;
                }
            }
            (Some(_), None) => {
                out_str(ctx, &format!("Only in {d0}: {name}\n")).await?;
                self.status = self.status.max(1);
            }
            (None, Some(_)) => {
                out_str(ctx, &format!("Only in {d1}: {name}\n")).await?;
                self.status = self.status.max(1);
            }
            (None, None) => {}
        }
        Ok(None)
    }

    fn is_empty(&self, ctx: &Ctx, path: &str) -> bool {
        ctx.vfs
            .borrow()
            .stat(&ctx.cwd, path)
            .is_ok_and(|s| s.size == 0)
    }

    /// The bytes of one side (empty when absent) and its time for headers.
    async fn load(&self, ctx: &mut Ctx, side: &Side) -> (std::rc::Rc<Vec<u8>>, f64) {
        if side.path == "-" && side.kind.is_some() {
            let mut input = std::mem::replace(&mut ctx.stdin, crate::task::Input::empty());
            return (std::rc::Rc::new(input.read_all().await), ctx.host.now_ms());
        }
        if side.kind.is_none() {
            return (std::rc::Rc::default(), 0.0);
        }
        let vfs = ctx.vfs.borrow();
        let data = vfs.read_shared(&ctx.cwd, &side.path).unwrap_or_default();
        let mtime = vfs.stat(&ctx.cwd, &side.path).map_or(0.0, |s| s.mtime_ms);
        (data, mtime)
    }

    async fn files(&mut self, ctx: &mut Ctx, s0: &Side, s1: &Side, in_dir: bool) -> Res {
        // One file on both sides (`diff - -` too: stdin is read once) is identical to itself.
        if s0.path == s1.path && s0.kind.is_some() {
            return self.identical(ctx, s0, s1).await;
        }
        let (d0, t0) = self.load(ctx, s0).await;
        let (d1, t1) = self.load(ctx, s1).await;
        let binary = !self.o.text && (d0.contains(&0) || d1.contains(&0));
        let plain = !self.o.ignore_blank
            && !self.o.compare.ignore_case
            && self.o.compare.white == White::Exact;
        if binary || (self.o.brief && plain) {
            if d0 == d1 {
                return self.identical(ctx, s0, s1).await;
            }
            let what = if binary && !self.o.brief {
                "Binary files"
            } else {
                "Files"
            };
            out_str(ctx, &format!("{what} {} and {} differ\n", s0.path, s1.path)).await?;
            self.status = self.status.max(1);
            return Ok(());
        }
        let (a, b) = (lines(&d0), lines(&d1));
        let script = analyze::diff(&a, &b, &self.o.compare);
        let style = Style {
            ignore_blank: self.o.ignore_blank,
            skip_white: self.o.compare.white != White::Exact,
        };
        if !output::has_changes(&script, &a, &b, &style) {
            return self.identical(ctx, s0, s1).await;
        }
        self.status = self.status.max(1);
        if self.o.brief {
            return out_str(ctx, &format!("Files {} and {} differ\n", s0.path, s1.path)).await;
        }
        if in_dir {
            let switches = if self.switches.is_empty() {
                String::new()
            } else {
                format!(" {}", self.switches)
            };
            out_str(ctx, &format!("diff{switches} {} {}\n", s0.path, s1.path)).await?;
        }
        let body = match self.o.unified {
            Some(context) => {
                let marks = match self.o.around {
                    Around::Unified => ("---", "+++"),
                    Around::Context => ("***", "---"),
                };
                let header = format!(
                    "{} {}\n{} {}\n",
                    marks.0,
                    self.label(0, s0, t0),
                    marks.1,
                    self.label(1, s1, t1)
                );
                out_str(ctx, &header).await?;
                output::with_context(&script, &a, &b, &style, context, self.o.around)
            }
            None => output::normal(&script, &a, &b, &style),
        };
        out(ctx, &body).await
    }

    async fn identical(&mut self, ctx: &mut Ctx, s0: &Side, s1: &Side) -> Res {
        if self.o.identical {
            out_str(
                ctx,
                &format!("Files {} and {} are identical\n", s0.path, s1.path),
            )
            .await?;
        }
        Ok(())
    }

    /// `name<TAB>2023-11-14 22:13:20.000000000 +0000`, or the `--label` given.
    fn label(&self, which: usize, side: &Side, mtime_ms: f64) -> String {
        if let Some(label) = self.o.labels.get(which) {
            return label.clone();
        }
        let secs = (mtime_ms / 1000.0).floor();
        let nanos = ((mtime_ms - secs * 1000.0) * 1e6).round() as u32;
        format!(
            "{}\t{}",
            side.path,
            strftime("%Y-%m-%d %H:%M:%S.%N %z", secs as i64, nanos)
        )
    }
}

#[cfg(test)]
mod tests;
