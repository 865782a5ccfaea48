//! JavaScript on QuickJS: one runtime and one realm (context) per sandbox, and every execution
//! starts in that realm as it was before the first one (the heap is rewound, see [`heap`]), so
//! that nothing one execution does to the built-ins or the globals (a replaced
//! `Promise.prototype.then`, a deleted `fs`) reaches the next one.
//!
//! The Rust side is deliberately thin: it evaluates the code as the body of an async function,
//! runs QuickJS's job queue, and hands tool calls to the scheduler. Everything a script sees
//! (console, tools, errors) lives in `prelude.js`.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use crate::limits::{Limits, MAX_RETURN};
use rquickjs::context::EvalOptions;
use rquickjs::module::WriteOptions;
use rquickjs::{Context, Ctx, Function, Module, Object, Persistent, Runtime, Value};
use serde::Serialize;

pub mod fs;
pub mod heap;
pub mod shell;
mod text;

use crate::host::ops::{HostQueue, OpKind, Owner};
use crate::output::Output;
use crate::protocol::{js_name, namespace_path, ToolSpec};
use crate::shell::interp::Shell;
use crate::task::Deadline;
use crate::vfs::Vfs;
use heap::{Heap, HeapAllocator};
use shell::ShellTasks;

const PRELUDE: &str = include_str!("prelude.js");
/// Code runs as the body of this async function; the prefix shares the code's first line, so
/// line numbers are exact and the prelude corrects first-line columns by its length.
const WRAP_PREFIX: &str = "(async () => {";
/// The interrupt handler runs every ~10k bytecodes; reading the clock goes through the host, so
/// only every this many calls does it actually look.
const CLOCK_EVERY: u32 = 8;
/// Jobs and native calls between two looks at the clock (see `Interrupt::count_uncounted`).
const UNCOUNTED_EVERY: u32 = 256;

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
pub struct Interrupt {
    /// The execution's deadline (shared with the shell).
    deadline: Rc<Deadline>,
    fired: Cell<bool>,
    calls: Cell<u32>,
    /// Work QuickJS does not count towards calling the handler: jobs and native calls.
    uncounted: Cell<u32>,
}

impl Interrupt {
    fn new(deadline: Rc<Deadline>) -> Self {
        Interrupt {
            deadline,
            fired: Cell::new(false),
            calls: Cell::new(0),
            uncounted: Cell::new(0),
        }
    }

    /// Counts work that QuickJS's count of bytecodes misses, looking at the clock every
    /// [`UNCOUNTED_EVERY`]: a loop of tiny jobs (`for (;;) await null`) or of native calls
    /// (`console.log`) used to run far past the deadline between two calls of the handler,
    /// until the native backstop (which the browser lacks) ended it. Once out of time, the
    /// handler interrupts the code at its next call.
    fn count_uncounted(&self) {
        let n = self.uncounted.get().wrapping_add(1);
        self.uncounted.set(n);
        if n.is_multiple_of(UNCOUNTED_EVERY) && !self.fired.get() {
            self.fired.set(self.deadline.expired_now());
        }
    }

    fn check(&self) -> bool {
        if self.fired.get() {
            return true;
        }
        let calls = self.calls.get().wrapping_add(1);
        self.calls.set(calls);
        if !calls.is_multiple_of(CLOCK_EVERY) {
            return false;
        }
        let late = self.deadline.expired_now();
        self.fired.set(late);
        late
    }

    /// Whether the deadline interrupted the running execution.
    pub fn fired(&self) -> bool {
        self.fired.get()
    }
}

/// Throws what the interrupt handler makes QuickJS throw (an uncatchable `InternalError:
/// interrupted`): for a native called once the deadline fired.
fn interrupted(ctx: &Ctx<'_>) -> rquickjs::Error {
    let raw = ctx.as_raw().as_ptr();
    // SAFETY: `raw` is the live context of this call; the exception taken is thrown back,
    // which hands its reference to QuickJS again.
    unsafe {
        rquickjs::qjs::JS_ThrowInternalError(raw, c"interrupted".as_ptr());
        let exception = rquickjs::qjs::JS_GetException(raw);
        rquickjs::qjs::JS_SetUncatchableError(raw, exception);
        rquickjs::qjs::JS_Throw(raw, exception);
    }
    rquickjs::Error::Exception
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

/// One realm: a QuickJS context with the prelude installed, and the prelude's hooks.
struct Realm {
    // Field order is drop order: the persistent handles must go before their context.
    hooks: Persistent<Object<'static>>,
    /// The native bindings, held so that none of them is ever finalized: a finalizer frees
    /// Rust memory, which no rewind of the heap could bring back (see [`heap`]).
    _native: Persistent<Object<'static>>,
    ctx: Context,
}

/// What every new realm is built from.
struct Setup {
    /// The tools, as the prelude receives them (JSON).
    tools_json: String,
    vfs: Rc<RefCell<Vfs>>,
    shell: Shell,
    /// The running execution's deadline, for the shell commands that JavaScript runs.
    deadline: Rc<Deadline>,
    /// `Math.random`'s state: one sequence per sandbox, across realms.
    random: Rc<Cell<[u32; 4]>>,
    /// The prelude as a compiled module: loading it is several times faster than compiling
    /// it for every realm. Leaked once per sandbox: the realms' functions point into it.
    prelude: &'static [u8],
}

/// A QuickJS runtime and its realm.
pub struct JsEngine {
    // Field order is drop order: the realm must go before its runtime.
    realm: Option<Realm>,
    /// Whether an execution has run since the heap was last rewound.
    dirty: bool,
    setup: Setup,
    rt: Runtime,
    /// Output and pending calls, shared with the native bindings.
    pub shared: Rc<Shared>,
    /// Deadline state, shared with the interrupt handler.
    pub interrupt: Rc<Interrupt>,
    /// `shell.exec` commands in flight.
    pub shell_tasks: Rc<ShellTasks>,
    /// The JavaScript heap: its accounting and its snapshot.
    pub(crate) heap: Rc<Heap>,
    /// `Limits.memory`: the heap limit in bytes.
    memory_limit: usize,
}

impl JsEngine {
    /// Creates the runtime, applies the limits and builds the realm.
    pub fn new(
        tools: &[ToolSpec],
        limits: &Limits,
        output: Rc<RefCell<Output>>,
        queue: Rc<HostQueue>,
        vfs: &Rc<RefCell<Vfs>>,
        sh: &Shell,
        deadline: &Rc<Deadline>,
    ) -> Result<Self, EngineError> {
        let memory_limit = usize::try_from(limits.memory).unwrap_or(usize::MAX);
        let interrupt = Rc::new(Interrupt::new(Rc::clone(deadline)));
        let (rt, heap) = new_runtime(memory_limit, &interrupt)?;
        let shared = Rc::new(Shared {
            output,
            queue,
            stdin: RefCell::default(),
        });
        let setup = Setup {
            tools_json: tools_json(tools)?,
            vfs: Rc::clone(vfs),
            shell: sh.clone(),
            deadline: Rc::clone(deadline),
            random: Rc::new(Cell::new(crate::entropy::random_words())),
            prelude: Box::leak(compile_prelude(&rt)?.into_boxed_slice()),
        };
        let mut engine = JsEngine {
            realm: None,
            dirty: false,
            setup,
            rt,
            shared,
            interrupt,
            shell_tasks: Rc::new(ShellTasks::default()),
            heap,
            memory_limit,
        };
        engine.realm = Some(engine.new_realm()?);
        // Part of the snapshot, so every execution starts with this headroom.
        let in_use = usize::try_from(engine.rt.memory_usage().malloc_size).unwrap_or(0);
        engine
            .rt
            .set_gc_threshold(gc_threshold(in_use, memory_limit));
        // The realm as built, before any execution touched it: taken now, so that it is part
        // of the host's init image (natively shared by every sandbox: only a rewind reads it).
        engine.heap.snapshot();
        Ok(engine)
    }

    /// A new seed for `Math.random`, from the host.
    pub fn reseed(&self, seed: [u32; 4]) {
        self.setup.random.set(seed);
    }

    /// A new context with the prelude installed.
    fn new_realm(&self) -> Result<Realm, EngineError> {
        let ctx = Context::full(&self.rt)?;
        let (hooks, native) = ctx.with(|ctx| install(&ctx, self))?;
        Ok(Realm {
            hooks,
            _native: native,
            ctx,
        })
    }

    /// Makes the realm what it was before the first execution, if one ran since: the heap is
    /// rewound to the snapshot taken then. Call only while no JavaScript value is held
    /// outside the realm.
    pub fn rewind(&mut self) {
        if self.dirty {
            self.heap.rewind();
            self.dirty = false;
        }
    }

    fn realm(&self) -> Result<&Realm, EngineError> {
        self.realm
            .as_ref()
            .ok_or_else(|| EngineError("no JavaScript realm".into()))
    }

    /// Runs `f` in the current realm with a function that looks up its prelude hooks.
    fn with_realm<T>(
        &self,
        f: impl for<'js> FnOnce(&Ctx<'js>, &Hooks<'js>) -> Result<T, EngineError>,
    ) -> Result<T, EngineError> {
        let realm = self.realm()?;
        realm.ctx.with(|ctx| {
            let hooks = Hooks(realm.hooks.clone().restore(&ctx)?);
            f(&ctx, &hooks)
        })
    }

    /// Starts `code` as the body of an async function in a fresh realm; returns once it
    /// first blocks.
    pub fn start(&mut self, code: &str) -> Result<(), EngineError> {
        self.interrupt.fired.set(false);
        self.rewind();
        self.dirty = true;
        self.heap.start_execution();
        let source = format!("{WRAP_PREFIX}{code}\n}})");
        self.with_realm(|ctx, hooks| {
            let mut options = EvalOptions::default();
            options.strict = false;
            options.backtrace_barrier = true;
            options.filename = Some("code.js".into());
            let started = match ctx.eval_with_options::<Function, _>(source, options) {
                Ok(body) => hooks.get("start")?.call::<_, ()>((body,)),
                Err(error) => Err(error),
            };
            match started {
                Ok(()) => Ok(()),
                // A deadline interrupt escapes every try/catch; `step` reports it.
                Err(rquickjs::Error::Exception) if self.interrupt.fired() => Ok(()),
                Err(rquickjs::Error::Exception) => {
                    let error = ctx.catch();
                    Ok(hooks.get("fail")?.call::<_, ()>((error,))?)
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
            self.interrupt.count_uncounted();
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
    pub fn settle(&self, id: u64, result: Settled<'_>) -> Result<(), EngineError> {
        self.settle_all(&[(id, result)])
    }

    /// Delivers host results to the promises of their tool calls, in order (a batch's results
    /// enter the realm once).
    pub fn settle_all(&self, results: &[(u64, Settled<'_>)]) -> Result<(), EngineError> {
        self.with_realm(|ctx, hooks| {
            let settle = hooks.get("settle")?;
            for &(id, result) in results {
                // Out of time, the rest stay pending: the execution ends as timed out (a batch
                // of 20,000 results went on being settled past the allocator's backstop).
                if self.interrupt.fired() {
                    break;
                }
                let done = match result {
                    Ok(json) => match settle.call::<_, ()>((id as f64, true, json, "")) {
                        // The result did not fit in the heap as a string: the call fails with
                        // QuickJS's out-of-memory error, which the code may catch.
                        Err(rquickjs::Error::Exception) if !self.interrupt.fired() => {
                            let _ = ctx.catch();
                            settle.call::<_, ()>((id as f64, false, "out of memory", "memory"))
                        }
                        other => other,
                    },
                    Err((kind, message)) => settle.call::<_, ()>((id as f64, false, message, kind)),
                };
                match done {
                    Err(rquickjs::Error::Exception) if self.interrupt.fired() => {
                        let _ = ctx.catch();
                        break;
                    }
                    other => other?,
                }
            }
            Ok(())
        })
    }

    /// The outcome once the async function settled; prints its result or error.
    pub fn outcome(&self) -> Result<Option<JsOutcome>, EngineError> {
        self.with_realm(|ctx, hooks| {
            let raw = match hooks.get("outcome")?.call::<_, Value>(()) {
                Err(rquickjs::Error::Exception) => {
                    let _ = ctx.catch();
                    // Interrupted by the deadline: the scheduler reports the timeout instead.
                    let message = if self.interrupt.fired() {
                        ""
                    } else {
                        UNFORMATTED
                    };
                    return Ok(Some(self.failed(message)));
                }
                raw => raw?,
            };
            if raw.is_null() {
                return Ok(None);
            }
            let parts = rquickjs::Array::from_value(raw)?;
            let exit_code: i32 = parts.get(0)?;
            let stdout = parts.get::<Option<text::Text>>(1)?.map(|t| t.0);
            let stderr = parts.get::<Option<text::Text>>(2)?.map(|t| t.0);
            let problem: Option<String> = parts.get(4)?;
            // Copying the JSON out of the heap needs room in it: a value that barely fits is
            // refused like one that does not.
            let value = match problem.as_deref() {
                Some("size") => Err(too_large_return()),
                Some(_) => Err(return_out_of_memory(self.memory_limit)),
                None => match parts.get::<Option<String>>(3) {
                    Ok(Some(json)) if json.len() > MAX_RETURN => Err(too_large_return()),
                    Ok(json) => Ok(json),
                    Err(rquickjs::Error::Exception) => {
                        let _ = ctx.catch();
                        Err(return_out_of_memory(self.memory_limit))
                    }
                    Err(e) => return Err(e.into()),
                },
            };
            let (exit_code, stdout, stderr, value) = match value {
                Ok(json) => (exit_code, stdout, stderr, json),
                Err(message) => (1, None, Some(message), None),
            };
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

    /// Why a JavaScript execution that can never settle stopped, if the cause was a full
    /// heap: a promise reaction that ran out of memory (inside `Promise.all`, say) rejects a
    /// promise nobody awaits, so what remains looks like a deadlock but is not one.
    pub fn stalled_by_full_heap(&self) -> Option<String> {
        let limit = self.memory_limit;
        self.heap.was_full(limit, limit / 16).then(|| {
            format!(
                "InternalError: out of memory: the code used all of the {limit}-byte \
                 JavaScript heap (Limits.memory), so some promises could never settle; keep \
                 less in memory at once (fewer calls in flight, data in parts) or raise \
                 Limits(memory=...)"
            )
        })
    }

    /// An execution that failed with `message` (a line), printed to stderr.
    fn failed(&self, message: &str) -> JsOutcome {
        self.shared.output.borrow_mut().write(2, message.as_bytes());
        JsOutcome {
            exit_code: 1,
            value: None,
            error: message.lines().next().map(str::to_string),
        }
    }

    /// Runs the `shell.exec` commands as far as they go and settles the promises of the
    /// finished ones; true if any finished.
    pub fn poll_shell(&self) -> Result<bool, EngineError> {
        let done = self.shell_tasks.poll(&self.setup.deadline);
        for (id, (status, stdout, stderr)) in &done {
            self.settle(*id, Ok(&shell::result_json(*status, stdout, stderr)))?;
        }
        Ok(!done.is_empty())
    }

    /// Discards what an abandoned execution left behind: pending calls, `shell.exec` commands
    /// and, with the rewind, its queued jobs and everything its realm held.
    pub fn reset(&mut self) {
        self.interrupt.fired.set(false);
        self.shared.queue.clear();
        self.shell_tasks.clear();
        self.rewind();
    }
}

/// The prelude's hooks object in one realm.
/// A host result for a promise: its JSON, or its error's kind and message.
pub type Settled<'a> = Result<&'a str, (&'a str, &'a str)>;

struct Hooks<'js>(Object<'js>);

impl<'js> Hooks<'js> {
    fn get(&self, name: &str) -> rquickjs::Result<Function<'js>> {
        self.0.get(name)
    }
}

/// When the prelude cannot even describe how the code ended (it ran out of memory, or the code
/// broke a built-in that the description needs).
const UNFORMATTED: &str = "Error: the result of the execution could not be described \
    (the JavaScript heap is full, or the code replaced a built-in that describing it needs)\n";

/// Advice for data too large to return.
const RETURN_ADVICE: &str = "return a summary, or write the data to a file \
    (fs.writeFileSync('/workspace/result.json', JSON.stringify(data))) and return its path";

fn too_large_return() -> String {
    format!(
        "RangeError: the return value is too large: its JSON is more than the {MAX_RETURN} \
         bytes a return value may have; {RETURN_ADVICE}\n"
    )
}

fn return_out_of_memory(limit: usize) -> String {
    format!(
        "RangeError: the return value is too large: converting it to JSON needs more than the \
         {limit}-byte JavaScript heap (Limits.memory); {RETURN_ADVICE}\n"
    )
}

/// A QuickJS runtime with the heap limit and the interrupt handler, and its allocation counts.
fn new_runtime(
    memory_limit: usize,
    interrupt: &Rc<Interrupt>,
) -> Result<(Runtime, Rc<Heap>), EngineError> {
    let heap = Rc::new(Heap::default());
    let rt = Runtime::new_with_alloc(HeapAllocator(Rc::clone(&heap)))?;
    rt.set_memory_limit(memory_limit);
    let handler = Rc::clone(interrupt);
    rt.set_interrupt_handler(Some(Box::new(move || handler.check())));
    Ok((rt, heap))
}

/// Bytes an execution may allocate before QuickJS's first cycle collection (a quarter of a
/// smaller heap limit). A collection marks the whole realm, and QuickJS starts one once the
/// heap passes a threshold that, left alone, sits just above the realm's own size, so a
/// `Promise.all` of 1,000 calls collected repeatedly while all of them were still pending.
/// What an execution leaves goes at the rewind anyway; after a collection, QuickJS sets the
/// threshold to 1.5 times what is left, as before.
const GC_HEADROOM: usize = 1 << 20;

/// The heap size at which QuickJS first collects cycles, `in_use` bytes being allocated now.
fn gc_threshold(in_use: usize, memory_limit: usize) -> usize {
    in_use.saturating_add(GC_HEADROOM.min(memory_limit / 4))
}

/// The prelude compiled as a module whose default export is its function.
fn compile_prelude(rt: &Runtime) -> Result<Vec<u8>, EngineError> {
    let ctx = Context::full(rt)?;
    let source = format!("export default {PRELUDE}");
    let bytes = ctx.with(|ctx| {
        Module::declare(ctx.clone(), "corral:prelude", source)?.write(WriteOptions::default())
    })?;
    Ok(bytes)
}

/// The tool descriptions the prelude receives, as JSON.
fn tools_json(tools: &[ToolSpec]) -> Result<String, EngineError> {
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
    serde_json::to_string(&specs).map_err(|e| EngineError(e.to_string()))
}

/// A handle on a realm's object that outlives the borrow of the realm.
type Held = Persistent<Object<'static>>;

/// Defines the native bindings and evaluates the prelude; returns its hooks object and the
/// object holding the native bindings.
fn install(ctx: &Ctx<'_>, engine: &JsEngine) -> Result<(Held, Held), EngineError> {
    let (setup, shared, shell_tasks) = (&engine.setup, &engine.shared, &engine.shell_tasks);
    let native = Object::new(ctx.clone())?;
    let session = setup.shell.clone();
    let cwd: fs::Cwd = Rc::new(move || session.cwd());
    fs::install(ctx, &native, &setup.vfs, &cwd)?;
    shell::install(
        ctx,
        &native,
        &setup.shell,
        &shared.queue,
        shell_tasks,
        &setup.deadline,
    )?;
    let (out, interrupt) = (Rc::clone(shared), Rc::clone(&engine.interrupt));
    native.set(
        "write",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'_>, fd: i32, text: text::Text| -> rquickjs::Result<()> {
                // A call per 4 KiB written, and none once out of time: the code stops here,
                // not at the handler's next call (10k bytecodes on, which is as many
                // iterations of `for (;;) console.log('x'.repeat(1e4))`: under load they ran
                // past the allocator's backstop).
                for _ in 0..=text.0.len() >> 12 {
                    interrupt.count_uncounted();
                }
                if interrupt.fired() {
                    return Err(interrupted(&ctx));
                }
                out.output.borrow_mut().write(fd, text.0.as_bytes());
                Ok(())
            },
        )?,
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
    let random = Rc::clone(&setup.random);
    native.set(
        "random",
        Function::new(ctx.clone(), move || sfc32(&random))?,
    )?;
    let input = Rc::clone(shared);
    native.set(
        "stdin",
        Function::new(ctx.clone(), move || input.stdin.borrow().clone())?,
    )?;
    let (heap, limit) = (Rc::clone(&engine.heap), engine.memory_limit);
    native.set(
        "heapWasFull",
        Function::new(ctx.clone(), move || heap.was_full(limit, limit / 16))?,
    )?;
    native.set("memoryLimit", limit as f64)?;
    native.set("maxReturn", MAX_RETURN as f64)?;
    native.set("maxOutput", shared.output.borrow().cap as f64)?;
    // SAFETY: the bytes are the bytecode that `compile_prelude` wrote with this QuickJS.
    let module = unsafe { Module::load(ctx.clone(), setup.prelude) }?;
    let (module, _) = module.eval()?;
    let prelude: Function = module.namespace()?.get("default")?;
    let specs_value = ctx.json_parse(setup.tools_json.as_str())?;
    let hooks: Object = prelude
        .call((native.clone(), specs_value, WRAP_PREFIX.len()))
        .map_err(|e| match e {
            rquickjs::Error::Exception => EngineError(format!("prelude failed: {:?}", ctx.catch())),
            other => other.into(),
        })?;
    Ok((Persistent::save(ctx, hooks), Persistent::save(ctx, native)))
}

/// `Math.random`: sfc32, a small 128-bit generator, seeded once per sandbox from the host's
/// randomness (which the host records or fixes), instead of QuickJS's own clock-seeded one:
/// runs replay exactly and can be deterministic. Its state lives here, outside the realms, so
/// the sequence continues from one execution to the next.
fn sfc32(state: &Cell<[u32; 4]>) -> f64 {
    let [a, b, c, d] = state.get();
    let t = a.wrapping_add(b).wrapping_add(d);
    let d = d.wrapping_add(1);
    let a = b ^ (b >> 9);
    let b = c.wrapping_add(c << 3);
    let c = c.rotate_left(21).wrapping_add(t);
    state.set([a, b, c, d]);
    f64::from(t) / 4_294_967_296.0
}
