//! File descriptors of the interpreter: what fd 0, 1, 2 (and any other number) refer to,
//! shared between the commands of a list, and handed to applets as the `Input`/`Output` they
//! own.
//!
//! A handle shared by several commands (`{ a; b; } > f`, a loop body reading the loop's
//! stdin) cannot be moved into one applet, so applets get their own pipe ends:
//! - output goes through a *pump* task that copies what the applet writes into the shared
//!   handle (it also stops a runaway writer at the deadline or at a capture's size cap);
//! - input comes through a *feeder* that starts only if the applet is still running after its
//!   first poll: an applet that finishes at once (`echo`, `grep x file`) consumes nothing, so
//!   `while read l; do echo "$l"; done < file` keeps every line for `read`.
//!
//! A handle that only this command holds (a pipeline stage's pipe, a `< file` of its own) is
//! moved into the applet directly: no copy.

use std::cell::{Cell, RefCell};
use std::future::{poll_fn, Future};
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use crate::limits::{MAX_CAPTURE, MAX_LINE};
use crate::output;
use crate::task::{
    pipe, progress, Deadline, Input, LocalFuture, Output, PipeReader, Sink, WriteError,
};
use crate::vfs::Vfs;

/// Bytes per feeder read from a shared input.
const FEED_CHUNK: usize = 64 * 1024;

/// Applets that never read standard input: they get an empty one when stdin is shared, so
/// they cannot swallow what the next `read` expects even when they suspend (`sleep`).
const NON_READERS: &[&str] = &[
    "echo", "printf", "ls", "mkdir", "rmdir", "rm", "cp", "mv", "touch", "ln", "chmod", "date",
    "sleep", "seq", "yes", "basename", "dirname", "pwd", "true", "false", "env", "printenv",
    "which", "find", "realpath", "readlink", "stat", "du", "df", "mktemp", "hostname", "whoami",
    "id", "uname", "tree", "nproc", "arch", "test", "[", "expr", "kill", "usleep",
];

/// Whether applet `name` is known not to read its standard input.
pub fn never_reads_stdin(name: &str) -> bool {
    NON_READERS.contains(&name)
}

// ---------------------------------------------------------------------------------------
// Output handles

/// Where a writable descriptor leads.
pub enum OutKind {
    /// `/dev/null`.
    Null,
    /// The execution's stdout (1) or stderr (2).
    Std(Rc<RefCell<output::Output>>, i32),
    /// A command substitution's capture.
    Buffer(Rc<RefCell<Vec<u8>>>),
    /// A VFS file (absolute path), appended to.
    File {
        /// The filesystem.
        vfs: Rc<RefCell<Vfs>>,
        /// The working directory when it was opened.
        cwd: String,
        /// The file, as given.
        path: String,
    },
    /// An owned stream (a pipe to the next stage, or a stream `Commands::exec` was given);
    /// `None` while a writer holds it.
    Stream(RefCell<Option<Output>>),
}

/// A writable descriptor.
pub struct OutHandle {
    /// Where it leads.
    pub kind: OutKind,
    /// A write found the reader gone: the writing side should stop, like on SIGPIPE.
    pub broken: Cell<bool>,
    /// A capture refused a write that would have grown it past [`MAX_CAPTURE`].
    pub overflowed: Cell<bool>,
}

impl OutHandle {
    /// A handle for `kind`.
    pub fn new(kind: OutKind) -> Rc<OutHandle> {
        Rc::new(OutHandle {
            kind,
            broken: Cell::new(false),
            overflowed: Cell::new(false),
        })
    }

    /// Writes `data`, a shell string's UTF-8 (its raw-byte carriers become the bytes), passed
    /// on at once: nothing stays buffered in the handle.
    pub async fn write(&self, data: &[u8]) -> Result<(), WriteError> {
        self.write_bytes(&crate::shell::bytes::encode(data)).await
    }

    /// Writes `data` as it is.
    pub async fn write_bytes(&self, data: &[u8]) -> Result<(), WriteError> {
        let result = match &self.kind {
            OutKind::Null => Ok(()),
            OutKind::Std(out, fd) => {
                out.borrow_mut().write(*fd, data);
                Ok(())
            }
            OutKind::Buffer(buf) => {
                let mut buf = buf.borrow_mut();
                if buf.len() + data.len() > MAX_CAPTURE {
                    self.overflowed.set(true);
                    Err(WriteError::Refused(super::state::too_large("$(...)")))
                } else {
                    buf.extend_from_slice(data);
                    Ok(())
                }
            }
            OutKind::File { vfs, cwd, path } => vfs
                .borrow_mut()
                .append(cwd, path, data)
                .map_err(|e| WriteError::Refused(e.code.description().to_string())),
            OutKind::Stream(cell) => {
                let mut out = poll_fn(|_| match cell.borrow_mut().take() {
                    Some(out) => Poll::Ready(out),
                    None => Poll::Pending,
                })
                .await;
                let mut result = out.write(data).await;
                if result.is_ok() {
                    result = out.flush().await;
                }
                *cell.borrow_mut() = Some(out);
                progress();
                result
            }
        };
        if result == Err(WriteError::BrokenPipe) {
            self.broken.set(true);
        }
        result
    }

    /// The sink of a file, which an applet writes to directly (see `output_for`).
    fn direct_file(&self) -> Option<Sink> {
        match self.kind {
            OutKind::File { .. } => self.direct_sink(),
            _ => None,
        }
    }

    /// Whether writes to it are cheap and immediate (no pipe in between).
    fn direct_sink(&self) -> Option<Sink> {
        match &self.kind {
            OutKind::Null => Some(Sink::Null),
            OutKind::Std(out, fd) => Some(Sink::Std(Rc::clone(out), *fd)),
            OutKind::File { vfs, cwd, path } => Some(Sink::File {
                vfs: Rc::clone(vfs),
                cwd: cwd.clone(),
                path: path.clone(),
            }),
            OutKind::Buffer(_) | OutKind::Stream(_) => None,
        }
    }
}

// ---------------------------------------------------------------------------------------
// Input handles

/// What reading a directory fails with (`read_until`).
pub const IS_A_DIRECTORY: &str = "Is a directory";

enum InSrc {
    Empty,
    /// A directory, which bash opens for reading; reading it fails (`EISDIR`): `read`
    /// says so, `mapfile` and applets see no bytes.
    Directory,
    /// Bytes in memory (a file, a here-document), read from `pos`.
    Bytes {
        data: Rc<Vec<u8>>,
        pos: usize,
    },
    /// A stream, with bytes read ahead of the last line; `input` is `None` while a reader
    /// holds it.
    Stream {
        input: Option<Input>,
        buf: Vec<u8>,
        eof: bool,
    },
}

/// A readable descriptor.
pub struct InHandle {
    src: RefCell<InSrc>,
}

/// How a line read ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// The bytes, without the delimiter.
    pub bytes: Vec<u8>,
    /// The delimiter was found (false: the input ended first).
    pub delimited: bool,
}

impl InHandle {
    /// An input at its end.
    pub fn empty() -> Rc<InHandle> {
        Rc::new(InHandle {
            src: RefCell::new(InSrc::Empty),
        })
    }

    /// A directory opened for reading.
    pub fn directory() -> Rc<InHandle> {
        Rc::new(InHandle {
            src: RefCell::new(InSrc::Directory),
        })
    }

    /// An input over bytes in memory.
    pub fn bytes(data: Rc<Vec<u8>>) -> Rc<InHandle> {
        Rc::new(InHandle {
            src: RefCell::new(InSrc::Bytes { data, pos: 0 }),
        })
    }

    /// An input over a stream.
    pub fn stream(input: Input) -> Rc<InHandle> {
        Rc::new(InHandle {
            src: RefCell::new(InSrc::Stream {
                input: Some(input),
                buf: Vec::new(),
                eof: false,
            }),
        })
    }

    /// An input reading from a pipe.
    pub fn pipe(reader: PipeReader) -> Rc<InHandle> {
        InHandle::stream(Input::pipe(reader))
    }

    /// Reads until `delim` (or `max` characters, or the end). None at the end of input with
    /// nothing read; `Err` past [`MAX_LINE`] bytes from a stream without the delimiter (the
    /// stream is dropped: `read x < /dev/zero`), or [`IS_A_DIRECTORY`] from a directory.
    pub async fn read_until(
        &self,
        delim: Option<u8>,
        max: Option<usize>,
    ) -> Result<Option<Chunk>, String> {
        if matches!(*self.src.borrow(), InSrc::Directory) {
            return Err(IS_A_DIRECTORY.to_string());
        }
        let mut out = Vec::new();
        loop {
            match self.scan(&mut out, delim, max) {
                Scan::Done(delimited) => {
                    return Ok(Some(Chunk {
                        bytes: out,
                        delimited,
                    }))
                }
                Scan::End => {
                    return Ok((!out.is_empty()).then_some(Chunk {
                        bytes: out,
                        delimited: false,
                    }))
                }
                Scan::More if out.len() > MAX_LINE => {
                    *self.src.borrow_mut() = InSrc::Empty;
                    return Err(crate::task::LINE_TOO_LONG.to_string());
                }
                Scan::More => {
                    if !self.fill().await {
                        return Ok((!out.is_empty()).then_some(Chunk {
                            bytes: out,
                            delimited: false,
                        }));
                    }
                }
            }
        }
    }

    /// Everything up to the end.
    pub async fn read_all(&self) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(chunk) = self.read_chunk().await {
            out.extend_from_slice(&chunk);
        }
        out
    }

    /// The next bytes (consumed), or None at the end.
    pub async fn read_chunk(&self) -> Option<Vec<u8>> {
        {
            let mut src = self.src.borrow_mut();
            match &mut *src {
                InSrc::Empty | InSrc::Directory => return None,
                InSrc::Bytes { data, pos } => {
                    if *pos >= data.len() {
                        return None;
                    }
                    let end = (*pos + FEED_CHUNK).min(data.len());
                    let chunk = data[*pos..end].to_vec();
                    *pos = end;
                    return Some(chunk);
                }
                InSrc::Stream { buf, eof, .. } => {
                    if !buf.is_empty() {
                        return Some(std::mem::take(buf));
                    }
                    if *eof {
                        return None;
                    }
                }
            }
        }
        if !self.fill().await {
            return None;
        }
        match &mut *self.src.borrow_mut() {
            InSrc::Stream { buf, .. } if !buf.is_empty() => Some(std::mem::take(buf)),
            _ => None,
        }
    }

    /// Moves bytes from `buf`/`data` into `out` up to the delimiter.
    fn scan(&self, out: &mut Vec<u8>, delim: Option<u8>, max: Option<usize>) -> Scan {
        let mut src = self.src.borrow_mut();
        match &mut *src {
            InSrc::Empty | InSrc::Directory => Scan::End,
            InSrc::Bytes { data, pos } => {
                let rest = data.get(*pos..).unwrap_or_default();
                let (n, stop) = take_until(rest, out, delim, max);
                *pos += n;
                match stop {
                    Some(delimited) => Scan::Done(delimited),
                    None => Scan::End,
                }
            }
            InSrc::Stream { buf, eof, .. } => {
                let (n, stop) = take_until(buf, out, delim, max);
                buf.drain(..n);
                match (stop, *eof) {
                    (Some(delimited), _) => Scan::Done(delimited),
                    (None, true) => Scan::End,
                    (None, false) => Scan::More,
                }
            }
        }
    }

    /// Reads one more chunk from the stream into `buf`; false at the end.
    async fn fill(&self) -> bool {
        let taken = poll_fn(|_| {
            let mut src = self.src.borrow_mut();
            match &mut *src {
                InSrc::Stream { input, eof, .. } => {
                    if *eof {
                        return Poll::Ready(None);
                    }
                    match input.take() {
                        Some(input) => Poll::Ready(Some(input)),
                        None => Poll::Pending,
                    }
                }
                _ => Poll::Ready(None),
            }
        })
        .await;
        let Some(input) = taken else {
            return false;
        };
        let mut guard = Lent {
            handle: self,
            input: Some(input),
        };
        let chunk = match guard.input.as_mut() {
            Some(input) => input.read_chunk().await,
            None => None,
        };
        drop(guard);
        let mut src = self.src.borrow_mut();
        match (&mut *src, chunk) {
            (InSrc::Stream { buf, .. }, Some(chunk)) => {
                buf.extend_from_slice(&chunk);
                true
            }
            (InSrc::Stream { eof, .. }, None) => {
                *eof = true;
                false
            }
            _ => false,
        }
    }

    fn put_back(&self, returned: Input) {
        if let InSrc::Stream { input, .. } = &mut *self.src.borrow_mut() {
            *input = Some(returned);
        }
        progress();
    }

    /// The input as an applet's own `Input`, when nothing else holds this handle; `Err` with
    /// the handle back otherwise (or when read-ahead bytes must go first).
    fn into_input(self: Rc<Self>) -> Result<Input, Rc<InHandle>> {
        let handle = Rc::try_unwrap(self)?;
        match handle.src.into_inner() {
            InSrc::Empty | InSrc::Directory => Ok(Input::empty()),
            InSrc::Bytes { data, pos: 0 } => Ok(Input::bytes(data)),
            InSrc::Bytes { data, pos } => Ok(Input::bytes(Rc::new(
                data.get(pos..).unwrap_or_default().to_vec(),
            ))),
            InSrc::Stream {
                input: Some(input),
                buf,
                eof: false,
            } if buf.is_empty() => Ok(input),
            InSrc::Stream { eof: true, buf, .. } if buf.is_empty() => Ok(Input::empty()),
            src => Err(Rc::new(InHandle {
                src: RefCell::new(src),
            })),
        }
    }
}

enum Scan {
    /// Stopped at the delimiter (true) or at the character limit (false).
    Done(bool),
    /// The input is over.
    End,
    /// Need more bytes.
    More,
}

/// Appends `src` up to the delimiter to `out`; returns the bytes consumed and, if it
/// stopped, whether at the delimiter.
fn take_until(
    src: &[u8],
    out: &mut Vec<u8>,
    delim: Option<u8>,
    max: Option<usize>,
) -> (usize, Option<bool>) {
    let mut i = 0;
    while i < src.len() {
        let b = src[i];
        let starts_char = (b & 0xC0) != 0x80;
        if let Some(max) = max {
            if starts_char && char_count(out) >= max {
                return (i, Some(false));
            }
        }
        i += 1;
        if Some(b) == delim {
            return (i, Some(true));
        }
        out.push(b);
    }
    (i, None)
}

/// Characters in `bytes` so far (UTF-8 continuation bytes do not count), so `read -n` counts
/// characters.
fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

/// An `Input` lent out of a handle; returned when dropped.
struct Lent<'a> {
    handle: &'a InHandle,
    input: Option<Input>,
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        if let Some(input) = self.input.take() {
            self.handle.put_back(input);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Descriptor tables

/// A `>(...)` process substitution waiting for the command it was written for: when that
/// command has ended, `program` runs with what was written to `path` as its standard input.
#[derive(Clone)]
pub struct PendingOutput {
    /// The temporary file the command wrote to.
    pub path: String,
    /// The commands inside `>(...)`.
    pub program: Rc<crate::shell::ast::Program>,
    /// Their descriptors (stdout and stderr as where the substitution was written).
    pub fds: Fds,
}

/// What a descriptor refers to.
#[derive(Clone)]
pub enum Fd {
    /// Readable.
    In(Rc<InHandle>),
    /// Writable.
    Out(Rc<OutHandle>),
    /// Readable and writable (`<>`): reads from the file as opened, writes to its end.
    Both(Rc<InHandle>, Rc<OutHandle>),
}

impl Fd {
    /// The descriptor as a reader's: None when it is only writable.
    fn into_in(self) -> Option<Rc<InHandle>> {
        match self {
            Fd::In(h) | Fd::Both(h, _) => Some(h),
            Fd::Out(_) => None,
        }
    }

    /// The descriptor as a writer's: None when it is only readable.
    fn into_out(self) -> Option<Rc<OutHandle>> {
        match self {
            Fd::Out(h) | Fd::Both(_, h) => Some(h),
            Fd::In(_) => None,
        }
    }
}

/// Whether two descriptors refer to the same handle (or are both closed).
pub fn same_fd(a: Option<&Fd>, b: Option<&Fd>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(Fd::In(a)), Some(Fd::In(b))) => Rc::ptr_eq(a, b),
        (Some(Fd::Out(a)), Some(Fd::Out(b))) => Rc::ptr_eq(a, b),
        (Some(Fd::Both(a, _)), Some(Fd::Both(b, _))) => Rc::ptr_eq(a, b),
        _ => false,
    }
}

/// A command's descriptor table. Cloning shares the handles.
#[derive(Clone, Default)]
pub struct Fds {
    slots: Vec<Option<Fd>>,
    /// The newest kept descriptor (see [`super::state::State::kept_fds`]) the table holds.
    pub synced: u64,
}

impl Fds {
    /// A table with stdin, stdout and stderr.
    pub fn new(stdin: Rc<InHandle>, stdout: Rc<OutHandle>, stderr: Rc<OutHandle>) -> Fds {
        Fds {
            slots: vec![
                Some(Fd::In(stdin)),
                Some(Fd::Out(stdout)),
                Some(Fd::Out(stderr)),
            ],
            synced: 0,
        }
    }

    /// What `fd` refers to.
    pub fn get(&self, fd: u32) -> Option<&Fd> {
        self.slots.get(fd as usize).and_then(Option::as_ref)
    }

    /// Points `fd` at `to` (None closes it).
    pub fn set(&mut self, fd: u32, to: Option<Fd>) {
        let at = fd as usize;
        if self.slots.len() <= at {
            self.slots.resize(at + 1, None);
        }
        self.slots[at] = to;
    }

    /// One more than the highest descriptor the table has held.
    pub fn extent(&self) -> u32 {
        self.slots.len() as u32
    }

    /// Takes `fd` out of the table (the table no longer holds it).
    pub fn take(&mut self, fd: u32) -> Option<Fd> {
        self.slots.get_mut(fd as usize).and_then(Option::take)
    }

    /// The writable handle of `fd`.
    pub fn out(&self, fd: u32) -> Option<&Rc<OutHandle>> {
        match self.get(fd) {
            Some(Fd::Out(h) | Fd::Both(_, h)) => Some(h),
            _ => None,
        }
    }

    /// The readable handle of `fd`.
    pub fn input(&self, fd: u32) -> Option<&Rc<InHandle>> {
        match self.get(fd) {
            Some(Fd::In(h) | Fd::Both(h, _)) => Some(h),
            _ => None,
        }
    }

    /// Writes to `fd`.
    pub async fn write(&self, fd: u32, data: &[u8]) -> Result<(), WriteError> {
        match self.out(fd) {
            Some(handle) => handle.write(data).await,
            None => Err(WriteError::Refused("Bad file descriptor".into())),
        }
    }

    /// Writes to stderr, ignoring failures.
    pub async fn eprint(&self, text: &str) {
        let _ = self.write(2, text.as_bytes()).await;
    }

    /// Whether a write to stdout or stderr found its reader gone.
    pub fn broken(&self) -> bool {
        self.out(1).is_some_and(|h| h.broken.get())
    }
}

// ---------------------------------------------------------------------------------------
// Handing descriptors to applets

/// An applet's three streams, and the tasks that connect them to shared handles.
pub struct AppletIo {
    /// Its stdin.
    pub stdin: Input,
    /// Its stdout.
    pub stdout: Output,
    /// Its stderr.
    pub stderr: Output,
    feeder: Option<Feeder>,
    pumps: Vec<LocalFuture<'static, ()>>,
}

struct Feeder {
    handle: Rc<InHandle>,
    writer: crate::task::PipeWriter,
    /// Start at once (the handle is ours alone), not only after the first poll.
    eager: bool,
}

/// Builds an applet's streams from the descriptor table (consumed, so handles only it holds
/// are moved in directly).
/// `raw`: the applet's arguments carry raw bytes (see [`crate::shell::bytes`]), so its output
/// goes through a pump that writes them back as bytes.
pub fn applet_io(mut fds: Fds, name: &str, deadline: &Rc<Deadline>, raw: bool) -> AppletIo {
    let (stdin, feeder) = match fds.take(0).and_then(Fd::into_in) {
        Some(handle) => stdin_for(handle, name),
        None => (Input::empty(), None),
    };
    let mut pumps: Vec<LocalFuture<'static, ()>> = Vec::new();
    let outputs = (
        fds.take(1).and_then(Fd::into_out),
        fds.take(2).and_then(Fd::into_out),
    );
    let (stdout, stderr) = match outputs {
        // `2>&1` to a shared handle: one pipe with two write ends and one pump, so stdout and
        // stderr arrive in the order the applet wrote them. (A file takes both directly.)
        (Some(out), Some(err)) if Rc::ptr_eq(&out, &err) && out.direct_file().is_none() => {
            let (reader, writer) = pipe();
            pumps.push(Box::pin(pump(reader, out, Rc::clone(deadline), raw)));
            (
                Output::new(Sink::Pipe(writer.share())),
                Output::new(Sink::Pipe(writer)),
            )
        }
        (out, err) => (
            output_for(out, deadline, &mut pumps, raw),
            output_for(err, deadline, &mut pumps, raw),
        ),
    };
    AppletIo {
        stdin,
        stdout,
        stderr,
        feeder,
        pumps,
    }
}

fn stdin_for(handle: Rc<InHandle>, name: &str) -> (Input, Option<Feeder>) {
    let shared = Rc::strong_count(&handle) > 1;
    if shared && never_reads_stdin(name) {
        return (Input::empty(), None);
    }
    match handle.into_input() {
        Ok(input) => (input, None),
        Err(handle) => {
            let (reader, writer) = pipe();
            let eager = Rc::strong_count(&handle) == 1;
            (
                Input::pipe(reader),
                Some(Feeder {
                    handle,
                    writer,
                    eager,
                }),
            )
        }
    }
}

fn output_for(
    fd: Option<Rc<OutHandle>>,
    deadline: &Rc<Deadline>,
    pumps: &mut Vec<LocalFuture<'static, ()>>,
    raw: bool,
) -> Output {
    let Some(handle) = fd else {
        // A closed descriptor: writes fail, as on a real closed fd.
        let (reader, writer) = pipe();
        drop(reader);
        return Output::new(Sink::Pipe(writer));
    };
    let handle = match Rc::try_unwrap(handle) {
        Ok(OutHandle {
            kind: OutKind::Stream(cell),
            ..
        }) if !raw => match cell.into_inner() {
            Some(out) => return out,
            None => return Output::new(Sink::Null),
        },
        Ok(owned) => Rc::new(owned),
        Err(shared) => shared,
    };
    // A file takes the applet's writes directly, so a refused write (a quota) reaches the
    // applet, which reports it and fails, instead of ending a pump that nobody hears from.
    // A runaway writer stops at the quota.
    if let Some(sink) = handle.direct_file().filter(|_| !raw) {
        return Output::new(sink);
    }
    let (reader, writer) = pipe();
    pumps.push(Box::pin(pump(reader, handle, Rc::clone(deadline), raw)));
    Output::new(Sink::Pipe(writer))
}

/// Copies what an applet writes into a shared handle (with `raw`, its raw-byte carriers as
/// the bytes); stops (closing the pipe, so the applet's next write fails) at the deadline, at
/// a write error, or at the capture cap.
async fn pump(mut reader: PipeReader, handle: Rc<OutHandle>, deadline: Rc<Deadline>, raw: bool) {
    // Direct sinks take the bytes synchronously; others go through the handle's lock.
    let direct = handle.direct_sink().map(Output::new);
    let mut direct = direct;
    while let Some(chunk) = reader.read_chunk().await {
        if deadline.expired() {
            return;
        }
        let chunk = match raw {
            true => crate::shell::bytes::encode(&chunk),
            false => std::borrow::Cow::Borrowed(chunk.as_slice()),
        };
        let ok = match direct.as_mut() {
            Some(out) => {
                let written = out.write(&chunk).await;
                written.is_ok() && out.flush().await.is_ok()
            }
            None => handle.write_bytes(&chunk).await.is_ok(),
        };
        if !ok {
            return;
        }
    }
}

/// Feeds a shared input into an applet's pipe, chunk by chunk, until either ends.
async fn feed(feeder: Feeder) {
    let Feeder {
        handle, mut writer, ..
    } = feeder;
    while let Some(chunk) = handle.read_chunk().await {
        if writer.write(&chunk).await.is_err() {
            return;
        }
    }
}

/// The tasks split off an [`AppletIo`] once its streams are moved into the applet's context.
pub struct AppletTasks {
    feeder: Option<Feeder>,
    pumps: Vec<LocalFuture<'static, ()>>,
}

impl AppletIo {
    /// Splits the streams from the tasks that serve them.
    pub fn split(self) -> (Input, Output, Output, AppletTasks) {
        (
            self.stdin,
            self.stdout,
            self.stderr,
            AppletTasks {
                feeder: self.feeder,
                pumps: self.pumps,
            },
        )
    }
}

/// Runs an applet future with its feeder and pumps: the feeder starts only if the applet did
/// not finish on its first poll (or at once when the input is the applet's alone), and is
/// dropped as soon as the applet ends; the pumps run until the applet's outputs close.
pub async fn drive(applet: LocalFuture<'static, i32>, tasks: AppletTasks) -> i32 {
    Drive {
        applet: Some(applet),
        status: None,
        feeder: tasks.feeder.map(FeedState::Waiting),
        pumps: tasks.pumps.into_iter().map(Some).collect(),
    }
    .await
}

enum FeedState {
    Waiting(Feeder),
    Running(LocalFuture<'static, ()>),
}

struct Drive {
    applet: Option<LocalFuture<'static, i32>>,
    status: Option<i32>,
    feeder: Option<FeedState>,
    pumps: Vec<Option<LocalFuture<'static, ()>>>,
}

impl Drive {
    /// Starts the feeder if it is waiting (and, unless `always`, only if it is eager).
    fn start_feeder(&mut self, always: bool) {
        if let Some(FeedState::Waiting(feeder)) = &self.feeder {
            if always || feeder.eager {
                if let Some(FeedState::Waiting(feeder)) = self.feeder.take() {
                    self.feeder = Some(FeedState::Running(Box::pin(feed(feeder))));
                }
            }
        }
    }
}

impl Future for Drive {
    type Output = i32;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<i32> {
        let this = &mut *self;
        this.start_feeder(false);
        if let Some(applet) = this.applet.as_mut() {
            if let Poll::Ready(status) = applet.as_mut().poll(cx) {
                this.status = Some(status);
                this.applet = None;
                // The applet is done with its stdin: stop feeding, leave the rest unread.
                this.feeder = None;
                progress();
            }
        }
        if this.applet.is_some() {
            this.start_feeder(true);
            if let Some(FeedState::Running(task)) = this.feeder.as_mut() {
                if task.as_mut().poll(cx).is_ready() {
                    this.feeder = None;
                }
            }
        }
        for slot in this.pumps.iter_mut() {
            if let Some(task) = slot.as_mut() {
                if task.as_mut().poll(cx).is_ready() {
                    *slot = None;
                    progress();
                }
            }
        }
        match this.status {
            Some(status) if this.pumps.iter().all(Option::is_none) => Poll::Ready(status),
            _ => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task::run_until_stalled;

    fn ready<T>(future: impl std::future::Future<Output = T> + 'static) -> Option<T> {
        let mut boxed: LocalFuture<'static, T> = Box::pin(future);
        match run_until_stalled(&mut boxed) {
            Poll::Ready(v) => Some(v),
            Poll::Pending => None,
        }
    }

    #[test]
    fn lines_and_delimiters_from_bytes() {
        let h = InHandle::bytes(Rc::new(b"ab\ncd;e".to_vec()));
        let h2 = Rc::clone(&h);
        let got = ready(async move {
            let a = h2.read_until(Some(b'\n'), None).await;
            let b = h2.read_until(Some(b';'), None).await;
            let c = h2.read_until(Some(b'\n'), None).await;
            let d = h2.read_until(Some(b'\n'), None).await;
            (a, b, c, d)
        });
        let chunk = |s: &str, delimited| {
            Ok(Some(Chunk {
                bytes: s.as_bytes().to_vec(),
                delimited,
            }))
        };
        assert_eq!(
            got,
            Some((
                chunk("ab", true),
                chunk("cd", true),
                chunk("e", false),
                Ok(None)
            ))
        );
        drop(h);
    }

    #[test]
    fn lines_from_a_stream_and_character_limits() {
        let (reader, mut writer) = pipe();
        let h = InHandle::pipe(reader);
        let got = ready(async move {
            let _ = writer.write("héllo\nx".as_bytes()).await;
            drop(writer);
            let a = h.read_until(Some(b'\n'), Some(2)).await;
            let b = h.read_until(Some(b'\n'), None).await;
            let c = h.read_all().await;
            (a, b, c)
        });
        let chunk = |s: &str, delimited| {
            Ok(Some(Chunk {
                bytes: s.as_bytes().to_vec(),
                delimited,
            }))
        };
        assert_eq!(
            got,
            Some((chunk("hé", false), chunk("llo", true), b"x".to_vec()))
        );
    }
}
