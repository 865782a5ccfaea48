//! Byte streams between shell tasks: bounded pipes, and the `Input`/`Output` every command
//! reads and writes, whatever is behind them (a pipe, a file, a here-document, the captured
//! output of the execution).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::future::poll_fn;
use std::rc::Rc;
use std::task::Poll;

use super::{progress, LocalFuture};
use crate::limits::MAX_LINE;
use crate::output;
use crate::vfs::Vfs;

thread_local! {
    /// Set by an input that met a line past [`MAX_LINE`] while the command polled now ran.
    static LONG_LINE: Cell<bool> = const { Cell::new(false) };
}

/// Runs a command's future and says whether an input it read met a line past [`MAX_LINE`]:
/// checked around each poll, since the stages of a pipeline run interleaved.
pub async fn watch_lines<T>(mut future: LocalFuture<'_, T>) -> (T, bool) {
    let mut long = false;
    let value = poll_fn(|cx| {
        let outer = LONG_LINE.with(|l| l.replace(false));
        let poll = future.as_mut().poll(cx);
        long |= LONG_LINE.with(|l| l.replace(outer));
        poll
    })
    .await;
    (value, long)
}

/// Why a command that met a line past [`MAX_LINE`] failed, and what to do instead (a
/// constant: formatting in the size cost module bytes; a test checks the figure).
pub const LINE_TOO_LONG: &str =
    "a line longer than 16 MiB (corral's limit on one line from a pipe \
    or a device): split the input into lines first (tr, fold), read bytes (head -c, dd), or \
    write it to a file and name the file";

/// The length of the line still open after `chunk`, `len` bytes long before it.
pub fn open_line(len: usize, chunk: &[u8], delim: u8) -> usize {
    memchr::memrchr(delim, chunk).map_or(len + chunk.len(), |at| chunk.len() - at - 1)
}

/// Bytes a pipe holds before its writer waits: bounds memory per pipeline stage.
pub const PIPE_CAPACITY: usize = 64 * 1024;
/// Bytes handed out per read, and buffered per write before it is passed on.
const CHUNK: usize = 64 * 1024;

struct PipeState {
    buf: VecDeque<u8>,
    /// Open write ends (see [`PipeWriter::share`]); the pipe ends when the last one closes.
    writers: usize,
    reader_open: bool,
}

/// The read end of a pipe.
pub struct PipeReader(Rc<RefCell<PipeState>>);
/// The write end of a pipe.
pub struct PipeWriter(Rc<RefCell<PipeState>>);

/// A new pipe's two ends.
pub fn pipe() -> (PipeReader, PipeWriter) {
    let state = Rc::new(RefCell::new(PipeState {
        buf: VecDeque::new(),
        writers: 1,
        reader_open: true,
    }));
    (PipeReader(Rc::clone(&state)), PipeWriter(state))
}

impl Drop for PipeReader {
    fn drop(&mut self) {
        self.0.borrow_mut().reader_open = false;
        progress();
    }
}

impl Drop for PipeWriter {
    fn drop(&mut self) {
        let mut state = self.0.borrow_mut();
        state.writers = state.writers.saturating_sub(1);
        progress();
    }
}

impl PipeReader {
    /// The next bytes, waiting while the pipe is empty and its writer open; None at the end.
    pub async fn read_chunk(&mut self) -> Option<Vec<u8>> {
        poll_fn(|_| {
            let mut state = self.0.borrow_mut();
            if state.buf.is_empty() {
                return if state.writers > 0 {
                    Poll::Pending
                } else {
                    Poll::Ready(None)
                };
            }
            let take = state.buf.len().min(CHUNK);
            let mut chunk = Vec::with_capacity(take);
            let (front, back) = state.buf.as_slices();
            let from_front = front.len().min(take);
            chunk.extend_from_slice(&front[..from_front]);
            chunk.extend_from_slice(&back[..take - from_front]);
            state.buf.drain(..take);
            progress();
            Poll::Ready(Some(chunk))
        })
        .await
    }
}

/// Why a write failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteError {
    /// The reader went away (`yes | head -n 1`): stop producing, quietly.
    BrokenPipe,
    /// The destination refused the bytes (e.g. a VFS quota); the message says why.
    Refused(String),
}

impl PipeWriter {
    /// A second write end of the same pipe: bytes from both arrive in the order written
    /// (an applet's stdout and stderr when both go to one place, `2>&1`).
    pub fn share(&self) -> PipeWriter {
        self.0.borrow_mut().writers += 1;
        PipeWriter(Rc::clone(&self.0))
    }

    /// Adds `data` past the capacity, for a writer's last bytes when it cannot wait.
    fn push_unbounded(&mut self, data: &[u8]) {
        let mut state = self.0.borrow_mut();
        if state.reader_open {
            state.buf.extend(data);
            progress();
        }
    }

    /// Writes all of `data`, waiting for room; fails once the reader is gone.
    pub async fn write(&mut self, mut data: &[u8]) -> Result<(), WriteError> {
        while !data.is_empty() {
            let written = poll_fn(|_| {
                let mut state = self.0.borrow_mut();
                if !state.reader_open {
                    return Poll::Ready(Err(WriteError::BrokenPipe));
                }
                let room = PIPE_CAPACITY.saturating_sub(state.buf.len());
                if room == 0 {
                    return Poll::Pending;
                }
                let take = room.min(data.len());
                state.buf.extend(&data[..take]);
                progress();
                Poll::Ready(Ok(take))
            })
            .await?;
            data = &data[written..];
        }
        Ok(())
    }
}

/// What a command reads from.
enum Source {
    Empty,
    Bytes {
        data: Rc<Vec<u8>>,
        pos: usize,
    },
    Pipe(PipeReader),
    /// A device that never ends (`/dev/zero`): each chunk is made by the function; the
    /// count of chunks read says when to look at the clock.
    Endless(Fill, u32),
}

/// Fills a chunk of an endless input.
type Fill = Box<dyn FnMut(&mut [u8])>;

/// The size of a chunk read from an endless device: a page, as Linux hands them out.
const DEVICE_CHUNK: usize = 4096;

/// A command's standard input (or any input it opens), with line reading on top.
pub struct Input {
    source: Source,
    /// Bytes read from a pipe but not yet consumed by a line read: `pending[start..]`.
    pending: Vec<u8>,
    /// Where the unconsumed part of `pending` begins (lines are taken from the front without
    /// moving the rest).
    start: usize,
}

impl Input {
    /// An input that is immediately at its end (`< /dev/null`, no stdin).
    pub fn empty() -> Self {
        Input {
            source: Source::Empty,
            pending: Vec::new(),
            start: 0,
        }
    }

    /// An input over bytes already in memory (a file, a here-document): never blocks.
    pub fn bytes(data: Rc<Vec<u8>>) -> Self {
        Input {
            source: Source::Bytes { data, pos: 0 },
            pending: Vec::new(),
            start: 0,
        }
    }

    /// An input from a pipe.
    pub fn pipe(reader: PipeReader) -> Self {
        Input {
            source: Source::Pipe(reader),
            pending: Vec::new(),
            start: 0,
        }
    }

    /// An input that never ends (`/dev/zero`, `/dev/urandom`): `fill` makes each chunk.
    pub fn endless(fill: impl FnMut(&mut [u8]) + 'static) -> Self {
        Input {
            source: Source::Endless(Box::new(fill), 0),
            pending: Vec::new(),
            start: 0,
        }
    }

    /// The unread bytes, when they are all in memory already (a file, a here-document) and
    /// none were taken for a line read: for a reader that parses them where they lie, then
    /// says how many it took with [`Input::consume`].
    pub fn in_memory(&self) -> Option<&[u8]> {
        match &self.source {
            Source::Bytes { data, pos } if self.start >= self.pending.len() => data.get(*pos..),
            _ => None,
        }
    }

    /// The bytes of an in-memory input, shared, and where its unread part begins.
    pub fn shared_bytes(&self) -> Option<(Rc<Vec<u8>>, usize)> {
        match &self.source {
            Source::Bytes { data, pos } if self.start >= self.pending.len() => {
                Some((Rc::clone(data), *pos))
            }
            _ => None,
        }
    }

    /// Marks `n` bytes of [`Input::in_memory`] as read.
    pub fn consume(&mut self, n: usize) {
        if let Source::Bytes { data, pos } = &mut self.source {
            *pos = (*pos + n).min(data.len());
        }
    }

    /// The next chunk of bytes, or None at the end.
    pub async fn read_chunk(&mut self) -> Option<Vec<u8>> {
        if let Some(rest) = self.take_pending() {
            return Some(rest);
        }
        match &mut self.source {
            Source::Empty => None,
            Source::Bytes { data, pos } => {
                if *pos >= data.len() {
                    return None;
                }
                let end = (*pos + CHUNK).min(data.len());
                let chunk = data[*pos..end].to_vec();
                *pos = end;
                Some(chunk)
            }
            Source::Pipe(reader) => reader.read_chunk().await,
            Source::Endless(fill, chunks) => {
                // A device never blocks, so a reader of one never yields by itself: once out
                // of time, yield, so that the executor ends the execution. The clock is read
                // every 64 KiB: a reader may do much work per byte (`sha256sum`).
                *chunks = chunks.wrapping_add(1);
                if chunks.is_multiple_of(16) && super::out_of_time_now() {
                    super::yield_now().await;
                }
                let mut chunk = vec![0; DEVICE_CHUNK];
                fill(&mut chunk);
                Some(chunk)
            }
        }
    }

    /// Appends the next line (with its `\n`, if it has one) to `line`; false at the end.
    /// A line longer than [`MAX_LINE`] (`/dev/zero` has none) ends the input instead: the
    /// command reading it fails ([`watch_lines`]).
    pub async fn read_line_into(&mut self, line: &mut Vec<u8>) -> bool {
        if let Source::Bytes { data, pos } = &mut self.source {
            if self.start >= self.pending.len() {
                return read_line_from_bytes(data, pos, line);
            }
        }
        let before = line.len();
        loop {
            let rest = &self.pending[self.start..];
            let end = rest.iter().position(|&b| b == b'\n');
            let take = end.map_or(rest.len(), |at| at + 1);
            if line.len() - before + take > MAX_LINE {
                return self.too_long(line, before);
            }
            line.extend_from_slice(&rest[..take]);
            self.start += take;
            if end.is_some() {
                return true;
            }
            // No newline yet: what was pending is all in `line` now.
            match self.read_more().await {
                Some(chunk) => (self.pending, self.start) = (chunk, 0),
                None => return line.len() > before,
            }
        }
    }

    /// Ends the input at a line past [`MAX_LINE`]: the line is dropped (its memory too), and
    /// the command reading is told to fail.
    pub fn too_long(&mut self, line: &mut Vec<u8>, before: usize) -> bool {
        line.truncate(before);
        line.shrink_to_fit();
        *self = Input::empty();
        LONG_LINE.with(|l| l.set(true));
        false
    }

    /// The unconsumed pending bytes, if any, leaving none.
    fn take_pending(&mut self) -> Option<Vec<u8>> {
        let start = std::mem::take(&mut self.start);
        let mut pending = std::mem::take(&mut self.pending);
        if start >= pending.len() {
            return None;
        }
        pending.drain(..start);
        Some(pending)
    }

    /// The next line (with its `\n`, if it has one), or None at the end.
    pub async fn read_line(&mut self) -> Option<Vec<u8>> {
        let mut line = Vec::new();
        self.read_line_into(&mut line).await.then_some(line)
    }

    /// Everything up to the end.
    pub async fn read_all(&mut self) -> Vec<u8> {
        let mut all = self.take_pending().unwrap_or_default();
        if let Source::Bytes { data, pos } = &mut self.source {
            // A file or here-document: one exact copy instead of growing chunk by chunk.
            all.extend_from_slice(data.get(*pos..).unwrap_or_default());
            *pos = data.len();
            return all;
        }
        if let Source::Endless(..) = self.source {
            // A device never ends: fail at once, as past a line's limit (`tac /dev/zero`).
            self.too_long(&mut all, 0);
            return all;
        }
        // From a pipe, one line past [`MAX_LINE`] fails the command as a line read would
        // (`cat /dev/zero | jq .`); many short lines are only as big as what wrote them.
        let mut line = 0;
        while let Some(chunk) = self.read_more().await {
            line = open_line(line, &chunk, b'\n');
            all.extend_from_slice(&chunk);
            if self.past_limit(line, &mut all) {
                break;
            }
        }
        all
    }

    /// Whether a reader that holds `len` bytes of one unfinished line must give up: past
    /// [`MAX_LINE`] from a pipe or a device (a file is in memory already). Then what it
    /// holds in `held` is dropped, the input ends, and the command fails ([`watch_lines`]).
    pub fn past_limit(&mut self, len: usize, held: &mut Vec<u8>) -> bool {
        if len <= MAX_LINE || matches!(self.source, Source::Bytes { .. }) {
            return false;
        }
        self.too_long(held, 0);
        true
    }

    /// The next chunk from the source itself (not from `pending`).
    async fn read_more(&mut self) -> Option<Vec<u8>> {
        let (pending, start) = (
            std::mem::take(&mut self.pending),
            std::mem::take(&mut self.start),
        );
        let chunk = self.read_chunk().await;
        (self.pending, self.start) = (pending, start);
        chunk
    }
}

fn read_line_from_bytes(data: &[u8], pos: &mut usize, line: &mut Vec<u8>) -> bool {
    if *pos >= data.len() {
        return false;
    }
    let rest = &data[*pos..];
    let end = rest
        .iter()
        .position(|&b| b == b'\n')
        .map_or(rest.len(), |at| at + 1);
    line.extend_from_slice(&rest[..end]);
    *pos += end;
    true
}

/// Where a command's output goes.
pub enum Sink {
    /// Discard (`> /dev/null`).
    Null,
    /// The execution's captured stdout (1) or stderr (2).
    Std(Rc<RefCell<output::Output>>, i32),
    /// A pipe to the next stage.
    Pipe(PipeWriter),
    /// An in-memory buffer (command substitution).
    Buffer(Rc<RefCell<Vec<u8>>>),
    /// A file in the VFS, appended to on each flush (the redirection created or truncated it).
    File {
        /// The filesystem.
        vfs: Rc<RefCell<Vfs>>,
        /// The directory the path is relative to.
        cwd: String,
        /// The file.
        path: String,
    },
}

/// A buffered writer over a [`Sink`]. Dropping it passes on what is still buffered (into a
/// pipe even past its capacity, at most one chunk); call [`Output::flush`] to see errors.
pub struct Output {
    sink: Sink,
    buf: Vec<u8>,
}

impl Drop for Output {
    fn drop(&mut self) {
        if self.buf.is_empty() {
            return;
        }
        let data = std::mem::take(&mut self.buf);
        match &mut self.sink {
            Sink::Pipe(writer) => writer.push_unbounded(&data),
            sink => {
                // A refused final write (a full quota) has nowhere left to be reported.
                let _ = write_now(sink, &data);
            }
        }
    }
}

/// Writes to a sink that never waits (everything but a pipe).
fn write_now(sink: &mut Sink, data: &[u8]) -> Result<(), WriteError> {
    match sink {
        Sink::Null | Sink::Pipe(_) => Ok(()),
        Sink::Std(out, fd) => {
            // Past the output cap nothing more is kept: stop the writer as a closed pipe does.
            if out.borrow_mut().write(*fd, data) {
                Ok(())
            } else {
                Err(WriteError::BrokenPipe)
            }
        }
        Sink::Buffer(buffer) => {
            buffer.borrow_mut().extend_from_slice(data);
            Ok(())
        }
        Sink::File { vfs, cwd, path } => vfs
            .borrow_mut()
            .append(cwd, path, data)
            .map_err(|e| WriteError::Refused(e.to_string())),
    }
}

impl Output {
    /// A writer to `sink`.
    pub fn new(sink: Sink) -> Self {
        Output {
            sink,
            buf: Vec::new(),
        }
    }

    /// Whether `other` writes to the same place (`2>&1`): a child forwarded to both then
    /// gets one pipe, so that its two streams keep their order.
    pub fn same_sink(&self, other: &Output) -> bool {
        match (&self.sink, &other.sink) {
            (Sink::Std(a, x), Sink::Std(b, y)) => Rc::ptr_eq(a, b) && x == y,
            (Sink::Pipe(a), Sink::Pipe(b)) => Rc::ptr_eq(&a.0, &b.0),
            (Sink::Buffer(a), Sink::Buffer(b)) => Rc::ptr_eq(a, b),
            (
                Sink::File { cwd, path, .. },
                Sink::File {
                    cwd: c, path: p, ..
                },
            ) => (cwd, path) == (c, p),
            _ => false,
        }
    }

    /// Writes `data` (buffered and passed on in chunks; into a pipe at once, which buffers
    /// itself, so that a reader waiting on the other end, a `coproc`, gets each line).
    pub async fn write(&mut self, data: &[u8]) -> Result<(), WriteError> {
        if self.buf.is_empty() && (data.len() >= CHUNK || matches!(self.sink, Sink::Pipe(_))) {
            // Large writes (sort's whole output) go straight on: no second copy in `buf`.
            return match &mut self.sink {
                Sink::Pipe(writer) => writer.write(data).await,
                sink => write_now(sink, data),
            };
        }
        self.buf.extend_from_slice(data);
        if self.buf.len() >= CHUNK {
            self.flush().await?;
        }
        Ok(())
    }

    /// Another writer to the same place, for a message after the command's own is gone.
    pub fn dup(&self) -> Output {
        Output::new(match &self.sink {
            Sink::Null => Sink::Null,
            Sink::Std(out, fd) => Sink::Std(Rc::clone(out), *fd),
            Sink::Pipe(writer) => Sink::Pipe(writer.share()),
            Sink::Buffer(buffer) => Sink::Buffer(Rc::clone(buffer)),
            Sink::File { vfs, cwd, path } => Sink::File {
                vfs: Rc::clone(vfs),
                cwd: cwd.clone(),
                path: path.clone(),
            },
        })
    }

    /// Writes a UTF-8 string.
    pub async fn write_str(&mut self, text: &str) -> Result<(), WriteError> {
        self.write(text.as_bytes()).await
    }

    /// Passes everything buffered on to the sink.
    pub async fn flush(&mut self) -> Result<(), WriteError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut self.buf);
        match &mut self.sink {
            Sink::Pipe(writer) => writer.write(&data).await,
            sink => write_now(sink, &data),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_line_message_names_the_limit() {
        assert!(LINE_TOO_LONG.contains(&format!(" {} MiB ", MAX_LINE >> 20)));
    }
    use crate::task::{poll_once, LocalFuture};

    fn ready<T>(future: impl std::future::Future<Output = T>) -> T {
        let mut boxed: LocalFuture<'_, T> = Box::pin(future);
        match poll_once(&mut boxed) {
            Poll::Ready(value) => value,
            Poll::Pending => unreachable!("in-memory input never blocks"),
        }
    }

    #[test]
    fn lines_from_bytes_keep_newlines_and_a_last_partial_line() {
        let mut input = Input::bytes(Rc::new(b"a\nbc\nd".to_vec()));
        assert_eq!(ready(input.read_line()), Some(b"a\n".to_vec()));
        assert_eq!(ready(input.read_line()), Some(b"bc\n".to_vec()));
        assert_eq!(ready(input.read_line()), Some(b"d".to_vec()));
        assert_eq!(ready(input.read_line()), None);
    }

    #[test]
    fn lines_from_a_pipe_span_chunks() {
        let (reader, mut writer) = pipe();
        let mut input = Input::pipe(reader);
        assert_eq!(ready(writer.write(b"ab")), Ok(()));
        assert_eq!(ready(writer.write(b"c\nx")), Ok(()));
        drop(writer);
        assert_eq!(ready(input.read_line()), Some(b"abc\n".to_vec()));
        assert_eq!(ready(input.read_all()), b"x".to_vec());
    }

    #[test]
    fn many_lines_from_one_pipe_chunk_then_the_rest() {
        let (reader, mut writer) = pipe();
        let mut input = Input::pipe(reader);
        assert_eq!(ready(writer.write(b"a\nbb\nccc\ndd")), Ok(()));
        assert_eq!(ready(input.read_line()), Some(b"a\n".to_vec()));
        assert_eq!(ready(input.read_line()), Some(b"bb\n".to_vec()));
        assert_eq!(ready(writer.write(b"d\ne")), Ok(()));
        drop(writer);
        assert_eq!(ready(input.read_line()), Some(b"ccc\n".to_vec()));
        assert_eq!(ready(input.read_line()), Some(b"ddd\n".to_vec()));
        assert_eq!(ready(input.read_chunk()), Some(b"e".to_vec()));
        assert_eq!(ready(input.read_line()), None);
    }

    #[test]
    fn a_line_past_the_limit_ends_the_input_and_fails_its_reader() {
        let mut input = Input::endless(|chunk| chunk.fill(b'x'));
        let mut line = b"kept".to_vec();
        let read: LocalFuture<'_, bool> = Box::pin(input.read_line_into(&mut line));
        assert_eq!(ready(watch_lines(read)), (false, true));
        assert_eq!(line, b"kept".to_vec());
        // The input is over, and reading it again notes nothing more.
        let again: LocalFuture<'_, bool> = Box::pin(input.read_line_into(&mut line));
        assert_eq!(ready(watch_lines(again)), (false, false));
        // An endless input is never read whole either.
        let mut zero = Input::endless(|chunk| chunk.fill(0));
        let all: LocalFuture<'_, Vec<u8>> = Box::pin(zero.read_all());
        assert_eq!(ready(watch_lines(all)), (Vec::new(), true));
    }

    #[test]
    fn a_large_write_goes_straight_through_in_order() {
        let buffer = Rc::new(RefCell::new(Vec::new()));
        let mut out = Output::new(Sink::Buffer(Rc::clone(&buffer)));
        let big = vec![b'x'; CHUNK];
        assert_eq!(ready(out.write(&big)), Ok(()));
        assert_eq!(buffer.borrow().len(), CHUNK);
        assert_eq!(ready(out.write(b"y")), Ok(()));
        assert_eq!(ready(out.flush()), Ok(()));
        assert_eq!(buffer.borrow().last(), Some(&b'y'));
    }

    #[test]
    fn writing_to_a_closed_pipe_is_a_broken_pipe() {
        let (reader, mut writer) = pipe();
        drop(reader);
        assert_eq!(ready(writer.write(b"x")), Err(WriteError::BrokenPipe));
    }

    #[test]
    fn buffer_sink_collects_after_flush() {
        let buffer = Rc::new(RefCell::new(Vec::new()));
        let mut out = Output::new(Sink::Buffer(Rc::clone(&buffer)));
        assert_eq!(ready(out.write_str("hi ")), Ok(()));
        assert!(buffer.borrow().is_empty());
        assert_eq!(ready(out.flush()), Ok(()));
        assert_eq!(*buffer.borrow(), b"hi ".to_vec());
    }
}
