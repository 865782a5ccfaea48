//! Evaluating the expression on one entry: tests, actions (print, printf, ls, delete, exec),
//! and the `{} +` batches.

use super::parse::{Action, Command, Expr, Perm, Piece, Test};
use crate::applets::common::warn;
use crate::applets::common::{
    blocks_kib, dirname, err_str, mode_string, out_str, quote, recent, run_child_in, strftime,
    Exit, Res,
};
use crate::applets::Ctx;
use crate::task::{Input, LocalFuture, WriteError};
use crate::vfs::{resolve, FileKind, Stat};

/// One file found: how it prints, its name for `-name`, its depth and metadata.
pub struct Entry {
    /// The path as printed (`./a/b`).
    pub path: String,
    /// The last component, what `-name` matches.
    pub name: String,
    /// Levels below the starting point.
    pub depth: usize,
    /// Metadata (of the link itself unless following links).
    pub stat: Stat,
    /// The starting point it was found under.
    pub root: String,
}

/// Most bytes of paths one `{} +` command gets before it runs and a new batch starts.
const BATCH_BYTES: usize = 128 * 1024;

/// The state of one run of `find`.
pub struct Walker<'a> {
    /// The applet's context.
    pub ctx: &'a mut Ctx,
    /// The parsed command line.
    pub cmd: &'a Command,
    /// The exit status so far.
    pub status: i32,
    /// `-quit` was evaluated.
    pub quit: bool,
    /// `-prune` was evaluated on the current entry.
    pub prune: bool,
    /// Paths collected by each `{} +` (and for `-execdir +`, the directory they are in).
    batches: Vec<(Option<String>, Vec<String>)>,
    /// Now, in seconds (for `-mtime` and the `-ls` date).
    now: f64,
}

impl<'a> Walker<'a> {
    /// A walker for `cmd`.
    pub fn new(ctx: &'a mut Ctx, cmd: &'a Command) -> Self {
        let now = ctx.host.now_ms() / 1000.0;
        Walker {
            ctx,
            cmd,
            status: 0,
            quit: false,
            prune: false,
            batches: vec![(None, Vec::new()); cmd.batches],
            now,
        }
    }

    /// Evaluates the whole expression on `entry`.
    pub async fn visit(&mut self, entry: &Entry) -> Res {
        self.prune = false;
        let expr = &self.cmd.expr;
        self.eval(expr, entry).await.map(drop)
    }

    fn eval<'b>(&'b mut self, expr: &'b Expr, entry: &'b Entry) -> LocalFuture<'b, Res<bool>> {
        Box::pin(async move {
            Ok(match expr {
                Expr::And(a, b) => {
                    self.eval(a, entry).await? && !self.quit && self.eval(b, entry).await?
                }
                Expr::Or(a, b) => {
                    self.eval(a, entry).await? || !self.quit && self.eval(b, entry).await?
                }
                Expr::Comma(a, b) => {
                    self.eval(a, entry).await?;
                    !self.quit && self.eval(b, entry).await?
                }
                Expr::Not(a) => !self.eval(a, entry).await?,
                Expr::Test(test) => self.test(test, entry),
                Expr::Action(action) => self.act(action, entry).await?,
            })
        })
    }

    fn test(&self, test: &Test, e: &Entry) -> bool {
        let s = &e.stat;
        match test {
            Test::Const(value) => *value,
            Test::Name(glob) => glob.matches(&e.name),
            Test::Path(glob) => glob.matches(&e.path),
            Test::Regex(re) => re.is_match(e.path.as_bytes()),
            Test::Type(kinds) => kinds.contains(&type_char(s.kind)),
            Test::XType(kinds) => {
                let kind = self.followed(e).map_or(s.kind, |t| t.kind);
                kinds.contains(&type_char(kind))
            }
            Test::Size(cmp, unit) => cmp.holds(s.size.div_ceil(*unit) as i64),
            Test::Age(cmp, unit) => {
                let age = ((self.now - s.mtime_ms / 1000.0) / unit).floor();
                cmp.holds(age as i64)
            }
            Test::Newer(ms) => s.mtime_ms > *ms,
            Test::Empty => match s.kind {
                FileKind::File => s.size == 0,
                FileKind::Dir => self
                    .ctx
                    .vfs
                    .borrow()
                    .read_dir(&self.ctx.cwd, &e.path)
                    .is_ok_and(|d| d.is_empty()),
                _ => false,
            },
            Test::Perm(Perm::Exact(bits)) => s.mode & 0o7777 == *bits,
            Test::Perm(Perm::All(bits)) => s.mode & bits == *bits,
            Test::Perm(Perm::Any(bits)) => *bits == 0 || s.mode & bits != 0,
            Test::Owner(matches) => *matches,
            Test::Links(cmp) => cmp.holds(s.nlink as i64),
            Test::Inum(cmp) => cmp.holds(s.ino as i64),
            Test::SameFile(ino) => s.ino == *ino,
            Test::Access(bits) => s.mode & bits & 0o700 != 0,
        }
    }

    fn followed(&self, e: &Entry) -> Option<Stat> {
        self.ctx.vfs.borrow().stat(&self.ctx.cwd, &e.path).ok()
    }

    async fn act(&mut self, action: &Action, e: &Entry) -> Res<bool> {
        match action {
            Action::Print => out_str(self.ctx, &format!("{}\n", e.path)).await?,
            Action::Print0 => out_str(self.ctx, &format!("{}\0", e.path)).await?,
            Action::Printf(pieces) => {
                let text = self.printf(pieces, e);
                out_str(self.ctx, &text).await?;
            }
            Action::Ls => {
                let text = self.ls_line(e);
                out_str(self.ctx, &text).await?;
            }
            Action::Delete => return Ok(self.delete(e).await),
            Action::Prune => self.prune = true,
            Action::Quit => self.quit = true,
            Action::Exec {
                argv,
                batch: Some(i),
                in_dir,
                ..
            } => self.collect(*i, argv, e, *in_dir).await?,
            Action::Exec {
                argv,
                batch: None,
                in_dir,
                ask,
            } => return self.exec_one(argv, e, *in_dir, *ask).await,
        }
        Ok(true)
    }

    async fn delete(&mut self, e: &Entry) -> bool {
        if e.name == "." || e.name == ".." {
            return true;
        }
        let removed = {
            let mut vfs = self.ctx.vfs.borrow_mut();
            if e.stat.kind == FileKind::Dir {
                vfs.remove_dir(&self.ctx.cwd, &e.path)
            } else {
                vfs.remove_file(&self.ctx.cwd, &e.path)
            }
        };
        match removed {
            Ok(()) => true,
            Err(err) => {
                warn(
                    self.ctx,
                    format_args!("cannot delete {}: {}", quote(&e.path), err.code),
                )
                .await;
                self.status = 1;
                false
            }
        }
    }

    /// Where a command for `e` runs and what `{}` stands for.
    fn placement(&self, e: &Entry, in_dir: bool) -> (String, String) {
        if !in_dir {
            return (self.ctx.cwd.clone(), e.path.clone());
        }
        let dir = resolve(&self.ctx.cwd, dirname(&e.path));
        let name = if e.depth == 0 && e.path.starts_with('/') {
            e.path.clone()
        } else {
            format!("./{}", e.name)
        };
        (dir, name)
    }

    async fn exec_one(&mut self, argv: &[String], e: &Entry, in_dir: bool, ask: bool) -> Res<bool> {
        let (cwd, name) = self.placement(e, in_dir);
        let words: Vec<String> = argv.iter().map(|w| w.replace("{}", &name)).collect();
        if ask {
            let prompt = format!("< {} ... {} > ? ", words[0], name);
            err_str(self.ctx, &prompt).await;
            let answer = self.ctx.stdin.read_line().await.unwrap_or_default();
            if !matches!(answer.first(), Some(b'y' | b'Y')) {
                return Ok(false);
            }
        }
        let status = self.spawn(&cwd, words).await?;
        Ok(status == 0)
    }

    async fn collect(&mut self, i: usize, argv: &[String], e: &Entry, in_dir: bool) -> Res {
        let (dir, name) = self.placement(e, in_dir);
        let dir = in_dir.then_some(dir);
        let full = self.batches.get(i).is_some_and(|(d, paths)| {
            *d != dir && !paths.is_empty()
                || paths.iter().map(|p| p.len() + 1).sum::<usize>() > BATCH_BYTES
        });
        if full {
            self.flush(i, argv).await?;
        }
        if let Some((d, paths)) = self.batches.get_mut(i) {
            *d = dir;
            paths.push(name);
        }
        Ok(())
    }

    /// Runs the command of batch `i` on what it collected.
    pub async fn flush(&mut self, i: usize, argv: &[String]) -> Res {
        let Some((dir, paths)) = self
            .batches
            .get_mut(i)
            .map(|(d, p)| (d.clone(), std::mem::take(p)))
        else {
            return Ok(());
        };
        if paths.is_empty() {
            return Ok(());
        }
        let cwd = dir.unwrap_or_else(|| self.ctx.cwd.clone());
        let mut words = argv.to_vec();
        words.extend(paths);
        if self.spawn(&cwd, words).await? != 0 {
            self.status = 1;
        }
        Ok(())
    }

    /// Runs every `{} +` batch still holding paths (at the end, or at `-quit`).
    pub async fn flush_all(&mut self) -> Res {
        let mut execs = Vec::new();
        collect_batches(&self.cmd.expr, &mut execs);
        for (i, argv) in execs {
            self.flush(i, &argv).await?;
        }
        Ok(())
    }

    async fn spawn(&mut self, cwd: &str, words: Vec<String>) -> Res<i32> {
        match run_child_in(self.ctx, cwd, words, Input::empty()).await {
            Ok(127) => {
                self.status = 1;
                Ok(127)
            }
            Ok(status) => Ok(status),
            Err(WriteError::BrokenPipe) => Err(Exit(141)),
            Err(WriteError::Refused(message)) => {
                warn(self.ctx, format_args!("write error: {message}")).await;
                Err(Exit(1))
            }
        }
    }

    fn ls_line(&self, e: &Entry) -> String {
        let s = &e.stat;
        let recent = recent(s.mtime_ms / 1000.0, self.now);
        let format = if recent { "%b %e %H:%M" } else { "%b %e  %Y" };
        let date = strftime(format, (s.mtime_ms / 1000.0).floor() as i64, 0);
        let mut line = format!(
            "{:>9} {:>6} {} {:>3} {:<8} {:<8} {:>8} {date} {}",
            s.ino,
            blocks_kib(s),
            mode_string(s.kind, s.mode),
            s.nlink,
            "user",
            "user",
            s.size,
            e.path
        );
        if s.kind == FileKind::Symlink {
            let target = self
                .ctx
                .vfs
                .borrow()
                .read_link(&self.ctx.cwd, &e.path)
                .unwrap_or_default();
            line.push_str(" -> ");
            line.push_str(&target);
        }
        line.push('\n');
        line
    }

    fn printf(&self, pieces: &[Piece], e: &Entry) -> String {
        let mut text = String::new();
        for piece in pieces {
            match piece {
                Piece::Text(t) => text.push_str(t),
                Piece::Directive { spec, letter, time } => {
                    let (value, numeric) = self.directive(*letter, *time, e);
                    text.push_str(&pad(&value, spec, numeric));
                }
            }
        }
        text
    }

    /// One `-printf` directive's text, and whether it is a number (for `0` padding).
    fn directive(&self, letter: char, time: Option<char>, e: &Entry) -> (String, bool) {
        let s = &e.stat;
        let text = |t: String| (t, false);
        let num = |n: u64| (n.to_string(), true);
        match letter {
            'p' => text(e.path.clone()),
            'f' => text(e.name.clone()),
            'h' => text(match e.path.rfind('/') {
                Some(0) => "/".to_string(),
                Some(at) => e.path[..at].to_string(),
                None => ".".to_string(),
            }),
            'P' => text(relative_to_root(&e.path, &e.root)),
            'H' => text(e.root.clone()),
            's' => num(s.size),
            'd' => num(e.depth as u64),
            'm' => (format!("{:o}", s.mode & 0o7777), true),
            'M' => text(mode_string(s.kind, s.mode)),
            'y' => text(type_char(s.kind).to_string()),
            'Y' => text(match s.kind {
                FileKind::Symlink => self
                    .followed(e)
                    .map_or('N', |t| type_char(t.kind))
                    .to_string(),
                kind => type_char(kind).to_string(),
            }),
            'l' => text(
                self.ctx
                    .vfs
                    .borrow()
                    .read_link(&self.ctx.cwd, &e.path)
                    .unwrap_or_default(),
            ),
            'i' => num(s.ino),
            'k' => num(blocks_kib(s)),
            'b' => num(blocks_kib(s) * 2),
            'n' => num(s.nlink),
            'u' | 'g' => text("user".to_string()),
            'U' | 'G' => num(1000),
            'D' => num(30),
            'F' => text("tmpfs".to_string()),
            'S' => text("1".to_string()),
            'a' | 'c' | 't' => text(time_field(s.mtime_ms, Some('\0'))),
            'A' | 'C' | 'T' => text(time_field(s.mtime_ms, time)),
            _ => text(String::new()),
        }
    }
}

fn collect_batches(expr: &Expr, out: &mut Vec<(usize, Vec<String>)>) {
    match expr {
        Expr::And(a, b) | Expr::Or(a, b) | Expr::Comma(a, b) => {
            collect_batches(a, out);
            collect_batches(b, out);
        }
        Expr::Not(a) => collect_batches(a, out),
        Expr::Action(Action::Exec {
            argv,
            batch: Some(i),
            ..
        }) => out.push((*i, argv.clone())),
        _ => {}
    }
}

/// `%P`: the path below the starting point.
fn relative_to_root(path: &str, root: &str) -> String {
    if path == root {
        return String::new();
    }
    path.strip_prefix(root)
        .map(|rest| rest.trim_start_matches('/').to_string())
        .unwrap_or_else(|| path.to_string())
}

/// `%t` (letter `\0`) and `%Tk`: the mtime in ctime form or as strftime field `k`.
fn time_field(mtime_ms: f64, letter: Option<char>) -> String {
    let secs = (mtime_ms / 1000.0).floor();
    let nanos = ((mtime_ms - secs * 1000.0) * 1e6).round() as u64;
    let frac = format!("{:010}", nanos * 10);
    let secs_i = secs as i64;
    match letter {
        Some('\0') => format!(
            "{}.{frac} {}",
            strftime("%a %b %e %H:%M:%S", secs_i, 0),
            strftime("%Y", secs_i, 0)
        ),
        Some('@') => format!("{secs_i}.{frac}"),
        Some('S') => format!("{}.{frac}", strftime("%S", secs_i, 0)),
        Some('T') => format!("{}.{frac}", strftime("%H:%M:%S", secs_i, 0)),
        Some('+') => format!("{}.{frac}", strftime("%Y-%m-%d+%H:%M:%S", secs_i, 0)),
        Some(c) => strftime(&format!("%{c}"), secs_i, 0),
        None => String::new(),
    }
}

fn type_char(kind: FileKind) -> char {
    match kind {
        FileKind::File => 'f',
        FileKind::Dir => 'd',
        FileKind::Symlink => 'l',
        FileKind::CharDevice => 'c',
    }
}

/// Applies `-printf` flags and width: `%-10p`, `%5s`, `%05s`.
fn pad(value: &str, spec: &str, numeric: bool) -> String {
    let left = spec.contains('-');
    let zero = numeric
        && spec
            .trim_start_matches(['-', '+', ' ', '#'])
            .starts_with('0');
    let width: usize = spec
        .trim_start_matches(['-', '+', ' ', '#', '0'])
        .split('.')
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or(0);
    let len = value.chars().count();
    if len >= width {
        return value.to_string();
    }
    let fill = width - len;
    match (left, zero) {
        (true, _) => format!("{value}{}", " ".repeat(fill)),
        (false, true) => format!("{}{value}", "0".repeat(fill)),
        (false, false) => format!("{}{value}", " ".repeat(fill)),
    }
}
