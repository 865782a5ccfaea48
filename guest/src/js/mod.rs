//! JavaScript on QuickJS: one runtime and context per sandbox, reused across executions.
//!
//! The Rust side is deliberately thin: it evaluates the code as the body of an async function,
//! runs QuickJS's job queue, and hands tool calls to the scheduler. Everything a script sees
//! (console, tools, errors) lives in `prelude.js`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Instant;

use rquickjs::context::EvalOptions;
use rquickjs::{Context, Ctx, Function, Object, Persistent, Runtime, Value};
use serde::Serialize;

pub mod fs;
pub mod shell;

use crate::hostops::{HostQueue, OpKind, Owner};
use crate::output::Output;
use crate::protocol::{js_name, namespace_path, Limits, ToolSpec};
use crate::shell::interp::Shell;
use crate::vfs::Vfs;
use shell::ShellTasks;

const PRELUDE: &str = include_str!("prelude.js");
/// Code runs as the body of this async function; the prefix shares the code's first line, so
/// line numbers are exact and the prelude corrects first-line columns by its length.
const WRAP_PREFIX: &str = "(async () => {";
/// The interrupt handler runs every ~10k bytecodes; reading the clock goes through the host, so
/// only every this many calls does it actually look.
const CLOCK_EVERY: u32 = 8;

/// State shared with the native functions the prelude calls.
pub struct Shared {
    /// Output of the running execution (shared with the shell).
    pub output: Rc<RefCell<Output>>,
    /// The host operations of JavaScript and the shell.
    pub queue: Rc<HostQueue>,
    /// Standard input of the running execution.
    pub stdin: RefCell<String>,
}

/// Why QuickJS was interrupted.
#[derive(Default)]
pub struct Interrupt {
    deadline: Cell<Option<Instant>>,
    fired: Cell<bool>,
    force: Cell<bool>,
    calls: Cell<u32>,
}

impl Interrupt {
    fn check(&self) -> bool {
        if self.force.get() || self.fired.get() {
            return true;
        }
        let calls = self.calls.get().wrapping_add(1);
        self.calls.set(calls);
        if !calls.is_multiple_of(CLOCK_EVERY) {
            return false;
        }
        let late = self.deadline.get().is_some_and(|d| Instant::now() >= d);
        self.fired.set(late);
        late
    }

    /// Whether the deadline interrupted the running execution.
    pub fn fired(&self) -> bool {
        self.fired.get()
    }
}

/// How an execution ended, as the prelude formats it.
pub struct JsOutcome {
    /// 0 on success, 1 on an uncaught exception.
    pub exit_code: i32,
    /// The returned value as JSON text.
    pub value: Option<String>,
    /// `Name: message` of an uncaught exception.
    pub error: Option<String>,
}

/// The tool description the prelude receives.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PreludeTool<'a> {
    name: &'a str,
    js_name: String,
    path: Vec<String>,
    description: &'a str,
    parameters: &'a serde_json::Value,
}

/// An error setting up or driving QuickJS (not a script's own exception).
#[derive(Debug)]
pub struct EngineError(pub String);

impl From<rquickjs::Error> for EngineError {
    fn from(e: rquickjs::Error) -> Self {
        EngineError(e.to_string())
    }
}

/// A QuickJS runtime with the prelude installed.
pub struct JsEngine {
    // Field order is drop order: the persistent handle must go before its context and runtime.
    hooks: Persistent<Object<'static>>,
    ctx: Context,
    rt: Runtime,
    /// Output and pending calls, shared with the native bindings.
    pub shared: Rc<Shared>,
    /// Deadline state, shared with the interrupt handler.
    pub interrupt: Rc<Interrupt>,
    /// `shell.exec` commands in flight.
    pub shell_tasks: Rc<ShellTasks>,
}

impl JsEngine {
    /// Creates the runtime, applies the limits and installs the prelude with `tools`.
    pub fn new(
        tools: &[ToolSpec],
        limits: &Limits,
        output: Rc<RefCell<Output>>,
        queue: Rc<HostQueue>,
        vfs: &Rc<RefCell<Vfs>>,
        sh: &Shell,
    ) -> Result<Self, EngineError> {
        let rt = Runtime::new()?;
        rt.set_memory_limit(usize::try_from(limits.memory).unwrap_or(usize::MAX));
        let interrupt = Rc::new(Interrupt::default());
        let handler = Rc::clone(&interrupt);
        rt.set_interrupt_handler(Some(Box::new(move || handler.check())));
        let ctx = Context::full(&rt)?;
        let shared = Rc::new(Shared {
            output,
            queue,
            stdin: RefCell::default(),
        });
        let shell_tasks = Rc::new(ShellTasks::default());
        let hooks = ctx.with(|ctx| install(&ctx, tools, &shared, vfs, sh, &shell_tasks))?;
        Ok(JsEngine {
            hooks,
            ctx,
            rt,
            shared,
            interrupt,
            shell_tasks,
        })
    }

    fn hook<'js>(&self, ctx: &Ctx<'js>, name: &str) -> Result<Function<'js>, EngineError> {
        let hooks = self.hooks.clone().restore(ctx)?;
        Ok(hooks.get(name)?)
    }

    /// Starts `code` as the body of an async function; returns once it first blocks.
    pub fn start(&self, code: &str, deadline: Instant) -> Result<(), EngineError> {
        self.interrupt.deadline.set(Some(deadline));
        self.interrupt.fired.set(false);
        self.interrupt.force.set(false);
        let source = format!("{WRAP_PREFIX}{code}\n}})");
        self.ctx.with(|ctx| {
            let mut options = EvalOptions::default();
            options.strict = false;
            options.backtrace_barrier = true;
            options.filename = Some("code.js".into());
            let started = match ctx.eval_with_options::<Function, _>(source, options) {
                Ok(body) => self.hook(&ctx, "start")?.call::<_, ()>((body,)),
                Err(error) => Err(error),
            };
            match started {
                Ok(()) => Ok(()),
                // A deadline interrupt escapes every try/catch; `step` reports it.
                Err(rquickjs::Error::Exception) if self.interrupt.fired() => Ok(()),
                Err(rquickjs::Error::Exception) => {
                    let error = ctx.catch();
                    Ok(self.hook(&ctx, "fail")?.call::<_, ()>((error,))?)
                }
                Err(e) => Err(e.into()),
            }
        })
    }

    /// Runs queued jobs (promise reactions) until none is left or the deadline interrupts.
    pub fn run_jobs(&self) {
        while self.rt.is_job_pending() {
            // A job's exception is already routed to the promise it belongs to; an interrupt
            // shows up in `interrupt.fired()`.
            let _ = self.rt.execute_pending_job();
            if self.interrupt.fired() {
                break;
            }
        }
    }

    /// Whether QuickJS has runnable jobs.
    pub fn has_jobs(&self) -> bool {
        self.rt.is_job_pending()
    }

    /// Delivers a host result to the promise of tool call `id`.
    pub fn settle(&self, id: u64, result: Result<&str, (&str, &str)>) -> Result<(), EngineError> {
        self.ctx.with(|ctx| {
            let settle = self.hook(&ctx, "settle")?;
            match result {
                Ok(json) => settle.call::<_, ()>((id as f64, true, json, ""))?,
                Err((kind, message)) => settle.call::<_, ()>((id as f64, false, message, kind))?,
            }
            Ok(())
        })
    }

    /// The outcome once the async function settled; prints its result or error.
    pub fn outcome(&self) -> Result<Option<JsOutcome>, EngineError> {
        self.ctx.with(|ctx| {
            let raw = self.hook(&ctx, "outcome")?.call::<_, Value>(())?;
            if raw.is_null() {
                return Ok(None);
            }
            let parts = rquickjs::Array::from_value(raw)?;
            let exit_code: i32 = parts.get(0)?;
            let stdout: Option<String> = parts.get(1)?;
            let stderr: Option<String> = parts.get(2)?;
            let value: Option<String> = parts.get(3)?;
            let mut output = self.shared.output.borrow_mut();
            if let Some(text) = stdout {
                output.write(1, text.as_bytes());
            }
            if let Some(text) = &stderr {
                output.write(2, text.as_bytes());
            }
            let error = stderr.and_then(|text| text.lines().next().map(str::to_string));
            Ok(Some(JsOutcome {
                exit_code,
                value,
                error,
            }))
        })
    }

    /// Runs the `shell.exec` commands as far as they go and settles the promises of the
    /// finished ones; true if any finished.
    pub fn poll_shell(&self) -> Result<bool, EngineError> {
        let done = self.shell_tasks.poll();
        for (id, (status, stdout, stderr)) in &done {
            self.settle(*id, Ok(&shell::result_json(*status, stdout, stderr)))?;
        }
        Ok(!done.is_empty())
    }

    /// Discards what an abandoned execution left behind: queued jobs and pending calls.
    pub fn reset(&self) -> Result<(), EngineError> {
        self.interrupt.force.set(true);
        // Each job stops at its next interrupt check; the bound stops a job that queues others.
        for _ in 0..10_000 {
            if !self.rt.is_job_pending() {
                break;
            }
            let _ = self.rt.execute_pending_job();
        }
        self.interrupt.force.set(false);
        self.interrupt.fired.set(false);
        self.shared.queue.clear();
        self.shell_tasks.clear();
        self.ctx
            .with(|ctx| Ok(self.hook(&ctx, "reset")?.call::<_, ()>(())?))
    }
}

/// Defines the native bindings and evaluates the prelude; returns its hooks object.
fn install(
    ctx: &Ctx<'_>,
    tools: &[ToolSpec],
    shared: &Rc<Shared>,
    vfs: &Rc<RefCell<Vfs>>,
    sh: &Shell,
    shell_tasks: &Rc<ShellTasks>,
) -> Result<Persistent<Object<'static>>, EngineError> {
    let native = Object::new(ctx.clone())?;
    let session = sh.clone();
    let cwd: fs::Cwd = Rc::new(move || session.cwd());
    fs::install(ctx, &native, vfs, &cwd)?;
    shell::install(ctx, &native, sh, &shared.queue, shell_tasks)?;
    let out = Rc::clone(shared);
    native.set(
        "write",
        Function::new(ctx.clone(), move |fd: i32, text: String| {
            out.output.borrow_mut().write(fd, text.as_bytes());
        })?,
    )?;
    let calls = Rc::clone(shared);
    native.set(
        "call",
        Function::new(ctx.clone(), move |tool: String, args: String| {
            calls.queue.submit(Owner::Js, OpKind::Call { tool, args }) as f64
        })?,
    )?;
    let sleeps = Rc::clone(shared);
    native.set(
        "sleep",
        Function::new(ctx.clone(), move |ms: f64| {
            let ms = if ms.is_finite() { ms.max(0.0) } else { 0.0 };
            sleeps.queue.submit(Owner::Js, OpKind::Sleep { ms }) as f64
        })?,
    )?;
    let abandons = Rc::clone(shared);
    native.set(
        "abandon",
        Function::new(ctx.clone(), move |id: f64| {
            abandons.queue.abandon(id as u64)
        })?,
    )?;
    native.set(
        "seed",
        Function::new(ctx.clone(), || -> Vec<u32> {
            crate::entropy::random_words().to_vec()
        })?,
    )?;
    let input = Rc::clone(shared);
    native.set(
        "stdin",
        Function::new(ctx.clone(), move || input.stdin.borrow().clone())?,
    )?;
    let specs: Vec<PreludeTool<'_>> = tools
        .iter()
        .map(|t| PreludeTool {
            name: &t.name,
            js_name: js_name(&t.name),
            path: namespace_path(&t.name),
            description: &t.description,
            parameters: &t.parameters,
        })
        .collect();
    let specs_json = serde_json::to_string(&specs).map_err(|e| EngineError(e.to_string()))?;
    let mut options = EvalOptions::default();
    options.filename = Some("corral:prelude".into());
    let prelude: Function = ctx.eval_with_options(PRELUDE, options)?;
    let specs_value = ctx.json_parse(specs_json)?;
    let hooks: Object = prelude
        .call((native, specs_value, WRAP_PREFIX.len()))
        .map_err(|e| match e {
            rquickjs::Error::Exception => EngineError(format!("prelude failed: {:?}", ctx.catch())),
            other => other.into(),
        })?;
    Ok(Persistent::save(ctx, hooks))
}
