//! `tar -t` and `tar -x`: read headers block by block (through gzip when the archive starts
//! with its magic), list or extract members.

use std::io::Write;
use std::rc::Rc;

use flate2::write::MultiGzDecoder;

use super::header::{decode, padding, pax_records, Block, Kind, Member, BLOCK};
use super::{exit_status, Mode, Options};
use crate::applets::common::{dirname, mode_string, out, out_str, quote, strftime, Res};
use crate::applets::common::{open_input, warn};
use crate::applets::Ctx;
use crate::task::Input;
use crate::vfs::{resolve, FileKind};

/// A byte reader over the archive, decompressing when it starts like gzip.
struct Reader {
    input: Input,
    gzip: Option<MultiGzDecoder<Vec<u8>>>,
    buf: Vec<u8>,
    pos: usize,
    started: bool,
    done: bool,
    broken: bool,
}

impl Reader {
    fn new(input: Input) -> Self {
        Reader {
            input,
            gzip: None,
            buf: Vec::new(),
            pos: 0,
            started: false,
            done: false,
            broken: false,
        }
    }

    /// Makes `n` bytes available; false at the end of the archive.
    async fn fill(&mut self, n: usize) -> bool {
        while self.buf.len() - self.pos < n && !self.done {
            if self.pos > 0 {
                self.buf.drain(..self.pos);
                self.pos = 0;
            }
            match self.input.read_chunk().await {
                Some(chunk) => self.push(&chunk),
                None => {
                    self.done = true;
                    if let Some(decoder) = &mut self.gzip {
                        self.broken |= decoder.try_finish().is_err();
                        let data = std::mem::take(decoder.get_mut());
                        self.buf.extend_from_slice(&data);
                    }
                }
            }
        }
        self.buf.len() - self.pos >= n
    }

    fn push(&mut self, chunk: &[u8]) {
        if !self.started {
            self.started = true;
            if chunk.starts_with(&[0x1f, 0x8b]) {
                self.gzip = Some(MultiGzDecoder::new(Vec::new()));
            }
        }
        match &mut self.gzip {
            Some(decoder) => {
                self.broken |= decoder.write_all(chunk).is_err();
                let data = std::mem::take(decoder.get_mut());
                self.buf.extend_from_slice(&data);
            }
            None => self.buf.extend_from_slice(chunk),
        }
    }

    /// The next `n` bytes (fewer at the end).
    async fn take(&mut self, n: usize) -> Vec<u8> {
        self.fill(n).await;
        let end = (self.pos + n).min(self.buf.len());
        let data = self.buf[self.pos..end].to_vec();
        self.pos = end;
        data
    }

    /// Skips `n` bytes without keeping them.
    async fn skip(&mut self, mut n: u64) {
        while n > 0 {
            let step = n.min(64 * 1024) as usize;
            if !self.fill(step).await && self.buf.len() == self.pos {
                return;
            }
            let have = (self.buf.len() - self.pos).min(step);
            self.pos += have;
            n -= have as u64;
        }
    }
}

/// `-tv` lines: `-rw-r--r-- user/user         5 2023-11-14 22:13 d/a`, the owner and size
/// column as wide as the widest seen so far (starting at 19, like GNU).
pub fn long_line(m: &Member, width: &mut usize) -> String {
    let kind = match m.kind {
        Kind::File => FileKind::File,
        Kind::Dir => FileKind::Dir,
        Kind::Symlink => FileKind::Symlink,
        Kind::HardLink | Kind::Other(_) => FileKind::File,
    };
    let mut mode = mode_string(kind, m.mode);
    if m.kind == Kind::HardLink {
        mode.replace_range(0..1, "h");
    }
    let owner = if m.owner.0.is_empty() {
        "1000".to_string()
    } else {
        m.owner.0.clone()
    };
    let group = if m.owner.1.is_empty() {
        "1000".to_string()
    } else {
        m.owner.1.clone()
    };
    let ug = format!("{owner}/{group}");
    let size = m.size.to_string();
    *width = (*width).max(ug.len() + 1 + size.len());
    let pad = *width - ug.len() - 1;
    let date = strftime("%Y-%m-%d %H:%M", m.mtime, 0);
    let tail = match m.kind {
        Kind::Symlink => format!(" -> {}", m.link),
        Kind::HardLink => format!(" link to {}", m.link),
        _ => String::new(),
    };
    format!("{mode} {ug} {size:>pad$} {date} {}{tail}\n", m.name)
}

/// The result of reading the next member.
enum Next {
    Member(Member),
    End,
    Garbage,
}

async fn next_member(reader: &mut Reader) -> Next {
    let mut long_name = None;
    let mut long_link = None;
    loop {
        if !reader.fill(BLOCK).await {
            return if reader.buf.len() == reader.pos && reader.started {
                Next::End
            } else {
                Next::Garbage
            };
        }
        let block = reader.take(BLOCK).await;
        let (flag, mut member) = match decode(&block) {
            Some(Block::End) => return Next::End,
            Some(Block::Header(flag, member)) => (flag, member),
            None => return Next::Garbage,
        };
        match flag {
            b'L' | b'K' | b'x' | b'g' => {
                let data = reader.take(member.size as usize).await;
                reader.skip(padding(member.size) as u64).await;
                let text = |d: &[u8]| {
                    String::from_utf8_lossy(d)
                        .trim_end_matches('\0')
                        .to_string()
                };
                match flag {
                    b'L' => long_name = Some(text(&data)),
                    b'K' => long_link = Some(text(&data)),
                    b'x' => {
                        for (key, value) in pax_records(&data) {
                            match key.as_str() {
                                "path" => long_name = Some(value),
                                "linkpath" => long_link = Some(value),
                                _ => {}
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {
                if let Some(name) = long_name.take() {
                    member.name = name;
                }
                if let Some(link) = long_link.take() {
                    member.link = link;
                }
                return Next::Member(member);
            }
        }
    }
}

/// Runs `tar -t` or `tar -x`.
pub async fn read(ctx: &mut Ctx, o: &Options, operands: &[String]) -> Res<i32> {
    let input = if o.archive == "-" {
        std::mem::replace(&mut ctx.stdin, Input::empty())
    } else {
        match open_input(ctx, &o.archive) {
            Ok(input) => input,
            Err(message) => {
                let why = message
                    .rsplit(": ")
                    .next()
                    .unwrap_or("No such file or directory")
                    .to_string();
                warn(
                    ctx,
                    format_args!(
                        "{}: Cannot open: {why}\ntar: Error is not recoverable: exiting now",
                        o.archive
                    ),
                )
                .await;
                return Ok(2);
            }
        }
    };
    let base = match &o.directory {
        Some(dir) => resolve(&ctx.cwd, dir),
        None => ctx.cwd.clone(),
    };
    if o.mode == Mode::Extract
        && !ctx
            .vfs
            .borrow()
            .stat("/", &base)
            .is_ok_and(|s| s.kind == FileKind::Dir)
    {
        let dir = o.directory.clone().unwrap_or_default();
        warn(ctx, format_args!("{dir}: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now")).await;
        return Ok(2);
    }
    let mut state = State {
        base,
        matched: vec![false; operands.len()],
        failed: false,
        width: 19,
        dirs: Vec::new(),
        warned_slash: false,
    };
    let mut reader = Reader::new(input);
    let mut members = 0;
    loop {
        let member = match next_member(&mut reader).await {
            Next::Member(m) => m,
            Next::End => break,
            Next::Garbage => {
                let message = if members == 0 {
                    "This does not look like a tar archive"
                } else {
                    "Skipping to next header"
                };
                warn(ctx, message).await;
                state.failed = true;
                break;
            }
        };
        members += 1;
        let data_len = if matches!(member.kind, Kind::File) {
            member.size
        } else {
            0
        };
        let wanted =
            selected(&member.name, operands, &mut state.matched) && !o.excluded(&member.name);
        if !wanted {
            reader.skip(data_len + padding(data_len) as u64).await;
            continue;
        }
        match o.mode {
            Mode::List => {
                list_one(ctx, o, &member, &mut state).await?;
                reader.skip(data_len + padding(data_len) as u64).await;
            }
            _ => {
                let data = reader.take(data_len as usize).await;
                reader.skip(padding(data_len) as u64).await;
                extract_one(ctx, o, member, data, &mut state).await?;
            }
        }
    }
    if reader.broken {
        warn(ctx, "Unexpected EOF in archive").await;
        state.failed = true;
    }
    finish_dirs(ctx, o, &state);
    for (operand, found) in operands.iter().zip(&state.matched) {
        if !found {
            warn(ctx, format_args!("{operand}: Not found in archive")).await;
            state.failed = true;
        }
    }
    Ok(exit_status(ctx, state.failed).await)
}

struct State {
    base: String,
    matched: Vec<bool>,
    failed: bool,
    width: usize,
    /// Directories extracted, to stamp after their contents are in.
    dirs: Vec<(String, u32, i64)>,
    warned_slash: bool,
}

/// Whether `name` is one of the operands or inside one (all members when there are none).
fn selected(name: &str, operands: &[String], matched: &mut [bool]) -> bool {
    if operands.is_empty() {
        return true;
    }
    let name = name.trim_end_matches('/');
    let mut any = false;
    for (i, operand) in operands.iter().enumerate() {
        let op = operand.trim_end_matches('/');
        if name == op || name.starts_with(&format!("{op}/")) {
            matched[i] = true;
            any = true;
        }
    }
    any
}

async fn list_one(ctx: &mut Ctx, o: &Options, m: &Member, state: &mut State) -> Res {
    let line = if o.verbose > 0 {
        long_line(m, &mut state.width)
    } else {
        format!("{}\n", m.name)
    };
    out_str(ctx, &line).await
}

/// The path to extract to, after `--strip-components` and removing a leading `/`; None
/// when nothing is left or the name climbs out with `..`.
async fn target_name(ctx: &mut Ctx, o: &Options, name: &str, state: &mut State) -> Option<String> {
    let mut name = name.to_string();
    if name.starts_with('/') && !o.absolute {
        if !state.warned_slash {
            warn(ctx, "Removing leading `/' from member names").await;
            state.warned_slash = true;
        }
        name = name.trim_start_matches('/').to_string();
    }
    if o.strip > 0 {
        let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
        if parts.len() <= o.strip {
            return None;
        }
        name = parts[o.strip..].join("/");
    }
    if name.split('/').any(|p| p == "..") {
        warn(ctx, format_args!("{name}: Member name contains '..'")).await;
        state.failed = true;
        return None;
    }
    let trimmed = name.trim_end_matches('/');
    if trimmed.is_empty() || trimmed == "." {
        return None;
    }
    Some(trimmed.to_string())
}

async fn extract_one(
    ctx: &mut Ctx,
    o: &Options,
    m: Member,
    data: Vec<u8>,
    state: &mut State,
) -> Res {
    let Some(path) = target_name(ctx, o, &m.name, state).await else {
        return Ok(());
    };
    if o.to_stdout {
        if m.kind == Kind::File {
            out(ctx, &data).await?;
        }
        return Ok(());
    }
    if o.verbose > 0 {
        let line = if o.verbose > 1 {
            long_line(&m, &mut state.width)
        } else {
            format!("{}\n", m.name)
        };
        out_str(ctx, &line).await?;
    }
    let base = state.base.clone();
    let exists = ctx.vfs.borrow().lstat(&base, &path).map(|s| s.kind).ok();
    if let (Some(keep), Some(kind)) = (o.keep_old, exists) {
        if kind != FileKind::Dir || m.kind != Kind::Dir {
            if keep {
                warn(ctx, format_args!("{path}: Cannot open: File exists")).await;
                state.failed = true;
            }
            return Ok(());
        }
    }
    if m.kind == Kind::HardLink && exists.is_some() {
        // A file named twice is a member linked to itself: it (or a name that already shares
        // its data) stays as it is, as GNU tar leaves it; unlinking it first would lose it.
        let vfs = ctx.vfs.borrow();
        let ino = |name: &str| vfs.lstat(&base, name).map(|s| s.ino).ok();
        if ino(&path) == ino(m.link.trim_start_matches('/')) {
            return Ok(());
        }
    }
    let parent = dirname(&path).to_string();
    let result = {
        let mut vfs = ctx.vfs.borrow_mut();
        let _ = vfs.mkdir_all(&base, &parent);
        if exists.is_some_and(|k| k != FileKind::Dir) && m.kind != Kind::File {
            let _ = vfs.remove_file(&base, &path);
        }
        match m.kind {
            Kind::Dir => vfs.mkdir_all(&base, &path),
            Kind::File => {
                if exists == Some(FileKind::Symlink) {
                    let _ = vfs.remove_file(&base, &path);
                }
                vfs.write_shared(&base, &path, Rc::new(data)).map(|()| {
                    let _ = vfs.set_mode(&base, &path, m.mode);
                    if !o.touch {
                        let _ = vfs.set_mtime(&base, &path, Some(m.mtime as f64 * 1000.0));
                    }
                })
            }
            Kind::Symlink => vfs.symlink(&base, &m.link, &path),
            Kind::HardLink => {
                let source = m.link.trim_start_matches('/').to_string();
                vfs.link(&base, &source, &path, false)
            }
            Kind::Other(_) => Ok(()),
        }
    };
    match result {
        Ok(()) if m.kind == Kind::Dir => state.dirs.push((path, m.mode, m.mtime)),
        Ok(()) => {}
        Err(e) if m.kind == Kind::HardLink => {
            let message = format!("{path}: Cannot hard link to {}: {}", quote(&m.link), e.code);
            warn(ctx, message).await;
            state.failed = true;
        }
        Err(e) => {
            warn(ctx, format_args!("{path}: Cannot open: {}", e.code)).await;
            state.failed = true;
        }
    }
    Ok(())
}

/// Gives extracted directories their modes and times, deepest first (extracting their
/// contents changed the times).
fn finish_dirs(ctx: &Ctx, o: &Options, state: &State) {
    let mut vfs = ctx.vfs.borrow_mut();
    for (path, mode, mtime) in state.dirs.iter().rev() {
        let _ = vfs.set_mode(&state.base, path, *mode);
        if !o.touch {
            let _ = vfs.set_mtime(&state.base, path, Some(*mtime as f64 * 1000.0));
        }
    }
}
