//! sed's input: the lines of the input files (or stdin) one after another, with one line of
//! look-ahead so `$` (the last line) can be known.

use std::rc::Rc;

use crate::applets::common::open_input;
use crate::applets::grep::bytes::memchr;
use crate::applets::Ctx;
use crate::task::Input;
use crate::vfs::Errno;

/// One input line.
pub struct Line {
    /// Its bytes, without the terminator.
    pub data: Vec<u8>,
    /// Whether it ended with the terminator (the last line of a file may not).
    pub chomped: bool,
}

impl Line {
    /// An empty line holding `buffer` for reuse.
    pub fn reusing(buffer: Vec<u8>) -> Self {
        Line {
            data: buffer,
            chomped: true,
        }
    }

    fn set(&mut self, text: &[u8], chomped: bool) {
        self.data.clear();
        self.data.extend_from_slice(text);
        self.chomped = chomped;
    }
}

/// Where lines come from.
enum Source {
    /// A VFS file, already in memory.
    Memory { data: Rc<Vec<u8>>, pos: usize },
    /// Standard input, read chunk by chunk.
    Stream {
        input: Input,
        buf: Vec<u8>,
        start: usize,
        eof: bool,
    },
}

impl Source {
    /// Reads the next line into `line`'s buffer (reused: no allocation per line once it is
    /// big enough); false at the end, `line` untouched.
    async fn read_line(&mut self, eol: u8, line: &mut Line) -> bool {
        if let Some(got) = self.line_now(eol, line) {
            return got;
        }
        match self {
            Source::Memory { .. } => false,
            Source::Stream {
                input,
                buf,
                start,
                eof,
            } => loop {
                if let Some(at) = memchr(eol, &buf[*start..]) {
                    line.set(&buf[*start..*start + at], true);
                    *start += at + 1;
                    return true;
                }
                if *eof {
                    if *start >= buf.len() {
                        return false;
                    }
                    line.set(&buf[*start..], false);
                    *start = buf.len();
                    return true;
                }
                if *start > 0 {
                    buf.drain(..*start);
                    *start = 0;
                }
                match input.read_chunk().await {
                    Some(chunk) => buf.extend_from_slice(&chunk),
                    None => *eof = true,
                }
            },
        }
    }
}

impl Source {
    /// [`Source::read_line`] when it needs no waiting (a file in memory), else None.
    fn line_now(&mut self, eol: u8, line: &mut Line) -> Option<bool> {
        let Source::Memory { data, pos } = self else {
            return None;
        };
        if *pos >= data.len() {
            return Some(false);
        }
        let rest = &data[*pos..];
        let (text, chomped, used) = match memchr(eol, rest) {
            Some(at) => (&rest[..at], true, at + 1),
            None => (rest, false, rest.len()),
        };
        *pos += used;
        line.set(text, chomped);
        Some(true)
    }
}

/// The lines of a list of files, read lazily.
pub struct Reader {
    files: Vec<String>,
    next: usize,
    source: Option<Source>,
    current: usize,
    /// The line read ahead to know whether the current one is the last (when `peeked`).
    peek: Line,
    peeked: bool,
    eol: u8,
    /// Some input could not be read (exit status 2).
    pub failed: bool,
}

/// A read that must stop sed (a directory as input): the exit status.
pub type Fatal = i32;

impl Reader {
    /// A reader of `files` (`-` is stdin) with line terminator `eol`.
    pub fn new(files: Vec<String>, eol: u8) -> Self {
        Reader {
            files,
            next: 0,
            source: None,
            current: 0,
            peek: Line::reusing(Vec::new()),
            peeked: false,
            eol,
            failed: false,
        }
    }

    /// The index of the file read from last.
    pub fn current(&self) -> usize {
        self.current
    }

    /// The name of file `index` (`-` for stdin), for `F`.
    pub fn name(&self, index: usize) -> &str {
        self.files.get(index).map_or("-", String::as_str)
    }

    /// Reads the next line into `line` (whose buffer is reused); false at the end, with
    /// `line` untouched.
    pub async fn next(&mut self, ctx: &mut Ctx, line: &mut Line) -> Result<bool, Fatal> {
        if let Some(got) = self.next_now(line) {
            return Ok(got);
        }
        self.read(ctx, line).await
    }

    /// [`Reader::next`] when it needs no waiting (a line read ahead, or one more in the file
    /// in memory), else None.
    pub fn next_now(&mut self, line: &mut Line) -> Option<bool> {
        if self.peeked {
            std::mem::swap(line, &mut self.peek);
            self.peeked = false;
            return Some(true);
        }
        self.source
            .as_mut()?
            .line_now(self.eol, line)?
            .then_some(true)
    }

    /// Whether the line just read was the last one.
    pub async fn is_last(&mut self, ctx: &mut Ctx) -> Result<bool, Fatal> {
        if let Some(last) = self.known_last() {
            return Ok(last);
        }
        let mut peek = std::mem::replace(&mut self.peek, Line::reusing(Vec::new()));
        self.peeked = self.read(ctx, &mut peek).await?;
        self.peek = peek;
        Ok(!self.peeked)
    }

    /// Whether the line just read was the last one, when that is known without reading:
    /// a line was read ahead, or the file in memory has more bytes (so at least one more
    /// line, from the same file: what `F` names does not change).
    pub fn known_last(&self) -> Option<bool> {
        if self.peeked {
            return Some(false);
        }
        match &self.source {
            Some(Source::Memory { data, pos }) if *pos < data.len() => Some(false),
            _ => None,
        }
    }

    async fn read(&mut self, ctx: &mut Ctx, line: &mut Line) -> Result<bool, Fatal> {
        loop {
            if let Some(source) = &mut self.source {
                if source.read_line(self.eol, line).await {
                    return Ok(true);
                }
                self.source = None;
            }
            let Some(path) = self.files.get(self.next).cloned() else {
                return Ok(false);
            };
            self.current = self.next;
            self.next += 1;
            self.source = self.open(ctx, &path).await?;
        }
    }

    async fn open(&mut self, ctx: &mut Ctx, path: &str) -> Result<Option<Source>, Fatal> {
        if path == "-" {
            let input = open_input(ctx, "-").unwrap_or_else(|_| Input::empty());
            return Ok(Some(Source::Stream {
                input,
                buf: Vec::new(),
                start: 0,
                eof: false,
            }));
        }
        let data = {
            let vfs = ctx.vfs.borrow();
            if vfs.is_dev_null(&ctx.cwd, path) {
                Ok(Rc::new(Vec::new()))
            } else {
                vfs.read_shared(&ctx.cwd, path)
            }
        };
        match data {
            Ok(data) => Ok(Some(Source::Memory { data, pos: 0 })),
            Err(e) if e.code == Errno::EISDIR => {
                let message = format!("sed: read error on {path}: Is a directory\n");
                let _ = ctx.stderr.write_str(&message).await;
                Err(4)
            }
            Err(e) => {
                self.failed = true;
                let message = format!("sed: can't read {path}: {}\n", e.code.description());
                let _ = ctx.stderr.write_str(&message).await;
                Ok(None)
            }
        }
    }
}
