// corral in a Web Worker, for a page: the browser's backstop for code that the guest's own
// time checks cannot stop. The sandbox lives in a worker (corral-worker-thread.mjs, next to
// this file); when an execution overruns its time limit plus a grace, the page terminates the
// worker, continues on a fresh one (a standby booted ahead) with the files and shell session of
// the last completed execution, and the execution ends like a timeout: exit code 124. See
// docs/browser.rst, "A sandbox in a Web Worker".

const OPTIONS = new Set(["pyodideURL", "wheelURL", "graceMs", "standby"]);
/**
 * How long past its time limit an execution may run before its worker is terminated, unless
 * `graceMs` says otherwise: the guest's own checks stop code within ~0.1 s of the limit, and
 * switching to the standby takes 0.1-0.3 s, so code the guest cannot stop still ends within a
 * second of its limit.
 */
export const GRACE_MS = 500;
const TIMED_OUT = Symbol("timed out");
const CLOSED = "the sandbox is closed; create a new one";

/**
 * One Web Worker (a module script at `url`, or a `Worker` started already) and the requests
 * sent to it: the page sends {id, op, args}; the worker answers {id, ok: true, value} or
 * {id, ok: false, error}. A message without an id is an event, passed to `onEvent(data, thread)`.
 */
export class WorkerThread {
  constructor(url, onEvent = () => {}) {
    this.worker = url instanceof Worker ? url : new Worker(url, { type: "module" });
    this.pending = new Map(); // request id -> {resolve, reject}
    this.nextId = 1;
    this.failed = null;
    this.onCrash = null; // called when the worker fails by itself (not terminated by fail)
    this.worker.onmessage = ({ data }) => {
      if (data.id === undefined) return onEvent(data, this);
      const waiter = this.pending.get(data.id);
      this.pending.delete(data.id);
      if (waiter) data.ok ? waiter.resolve(data.value) : waiter.reject(new Error(data.error));
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      const error = new Error(`the sandbox's worker failed: ${event.message || "unknown error"}`);
      this.fail(error);
      this.onCrash?.(error);
    };
  }

  call(op, args = {}, transfer = []) {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, op, args }, transfer);
    });
  }

  /** Terminate the worker; every call still waiting rejects with `error`. */
  fail(error) {
    this.failed ??= error;
    this.worker.terminate();
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}

/**
 * The active worker of a sandbox and a standby booted ahead, so that replacing the active one
 * (terminated because it overran, or on the user's Ctrl-C) only has to open the sandbox in the
 * standby. {@link WorkerSandbox} is built on it; so is a page with its own worker script (the
 * live demo's). Options:
 *
 * - `url`: the worker script ({@link WorkerThread}'s protocol);
 * - `boot(thread, {standby})`: start a new worker booting (Pyodide, the wheel, the module),
 *   resolving with what `start()` answers; `standby` is true for a worker booted ahead;
 * - `open(thread)`: open the sandbox in a booted worker (from the last snapshot, say);
 * - `onEvent(data, thread)`: the workers' events; `onCrash(error)`: the active worker failed
 *   by itself (the relay does not replace it: call `replace`);
 * - `standby` (true): keep a standby; `standbyDelayMs` (0): wait this long after the sandbox
 *   opens before booting it, to leave the first moments to the active worker;
 * - `first`: a `Worker` of `url` started already (by a page's first script, say, so that it
 *   loads while the page's other modules do), used for the first thread.
 */
export class WorkerRelay {
  #options;
  #active = null;
  #spare = null; // the standby WorkerThread, booting or booted
  #standbyDue = null; // resolves when the standby has been started
  #closed = false;

  constructor(options) {
    this.#options = { onEvent: () => {}, standby: true, standbyDelayMs: 0, ...options };
  }

  /** The worker with the sandbox open (null before `start` resolves; while `replace` opens
   * the next one, the terminated one, whose calls reject with `replace`'s error). */
  get thread() {
    return this.#active;
  }

  /** Whether a standby worker is booted and waiting. */
  get standbyBooted() {
    return Boolean(this.#spare?.bootedOk);
  }

  #spawn(standby) {
    const first = this.#options.first;
    this.#options.first = null;
    const thread = new WorkerThread(first ?? this.#options.url, this.#options.onEvent);
    thread.onCrash = (error) => {
      if (thread === this.#active) this.#options.onCrash?.(error);
    };
    thread.booted = Promise.resolve(this.#options.boot(thread, { standby }));
    thread.booted.then(() => (thread.bootedOk = true), (error) => thread.fail(error));
    return thread;
  }

  // Open the sandbox in `thread` once it has booted; resolves with what its boot answered.
  async #openIn(thread) {
    try {
      const booted = await thread.booted;
      await this.#options.open(thread);
      if (this.#closed) throw new Error(CLOSED);
      return booted;
    } catch (error) {
      thread.fail(error);
      throw error;
    }
  }

  #prepareStandby() {
    const { standby, standbyDelayMs } = this.#options;
    if (!standby || this.#closed || this.#spare) return;
    this.#standbyDue = new Promise((resolve) => setTimeout(resolve, standbyDelayMs)).then(() => {
      if (!this.#closed && !this.#spare) this.#spare = this.#spawn(true);
    });
  }

  /** Boot the first worker and open the sandbox in it; resolves with what its boot answered. */
  async start() {
    const thread = this.#spawn(false);
    const booted = await this.#openIn(thread);
    this.#active = thread;
    this.#prepareStandby();
    return booted;
  }

  /**
   * Terminate the active worker (its waiting calls reject with `error`) and open the sandbox
   * in the standby, or in a new worker if none is booted; resolves with the new active thread.
   * A new standby is prepared.
   */
  async replace(error) {
    this.#active?.fail(error); // stays `thread` until the next one is open: calls reject
    const next = this.#spare ?? this.#spawn(false);
    this.#spare = null;
    await this.#openIn(next);
    this.#active = next;
    this.#prepareStandby();
    return next;
  }

  /** Resolves once a standby worker is booted (at once without one). */
  async standbyReady() {
    for (;;) {
      await this.#standbyDue;
      const spare = this.#spare;
      if (!spare) return;
      await spare.booted.catch(() => {});
      if (spare === this.#spare) return;
    }
  }

  /** Terminate the workers; calls waiting on them reject with `error`. */
  close(error = new Error(CLOSED)) {
    this.#closed = true;
    this.#active?.fail(error);
    this.#spare?.fail(error);
    this.#spare = null;
  }
}

/**
 * A corral sandbox in a Web Worker. Create it with {@link createWorkerSandbox}.
 */
export class WorkerSandbox {
  #relay;
  #limits;
  #graceMs;
  #timeout = null; // the sandbox's time limit in seconds, as corral.Limits resolved it
  #overrun = null; // {error_kind, exit_code, error}: corral's result for a terminated worker
  #snapshot = null; // ArrayBuffer: files and shell session after the last completed execution
  #queue = Promise.resolve();
  #restarting = null; // the replacement of a terminated worker, which the next operation awaits
  #closed = false;

  constructor(urls, limits, graceMs, standby) {
    this.#limits = limits;
    this.#graceMs = graceMs;
    this.#relay = new WorkerRelay({
      url: new URL("./corral-worker-thread.mjs", import.meta.url),
      boot: (thread) => thread.call("boot", urls),
      open: (thread) => this.#open(thread),
      standby,
    });
    /** Files of the sandbox: `read(path)` (Uint8Array), `write(path, data)`, `list(dir)`. */
    this.fs = {
      read: (path) => this.#serial(async () => new Uint8Array(await this.#thread.call("read", { path }))),
      write: (path, data) =>
        this.#serial(async () => {
          const bytes = typeof data === "string" ? new TextEncoder().encode(data) : new Uint8Array(data);
          this.#snapshot = await this.#thread.call("write", { path, data: bytes.buffer }, [bytes.buffer]);
        }),
      list: (path = "/workspace") => this.#serial(() => this.#thread.call("list", { path })),
    };
    /** How many times a worker was terminated and replaced. */
    this.restarts = 0;
  }

  get #thread() {
    return this.#relay.thread;
  }

  /** The time limit of one execution, in seconds (corral's `Limits.timeout`). */
  get timeout() {
    return this.#timeout;
  }

  async _start() {
    try {
      await this.#relay.start();
    } catch (error) {
      this.close();
      throw error;
    }
  }

  // Open the sandbox in a booted thread, from the last snapshot if there is one.
  async #open(thread) {
    const snapshot = this.#snapshot ? this.#snapshot.slice(0) : null;
    const opened = await thread.call("open", { limits: this.#limits, snapshot }, snapshot ? [snapshot] : []);
    this.#timeout = opened.timeout;
    this.#overrun = opened.overrun;
  }

  // Operations run one at a time, in the order they were asked for.
  #serial(operation) {
    if (this.#closed) return Promise.reject(new Error(CLOSED));
    const next = this.#queue.then(() => this.#restarting).then(operation);
    this.#queue = next.catch(() => {});
    return next;
  }

  /**
   * Run `code` (`language`: "javascript", the default, or "shell"); resolves with the fields of
   * corral's ExecutionResult. An execution that overruns the time limit plus the grace is
   * stopped by terminating the worker: it resolves with error_kind "timeout" and exit code
   * 124, and the sandbox continues with its files as of the last completed execution.
   */
  execute(code, { language = "javascript" } = {}) {
    return this.#serial(() => this.#run(code, language));
  }

  async #run(code, language) {
    const started = performance.now();
    const thread = this.#thread;
    let timer;
    const overrun = new Promise((resolve) => {
      timer = setTimeout(() => resolve(TIMED_OUT), this.#timeout * 1000 + this.#graceMs);
    });
    let answer;
    try {
      answer = await Promise.race([thread.call("execute", { code, language }), overrun]);
    } catch (error) {
      if (thread.failed) this.#restart(error); // the worker died; else corral refused
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (answer !== TIMED_OUT) {
      this.#snapshot = answer.snapshot;
      return answer.result;
    }
    const waited = (performance.now() - started) / 1000;
    this.#restart(new Error("the execution overran its time limit"));
    // As corral reports the native backstop (corral wrote the kind, exit code and message when
    // the sandbox opened): the error is also the end of stderr. What the execution printed
    // before is lost with the worker.
    const { error_kind, exit_code } = this.#overrun;
    const error = this.#overrun.error.replace("{waited}", waited.toFixed(1));
    return {
      stdout: "",
      stderr: `${error}\n`,
      exit_code,
      return_value: null,
      error,
      error_kind,
      tool_calls: [],
      duration_ms: performance.now() - started,
    };
  }

  // Terminate the active worker at once; the sandbox continues on the standby (or a new
  // worker) from the last snapshot, which the next operation waits for.
  #restart(error) {
    if (this.#closed) return;
    this.restarts += 1;
    this.#restarting = this.#relay.replace(error).then(() => {});
    this.#restarting.catch(() => {}); // reported by the next operation
  }

  /** Resolves once the standby worker is booted (at once without one). */
  async standbyReady() {
    await this.#restarting;
    await this.#relay.standbyReady();
  }

  /** Terminate the worker (and the standby); later calls reject. */
  close() {
    this.#closed = true;
    this.#relay.close(new Error(CLOSED));
  }
}

/**
 * Boot a worker with Pyodide and corral and open a sandbox in it.
 *
 * options: pyodideURL (Pyodide's directory, with pyodide.mjs), wheelURL (the corral wheel),
 * graceMs (how long past the time limit an execution may run before its worker is terminated;
 * GRACE_MS: 500), standby (boot a second worker ahead, so a restart is quick; true), and any fields of
 * corral's Limits (timeout, memory, max_output, max_fs_bytes, ...). Relative URLs are resolved
 * against the page.
 */
export async function createWorkerSandbox(options) {
  const { pyodideURL, wheelURL, graceMs = GRACE_MS, standby = true } = options;
  if (!pyodideURL || !wheelURL) {
    throw new Error("createWorkerSandbox needs pyodideURL (Pyodide's directory) and wheelURL (the corral wheel)");
  }
  const limits = Object.fromEntries(Object.entries(options).filter(([key]) => !OPTIONS.has(key)));
  const base = globalThis.document?.baseURI ?? globalThis.location.href;
  const directory = new URL(pyodideURL, base).href;
  const urls = {
    pyodideURL: directory.endsWith("/") ? directory : `${directory}/`,
    wheelURL: new URL(wheelURL, base).href,
  };
  const sandbox = new WorkerSandbox(urls, limits, graceMs, standby);
  await sandbox._start();
  return sandbox;
}
