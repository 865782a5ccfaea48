//! The scheduler: runs the current execution until every task is blocked on the host, then
//! reports all pending host operations at once; `resume` delivers their results by id.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::Duration;

use crate::host::guesthost::GuestHost;
use crate::host::ops::{HostQueue, OpKind, Owner};
use crate::js::{EngineError, JsEngine};
use crate::output::Output;
use crate::protocol::{
    Config, ErrorKind, ExecError, Frame, FrameWriter, HostOp, Job, Outcome, ProtocolError, Range,
    Resume, StepReply, CALL_FROM_JS, CALL_FROM_SHELL, JAVASCRIPT, SHELL, SLEEP,
};
use crate::shell::interp::Shell;
use crate::task::{run_until_stalled_within, Deadline, Input, LocalFuture};
use crate::vfs::{wall_clock, Vfs};

/// A failure of the host's use of the protocol (not of the guest code).
#[derive(Debug)]
pub struct GuestError(pub String);

impl From<ProtocolError> for GuestError {
    fn from(e: ProtocolError) -> Self {
        GuestError(e.to_string())
    }
}

impl From<EngineError> for GuestError {
    fn from(e: EngineError) -> Self {
        GuestError(format!("engine error: {}", e.0))
    }
}

/// What an execution runs.
enum Task {
    /// JavaScript: the prelude tracks the async function's outcome.
    Js,
    /// A shell script: its future resolves to the exit status.
    Shell(LocalFuture<'static, i32>),
    /// A shell script that has finished with this status.
    ShellDone(i32),
}

/// The one execution in flight.
struct Execution {
    task: Task,
    timeout: Duration,
    /// Operations reported to the host and not yet resumed, and who waits for each.
    waiting: BTreeMap<u64, Owner>,
    /// Reported operations nobody waits for any more: their results are dropped.
    abandoned: BTreeSet<u64>,
    /// Set when the execution must end early (timeout, cancel, deadlock).
    abort: Option<ExecError>,
}

/// The whole guest: the filesystem, the engines, and the execution in flight.
pub struct Guest {
    js: JsEngine,
    exec: Option<Execution>,
    /// The sandbox's files, shared by JavaScript, the shell and the host's direct access.
    pub vfs: Rc<RefCell<Vfs>>,
    /// Host operations from JavaScript and the shell.
    queue: Rc<HostQueue>,
    /// The shell session, kept across executions.
    pub shell: Shell,
    /// The running execution's deadline, for shell code.
    deadline: Rc<Deadline>,
}

impl Guest {
    /// Builds the filesystem and the engines from the host's configuration.
    pub fn new(config: &Config) -> Result<Self, GuestError> {
        let output = Rc::new(RefCell::new(Output {
            cap: config.limits.max_output,
            ..Output::default()
        }));
        let cap = config.limits.wasm_memory();
        crate::task::set_memory_cap(usize::try_from(cap).unwrap_or(usize::MAX));
        let mut files = Vfs::new(config.limits.vfs, wall_clock());
        for (path, text) in &config.files {
            files
                .add_system_file(path, text.clone().into_bytes())
                .map_err(|e| GuestError(format!("config: files: {e}")))?;
        }
        let vfs = Rc::new(RefCell::new(files));
        let queue = Rc::new(HostQueue::default());
        let deadline = Rc::new(Deadline::default());
        let host = Rc::new(GuestHost::new(Rc::clone(&queue), config.tools.clone()));
        let shell = Shell::new(
            Rc::clone(&vfs),
            host,
            Rc::clone(&output),
            Rc::clone(&deadline),
        );
        let js = JsEngine::new(
            &config.tools,
            &config.limits,
            output,
            Rc::clone(&queue),
            &vfs,
            &shell,
            &deadline,
        )?;
        Ok(Guest {
            js,
            exec: None,
            vfs,
            queue,
            shell,
            deadline,
        })
    }

    /// This sandbox's own seeds and times (see [`crate::corral_reseed`]).
    pub fn reseed(&mut self, seeds: &crate::entropy::Seeds) {
        self.js.reseed(seeds.js);
        self.shell.reseed(seeds.shell, seeds.shell_ms);
        self.vfs.borrow_mut().restamp(seeds.files_ms);
    }

    /// A host request (see [`crate::host::requests`]); refused while an execution runs.
    pub fn host_request(&mut self, frame: &Frame<'_>) -> Result<Vec<u8>, GuestError> {
        if self.busy() {
            return Err(GuestError(
                "the sandbox cannot be changed while an execution runs".into(),
            ));
        }
        Ok(crate::host::requests::handle(
            &self.vfs,
            &self.shell,
            frame,
        )?)
    }

    /// A host `write` of `contents` the guest owns already (see
    /// [`crate::host::files::large_write`]); refused while an execution runs.
    pub fn host_write(&mut self, path: &str, contents: Vec<u8>) -> Result<Vec<u8>, GuestError> {
        if self.busy() {
            return Err(GuestError(
                "the sandbox cannot be changed while an execution runs".into(),
            ));
        }
        Ok(crate::host::files::write_owned(
            &mut self.vfs.borrow_mut(),
            path,
            contents,
        ))
    }

    /// Whether an execution is in flight (the host must not touch files meanwhile).
    pub fn busy(&self) -> bool {
        self.exec.is_some()
    }

    /// Starts a job; it runs on the next `step`.
    pub fn submit(&mut self, frame: &Frame<'_>) -> Result<(), GuestError> {
        if self.exec.is_some() {
            return Err(GuestError(
                "an execution is already running; step it to completion".into(),
            ));
        }
        let job = Job::decode(frame)?;
        let code = frame.text(job.code)?;
        let stdin = match job.stdin {
            Some(range) => frame.bytes(range)?.to_vec(),
            None => Vec::new(),
        };
        let timeout = Duration::from_millis(job.timeout_ms);
        let task = match job.language {
            JAVASCRIPT => {
                self.deadline.start_lazily(timeout);
                *self.js.shared.stdin.borrow_mut() = String::from_utf8_lossy(&stdin).into_owned();
                let _running = self.deadline.enter();
                self.js.start(code)?;
                Task::Js
            }
            SHELL => {
                self.deadline.start_lazily(timeout);
                Task::Shell(self.shell.run(code, Input::bytes(Rc::new(stdin))))
            }
            other => return Err(GuestError(format!("unsupported language number {other}"))),
        };
        self.exec = Some(Execution {
            task,
            timeout,
            waiting: BTreeMap::new(),
            abandoned: BTreeSet::new(),
            abort: None,
        });
        Ok(())
    }

    /// Delivers host results (or a cancellation) to the running execution.
    pub fn resume(&mut self, frame: &Frame<'_>) -> Result<(), GuestError> {
        let resume = Resume::decode(frame)?;
        if let Some(ns) = resume.clock {
            self.deadline.start(Duration::from_nanos(ns));
        }
        let exec = self
            .exec
            .as_mut()
            .ok_or_else(|| GuestError("no execution to resume".into()))?;
        if let Some(kind) = resume.cancel {
            exec.abort = Some(ExecError::cancelled(kind, exec.timeout));
            return Ok(());
        }
        // JavaScript's results are settled together, in order, in one entry into the realm.
        let mut settled = Vec::new();
        for result in &resume.results {
            let Some(owner) = exec.waiting.remove(&result.id) else {
                if exec.abandoned.remove(&result.id) {
                    continue;
                }
                return Err(GuestError(format!(
                    "no pending operation with id {}",
                    result.id
                )));
            };
            let outcome = match result.outcome {
                Ok(range) => Ok(frame.text(range)?),
                Err((kind, message)) => Err((frame.text(kind)?, frame.text(message)?)),
            };
            match owner {
                Owner::Js => settled.push((result.id, outcome)),
                Owner::Shell => self.queue.deliver(
                    result.id,
                    outcome
                        .map(str::to_string)
                        .map_err(|(kind, message)| (kind.to_string(), message.to_string())),
                ),
            }
        }
        if !settled.is_empty() {
            self.js.settle_all(&settled)?;
        }
        Ok(())
    }

    /// Runs until blocked or done; returns the reply frame.
    pub fn step(&mut self) -> Result<Vec<u8>, GuestError> {
        let Some(exec) = self.exec.as_mut() else {
            return Err(GuestError("nothing submitted".into()));
        };
        if exec.abort.is_none() {
            self.advance()?;
        }
        let mut writer = FrameWriter::default();
        let ops = self.take_calls(&mut writer);
        let mut outcome = self.outcome(&ops, &mut writer)?;
        let session = match &mut outcome {
            Some(done) if self.shell.take_ran() => Some(self.save_session(done, &mut writer)),
            _ => None,
        };
        // The wait on the host counts against the time limit: the host sends the time.
        let clock = outcome.is_none() && self.deadline.unstarted();
        if outcome.is_some() {
            self.exec = None;
            // Everything the execution left in the JavaScript heap goes now, not at the next.
            self.js.rewind();
        }
        let mut output = self.js.shared.output.borrow_mut();
        let stdout = writer.push(&output.stdout.take());
        let stderr = writer.push(&output.stderr.take());
        if outcome.is_some() {
            output.stdout.reset();
            output.stderr.reset();
        }
        drop(output);
        let ops = if outcome.is_some() { Vec::new() } else { ops };
        Ok(StepReply {
            ops,
            stdout,
            stderr,
            outcome,
            session,
            clock,
        }
        .finish(writer))
    }

    /// Runs JavaScript jobs, `shell.exec` commands and a shell script until none can move.
    fn advance(&mut self) -> Result<(), GuestError> {
        let Some(exec) = self.exec.as_mut() else {
            return Ok(());
        };
        // Only while the execution's code runs: the step's reply is built without it, so an
        // execution that ends late (a tool that answered after the deadline) ends cleanly.
        let _running = self.deadline.enter();
        loop {
            self.js.run_jobs();
            let settled = self.js.poll_shell()?;
            if let Task::Shell(future) = &mut exec.task {
                if let std::task::Poll::Ready(status) =
                    run_until_stalled_within(future, &self.deadline)
                {
                    exec.task = Task::ShellDone(status);
                }
            }
            if self.js.interrupt.fired() || self.deadline.fired() {
                exec.abort = Some(ExecError::timeout(exec.timeout));
                return Ok(());
            }
            if !settled && !self.js.has_jobs() {
                return Ok(());
            }
        }
    }

    /// Moves newly queued operations into host operations.
    fn take_calls(&mut self, writer: &mut FrameWriter) -> Vec<HostOp> {
        let new_ops = self.queue.take_new();
        let Some(exec) = self.exec.as_mut() else {
            return Vec::new();
        };
        for id in self.queue.take_abandoned() {
            if exec.waiting.remove(&id).is_some() {
                exec.abandoned.insert(id);
            }
        }
        new_ops
            .into_iter()
            .map(|op| {
                exec.waiting.insert(op.id, op.owner);
                match op.kind {
                    OpKind::Call { tool, args } => HostOp {
                        id: op.id,
                        kind: match op.owner {
                            Owner::Js => CALL_FROM_JS,
                            Owner::Shell => CALL_FROM_SHELL,
                        },
                        tool: writer.push(tool.as_bytes()),
                        args: writer.push(args.as_bytes()),
                        ms: 0.0,
                    },
                    OpKind::Sleep { ms } => HostOp {
                        id: op.id,
                        kind: SLEEP,
                        tool: (0, 0),
                        args: (0, 0),
                        ms,
                    },
                }
            })
            .collect()
    }

    /// The outcome if the execution is over: aborted, or settled with nothing left in flight.
    fn outcome(
        &mut self,
        new_ops: &[HostOp],
        writer: &mut FrameWriter,
    ) -> Result<Option<Outcome>, GuestError> {
        let Some(exec) = self.exec.as_mut() else {
            return Ok(None);
        };
        if let Some(error) = exec.abort.take() {
            return self.abandon(error).map(Some);
        }
        let busy = !new_ops.is_empty() || !exec.waiting.is_empty();
        if busy {
            return Ok(None);
        }
        match exec.task {
            Task::ShellDone(status) => return Ok(Some(self.finished(status))),
            Task::Shell(_) => return self.abandon(stalled()).map(Some),
            Task::Js if self.js.shell_tasks.any() => return self.abandon(stalled()).map(Some),
            Task::Js => {}
        }
        let timeout = exec.timeout;
        let described = self.js.outcome()?;
        if self.js.interrupt.fired() {
            // Describing the result ran the code's own `toJSON` or getters past the deadline.
            return self.abandon(ExecError::timeout(timeout)).map(Some);
        }
        match described {
            Some(js) => {
                let value = js.value.map(|v| writer.push(v.as_bytes()));
                let error = js.error.map(|message| ExecError {
                    kind: ErrorKind::Exception,
                    message,
                });
                Ok(Some(Outcome {
                    exit_code: js.exit_code,
                    value,
                    error,
                    fs_generation: self.vfs.borrow().generation(),
                }))
            }
            None => {
                let error = match self.js.stalled_by_full_heap() {
                    Some(message) => ExecError {
                        kind: ErrorKind::Exception,
                        message,
                    },
                    None => ExecError {
                        kind: ErrorKind::Deadlock,
                        message: "the code awaits a promise that can never settle (nothing \
                                  is pending on the host); resolve it or remove the await"
                            .into(),
                    },
                };
                self.abandon(error).map(Some)
            }
        }
    }

    /// Saves the shell session into the reply, kept small enough: an execution that left too
    /// much in variables fails, saying which ones were dropped.
    fn save_session(&self, outcome: &mut Outcome, writer: &mut FrameWriter) -> Range {
        let (range, dropped) = self.shell.save_bounded_to(writer);
        if let Some(message) = dropped {
            let line = format!("{message}\n");
            self.js.shared.output.borrow_mut().write(2, line.as_bytes());
            if outcome.exit_code == 0 {
                outcome.exit_code = 1;
            }
        }
        range
    }

    /// The outcome of a shell script that ended with `status`.
    fn finished(&self, status: i32) -> Outcome {
        Outcome {
            exit_code: status,
            value: None,
            error: None,
            fs_generation: self.vfs.borrow().generation(),
        }
    }

    /// Ends the execution with `error`, discarding whatever it left behind.
    fn abandon(&mut self, error: ExecError) -> Result<Outcome, GuestError> {
        self.exec = None; // drops a shell script's future, and its pipes
        self.js.reset();
        let exit_code = error.kind.exit_code();
        let line = format!("{}\n", error.message);
        self.js.shared.output.borrow_mut().write(2, line.as_bytes());
        Ok(Outcome {
            exit_code,
            value: None,
            error: Some(error),
            fs_generation: self.vfs.borrow().generation(),
        })
    }
}

/// Every task waits, and nothing waits on the host: nothing can ever move again.
fn stalled() -> ExecError {
    ExecError {
        kind: ErrorKind::Deadlock,
        message: "the commands wait for each other and nothing is pending on the host".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn frame(header: &Value, blob: &[u8]) -> Vec<u8> {
        let head = serde_json::to_vec(header).unwrap_or_default();
        let mut out = (head.len() as u32).to_le_bytes().to_vec();
        out.extend_from_slice(&head);
        out.extend_from_slice(blob);
        out
    }

    fn guest() -> Guest {
        let config = json!({
            "tools": [{"name": "a/b", "description": "", "parameters": {"type": "object"}}],
            "limits": {"memory": 16 << 20, "max_output": 1 << 16},
        });
        let bytes = frame(&config, b"");
        let parsed: Config = Frame::decode(&bytes)
            .and_then(|f| f.parse())
            .expect("config");
        Guest::new(&parsed).expect("guest")
    }

    fn submit(guest: &mut Guest, code: &str, timeout_ms: u64) {
        let bytes = crate::protocol::job_frame(JAVASCRIPT, code, timeout_ms);
        guest
            .submit(&Frame::decode(&bytes).expect("frame"))
            .expect("submit");
    }

    /// The step reply as (header, blob).
    fn step(guest: &mut Guest) -> (Value, Vec<u8>) {
        crate::protocol::step_reply_json(&guest.step().expect("step"))
    }

    fn text(blob: &[u8], range: &Value) -> String {
        let (start, len) = (
            range[0].as_u64().unwrap_or(0) as usize,
            range[1].as_u64().unwrap_or(0) as usize,
        );
        String::from_utf8_lossy(&blob[start..start + len]).into_owned()
    }

    #[test]
    fn the_realm_is_snapshotted_at_set_up_before_any_execution() {
        // So that the host's init image holds the snapshot: shared by every sandbox made from
        // the image, instead of copied by each one's first execution.
        let g = guest();
        assert!(g.js.heap.has_snapshot());
    }

    #[test]
    fn runs_to_completion_with_value_and_output() {
        let mut g = guest();
        submit(&mut g, "console.log('hi'); return {x: 1}", 5000);
        let (reply, blob) = step(&mut g);
        assert_eq!(reply["status"], "done");
        assert_eq!(text(&blob, &reply["stdout"]), "hi\n{\"x\":1}");
        assert_eq!(text(&blob, &reply["outcome"]["value"]), "{\"x\":1}");
        assert_eq!(reply["outcome"]["exit_code"], 0);
    }

    #[test]
    fn reports_all_concurrent_calls_in_one_step_and_resumes_by_id() {
        let mut g = guest();
        submit(
            &mut g,
            "const r = await Promise.all([a.b({n: 1}), a_b({n: 2})]); return r",
            5000,
        );
        let (reply, blob) = step(&mut g);
        assert_eq!(reply["status"], "blocked");
        let ops = reply["ops"].as_array().cloned().unwrap_or_default();
        assert_eq!(ops.len(), 2);
        assert_eq!(text(&blob, &ops[1]["args"]), "{\"n\":2}");
        // Answer out of order: the second call first.
        let id = |op: &Value| op["id"].as_u64().unwrap_or(0);
        let results = [
            (id(&ops[1]), Ok((0, 1))),
            (id(&ops[0]), Err(((1, 4), (5, 4)))),
        ];
        let bytes = crate::protocol::resume_frame(&results, None, b"2toolboom");
        g.resume(&Frame::decode(&bytes).expect("frame"))
            .expect("resume");
        let (reply, _) = step(&mut g);
        assert_eq!(reply["status"], "done");
        assert_eq!(reply["outcome"]["error"]["message"], "ToolError: boom");
    }

    #[test]
    fn deadline_interrupts_a_busy_loop_and_the_next_job_runs() {
        let mut g = guest();
        submit(&mut g, "while (true) {}", 50);
        let (reply, _) = step(&mut g);
        assert_eq!(reply["outcome"]["error"]["kind"], "timeout");
        assert_eq!(reply["outcome"]["exit_code"], 124);
        submit(&mut g, "return 5", 5000);
        assert_eq!(step(&mut g).0["outcome"]["exit_code"], 0);
    }

    #[test]
    fn every_execution_gets_a_fresh_realm() {
        let mut g = guest();
        submit(
            &mut g,
            "Promise.prototype.then = null; delete globalThis.console; globalThis.x = 1",
            5000,
        );
        assert_eq!(step(&mut g).0["outcome"]["exit_code"], 0);
        submit(
            &mut g,
            "console.log(typeof x); return await Promise.resolve(2)",
            5000,
        );
        let (reply, blob) = step(&mut g);
        assert_eq!(text(&blob, &reply["stdout"]), "undefined\n2");
    }

    /// Fills the heap with tool calls (DOS-024): however the execution ends, its realm and
    /// what it held are gone before the next one starts, so the next runs in a whole heap.
    fn after_a_heap_full_of_calls(timeout_ms: u64, end: impl FnOnce(&mut Guest, Value)) {
        let mut g = guest();
        let code = "return await Promise.all(Array.from({length: 1e6}, () => a.b({n: 1})))";
        submit(&mut g, code, timeout_ms);
        let (reply, _) = step(&mut g);
        end(&mut g, reply);
        for _ in 0..3 {
            submit(&mut g, "return new Array(1e5).fill(7).length", 5000);
            let (reply, blob) = step(&mut g);
            assert_eq!(text(&blob, &reply["stdout"]), "100000");
        }
    }

    #[test]
    fn a_realm_full_of_calls_cancelled_by_the_host_is_dropped() {
        after_a_heap_full_of_calls(60_000, |g, reply| {
            assert_eq!(reply["status"], "blocked");
            let bytes = crate::protocol::resume_frame(&[], Some(ErrorKind::Timeout as u8), b"");
            g.resume(&Frame::decode(&bytes).expect("frame"))
                .expect("resume");
            assert_eq!(step(g).0["outcome"]["error"]["kind"], "timeout");
        });
    }

    #[test]
    fn a_realm_full_of_calls_interrupted_by_the_deadline_is_dropped() {
        after_a_heap_full_of_calls(30, |_, reply| {
            assert_eq!(reply["outcome"]["error"]["kind"], "timeout");
        });
    }

    #[test]
    fn protocol_misuse_is_an_error_not_a_crash() {
        let mut g = guest();
        assert!(g.step().is_err());
        submit(&mut g, "await a.b({})", 5000);
        let bytes = crate::protocol::resume_frame(&[(42, Ok((0, 0)))], None, b"");
        let error = g
            .resume(&Frame::decode(&bytes).expect("frame"))
            .err()
            .map(|e| e.0);
        assert_eq!(error.as_deref(), Some("no pending operation with id 42"));
        assert!(Frame::decode(&[1, 0]).is_err());
    }
}
