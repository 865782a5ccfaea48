//! Runs a parsed sed script over the input: the pattern and hold spaces, addresses and
//! ranges, the append queue, `w` files, and GNU's handling of a last line without newline.

use std::collections::HashMap;
use std::rc::Rc;

use super::input::{Fatal, Line, Reader};
use super::script::{Addr, Addr2, Case, Cmd, Piece, RegexRef, Script, Subst};
use super::text::{char_len, list};
use crate::applets::common::map_case as convert_case;
use crate::applets::common::regex::{Posix as SedRegex, Spans};
use crate::applets::grep::bytes::memchr;
use crate::applets::Ctx;
use crate::task::{yield_now, WriteError};

/// Output is passed on once this many bytes are buffered.
const FLUSH_AT: usize = 64 * 1024;
/// Steps run between yields to the scheduler (so a runaway loop can be stopped).
const YIELD_EVERY: u64 = 1 << 16;

/// Settings from the command line.
pub struct Settings {
    /// `-n` (or `#n`).
    pub quiet: bool,
    /// `-s` or `-i`: each file on its own (line numbers, `$`, ranges).
    pub separate: bool,
    /// `-i[SUFFIX]`: edit files in place.
    pub in_place: Option<String>,
    /// `-z`: NUL-terminated lines.
    pub eol: u8,
    /// `-l N`: the wrap width of `l`.
    pub line_wrap: usize,
}

/// A buffer the script prints into, and whether its last line lacks its newline.
#[derive(Default)]
struct Sink {
    buf: Vec<u8>,
    missing_newline: bool,
}

impl Sink {
    /// GNU adds the newline a previous unterminated line lacked before writing more.
    fn restore_newline(&mut self, eol: u8) {
        if self.missing_newline {
            self.buf.push(eol);
            self.missing_newline = false;
        }
    }

    fn text(&mut self, text: &[u8], eol: u8) {
        self.restore_newline(eol);
        self.buf.extend_from_slice(text);
    }

    /// `i` / `c` text: its last newline becomes the line terminator (NUL with `-z`).
    fn text_line(&mut self, text: &str, eol: u8) {
        if let Some(body) = text.strip_suffix('\n') {
            self.text(body.as_bytes(), eol);
            self.buf.push(eol);
        }
    }

    /// A line of pattern-space text, with its terminator unless it had none.
    fn line(&mut self, text: &[u8], chomped: bool, eol: u8) {
        self.restore_newline(eol);
        self.buf.extend_from_slice(text);
        if chomped {
            self.buf.push(eol);
        } else {
            self.missing_newline = true;
        }
    }
}

/// Where a `w` file's bytes go.
enum WTarget {
    File(String),
    Stdout,
    Stderr,
}

struct WFile {
    target: WTarget,
    sink: Sink,
}

/// Text queued by `a`, `r` and `R` for the end of the cycle.
enum Queued {
    Text(String),
    File(String),
    Line(Vec<u8>),
}

/// How a cycle ended.
enum End {
    /// The end of the script (or `n`/`N` at the end of input): autoprint.
    Normal,
    /// `d` (or `D` without a newline, or `c`): no autoprint.
    Delete,
    /// `D`: run the script again on what is left, without reading.
    Restart,
    /// `q`: autoprint, then stop.
    Quit(i32),
    /// `Q`: stop at once.
    QuitSilent(i32),
}

/// The state of a range address.
#[derive(Clone, Copy, Default)]
struct Range {
    active: bool,
    /// A range starting at a line number ended: it cannot start again.
    closed: bool,
    /// For `addr1,+N` and `addr1,~N`: the last line of the range.
    end: u64,
}

/// A running script.
pub struct Exec<'s> {
    script: &'s Script,
    settings: &'s Settings,
    ps: Vec<u8>,
    ps_chomped: bool,
    hs: Vec<u8>,
    hs_chomped: bool,
    line_no: u64,
    ranges: Vec<Range>,
    replaced: bool,
    queue: Vec<Queued>,
    last_regex: Option<Rc<SedRegex>>,
    out: Sink,
    /// The bytes of a `-i` run meant for the real stdout (`w /dev/stdout`).
    direct: Vec<u8>,
    to_stdout: bool,
    wfiles: Vec<WFile>,
    rfiles: HashMap<String, (Rc<Vec<u8>>, usize)>,
    steps: u64,
    /// The exit status so far.
    pub status: i32,
    /// `q` / `Q` ran.
    pub quit: bool,
}

/// A failure that ends sed: its message (without `sed: `) and exit status.
pub struct Failure {
    /// What to print after `sed: `; empty when it was printed already.
    pub message: String,
    /// The exit status.
    pub status: i32,
}

fn fatal(status: Fatal) -> Failure {
    Failure {
        message: String::new(),
        status,
    }
}

impl<'s> Exec<'s> {
    /// A fresh run of `script`; `w` files are created (truncated) now, as GNU does.
    pub fn new(ctx: &mut Ctx, script: &'s Script, settings: &'s Settings) -> Result<Self, Failure> {
        let mut wfiles = Vec::with_capacity(script.wfiles.len());
        for name in &script.wfiles {
            let target = match name.as_str() {
                "/dev/stdout" => WTarget::Stdout,
                "/dev/stderr" => WTarget::Stderr,
                _ => {
                    let created = ctx.vfs.borrow_mut().write(&ctx.cwd, name, b"");
                    if let Err(e) = created {
                        return Err(Failure {
                            message: format!("couldn't open file {name}: {}", e.code.description()),
                            status: 4,
                        });
                    }
                    WTarget::File(name.clone())
                }
            };
            wfiles.push(WFile {
                target,
                sink: Sink::default(),
            });
        }
        Ok(Exec {
            script,
            settings,
            ps: Vec::new(),
            ps_chomped: true,
            hs: Vec::new(),
            hs_chomped: true,
            line_no: 0,
            ranges: vec![Range::default(); script.commands.len()],
            replaced: false,
            queue: Vec::new(),
            last_regex: None,
            out: Sink::default(),
            direct: Vec::new(),
            to_stdout: true,
            wfiles,
            rfiles: HashMap::new(),
            steps: 0,
            status: 0,
            quit: false,
        })
    }

    /// Starts a new stream of lines (all files, or one file with `-s` / `-i`).
    fn start_unit(&mut self) {
        self.line_no = 0;
        if self.settings.separate {
            // `R` files start over too.
            self.rfiles.clear();
            // GNU starts each file of `-s` / `-i` with an empty hold space.
            self.hs.clear();
            self.hs_chomped = true;
        }
        for (range, command) in self.ranges.iter_mut().zip(&self.script.commands) {
            *range = Range {
                active: matches!(command.address.first, Some(Addr::Zero)),
                closed: false,
                end: 0,
            };
        }
    }

    /// Runs the script over `files`, printing to stdout.
    pub async fn run_stream(&mut self, ctx: &mut Ctx, files: Vec<String>) -> Result<(), Failure> {
        self.to_stdout = true;
        let mut reader = Reader::new(files, self.settings.eol);
        self.start_unit();
        let result = self.cycles(ctx, &mut reader).await;
        if reader.failed {
            self.status = self.status.max(2);
        }
        result?;
        self.flush_out(ctx, true).await
    }

    /// Runs the script over one file, whose new contents are returned (`-i`).
    pub async fn run_in_place(&mut self, ctx: &mut Ctx, path: &str) -> Result<Vec<u8>, Failure> {
        self.to_stdout = false;
        self.out = Sink::default();
        let mut reader = Reader::new(vec![path.to_string()], self.settings.eol);
        self.start_unit();
        self.cycles(ctx, &mut reader).await?;
        self.flush_direct(ctx).await?;
        Ok(std::mem::take(&mut self.out.buf))
    }

    /// Writes out `w` files and what is buffered for stdout.
    pub async fn finish(&mut self, ctx: &mut Ctx) -> Result<(), Failure> {
        self.flush_wfiles(ctx).await?;
        if self.to_stdout {
            self.flush_out(ctx, true).await?;
        }
        self.flush_direct(ctx).await
    }

    async fn cycles(&mut self, ctx: &mut Ctx, reader: &mut Reader) -> Result<(), Failure> {
        while !self.quit {
            // The pattern space's buffer takes the next line (no allocation per line).
            let mut line = Line::reusing(std::mem::take(&mut self.ps));
            let got = match reader.next_now(&mut line) {
                Some(got) => got,
                None => reader.next(ctx, &mut line).await.map_err(fatal)?,
            };
            if !got {
                self.ps = line.data;
                break;
            }
            self.load(line);
            loop {
                let end = self.execute(ctx, reader).await?;
                match end {
                    End::Normal | End::Delete => {
                        // Without waiting unless text is queued or the buffer is full.
                        self.autoprint(matches!(end, End::Normal));
                        if !self.queue.is_empty() || self.out.buf.len() >= FLUSH_AT {
                            self.finish_cycle(ctx).await?;
                        }
                    }
                    End::Restart => {
                        self.end_cycle(false, ctx).await?;
                        continue;
                    }
                    End::Quit(code) => {
                        self.end_cycle(true, ctx).await?;
                        self.out.restore_newline(self.settings.eol);
                        self.status = code;
                        self.quit = true;
                    }
                    End::QuitSilent(code) => {
                        self.status = code;
                        self.quit = true;
                    }
                }
                break;
            }
        }
        Ok(())
    }

    fn load(&mut self, line: Line) {
        self.ps = line.data;
        self.ps_chomped = line.chomped;
        self.line_no += 1;
        self.replaced = false;
    }

    async fn end_cycle(&mut self, autoprint: bool, ctx: &mut Ctx) -> Result<(), Failure> {
        self.autoprint(autoprint);
        self.finish_cycle(ctx).await
    }

    /// The pattern space goes out at the end of a cycle, unless `-n` (or `d`).
    fn autoprint(&mut self, autoprint: bool) {
        if autoprint && !self.settings.quiet {
            self.out.line(&self.ps, self.ps_chomped, self.settings.eol);
        }
    }

    /// The rest of a cycle's end: queued text, and stdout's buffer passed on when big.
    async fn finish_cycle(&mut self, ctx: &mut Ctx) -> Result<(), Failure> {
        self.dump_queue(ctx).await;
        self.flush_out(ctx, false).await
    }

    /// Passes stdout's buffer on when it is big (or always, at the end).
    async fn flush_out(&mut self, ctx: &mut Ctx, all: bool) -> Result<(), Failure> {
        if !self.to_stdout || self.out.buf.is_empty() || !all && self.out.buf.len() < FLUSH_AT {
            return Ok(());
        }
        let result = ctx.stdout.write(&self.out.buf).await;
        self.out.buf.clear();
        write_result(result)
    }

    async fn flush_direct(&mut self, ctx: &mut Ctx) -> Result<(), Failure> {
        if self.direct.is_empty() {
            return Ok(());
        }
        let result = ctx.stdout.write(&self.direct).await;
        self.direct.clear();
        write_result(result)
    }

    async fn flush_wfiles(&mut self, ctx: &mut Ctx) -> Result<(), Failure> {
        for wfile in &mut self.wfiles {
            if wfile.sink.buf.is_empty() {
                continue;
            }
            let data = std::mem::take(&mut wfile.sink.buf);
            match &wfile.target {
                WTarget::File(name) => {
                    let appended = ctx.vfs.borrow_mut().append(&ctx.cwd, name, &data);
                    if let Err(e) = appended {
                        return Err(Failure {
                            message: format!("couldn't write to {name}: {}", e.code.description()),
                            status: 4,
                        });
                    }
                }
                WTarget::Stdout | WTarget::Stderr => {}
            }
        }
        Ok(())
    }

    /// The queued `a` / `r` / `R` text, at the end of a cycle or before `n` / `N` read.
    async fn dump_queue(&mut self, ctx: &mut Ctx) {
        if self.queue.is_empty() {
            return;
        }
        let eol = self.settings.eol;
        for item in std::mem::take(&mut self.queue) {
            match item {
                Queued::Text(text) => self.out.text(text.as_bytes(), eol),
                Queued::Line(line) => self.out.text(&line, eol),
                Queued::File(name) => {
                    let data = if name == "/dev/stdin" {
                        let mut input =
                            std::mem::replace(&mut ctx.stdin, crate::task::Input::empty());
                        Some(Rc::new(input.read_all().await))
                    } else {
                        ctx.vfs.borrow().read_shared(&ctx.cwd, &name).ok()
                    };
                    if let Some(data) = data {
                        self.out.restore_newline(eol);
                        self.out.buf.extend_from_slice(&data);
                    }
                }
            }
        }
    }

    /// Runs the commands once over the pattern space.
    async fn execute(&mut self, ctx: &mut Ctx, reader: &mut Reader) -> Result<End, Failure> {
        let script = self.script;
        let mut pc = 0;
        while let Some(command) = script.commands.get(pc) {
            // One step per command, plus one per 16 bytes of pattern space it may work on: a
            // loop over a growing pattern space (`:a;s/^/x/;ba`) yields as often as its work
            // asks. (Per KiB let `:a;s/x*/&x/;ta` run seconds between yields: a search can
            // cost 50 ns a byte.)
            self.steps += 1 + (self.ps.len() >> 4) as u64;
            if self.steps >= YIELD_EVERY {
                self.steps = 0;
                yield_now().await;
            }
            let selected = match self.selects_now(pc, reader) {
                Some(selected) => selected,
                None => self.selects(pc, ctx, reader).await?,
            };
            if !selected {
                pc = match command.cmd {
                    Cmd::Block(end) => end,
                    _ => pc + 1,
                };
                continue;
            }
            pc += 1;
            match &command.cmd {
                Cmd::Branch(target) => pc = target.unwrap_or(script.commands.len()),
                Cmd::BranchIfSub(target) => {
                    if self.replaced {
                        self.replaced = false;
                        pc = target.unwrap_or(script.commands.len());
                    }
                }
                Cmd::BranchUnlessSub(target) => {
                    if self.replaced {
                        self.replaced = false;
                    } else {
                        pc = target.unwrap_or(script.commands.len());
                    }
                }
                cmd => {
                    if let Some(end) = self.command(cmd, pc - 1, ctx, reader).await? {
                        return Ok(end);
                    }
                }
            }
        }
        Ok(End::Normal)
    }

    /// One command other than a branch; Some when it ends the cycle.
    async fn command(
        &mut self,
        cmd: &Cmd,
        index: usize,
        ctx: &mut Ctx,
        reader: &mut Reader,
    ) -> Result<Option<End>, Failure> {
        let eol = self.settings.eol;
        match cmd {
            Cmd::Subst(s) => self.subst_command(s, ctx).await?,
            Cmd::Delete => return Ok(Some(End::Delete)),
            Cmd::DeleteFirst => return Ok(Some(self.delete_first())),
            Cmd::Next | Cmd::NextAppend => {
                if reader.is_last(ctx).await.map_err(fatal)? {
                    return Ok(Some(End::Normal));
                }
                let append = matches!(cmd, Cmd::NextAppend);
                if !append && !self.settings.quiet {
                    self.out.line(&self.ps, self.ps_chomped, eol);
                }
                self.read_next(ctx, reader, append).await?;
            }
            Cmd::Change(text) => {
                self.change(text, index);
                return Ok(Some(End::Delete));
            }
            Cmd::Quit(code) => return Ok(Some(End::Quit(*code))),
            Cmd::QuitSilent(code) => return Ok(Some(End::QuitSilent(*code))),
            Cmd::Write(w) => {
                let (ps, chomped) = (self.ps.clone(), self.ps_chomped);
                self.write_to(*w, &ps, chomped, ctx).await?;
            }
            Cmd::WriteFirst(w) => {
                let first = first_line(&self.ps, eol).to_vec();
                self.write_to(*w, &first, true, ctx).await?;
            }
            Cmd::FileName => {
                // GNU names the file read last: after a look-ahead for `$`, the next one.
                let mut text = reader.name(reader.current()).as_bytes().to_vec();
                text.push(eol);
                self.out.text(&text, eol);
            }
            Cmd::ReadLine(name) => self.read_line_of(ctx, name),
            other => self.edit(other),
        }
        Ok(None)
    }

    /// The commands that only change the buffers or print: they never wait.
    fn edit(&mut self, cmd: &Cmd) {
        let eol = self.settings.eol;
        match cmd {
            Cmd::Print => self.out.line(&self.ps, self.ps_chomped, eol),
            Cmd::PrintFirst => match memchr(eol, &self.ps) {
                Some(at) => self.out.line(&self.ps[..at], true, eol),
                None => self.out.line(&self.ps, self.ps_chomped, eol),
            },
            Cmd::Append(text) => self.queue.push(Queued::Text(text.clone())),
            Cmd::Insert(text) => self.out.text_line(text, eol),
            Cmd::ReadFile(name) => self.queue.push(Queued::File(name.clone())),
            Cmd::LineNumber => {
                let mut text = self.line_no.to_string().into_bytes();
                text.push(eol);
                self.out.text(&text, eol);
            }
            Cmd::List(width) => {
                let width = width.unwrap_or(self.settings.line_wrap);
                let text = list(&self.ps, width, eol);
                self.out.text(&text, eol);
            }
            Cmd::Translit(pairs) => self.ps = translit(&self.ps, pairs),
            Cmd::Zap => self.ps.clear(),
            other => self.hold_space(other),
        }
    }

    /// `h H g G x`: the line terminator travels with the text (GNU prints a copy of the
    /// unterminated last line without its newline too).
    fn hold_space(&mut self, cmd: &Cmd) {
        let eol = self.settings.eol;
        match cmd {
            Cmd::Hold => {
                self.hs.clone_from(&self.ps);
                self.hs_chomped = self.ps_chomped;
            }
            Cmd::HoldAppend => {
                self.hs.push(eol);
                self.hs.extend_from_slice(&self.ps);
                self.hs_chomped = self.ps_chomped;
            }
            Cmd::Get => {
                self.ps.clone_from(&self.hs);
                self.ps_chomped = self.hs_chomped;
            }
            Cmd::GetAppend => {
                self.ps.push(eol);
                self.ps.extend_from_slice(&self.hs);
                self.ps_chomped = self.hs_chomped;
            }
            Cmd::Exchange => {
                std::mem::swap(&mut self.ps, &mut self.hs);
                std::mem::swap(&mut self.ps_chomped, &mut self.hs_chomped);
            }
            _ => {}
        }
    }

    /// `D`: drops the first line and runs the script again, or acts like `d`.
    fn delete_first(&mut self) -> End {
        match memchr(self.settings.eol, &self.ps) {
            Some(at) => {
                self.ps.drain(..=at);
                End::Restart
            }
            None => End::Delete,
        }
    }

    /// `c`: prints its text unless inside a range that goes on after this line.
    fn change(&mut self, text: &str, index: usize) {
        let address = &self.script.commands[index].address;
        let range_open = address.second.is_some() && !address.negate && self.ranges[index].active;
        if !range_open {
            self.out.text_line(text, self.settings.eol);
        }
    }

    /// `s` and what its `p` and `w` flags print.
    async fn subst_command(&mut self, s: &Subst, ctx: &mut Ctx) -> Result<(), Failure> {
        if !self.substitute(s)? {
            return Ok(());
        }
        if s.print {
            self.out.line(&self.ps, self.ps_chomped, self.settings.eol);
        }
        if let Some(w) = s.write {
            let (ps, chomped) = (self.ps.clone(), self.ps_chomped);
            self.write_to(w, &ps, chomped, ctx).await?;
        }
        Ok(())
    }

    /// `n` / `N`: the queued text goes out, then the next line replaces or joins the
    /// pattern space.
    async fn read_next(
        &mut self,
        ctx: &mut Ctx,
        reader: &mut Reader,
        append: bool,
    ) -> Result<(), Failure> {
        self.dump_queue(ctx).await;
        let mut line = Line::reusing(Vec::new());
        if !reader.next(ctx, &mut line).await.map_err(fatal)? {
            return Ok(());
        }
        if append {
            let mut ps = std::mem::take(&mut self.ps);
            ps.push(self.settings.eol);
            ps.extend_from_slice(&line.data);
            self.load(line);
            self.ps = ps;
        } else {
            self.load(line);
        }
        Ok(())
    }

    /// `R`: queues the next line of `name`, if it has one.
    fn read_line_of(&mut self, ctx: &mut Ctx, name: &str) {
        if !self.rfiles.contains_key(name) {
            let Ok(data) = ctx.vfs.borrow().read_shared(&ctx.cwd, name) else {
                return;
            };
            self.rfiles.insert(name.to_string(), (data, 0));
        }
        let Some((data, pos)) = self.rfiles.get_mut(name) else {
            return;
        };
        if *pos >= data.len() {
            return;
        }
        let rest = &data[*pos..];
        let end = memchr(self.settings.eol, rest).map_or(rest.len(), |at| at + 1);
        let line = rest[..end].to_vec();
        *pos += end;
        self.queue.push(Queued::Line(line));
    }

    async fn write_to(
        &mut self,
        w: usize,
        text: &[u8],
        chomped: bool,
        ctx: &mut Ctx,
    ) -> Result<(), Failure> {
        let eol = self.settings.eol;
        let to_stdout = self.to_stdout;
        let Some(wfile) = self.wfiles.get_mut(w) else {
            return Ok(());
        };
        match wfile.target {
            WTarget::Stdout if to_stdout => {
                // Its own newline bookkeeping, but the same stream as the output.
                let mut sink = std::mem::take(&mut wfile.sink);
                sink.buf = std::mem::take(&mut self.out.buf);
                sink.line(text, chomped, eol);
                self.out.buf = std::mem::take(&mut sink.buf);
                if let Some(wfile) = self.wfiles.get_mut(w) {
                    wfile.sink = sink;
                }
            }
            WTarget::Stdout => {
                let mut sink = std::mem::take(&mut wfile.sink);
                sink.buf = std::mem::take(&mut self.direct);
                sink.line(text, chomped, eol);
                self.direct = std::mem::take(&mut sink.buf);
                if let Some(wfile) = self.wfiles.get_mut(w) {
                    wfile.sink = sink;
                }
            }
            WTarget::Stderr => {
                wfile.sink.line(text, chomped, eol);
                let data = std::mem::take(&mut wfile.sink.buf);
                let _ = ctx.stderr.write(&data).await;
            }
            WTarget::File(_) => {
                wfile.sink.line(text, chomped, eol);
                if wfile.sink.buf.len() >= FLUSH_AT {
                    self.flush_wfiles(ctx).await?;
                }
            }
        }
        Ok(())
    }

    // ----- addresses -----

    /// Whether command `index` applies to the current line.
    async fn selects(
        &mut self,
        index: usize,
        ctx: &mut Ctx,
        reader: &mut Reader,
    ) -> Result<bool, Failure> {
        let address = &self.script.commands[index].address;
        let Some(first) = &address.first else {
            return Ok(true);
        };
        let hit = match &address.second {
            None => self.matches_first(first, ctx, reader).await?,
            Some(second) => self.in_range(index, first, second, ctx, reader).await?,
        };
        Ok(hit != address.negate)
    }

    /// [`Exec::selects`] when it needs no waiting nor a regex (no range, and `$` known
    /// without reading ahead), else None.
    fn selects_now(&self, index: usize, reader: &Reader) -> Option<bool> {
        let address = &self.script.commands[index].address;
        let hit = match (&address.first, &address.second) {
            (None, _) => return Some(true),
            (Some(first), None) => self.matches_now(first, reader)?,
            (Some(_), Some(_)) => return None,
        };
        Some(hit != address.negate)
    }

    async fn matches_first(
        &mut self,
        addr: &Addr,
        ctx: &mut Ctx,
        reader: &mut Reader,
    ) -> Result<bool, Failure> {
        if let Some(hit) = self.matches_now(addr, reader) {
            return Ok(hit);
        }
        match addr {
            Addr::Regex(re) => self.regex_matches(re),
            // `$` not known without reading the next line
            _ => self.is_last(ctx, reader).await,
        }
    }

    /// Whether a line address matches, when that needs no regex nor reading ahead.
    fn matches_now(&self, addr: &Addr, reader: &Reader) -> Option<bool> {
        Some(match addr {
            Addr::Line(n) => self.line_no == *n,
            Addr::Last => return reader.known_last(),
            Addr::Regex(_) => return None,
            Addr::Step(first, step) => match *step {
                0 => self.line_no == *first,
                step => self.line_no >= *first && (self.line_no - first).is_multiple_of(step),
            },
            Addr::Zero => false,
        })
    }

    async fn is_last(&mut self, ctx: &mut Ctx, reader: &mut Reader) -> Result<bool, Failure> {
        reader.is_last(ctx).await.map_err(fatal)
    }

    fn regex_matches(&mut self, re: &RegexRef) -> Result<bool, Failure> {
        let re = self.resolve(re)?;
        Ok(re.is_match(&self.ps))
    }

    /// The regex itself, or the last one used for `//`.
    fn resolve(&mut self, re: &RegexRef) -> Result<Rc<SedRegex>, Failure> {
        match re {
            Some(re) => {
                self.last_regex = Some(Rc::clone(re));
                Ok(Rc::clone(re))
            }
            None => self.last_regex.clone().ok_or_else(|| Failure {
                message: "no previous regular expression".into(),
                status: 1,
            }),
        }
    }

    async fn in_range(
        &mut self,
        index: usize,
        first: &Addr,
        second: &Addr2,
        ctx: &mut Ctx,
        reader: &mut Reader,
    ) -> Result<bool, Failure> {
        let range = self.ranges[index];
        if range.active {
            let (inside, closes) = match second {
                Addr2::Line(n) => (self.line_no <= *n, self.line_no >= *n),
                // Unlike `N,M`, a `+N` / `~N` range takes the line that ends it even past
                // its end (when lines were skipped), as GNU does.
                Addr2::Plus(_) | Addr2::Multiple(_) => (true, self.line_no >= range.end),
                Addr2::Last => (true, self.is_last(ctx, reader).await?),
                Addr2::Regex(re) => (true, self.regex_matches(re)?),
            };
            if closes {
                self.close_range(index, first);
            }
            return Ok(inside);
        }
        let starts = match first {
            // GNU starts a range at a line number even when that line itself was skipped.
            Addr::Line(n) => !range.closed && self.line_no >= *n,
            _ => self.matches_first(first, ctx, reader).await?,
        };
        if !starts {
            return Ok(false);
        }
        let line = self.line_no;
        let (active, end) = match second {
            Addr2::Line(n) => (*n > line, *n),
            Addr2::Plus(n) => (*n > 0, line.saturating_add(*n)),
            Addr2::Multiple(m) => {
                // GNU's end: the next multiple of m after the line (`4,~4` is 4 to 8).
                let end = if *m == 0 { line } else { line + m - line % m };
                (end > line, end)
            }
            Addr2::Last => (!self.is_last(ctx, reader).await?, 0),
            Addr2::Regex(_) => (true, 0),
        };
        self.ranges[index] = Range {
            active,
            closed: false,
            end,
        };
        if !active {
            self.close_range(index, first);
            // Started late (its first line was skipped) and already past its end: GNU
            // matches only if this is still within `N,M`.
            if let (Addr::Line(n1), Addr2::Line(n2)) = (first, second) {
                return Ok(line == *n1 || line <= *n2);
            }
        }
        Ok(true)
    }

    fn close_range(&mut self, index: usize, first: &Addr) {
        let range = &mut self.ranges[index];
        range.active = false;
        range.closed = matches!(first, Addr::Line(_));
    }

    // ----- s -----

    /// Runs `s`; whether it replaced something.
    fn substitute(&mut self, s: &Subst) -> Result<bool, Failure> {
        let re = self.resolve(&s.regex)?;
        let Some(new) = replace(&re, s, &self.ps) else {
            return Ok(false);
        };
        self.ps = new;
        self.replaced = true;
        Ok(true)
    }
}

fn write_result(result: Result<(), WriteError>) -> Result<(), Failure> {
    match result {
        Ok(()) => Ok(()),
        Err(WriteError::BrokenPipe) => Err(fatal(141)),
        Err(WriteError::Refused(message)) => Err(Failure {
            message: format!("couldn't write: {message}"),
            status: 4,
        }),
    }
}

/// The pattern space up to its first line terminator.
fn first_line(ps: &[u8], eol: u8) -> &[u8] {
    match memchr(eol, ps) {
        Some(at) => &ps[..at],
        None => ps,
    }
}

/// `y`: maps characters (bytes when the text is not UTF-8).
fn translit(ps: &[u8], pairs: &[(char, char)]) -> Vec<u8> {
    let map = |c: char| {
        pairs
            .iter()
            .find(|(from, _)| *from == c)
            .map_or(c, |(_, to)| *to)
    };
    match std::str::from_utf8(ps) {
        Ok(text) => text.chars().map(map).collect::<String>().into_bytes(),
        Err(_) => ps
            .iter()
            .map(|&b| {
                if b.is_ascii() {
                    let c = map(char::from(b));
                    u8::try_from(u32::from(c)).unwrap_or(b)
                } else {
                    b
                }
            })
            .collect(),
    }
}

/// The pattern space after `s`, or None when nothing was replaced. An empty match right
/// after the previous match is skipped, as GNU does (`s/b*/x/g` on `abc` gives `xaxcx`).
fn replace(re: &SedRegex, s: &Subst, text: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut pos, mut last, mut count) = (0, 0, 0);
    let mut prev_end: Option<usize> = None;
    let mut done = false;
    let groups = s
        .replacement
        .iter()
        .any(|p| matches!(p, Piece::Group(n) if *n > 0));
    while pos <= text.len() {
        let found = if groups {
            re.spans_at(text, pos)
        } else {
            re.find_at(text, pos).map(|m| vec![Some(m)])
        };
        let Some(spans) = found else {
            break;
        };
        let Some((start, end)) = spans.first().copied().flatten() else {
            break;
        };
        if start == end && prev_end == Some(start) {
            if start >= text.len() {
                break;
            }
            pos = start + char_len(&text[start..]);
            continue;
        }
        count += 1;
        if count >= s.occurrence {
            out.extend_from_slice(&text[last..start]);
            expand(&mut out, &s.replacement, &spans, text);
            last = end;
            done = true;
            if !s.global {
                break;
            }
        }
        prev_end = Some(end);
        pos = if start == end {
            if end >= text.len() {
                break;
            }
            end + char_len(&text[end..])
        } else {
            end
        };
    }
    if !done {
        return None;
    }
    out.extend_from_slice(&text[last..]);
    Some(out)
}

/// Appends the replacement for one match, applying `\U \L \E \u \l`.
fn expand(out: &mut Vec<u8>, pieces: &[Piece], spans: &Spans, text: &[u8]) {
    let mut mode: Option<bool> = None;
    let mut next: Option<bool> = None;
    for piece in pieces {
        let bytes: &[u8] = match piece {
            Piece::Text(t) => t.as_bytes(),
            Piece::Group(n) => match spans.get(*n).copied().flatten() {
                Some((a, b)) => &text[a..b],
                None => &[],
            },
            Piece::Case(case) => {
                match case {
                    Case::Upper => (mode, next) = (Some(true), None),
                    Case::Lower => (mode, next) = (Some(false), None),
                    Case::End => (mode, next) = (None, None),
                    Case::UpperNext => next = Some(true),
                    Case::LowerNext => next = Some(false),
                }
                continue;
            }
        };
        if bytes.is_empty() {
            continue;
        }
        let mut converted = match mode {
            Some(upper) => convert_case(bytes, upper),
            None => bytes.to_vec(),
        };
        if let Some(upper) = next.take() {
            let n = char_len(&converted);
            let head = convert_case(&converted[..n], upper);
            converted.splice(..n, head);
        }
        out.extend_from_slice(&converted);
    }
}
