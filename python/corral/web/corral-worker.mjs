// corral in a Web Worker, for a page: the browser's backstop for code that the guest's own
// time checks cannot stop. The sandbox lives in a worker (corral-worker-thread.mjs, next to
// this file); when an execution overruns its time limit plus a grace, the page terminates the
// worker, continues on a fresh one (a standby booted ahead) with the files and shell session of
// the last completed execution, and the execution ends like a timeout: exit code 124. See
// docs/browser.rst, "A sandbox in a Web Worker".

const OPTIONS = new Set(["pyodideURL", "wheelURL", "graceMs", "standby"]);
const TIMED_OUT = Symbol("timed out");

// One booted worker (Pyodide, the wheel and the compiled module), before or after `open`.
class Thread {
  constructor() {
    this.worker = new Worker(new URL("./corral-worker-thread.mjs", import.meta.url), {
      type: "module",
    });
    this.pending = new Map(); // request id -> {resolve, reject}
    this.nextId = 1;
    this.worker.onmessage = ({ data: { id, ok, value, error } }) => {
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      if (waiter) ok ? waiter.resolve(value) : waiter.reject(new Error(error));
    };
    this.worker.onerror = (event) => {
      event.preventDefault();
      this.fail(new Error(`the sandbox's worker failed: ${event.message || "unknown error"}`));
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

  // Stop the worker; every call still waiting rejects with `error`.
  fail(error) {
    this.failed ??= error;
    this.worker.terminate();
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }
}

function bootThread(urls) {
  const thread = new Thread();
  thread.booted = thread.call("boot", urls).then(() => thread);
  thread.booted.catch(() => thread.fail(new Error("the sandbox's worker did not boot")));
  return thread;
}

/**
 * A corral sandbox in a Web Worker. Create it with {@link createWorkerSandbox}.
 */
export class WorkerSandbox {
  #urls;
  #limits;
  #graceMs;
  #standby;
  #thread = null;
  #spare = null; // a standby Thread, booting or booted
  #timeout = null; // the sandbox's time limit in seconds, as corral.Limits resolved it
  #overrun = null; // {error_kind, exit_code, error}: corral's result for a terminated worker
  #snapshot = null; // ArrayBuffer: files and shell session after the last completed execution
  #queue = Promise.resolve();
  #restarting = null; // the replacement of a terminated worker, which the next operation awaits
  #closed = false;

  constructor(urls, limits, graceMs, standby) {
    this.#urls = urls;
    this.#limits = limits;
    this.#graceMs = graceMs;
    this.#standby = standby;
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

  /** The time limit of one execution, in seconds (corral's `Limits.timeout`). */
  get timeout() {
    return this.#timeout;
  }

  async _start() {
    const thread = bootThread(this.#urls);
    try {
      this.#thread = await this.#open(thread);
    } catch (error) {
      thread.fail(error);
      this.close();
      throw error;
    }
    this.#prepareSpare();
  }

  // A booted thread with the sandbox open in it, from the last snapshot if there is one.
  async #open(thread) {
    await thread.booted;
    const snapshot = this.#snapshot ? this.#snapshot.slice(0) : null;
    const opened = await thread.call("open", { limits: this.#limits, snapshot }, snapshot ? [snapshot] : []);
    this.#timeout = opened.timeout;
    this.#overrun = opened.overrun;
    return thread;
  }

  #prepareSpare() {
    if (this.#standby && !this.#closed && !this.#spare) this.#spare = bootThread(this.#urls);
  }

  // Operations run one at a time, in the order they were asked for.
  #serial(operation) {
    if (this.#closed) return Promise.reject(new Error("the sandbox is closed; create a new one"));
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
      if (thread.failed) this.#restart(thread, error); // the worker died; else corral refused
      throw error;
    } finally {
      clearTimeout(timer);
    }
    if (answer !== TIMED_OUT) {
      this.#snapshot = answer.snapshot;
      return answer.result;
    }
    const waited = (performance.now() - started) / 1000;
    this.#restart(thread, new Error("the execution overran its time limit"));
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

  // Terminate `thread` at once; the sandbox continues on the standby (or a new worker) from the
  // last snapshot, which the next operation waits for.
  #restart(thread, error) {
    thread.fail(error);
    if (this.#closed) return;
    this.restarts += 1;
    const next = this.#spare ?? bootThread(this.#urls);
    this.#spare = null;
    this.#restarting = this.#open(next).then((opened) => {
      this.#thread = opened;
      if (this.#closed) opened.fail(new Error("the sandbox is closed; create a new one"));
      this.#prepareSpare();
    });
    this.#restarting.catch(() => {}); // reported by the next operation
  }

  /** Resolves once the standby worker is booted (at once without one). */
  async standbyReady() {
    await this.#restarting;
    await this.#spare?.booted;
  }

  /** Terminate the worker (and the standby); later calls reject. */
  close() {
    this.#closed = true;
    const closed = new Error("the sandbox is closed; create a new one");
    this.#thread?.fail(closed);
    this.#spare?.fail(closed);
    this.#spare = null;
  }
}

/**
 * Boot a worker with Pyodide and corral and open a sandbox in it.
 *
 * options: pyodideURL (Pyodide's directory, with pyodide.mjs), wheelURL (the corral wheel),
 * graceMs (how long past the time limit an execution may run before its worker is terminated;
 * 1000), standby (boot a second worker ahead, so a restart is quick; true), and any fields of
 * corral's Limits (timeout, memory, max_output, max_fs_bytes, ...). Relative URLs are resolved
 * against the page.
 */
export async function createWorkerSandbox(options) {
  const { pyodideURL, wheelURL, graceMs = 1000, standby = true } = options;
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
