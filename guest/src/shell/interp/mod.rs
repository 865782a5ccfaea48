//! The shell interpreter: word expansion and execution of the parsed [`ast`](super::ast), on
//! the async task system (pipeline stages run concurrently through bounded pipes), the
//! applets and the VFS.
//!
//! Inside, in dependency order: `state` (variables, functions, options) → `io` (descriptor
//! tables, applet streams) → `expand` (words to fields) → `exec` (lists, pipelines, commands,
//! redirections, `[[ ]]`) → the builtins in [`super::builtins`]. `persist` saves and restores
//! a session; `unparse` prints functions back as source.
//!
//! Control flow is data: every command resolves to a [`Flow`] (`Normal`, `Break`, `Continue`,
//! `Return`, `Exit`), never to an error.
//!
//! Where it differs from bash, on purpose (each is tested):
//! - `cmd &` runs `cmd` concurrently in a copy of the shell (see [`jobs`]); a script's run
//!   ends once its background jobs have ended too (`bash -c` would leave them running).
//! - The whole script is parsed before anything runs: a syntax error anywhere runs nothing.
//! - Fatal expansion errors (`set -u`, `${x?}`) end the script with status 1, as a bash
//!   script file does (`bash -c` says 127). Errors bash "discards" the line for (a readonly
//!   assignment, bad arithmetic, a bad substitution) end the rest of the line being run and
//!   the shell goes on, as in bash (see `State::discarding`).
//! - `trap` runs `EXIT`, `ERR` and `DEBUG` traps (inside functions and subshells under
//!   `set -E` / `set -T`, as in bash); no signal ever arrives; `extglob` is checked a line
//!   at a time (inside `$(...)` it is always on);
//!   strings are UTF-8 (`${#x}` counts characters, as bash does in a UTF-8 locale).
//! - Applets that read a *shared* standard input (a loop's, a group's) get it only if they do
//!   not finish on their first poll, so `while read l; do echo "$l"; done < f` never loses
//!   lines to `echo`; an applet that reads part of a shared input consumes the chunk it got
//!   (GNU `head` would seek back on a regular file).
//! - Nesting is bounded ([`crate::limits::MAX_COMMAND_DEPTH`]): about 100 levels of trivial recursion, fewer
//!   for functions with deeper bodies, because nested futures nest calls on the WebAssembly
//!   stack; the error is `f: maximum function nesting level exceeded (N)`.

pub(crate) mod assoc;
pub(crate) mod exec;
pub(crate) mod expand;
pub(crate) mod io;
pub(crate) mod jobs;
pub(crate) mod path;
mod persist;
pub(crate) mod quote;
mod regex;
pub(crate) mod state;
pub(crate) mod unparse;

#[cfg(test)]
mod tests;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::applets::Host;
use crate::limits::MAX_CAPTURE;
use crate::output;
use crate::task::{Deadline, Input, LocalFuture};
use crate::vfs::Vfs;
use io::{Fds, InHandle, OutHandle, OutKind};
use state::State;

/// How a command ended: its status, or a jump (`break`, `continue`, `return`, `exit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Finished with this status.
    Normal(i32),
    /// `break N`: leave N enclosing loops, with this status (1 after `break 0`).
    Break(u32, i32),
    /// `continue N`: next iteration of the Nth enclosing loop.
    Continue(u32),
    /// `return N` from a function (or a sourced file).
    Return(i32),
    /// `exit N`, a fatal error, or the deadline (124): stop the shell (or subshell).
    Exit(i32),
}

impl Flow {
    /// The status this flow carries (0 for `continue`).
    pub fn status(self) -> i32 {
        match self {
            Flow::Normal(s) | Flow::Return(s) | Flow::Exit(s) | Flow::Break(_, s) => s,
            Flow::Continue(_) => 0,
        }
    }
}

/// The status an execution ends with when the deadline passes.
pub const TIMEOUT_STATUS: i32 = 124;

/// What every shell of a session shares: the filesystem, the host, the execution's output
/// and deadline.
pub(crate) struct World {
    pub vfs: Rc<RefCell<Vfs>>,
    pub host: Rc<dyn Host>,
    pub output: Rc<RefCell<output::Output>>,
    pub deadline: Rc<Deadline>,
    /// Temporary files of process substitutions, removed after their command.
    pub temp_files: RefCell<Vec<String>>,
    temp_counter: Cell<u64>,
}

impl World {
    /// Whether the execution is out of time.
    pub fn deadline_hit(&self) -> bool {
        self.deadline.expired()
    }

    /// A fresh path under `/tmp`.
    pub fn temp_path(&self, what: &str) -> String {
        let n = self.temp_counter.get() + 1;
        self.temp_counter.set(n);
        format!("/tmp/.corral-{what}-{n}")
    }

    /// Removes temporary files made for a command.
    pub fn clean_temp_files(&self) {
        let files = std::mem::take(&mut *self.temp_files.borrow_mut());
        for f in files {
            let _ = self.vfs.borrow_mut().remove_file("/", &f);
        }
    }
}

/// One shell: its state (the session's, or a subshell's copy) and the shared world.
#[derive(Clone)]
pub(crate) struct Sh {
    pub state: Rc<RefCell<State>>,
    pub world: Rc<World>,
    /// The background jobs of the current run (shared with its subshells).
    pub jobs: Rc<jobs::Jobs>,
}

impl Sh {
    /// A copy of this shell for a subshell: `( )`, pipeline stages, substitutions.
    pub fn subshell(&self) -> Result<Sh, String> {
        let mut copy = self.state.borrow().clone();
        copy.depth += 1;
        copy.subshell += 1;
        if copy.depth > crate::limits::MAX_COMMAND_DEPTH {
            return Err(format!(
                "maximum nesting level exceeded ({}): subshells and substitutions nest too deeply",
                crate::limits::MAX_COMMAND_DEPTH
            ));
        }
        Ok(Sh {
            state: Rc::new(RefCell::new(copy)),
            world: Rc::clone(&self.world),
            jobs: Rc::clone(&self.jobs),
        })
    }

    /// The name error messages start with: the file being sourced, else `$0`.
    pub fn script_name(&self) -> String {
        let s = self.state.borrow();
        s.sourcing.last().cloned().unwrap_or_else(|| s.arg0.clone())
    }

    /// Prints a `set -x` trace line (when tracing is on).
    pub async fn trace_line(&self, fds: &Fds, text: &str) {
        let ps4 = {
            let s = self.state.borrow();
            if !s.opts.xtrace {
                return;
            }
            s.get("PS4").unwrap_or_else(|| "+ ".into())
        };
        // PS4 is expanded as a prompt (`$LINENO`, `\\u`...), without tracing that expansion.
        let ps4 = if ps4.contains(['$', '\\', '`']) {
            self.state.borrow_mut().opts.xtrace = false;
            let expanded = self.expand_prompt_string(&ps4, fds).await;
            self.state.borrow_mut().opts.xtrace = true;
            expanded
        } else {
            ps4
        };
        let line = {
            let s = self.state.borrow();
            let mut chars = ps4.chars();
            let first = chars.next().map(String::from).unwrap_or_default();
            format!(
                "{}{}{text}\n",
                first.repeat(s.xtrace_level + 1),
                chars.as_str()
            )
        };
        // `BASH_XTRACEFD=N` sends the trace to descriptor N while it is open.
        let fd = self.state.borrow().get("BASH_XTRACEFD");
        let fd = fd.and_then(|fd| fd.trim().parse().ok());
        let fd = fd.filter(|&fd| fds.out(fd).is_some()).unwrap_or(2);
        let _ = fds.write(fd, line.as_bytes()).await;
    }

    /// `bash: line N: ` for error messages.
    pub fn prefix(&self) -> String {
        let line = self.state.borrow().line.max(1);
        format!("{}: line {line}: ", self.script_name())
    }

    /// Prints `bash: line N: message` on the table's stderr.
    pub async fn report(&self, fds: &Fds, message: &str) {
        let line = format!("{}{message}\n", self.prefix());
        fds.eprint(&line).await;
    }
}

/// The interpreter's public face: one session (variables, functions, options, cwd persist
/// across [`Shell::run`] calls). Cheap to clone.
#[derive(Clone)]
pub struct Shell {
    sh: Sh,
    /// Set by every run (see [`Shell::take_ran`]); shared by the clones.
    ran: Rc<Cell<bool>>,
    /// What the last save wrote, reused by the next (see [`persist::Cache`]).
    saved: Rc<RefCell<persist::Cache>>,
}

impl Shell {
    /// A session over the sandbox's filesystem, host, execution output and deadline.
    pub fn new(
        vfs: Rc<RefCell<Vfs>>,
        host: Rc<dyn Host>,
        output: Rc<RefCell<output::Output>>,
        deadline: Rc<Deadline>,
    ) -> Shell {
        let clock_host = Rc::clone(&host);
        let clock: Rc<dyn Fn() -> f64> = Rc::new(move || clock_host.now_ms());
        let world = World {
            vfs,
            host,
            output,
            deadline,
            temp_files: RefCell::new(Vec::new()),
            temp_counter: Cell::new(0),
        };
        Shell {
            sh: Sh {
                state: Rc::new(RefCell::new(State::new(clock))),
                world: Rc::new(world),
                jobs: Rc::default(),
            },
            ran: Rc::default(),
            saved: Rc::default(),
        }
    }

    /// Parses and runs `script` as one execution: stdin from `stdin`, stdout and stderr to
    /// the execution's output. Resolves to the exit status (2 for a syntax error, 124 when
    /// the deadline passed).
    pub fn run(&self, script: &str, stdin: Input) -> LocalFuture<'static, i32> {
        let out = Rc::clone(&self.sh.world.output);
        let fds = Fds::new(
            InHandle::stream(stdin),
            OutHandle::new(OutKind::Std(Rc::clone(&out), 1)),
            OutHandle::new(OutKind::Std(out, 2)),
        );
        self.run_with(script.to_string(), fds)
    }

    /// Like [`Shell::run`], but captures stdout and stderr (for JavaScript's `shell()`).
    pub fn capture(
        &self,
        script: &str,
        stdin: Input,
    ) -> LocalFuture<'static, (i32, Vec<u8>, Vec<u8>)> {
        let out = Rc::new(RefCell::new(Vec::new()));
        let err = Rc::new(RefCell::new(Vec::new()));
        let stdout = OutHandle::new(OutKind::Buffer(Rc::clone(&out)));
        let fds = Fds::new(
            InHandle::stream(stdin),
            Rc::clone(&stdout),
            OutHandle::new(OutKind::Buffer(Rc::clone(&err))),
        );
        let run = self.run_with(script.to_string(), fds);
        Box::pin(async move {
            let status = run.await;
            let take = |b: &Rc<RefCell<Vec<u8>>>| std::mem::take(&mut *b.borrow_mut());
            let mut stderr = take(&err);
            if stdout.overflowed.get() {
                // The writer only saw a refused write: say why, and what to do instead.
                stderr.extend_from_slice(capture_overflow_message().as_bytes());
            }
            (status, take(&out), stderr)
        })
    }

    /// Runs `script` with a job table of its own; ends when the script and its jobs have.
    fn run_with(&self, script: String, fds: Fds) -> LocalFuture<'static, i32> {
        self.ran.set(true);
        // A run that was cut short (a timeout) may have left substitutions waiting; the
        // descriptors a run kept open (`exec 3>f`) end with it.
        let mut state = self.sh.state.borrow_mut();
        state.pending_outputs.clear();
        state.kept_fds.clear();
        let depth = state.depth;
        drop(state);
        let jobs = Rc::new(jobs::Jobs::new(fds.input(0).cloned(), depth));
        let sh = Sh {
            jobs: Rc::clone(&jobs),
            ..self.sh.clone()
        };
        let run = Box::pin(async move {
            let status = sh.run_script_text(&script, fds).await;
            // The kept descriptors close before the jobs are waited for, so a `coproc`
            // reading from the shell sees the end of its input.
            sh.state.borrow_mut().kept_fds.clear();
            // The shell's umask is for the commands it runs, not the host's or JavaScript's
            // writes.
            sh.world.vfs.borrow_mut().set_umask(0o022);
            status
        });
        Box::pin(jobs::with_jobs(run, jobs))
    }

    /// A new seed for `$RANDOM` and a new start time for `$SECONDS` (a sandbox's own, given
    /// when it starts: see [`crate::corral_reseed`]).
    pub fn reseed(&self, random: u64, now_ms: f64) {
        let mut state = self.sh.state.borrow_mut();
        state.random.set(random);
        state.start_ms = now_ms;
    }

    /// Forgets variables, functions and options; the working directory goes back to
    /// `/workspace`.
    pub fn reset(&self) {
        self.sh.state.borrow_mut().reset();
    }

    /// The session as bytes: cwd, variables (arrays, attributes), functions (as source
    /// text), options, positional parameters.
    pub fn save_state(&self) -> Vec<u8> {
        persist::save(&self.sh.state.borrow())
    }

    /// Appends the session, as [`Shell::save_state`] has it, to `writer`'s blob without an
    /// intermediate copy; returns its range.
    pub fn save_state_to(
        &self,
        writer: &mut crate::protocol::FrameWriter,
    ) -> crate::protocol::Range {
        persist::save_to(
            &self.sh.state.borrow(),
            &mut self.saved.borrow_mut(),
            writer,
        )
    }

    /// Saves the session at the end of an execution, as [`Shell::save_state_to`] does, after
    /// bounding it (see [`persist::save_bounded_to`]); returns its range and the message naming what was
    /// dropped.
    pub fn save_bounded_to(
        &self,
        writer: &mut crate::protocol::FrameWriter,
    ) -> (crate::protocol::Range, Option<String>) {
        let mut state = self.sh.state.borrow_mut();
        persist::save_bounded_to(&mut state, &mut self.saved.borrow_mut(), writer)
    }

    /// Whether shell code ran (a script, or JavaScript's `shell()`) since the last time this
    /// was asked: only then can the session have changed.
    pub fn take_ran(&self) -> bool {
        self.ran.replace(false)
    }

    /// Restores a session saved by [`Shell::save_state`]; garbage is rejected, the session
    /// then unchanged.
    pub fn restore_state(&self, bytes: &[u8]) -> Result<(), String> {
        let mut state = self.sh.state.borrow_mut();
        persist::restore(&mut state, bytes)
    }

    /// Whether `name` is a builtin or a function of the session.
    pub fn is_command(&self, name: &str) -> bool {
        super::builtins::lookup(name).is_some() || self.sh.state.borrow().funcs.contains_key(name)
    }

    /// The session's working directory.
    pub fn cwd(&self) -> String {
        self.sh.state.borrow().cwd.clone()
    }
}

/// What a captured command's stderr gets when its output outgrew [`MAX_CAPTURE`].
fn capture_overflow_message() -> String {
    format!(
        "shell: the output passed {MAX_CAPTURE} bytes, the most one capture holds; write it to \
         a file (cmd > /tmp/out.txt) and read that with fs.readFile\n"
    )
}
