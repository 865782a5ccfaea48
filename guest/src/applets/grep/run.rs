//! The grep applet: options, patterns, walking operands (recursively through the VFS), and
//! feeding each input to the scanner, streaming standard input chunk by chunk.

use std::rc::Rc;

use super::bytes::{glob_match, memrchr};
use super::matcher::{build, MatchSpec, Matcher};
use super::options::{parse, ArgError, BinaryFiles, ListFiles, Options, PatternSource};
use super::scan::{Config, Scan, Searcher, FLUSH_AT};
use crate::applets::common::open_input;
use crate::applets::Ctx;
use crate::task::{LocalFuture, WriteError};
use crate::vfs::{Errno, FileKind};

/// `grep --help`.
pub const USAGE: &str = "Usage: grep [OPTION]... PATTERNS [FILE]...
Search for PATTERNS in each FILE (or standard input; with -r, the working directory).
Patterns:
  -E, --extended-regexp     PATTERNS are extended regular expressions
  -F, --fixed-strings       PATTERNS are strings
  -G, --basic-regexp        PATTERNS are basic regular expressions (default)
  -P, --perl-regexp         PATTERNS use the Rust regex syntax (no look-around)
  -e, --regexp=PATTERNS     use PATTERNS for matching (repeatable)
  -f, --file=FILE           take PATTERNS from FILE
  -i, --ignore-case         ignore case distinctions
  -w, --word-regexp         match only whole words
  -x, --line-regexp         match only whole lines
  -z, --null-data           lines end with NUL, not newline
Selection and output:
  -v, --invert-match        select non-matching lines
  -m, --max-count=NUM       stop after NUM selected lines
  -c, --count               print only a count of selected lines per FILE
  -l, --files-with-matches  print only names of FILEs with selected lines
  -L, --files-without-match print only names of FILEs with no selected lines
  -o, --only-matching       show only the matching parts of lines
  -q, --quiet, --silent     print nothing; exit 0 on the first match
  -s, --no-messages         suppress messages about unreadable files
  -n, --line-number         print line numbers
  -b, --byte-offset         print byte offsets
  -H, --with-filename       print file names
  -h, --no-filename         do not print file names
  -Z, --null                print NUL after file names
      --label=LABEL         name for standard input
  -A, -B, -C NUM, -NUM      lines of trailing, leading, both context
      --group-separator=SEP, --no-group-separator
  -r, --recursive           search directories; -R also follows symlinks
      --include=GLOB, --exclude=GLOB, --exclude-dir=GLOB
  -a, --text                search binary files as text; -I skips them
      --binary-files=TYPE   binary, text or without-match
      --color=WHEN          accepted; output is never colored
Exit status: 0 if a line is selected, 1 if none, 2 on error (0 with -q when a line is selected).
Back-references (\\1) are not supported.
";

/// Runs grep (or egrep / fgrep) with `ctx`.
pub fn run(ctx: Ctx) -> LocalFuture<'static, i32> {
    Box::pin(async move {
        let mut ctx = ctx;
        main(&mut ctx).await
    })
}

async fn say(ctx: &mut Ctx, message: &str) {
    let line = format!("grep: {message}\n");
    let _ = ctx.stderr.write_str(&line).await;
}

async fn arg_error(ctx: &mut Ctx, e: ArgError) -> i32 {
    if !e.message.is_empty() {
        say(ctx, &e.message).await;
    }
    if e.usage {
        let _ = ctx
            .stderr
            .write_str("Usage: grep [OPTION]... PATTERNS [FILE]...\nTry 'grep --help' for more information.\n")
            .await;
    }
    2
}

async fn main(ctx: &mut Ctx) -> i32 {
    let opts = match parse(&ctx.name, &ctx.args) {
        Ok(opts) => opts,
        Err(e) => return arg_error(ctx, e).await,
    };
    if opts.help || opts.version {
        let text = if opts.help {
            USAGE
        } else {
            "grep (GNU grep compatible) 3.8\n"
        };
        let _ = ctx.stdout.write_str(text).await;
        return i32::from(ctx.stdout.flush().await.is_err());
    }
    let eol = if opts.null_data { 0 } else { b'\n' };
    let matcher = match matcher(ctx, &opts, eol).await {
        Ok(matcher) => matcher,
        Err(message) => {
            say(ctx, &message).await;
            return 2;
        }
    };
    for warning in &matcher.warnings {
        say(ctx, &format!("warning: {warning}")).await;
    }
    // `-m 0` reads nothing and fails, but GNU still lists every file under `-L`.
    if opts.max_count == Some(0) && opts.list != Some(ListFiles::NonMatching) {
        return 1;
    }
    search(ctx, &opts, &matcher, eol).await
}

/// The patterns of `-e`, `-f` and the first operand, compiled.
async fn matcher(ctx: &mut Ctx, opts: &Options, eol: u8) -> Result<Matcher, String> {
    let patterns = read_patterns(ctx, opts).await?;
    let spec = MatchSpec {
        syntax: opts.syntax,
        ignore_case: opts.ignore_case,
        word: opts.word,
        line: opts.line,
        eol,
    };
    build(&patterns, spec)
}

/// Searches every operand; the exit status.
async fn search(ctx: &mut Ctx, opts: &Options, matcher: &Matcher, eol: u8) -> i32 {
    let files = operands(opts);
    let sole_is_file = files.len() == 1 && !(opts.recursive && is_dir(ctx, &files[0]));
    let named = opts.with_filename.unwrap_or(!sole_is_file);
    let config = config(opts, eol, named);
    let mut grep = Grep {
        opts,
        searcher: Searcher {
            matcher,
            config: &config,
            printed_any: false,
        },
        out: Vec::new(),
        selected: false,
        error: false,
        quit: false,
    };
    let implicit = opts.files.is_empty();
    for file in &files {
        if grep.quit {
            break;
        }
        if let Err(status) = grep.operand(ctx, file, implicit).await {
            return status;
        }
    }
    if let Err(status) = grep.flush(ctx).await {
        return status;
    }
    if ctx.stdout.flush().await.is_err() {
        return 141;
    }
    if grep.error && !(opts.quiet && grep.selected) {
        2
    } else {
        i32::from(!grep.selected)
    }
}

/// The operands, or `.` with `-r` and `-` without when there are none.
fn operands(opts: &Options) -> Vec<String> {
    if !opts.files.is_empty() {
        return opts.files.clone();
    }
    vec![if opts.recursive { "." } else { "-" }.to_string()]
}

fn is_dir(ctx: &Ctx, path: &str) -> bool {
    path != "-"
        && ctx
            .vfs
            .borrow()
            .stat(&ctx.cwd, path)
            .is_ok_and(|s| s.kind == FileKind::Dir)
}

fn config(opts: &Options, eol: u8, named: bool) -> Config {
    let context = opts.before.is_some() || opts.after.is_some();
    let listing = opts.list.is_some() || opts.quiet;
    Config {
        invert: opts.invert,
        silent_lines: opts.count || listing,
        first_only: listing,
        only: opts.only,
        line_number: opts.line_number,
        byte_offset: opts.byte_offset,
        with_filename: named,
        null_after_name: opts.null_after_name,
        max_count: opts.max_count,
        before: opts.before.unwrap_or(0),
        after: opts.after.unwrap_or(0),
        separator: if context {
            opts.separator.as_ref().map(|s| s.as_bytes().to_vec())
        } else {
            None
        },
        binary: opts.binary,
        eol,
    }
}

/// Every pattern, one per line of each `-e` value and `-f` file.
async fn read_patterns(ctx: &mut Ctx, opts: &Options) -> Result<Vec<String>, String> {
    let mut patterns = Vec::new();
    for source in &opts.patterns {
        match source {
            PatternSource::Text(text) => patterns.extend(text.split('\n').map(str::to_string)),
            PatternSource::File(path) => {
                let mut input = open_input(ctx, path)?;
                let data = input.read_all().await;
                let text = String::from_utf8_lossy(&data);
                let body = text.strip_suffix('\n').unwrap_or(&text);
                if !data.is_empty() {
                    patterns.extend(body.split('\n').map(str::to_string));
                }
            }
        }
    }
    Ok(patterns)
}

/// One run over every operand.
struct Grep<'a> {
    opts: &'a Options,
    searcher: Searcher<'a>,
    out: Vec<u8>,
    selected: bool,
    error: bool,
    /// `-q` found a line: stop everything.
    quit: bool,
}

/// A directory being walked: its entries and the next one to visit.
struct Frame {
    path: String,
    /// The directory's real path, to notice `-R` going round a symlink loop.
    real: String,
    display: String,
    entries: Vec<(String, FileKind)>,
    next: usize,
}

/// `dir/name`, without doubling a slash.
fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The last component of `path`.
fn base_name(path: &str) -> &str {
    let trimmed = path.trim_end_matches('/');
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

impl Grep<'_> {
    /// Writes buffered output; a closed pipe ends grep like SIGPIPE (141).
    async fn flush(&mut self, ctx: &mut Ctx) -> Result<(), i32> {
        if self.out.is_empty() {
            return Ok(());
        }
        let result = ctx.stdout.write(&self.out).await;
        self.out.clear();
        match result {
            Ok(()) => Ok(()),
            Err(WriteError::BrokenPipe) => Err(141),
            Err(WriteError::Refused(message)) => {
                say(ctx, &format!("write error: {message}")).await;
                Err(2)
            }
        }
    }

    /// Reports a file problem (unless `-s`) and remembers the error.
    async fn file_error(&mut self, ctx: &mut Ctx, message: &str) -> Result<(), i32> {
        self.error = true;
        if !self.opts.no_messages {
            self.flush(ctx).await?;
            say(ctx, message).await;
        }
        Ok(())
    }

    /// Whether `--include` / `--exclude` skip the file called `name`.
    fn skips_file(&self, name: &str) -> bool {
        let base = base_name(name);
        if self.opts.exclude.iter().any(|g| glob_match(g, base)) {
            return true;
        }
        !self.opts.include.is_empty() && !self.opts.include.iter().any(|g| glob_match(g, base))
    }

    fn skips_dir(&self, name: &str) -> bool {
        let base = base_name(name);
        base != "." && self.opts.exclude_dir.iter().any(|g| glob_match(g, base))
    }

    /// One command-line operand.
    async fn operand(&mut self, ctx: &mut Ctx, path: &str, implicit: bool) -> Result<(), i32> {
        if path == "-" {
            let label = self.opts.label.clone();
            return self.search_stdin(ctx, &label).await;
        }
        let stat = ctx.vfs.borrow().stat(&ctx.cwd, path);
        match stat {
            Err(e) => self.file_error(ctx, &e.to_string()).await,
            Ok(s) if s.kind == FileKind::Dir => {
                if self.opts.recursive {
                    if self.skips_dir(path) {
                        return Ok(());
                    }
                    let display = if implicit {
                        String::new()
                    } else {
                        trim_slashes(path)
                    };
                    self.walk(ctx, path, display).await
                } else if self.opts.skip_dirs {
                    Ok(())
                } else {
                    // GNU reports the directory, then counts or lists it as an empty input.
                    self.file_error(ctx, &format!("{path}: Is a directory"))
                        .await?;
                    self.finish(ctx, &Scan::new(path), path).await
                }
            }
            Ok(_) => {
                if self.skips_file(path) {
                    return Ok(());
                }
                self.search_file(ctx, path, path).await
            }
        }
    }

    /// Searches every file under directory `root` (in name order, depth first).
    async fn walk(&mut self, ctx: &mut Ctx, root: &str, display: String) -> Result<(), i32> {
        let mut stack = Vec::new();
        self.enter(ctx, &mut stack, root.to_string(), display)
            .await?;
        while let Some(frame) = stack.last_mut() {
            if self.quit {
                break;
            }
            let Some((name, kind)) = frame.entries.get(frame.next).cloned() else {
                stack.pop();
                continue;
            };
            frame.next += 1;
            let path = join(&frame.path, &name);
            let display = if frame.display.is_empty() {
                name.clone()
            } else {
                join(&frame.display, &name)
            };
            let kind = match kind {
                FileKind::Symlink if !self.opts.dereference => continue,
                FileKind::Symlink => match ctx.vfs.borrow().stat(&ctx.cwd, &path) {
                    Ok(s) => s.kind,
                    Err(_) => continue,
                },
                kind => kind,
            };
            match kind {
                FileKind::Dir if !self.skips_dir(&name) => {
                    self.enter(ctx, &mut stack, path, display).await?;
                }
                FileKind::File if !self.skips_file(&name) => {
                    self.search_file(ctx, &path, &display).await?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    async fn enter(
        &mut self,
        ctx: &mut Ctx,
        stack: &mut Vec<Frame>,
        path: String,
        display: String,
    ) -> Result<(), i32> {
        let real = ctx.vfs.borrow().canonicalize(&ctx.cwd, &path);
        let real = real.unwrap_or_else(|_| path.clone());
        if stack.iter().any(|frame| frame.real == real) {
            if !self.opts.no_messages {
                self.flush(ctx).await?;
                say(
                    ctx,
                    &format!("{display}: warning: recursive directory loop"),
                )
                .await;
            }
            return Ok(());
        }
        let listing = ctx.vfs.borrow().read_dir(&ctx.cwd, &path);
        match listing {
            Ok(entries) => {
                stack.push(Frame {
                    path,
                    real,
                    display,
                    entries,
                    next: 0,
                });
                Ok(())
            }
            Err(e) => self.file_error(ctx, &e.to_string()).await,
        }
    }

    /// Searches a VFS file, whose bytes are all in memory already.
    async fn search_file(&mut self, ctx: &mut Ctx, path: &str, display: &str) -> Result<(), i32> {
        let data = {
            let vfs = ctx.vfs.borrow();
            if vfs.is_dev_null(&ctx.cwd, path) {
                Ok(Rc::new(Vec::new()))
            } else {
                vfs.read_shared(&ctx.cwd, path)
            }
        };
        let data = match data {
            Ok(data) => data,
            Err(e) if e.code == Errno::EISDIR => {
                return self
                    .file_error(ctx, &format!("{path}: Is a directory"))
                    .await;
            }
            Err(e) => return self.file_error(ctx, &e.to_string()).await,
        };
        let mut scan = self.scan(display);
        let mut data = data;
        if self.checks_nul() && data.contains(&0) {
            if self.opts.binary == BinaryFiles::WithoutMatch {
                return self.finish(ctx, &scan, display).await;
            }
            scan.binary = true;
            data = Rc::new(zap_nuls(&data));
        }
        loop {
            self.searcher
                .run(&mut scan, &data, data.len(), true, &mut self.out);
            self.flush(ctx).await?;
            if scan.done || scan.pos() >= data.len() {
                break;
            }
        }
        self.finish(ctx, &scan, display).await
    }

    /// A new input's scan, done before it starts under `-m 0` (only `-L` gets this far).
    fn scan(&self, name: &str) -> Scan {
        let mut scan = Scan::new(name);
        scan.done = self.searcher.config.max_count == Some(0);
        scan
    }

    fn checks_nul(&self) -> bool {
        self.opts.binary != BinaryFiles::Text && !self.opts.null_data
    }

    /// Searches standard input as it arrives, keeping only unsearched bytes and the lines
    /// before-context may still need.
    async fn search_stdin(&mut self, ctx: &mut Ctx, label: &str) -> Result<(), i32> {
        let mut input = match open_input(ctx, "-") {
            Ok(input) => input,
            Err(message) => return self.file_error(ctx, &message).await,
        };
        let eol = self.searcher.config.eol;
        let before = self.searcher.config.before;
        let mut scan = self.scan(label);
        let mut buf: Vec<u8> = Vec::new();
        loop {
            let chunk = input.read_chunk().await;
            let eof = chunk.is_none();
            if let Some(chunk) = chunk {
                if self.checks_nul() && chunk.contains(&0) {
                    if self.opts.binary == BinaryFiles::WithoutMatch {
                        return self.finish(ctx, &Scan::new(label), label).await;
                    }
                    scan.binary = true;
                }
                if scan.binary {
                    buf.extend_from_slice(&zap_nuls(&chunk));
                } else {
                    buf.extend_from_slice(&chunk);
                }
            }
            let end = if eof {
                buf.len()
            } else {
                memrchr(eol, &buf).map_or(0, |at| at + 1)
            };
            loop {
                self.searcher.run(&mut scan, &buf, end, eof, &mut self.out);
                if self.out.len() >= FLUSH_AT || scan.done || scan.pos() >= end {
                    self.flush(ctx).await?;
                }
                if scan.done || scan.pos() >= end {
                    break;
                }
            }
            if scan.done || eof {
                break;
            }
            let keep = scan.keep_from(&buf, before, eol);
            scan.shift(&buf, eol, keep);
            buf.drain(..keep);
        }
        self.finish(ctx, &scan, label).await
    }

    /// What is printed once an input is done: its count, its name for `-l` / `-L`, or the
    /// binary-file notice.
    async fn finish(&mut self, ctx: &mut Ctx, scan: &Scan, name: &str) -> Result<(), i32> {
        let opts = self.opts;
        if scan.selected > 0 {
            self.selected = true;
            self.quit |= opts.quiet;
        }
        if opts.quiet {
            return Ok(());
        }
        let config = self.searcher.config;
        let name_end = if opts.null_after_name { b'\0' } else { b'\n' };
        match opts.list {
            Some(ListFiles::Matching) if scan.selected > 0 => {
                self.out.extend_from_slice(name.as_bytes());
                self.out.push(name_end);
            }
            Some(ListFiles::NonMatching) if scan.selected == 0 => {
                self.out.extend_from_slice(name.as_bytes());
                self.out.push(name_end);
            }
            None if opts.count => {
                if config.with_filename {
                    self.out.extend_from_slice(name.as_bytes());
                    self.out.push(if opts.null_after_name { 0 } else { b':' });
                }
                self.out
                    .extend_from_slice(format!("{}\n", scan.selected).as_bytes());
            }
            _ => {}
        }
        if scan.binary_matched || scan.encoding_error {
            self.flush(ctx).await?;
            say(ctx, &format!("{name}: binary file matches")).await;
        }
        if self.out.len() >= FLUSH_AT {
            self.flush(ctx).await?;
        }
        Ok(())
    }
}

/// A binary input's NUL bytes become line ends, as GNU grep's "NUL zapper" makes them:
/// counts and matches then see the text between them as lines.
fn zap_nuls(data: &[u8]) -> Vec<u8> {
    data.iter()
        .map(|&b| if b == 0 { b'\n' } else { b })
        .collect()
}

/// `d//` is shown as `d` (as fts does), `/` stays `/`.
fn trim_slashes(path: &str) -> String {
    let trimmed = path.trim_end_matches('/');
    if trimmed.is_empty() {
        "/".to_string()
    } else {
        trimmed.to_string()
    }
}
