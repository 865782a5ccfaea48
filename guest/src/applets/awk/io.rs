//! Awk's files: standard streams, `print > file` / `>> file` into the VFS (buffered, opened
//! once until `close`), `getline < file` readers, and commands run with `sh -c` through the
//! host: `system(cmd)`, `cmd | getline` (the command runs to completion and its output is
//! read from a buffer), and `print | cmd` (what is printed is collected and the command runs
//! with it as input at `close(cmd)` or at exit, its output after what awk printed before).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use super::code::Dest;
use super::record::{Reader, RecSep};
use crate::applets::common::{run_forwarded, Child};
use crate::applets::Commands;
use crate::task::{Input, Output, Sink, WriteError};
use crate::vfs::{Errno, Vfs};

/// Bytes buffered per output file before they are appended to the VFS.
const FILE_BUFFER: usize = 64 * 1024;

/// Bytes `print | cmd` may collect for one command before it is closed.
const PIPE_LIMIT: usize = 64 << 20;

/// Why an output operation stopped the program.
#[derive(Debug)]
pub enum IoStop {
    /// Standard output's reader is gone (SIGPIPE).
    BrokenPipe,
    /// A fatal error with gawk's message.
    Fatal(String),
}

struct OutFile {
    path: String,
    buf: Vec<u8>,
}

/// The open files of a running program.
pub struct Io {
    /// Standard output.
    pub stdout: Output,
    /// Standard error.
    pub stderr: Output,
    stdin: Option<Input>,
    files: HashMap<Vec<u8>, OutFile>,
    readers: HashMap<Vec<u8>, Reader>,
    /// `cmd | getline`: the command's output and its exit status.
    commands: HashMap<Vec<u8>, (Reader, i32)>,
    /// `print | cmd`: what was printed to each command, in the order they were opened.
    pipes: Vec<(Vec<u8>, Vec<u8>)>,
    vfs: Rc<RefCell<Vfs>>,
    cwd: String,
    shell: Rc<dyn Commands>,
}

/// The special file a name stands for, if any.
#[derive(PartialEq, Eq)]
enum Special {
    Stdout,
    Stderr,
}

fn special(name: &[u8]) -> Option<Special> {
    match name {
        b"/dev/stdout" | b"-" | b"/dev/fd/1" => Some(Special::Stdout),
        b"/dev/stderr" | b"/dev/fd/2" => Some(Special::Stderr),
        _ => None,
    }
}

fn write_error(e: WriteError, what: &str) -> IoStop {
    match e {
        WriteError::BrokenPipe => IoStop::BrokenPipe,
        WriteError::Refused(msg) => IoStop::Fatal(format!("print to \"{what}\" failed ({msg})")),
    }
}

impl Io {
    /// Files over these streams and this filesystem.
    pub fn new(
        stdout: Output,
        stderr: Output,
        stdin: Input,
        vfs: Rc<RefCell<Vfs>>,
        cwd: String,
        shell: Rc<dyn Commands>,
    ) -> Self {
        Io {
            stdout,
            stderr,
            stdin: Some(stdin),
            files: HashMap::new(),
            readers: HashMap::new(),
            commands: HashMap::new(),
            pipes: Vec::new(),
            vfs,
            cwd,
            shell,
        }
    }

    /// Standard input, the first time it is asked for (empty afterwards).
    pub fn take_stdin(&mut self) -> Input {
        self.stdin.take().unwrap_or_else(Input::empty)
    }

    /// Opens a file operand of the main input.
    pub fn open_main(&mut self, name: &str) -> Result<Input, Errno> {
        if name == "-" || name == "/dev/stdin" {
            return Ok(self.take_stdin());
        }
        self.open_file(name)
    }

    fn open_file(&mut self, name: &str) -> Result<Input, Errno> {
        let vfs = self.vfs.borrow();
        if vfs.is_dev_null(&self.cwd, name) {
            return Ok(Input::empty());
        }
        if vfs
            .stat(&self.cwd, name)
            .is_ok_and(|s| s.kind == crate::vfs::FileKind::Dir)
        {
            return Err(Errno::EISDIR);
        }
        let data = vfs.read_shared(&self.cwd, name).map_err(|e| e.code)?;
        Ok(Input::bytes(data))
    }

    /// Writes `data` to standard output.
    pub async fn write_stdout(&mut self, data: &[u8]) -> Result<(), IoStop> {
        self.stdout
            .write(data)
            .await
            .map_err(|e| write_error(e, "standard output"))
    }

    /// Writes `data` to a print destination named `name`.
    pub async fn write(&mut self, dest: Dest, name: &[u8], data: &[u8]) -> Result<(), IoStop> {
        match (dest, special(name)) {
            (Dest::Stdout, _) | (_, Some(Special::Stdout)) if dest != Dest::Pipe => {
                return self.write_stdout(data).await;
            }
            (Dest::Write | Dest::Append, Some(Special::Stderr)) => {
                return self
                    .stderr
                    .write(data)
                    .await
                    .map_err(|e| write_error(e, "/dev/stderr"));
            }
            (Dest::Pipe, _) => return self.collect_for_pipe(name, data),
            _ => {}
        }
        if !self.files.contains_key(name) {
            self.open_output(name, dest == Dest::Append)?;
        }
        let full = match self.files.get_mut(name) {
            Some(file) => {
                file.buf.extend_from_slice(data);
                file.buf.len() >= FILE_BUFFER
            }
            None => false,
        };
        if full {
            self.flush_file(name)?;
        }
        Ok(())
    }

    fn open_output(&mut self, name: &[u8], append: bool) -> Result<(), IoStop> {
        let path = String::from_utf8_lossy(name).into_owned();
        let mut vfs = self.vfs.borrow_mut();
        let opened = if append {
            vfs.append(&self.cwd, &path, b"")
        } else {
            vfs.write(&self.cwd, &path, b"")
        };
        opened.map_err(|e| {
            IoStop::Fatal(format!(
                "cannot redirect to `{path}': {}",
                e.code.description()
            ))
        })?;
        self.files.insert(
            name.to_vec(),
            OutFile {
                path,
                buf: Vec::new(),
            },
        );
        Ok(())
    }

    fn flush_file(&mut self, name: &[u8]) -> Result<(), IoStop> {
        let Some(file) = self.files.get_mut(name) else {
            return Ok(());
        };
        if file.buf.is_empty() {
            return Ok(());
        }
        let data = std::mem::take(&mut file.buf);
        self.vfs
            .borrow_mut()
            .append(&self.cwd, &file.path, &data)
            .map_err(|e| {
                IoStop::Fatal(format!(
                    "print to \"{}\" failed ({})",
                    file.path,
                    e.code.description()
                ))
            })
    }

    /// Flushes every output (`fflush()`, and at exit).
    pub async fn flush_all(&mut self) -> Result<(), IoStop> {
        let names: Vec<Vec<u8>> = self.files.keys().cloned().collect();
        for name in names {
            self.flush_file(&name)?;
        }
        self.stderr
            .flush()
            .await
            .map_err(|e| write_error(e, "/dev/stderr"))?;
        self.stdout
            .flush()
            .await
            .map_err(|e| write_error(e, "standard output"))
    }

    /// Flushes one output by name (`fflush(name)`): 0, or -1 when it is not open.
    pub async fn flush_named(&mut self, name: &[u8]) -> Result<i32, IoStop> {
        match special(name) {
            Some(Special::Stdout) => {
                self.stdout
                    .flush()
                    .await
                    .map_err(|e| write_error(e, "standard output"))?;
                Ok(0)
            }
            Some(Special::Stderr) => {
                self.stderr
                    .flush()
                    .await
                    .map_err(|e| write_error(e, "/dev/stderr"))?;
                Ok(0)
            }
            None if self.files.contains_key(name) => {
                self.flush_file(name)?;
                Ok(0)
            }
            None => Ok(-1),
        }
    }

    /// `close(name)`: 0 when something was open under that name, -1 otherwise.
    pub async fn close(&mut self, name: &[u8]) -> Result<i32, IoStop> {
        let mut found = false;
        if self.files.contains_key(name) {
            self.flush_file(name)?;
            self.files.remove(name);
            found = true;
        }
        if self.readers.remove(name).is_some() {
            found = true;
        }
        if let Some((_, status)) = self.commands.remove(name) {
            return Ok(status);
        }
        if let Some(at) = self.pipes.iter().position(|(cmd, _)| cmd == name) {
            let (cmd, data) = self.pipes.remove(at);
            return self
                .run_command(&cmd, Input::bytes(Rc::new(data)), None)
                .await;
        }
        if !found && special(name).is_some() {
            self.flush_named(name).await?;
            return Ok(0);
        }
        Ok(if found { 0 } else { -1 })
    }

    /// `getline < name`: the next record, Ok(false) at the end, Err when it cannot be opened.
    pub async fn read_record(
        &mut self,
        name: &[u8],
        rs: &RecSep,
        rec: &mut Vec<u8>,
        rt: &mut Vec<u8>,
    ) -> Result<bool, Errno> {
        if !self.readers.contains_key(name) {
            let path = String::from_utf8_lossy(name).into_owned();
            // Written data must be visible to a reader of the same file.
            self.flush_file(name).map_err(|_| Errno::ENOSPC)?;
            let input = if path == "-" || path == "/dev/stdin" {
                self.take_stdin()
            } else {
                self.open_file(&path)?
            };
            self.readers.insert(name.to_vec(), Reader::new(input));
        }
        match self.readers.get_mut(name) {
            Some(reader) => Ok(reader.next(rs, rec, rt).await),
            None => Ok(false),
        }
    }

    fn collect_for_pipe(&mut self, cmd: &[u8], data: &[u8]) -> Result<(), IoStop> {
        let at = match self.pipes.iter().position(|(c, _)| c == cmd) {
            Some(at) => at,
            None => {
                self.pipes.push((cmd.to_vec(), Vec::new()));
                self.pipes.len() - 1
            }
        };
        let collected = &mut self.pipes[at].1;
        if collected.len() + data.len() > PIPE_LIMIT {
            return Err(IoStop::Fatal(format!(
                "print to \"{}\" failed (more than 64 MiB before close)",
                String::from_utf8_lossy(cmd)
            )));
        }
        collected.extend_from_slice(data);
        Ok(())
    }

    /// `system(cmd)`: everything written so far is flushed first; resolves to the status.
    pub async fn system(&mut self, cmd: &[u8]) -> Result<i32, IoStop> {
        self.run_command(cmd, Input::empty(), None).await
    }

    /// `cmd | getline`: the next record of the command's output (run at the first call).
    pub async fn read_command(
        &mut self,
        cmd: &[u8],
        rs: &RecSep,
        rec: &mut Vec<u8>,
        rt: &mut Vec<u8>,
    ) -> Result<bool, IoStop> {
        if !self.commands.contains_key(cmd) {
            let buffer = Rc::new(RefCell::new(Vec::new()));
            let mut out = Output::new(Sink::Buffer(Rc::clone(&buffer)));
            let status = self
                .run_command(cmd, Input::empty(), Some(&mut out))
                .await?;
            drop(out);
            let output = std::mem::take(&mut *buffer.borrow_mut());
            let reader = Reader::new(Input::bytes(Rc::new(output)));
            self.commands.insert(cmd.to_vec(), (reader, status));
        }
        match self.commands.get_mut(cmd) {
            Some((reader, _)) => Ok(reader.next(rs, rec, rt).await),
            None => Ok(false),
        }
    }

    /// Runs the commands still open for `print | cmd`, then flushes everything (at exit).
    pub async fn finish(&mut self) -> Result<(), IoStop> {
        for (cmd, data) in std::mem::take(&mut self.pipes) {
            self.run_command(&cmd, Input::bytes(Rc::new(data)), None)
                .await?;
        }
        self.flush_all().await
    }

    /// Runs `sh -c cmd` after flushing every output; its stdout goes to `out` (else ours),
    /// its stderr to ours. Resolves to its exit status.
    async fn run_command(
        &mut self,
        cmd: &[u8],
        stdin: Input,
        out: Option<&mut Output>,
    ) -> Result<i32, IoStop> {
        self.flush_all().await?;
        let argv = vec![
            "sh".to_string(),
            "-c".to_string(),
            String::from_utf8_lossy(cmd).into_owned(),
        ];
        let stdout = match out {
            Some(out) => out,
            None => &mut self.stdout,
        };
        run_forwarded(
            &*self.shell,
            Child {
                cwd: &self.cwd,
                env: None,
            },
            argv,
            stdin,
            stdout,
            &mut self.stderr,
        )
        .await
        .map_err(|e| write_error(e, "standard output"))
    }
}
