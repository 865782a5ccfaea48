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
    async fn read_line(&mut self, eol: u8) -> Option<(Vec<u8>, bool)> {
        match self {
            Source::Memory { data, pos } => {
                if *pos >= data.len() {
                    return None;
                }
                let rest = &data[*pos..];
                let (line, chomped, used) = match memchr(eol, rest) {
                    Some(at) => (&rest[..at], true, at + 1),
                    None => (rest, false, rest.len()),
                };
                *pos += used;
                Some((line.to_vec(), chomped))
            }
            Source::Stream {
                input,
                buf,
                start,
                eof,
            } => loop {
                if let Some(at) = memchr(eol, &buf[*start..]) {
                    let line = buf[*start..*start + at].to_vec();
                    *start += at + 1;
                    return Some((line, true));
                }
                if *eof {
                    if *start >= buf.len() {
                        return None;
                    }
                    let line = buf[*start..].to_vec();
                    *start = buf.len();
                    return Some((line, false));
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

/// The lines of a list of files, read lazily.
pub struct Reader {
    files: Vec<String>,
    next: usize,
    source: Option<Source>,
    current: usize,
    peeked: Option<Line>,
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
            peeked: None,
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

    /// The next line, if any.
    pub async fn next(&mut self, ctx: &mut Ctx) -> Result<Option<Line>, Fatal> {
        if let Some(line) = self.peeked.take() {
            return Ok(Some(line));
        }
        self.read(ctx).await
    }

    /// Whether the line just read was the last one.
    pub async fn is_last(&mut self, ctx: &mut Ctx) -> Result<bool, Fatal> {
        if self.peeked.is_none() {
            self.peeked = self.read(ctx).await?;
        }
        Ok(self.peeked.is_none())
    }

    async fn read(&mut self, ctx: &mut Ctx) -> Result<Option<Line>, Fatal> {
        loop {
            if let Some(source) = &mut self.source {
                if let Some((data, chomped)) = source.read_line(self.eol).await {
                    return Ok(Some(Line { data, chomped }));
                }
                self.source = None;
            }
            let Some(path) = self.files.get(self.next).cloned() else {
                return Ok(None);
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
