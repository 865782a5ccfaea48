// The page: a terminal, the tool-call and capability panels, the file tree, and the workers that
// run corral in Pyodide. The terminal takes input at once; commands typed while Python loads
// run when it is ready. After every completed command the worker hands back a snapshot of the
// sandbox's files and shell session. Ctrl-C (or a command overrunning its time limit by more
// than a second) terminates the worker and goes on in a standby worker booted ahead, whose
// sandbox is already open from that snapshot. The page, not the worker, holds the authority a
// restart must not reset: the ledger of tool calls made (charged again against the budgets in
// the new worker), the audit shown in the tool panel and the JavaScript REPL's bindings.
import { Terminal } from "./vendor/xterm/xterm.mjs";
import { FitAddon } from "./vendor/xterm/addon-fit.mjs";
import { LineEditor } from "./terminal.js";
import { javascriptIncomplete, shellIncomplete } from "./incomplete.js";
// GRACE_MS: past the time limit, the page terminates the worker, as createWorkerSandbox does.
import { GRACE_MS, WorkerRelay } from "./corral-web/corral-worker.mjs";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const TIMEOUT = Math.min(Math.max(Number(params.get("timeout")) || 20, 0.5), 600); // seconds
const color = (code) => (text) => `\x1b[${code}m${text}\x1b[0m`;
const red = color("31"), dim = color("2"), yellow = color("33"), green = color("32"), bold = color("1");
const PROMPTS = { shell: `${green("corral")}${dim("$")} `, javascript: `${yellow("js")}${dim(">")} ` };

const MODE_HINTS = {
  shell: "Shell: bash-like commands; `tool NAME --key value` calls a tool",
  javascript: "JavaScript REPL: the last expression's value is printed, bindings are kept; tools are async functions",
};

const EXAMPLES = [
  ["shell", "tool get_weather --city Paris", "allowed"],
  ["shell", "tool get_weather --city Mars", "denied"],
  ["shell", "tool sales_records --region EU --limit 3 | jq -r '.[] | \"\\(.id) \\(.units) x \\(.price)\"'", "allowed"],
  ["shell", "tool sales_records --region APAC", "denied"],
  ["javascript", "const w = await Promise.all([\"Paris\", \"Tokyo\"].map((city) => get_weather({city}))); return w.map((x) => x.temp_c)", "allowed"],
  ["javascript", "return await sales_records({region: \"US\", limit: 50})", "denied"],
  ["shell", "mkdir -p notes && echo 'hello from the sandbox' > notes/hello.txt && ls -R", "files"],
  ["shell", "seq 1 100 | awk '{ s += $1 } END { print \"sum:\", s }'", "pipeline"],
  ["shell", "while true; do :; done", "Ctrl-C / timeout"],
];

const state = {
  ready: null,          // resolves when the first sandbox is open
  used: {},             // the ledger: allowed tool calls per capability pattern
  audit: [],            // every tool-call decision, across restarts
  scope: {},            // the JavaScript REPL's bindings
  switching: false,     // a worker is being replaced
  running: false,       // a "run" is in flight in the active worker (interruptible in place)
  stopping: null,       // Ctrl-C signalled in place: {started, fallback timer}
  commandStarted: false, // the active worker has started the running command
  interrupts: 0,        // Ctrl-Cs so far (the agent replay stops typing on one)
  mode: "shell",
  busy: false,
  snapshot: null,       // the last completed command's snapshot (ArrayBuffer)
  snapshotDue: null,    // resolves when the snapshot of the last command has arrived
  snapshotArrived: null,
  lastRun: null,        // the last completed command: {code, language, result, trace, openedFrom}
  openedFrom: null,     // the snapshot the active sandbox was opened from (ArrayBuffer)
  trace: [],            // the active sandbox's trace, as the worker hands it out (JSON lines)
  after: null,          // printed after the next command's output (the CSV example)
  viewing: null,
  calls: { total: 0, denied: 0 },
};

// --- the workers --------------------------------------------------------------------------------

class Interrupted extends Error {}

// The active worker and a standby booted ahead: corral's own WorkerRelay (the mechanism under
// createWorkerSandbox), driving this page's worker script. A standby boots a second after the
// sandbox opens, and keeps Pyodide's memory snapshot in Cache Storage for the next visit.
// Ctrl-C in place, on a cross-origin isolated page (web/serve.py sends the headers): each worker
// gets an Int32Array on a SharedArrayBuffer as Pyodide's interrupt buffer (worker.js: run), and
// Ctrl-C writes SIGINT into the active one's. A command that has not stopped within IN_PLACE_MS
// (a builtin the guest cannot interrupt) has its worker replaced once a standby is booted
// (stopWhenQuick), as without isolation.
const IN_PLACE_MS = 250;
// Counted from when the worker starts the command ("started"): a Ctrl-C may come while it still
// finishes earlier work (the last command's snapshot, the panels). A worker that has not started
// it QUEUED_MS after Ctrl-C is replaced all the same.
const QUEUED_MS = 2000;
const signals = new WeakMap(); // WorkerThread -> its Int32Array
const relay = new WorkerRelay({
  url: new URL("worker.js", location.href),
  first: window.corralFirstWorker, // started by index.html
  boot: (thread, { standby }) => {
    const interrupt = self.crossOriginIsolated ? new Int32Array(new SharedArrayBuffer(4)) : null;
    if (interrupt) signals.set(thread, interrupt);
    const booted = thread.call("boot", { store: standby, interrupt });
    if (standby) booted.then(() => openAhead(thread), () => {});
    return booted;
  },
  open: (thread) => {
    state.openedFrom = state.snapshot; // its trace leaves the snapshot's files out: replayLast
    const { done, fresh } = openIn(thread);
    if (!fresh && relay.thread) window.corralDemo.openedAtSwitch++; // (none before the first)
    return done;
  },
  onEvent: (data, thread) => {
    if (data.type === "progress") { if (!window.corralDemo.ready) showProgress(data); }
    else if (thread !== relay.thread) return; // the standby's, or a replaced worker's
    else if (data.type === "toolcall") showCall(data.entry);
    else if (data.type === "snapshot") snapshotArrived(data.snapshot, data.trace);
    else if (data.type === "started") commandStarted();
  },
  onCrash: (error) => {
    if (window.corralDemo.ready) restart(`[${error.message}; restarting]`);
  },
  standbyDelayMs: 1000,
});

// The sandbox in `thread` opened from the last snapshot, the ledger and the bindings: `done`
// resolves when it is open. A standby is opened ahead (openAhead), so that a switch to it
// opens nothing; `fresh` says whether that was so (what the page holds has not changed since,
// as when a stopped command made no tool call).
const opened = new WeakMap(); // WorkerThread -> {snapshot, scope, used, done}
function openIn(thread) {
  const last = opened.get(thread);
  const used = JSON.stringify(state.used);
  if (last && last.snapshot === state.snapshot && last.scope === state.scope && last.used === used) {
    return { done: last.done, fresh: true };
  }
  const snapshot = state.snapshot ? state.snapshot.slice(0) : null;
  const args = { timeout: TIMEOUT, snapshot, used: state.used, scope: state.scope };
  const done = thread.call("open", args, snapshot ? [snapshot] : []);
  opened.set(thread, { snapshot: state.snapshot, scope: state.scope, used, done });
  done.catch(() => opened.get(thread)?.done === done && opened.delete(thread)); // tried again at the switch
  return { done, fresh: false };
}

// Open the sandbox in the standby `thread` (default: the booted one) from what the page holds
// now: after it boots, and when a command has run for OPEN_AHEAD_MS (a Ctrl-C switches no
// sooner than IN_PLACE_MS). Not after every command: a quick one, as most are, would share the
// processor with the standby's work when the next command follows at once.
const OPEN_AHEAD_MS = 50;
let standbyThread = null;
function openAhead(thread = standbyThread) {
  standbyThread = thread;
  if (!thread || thread === relay.thread || !window.corralDemo.ready) return;
  window.corralDemo.standbyOpen = false;
  const { done } = openIn(thread);
  done.then(() => {
    const current = opened.get(thread);
    const latest = current?.done === done && current.snapshot === state.snapshot;
    if (latest && thread === standbyThread) window.corralDemo.standbyOpen = true;
  }, () => {});
}

// window.corralDemo.standbyReady: whether a standby is booted for the next Ctrl-C.
function watchStandby() {
  window.corralDemo.standbyReady = false;
  relay.standbyReady().then(() => (window.corralDemo.standbyReady = relay.standbyBooted));
}

// The worker posts a snapshot after each command that may change the files (run, write), after
// its answer. Before the next such command the page waits for it (it is already on its way), so
// that a Ctrl-C during that command restarts from it.
async function expectSnapshot() {
  await state.snapshotDue;
  state.snapshotDue = new Promise((resolve) => (state.snapshotArrived = resolve));
}

function snapshotArrived(snapshot, trace) {
  if (snapshot) state.snapshot = snapshot;
  if (trace) state.trace.push(trace);
  state.snapshotArrived?.();
  if (snapshot) window.corralDemo.standbyOpen = false; // from an older one
}

function call(op, args = {}, transfer = []) {
  return relay.thread.call(op, args, transfer);
}

// --- the terminal -------------------------------------------------------------------------------

const term = new Terminal({
  cursorBlink: true,
  fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, monospace',
  fontSize: 13,
  theme: { background: "#0b0f13" },
  scrollback: 5000,
  allowProposedApi: true, // term.unicode: the editor gives the terminal its character widths
});
const fit = new FitAddon();
term.loadAddon(fit);
// Tab completes in the terminal, so it would keep the keyboard's focus for good: Escape then
// Tab, or Shift-Tab, moves the focus on, as in code editors.
let escaped = false;
term.attachCustomKeyEventHandler((event) => {
  if (event.type !== "keydown") return true;
  const leave = event.key === "Tab" && (escaped || event.shiftKey);
  escaped = event.key === "Escape";
  return !leave; // false: xterm.js leaves the key to the browser
});
const editor = new LineEditor(term, {
  onLine: (line) => (state.current = runLine(line)),
  onInterrupt: interrupt,
  isComplete: (text) => !(state.mode === "shell" ? shellIncomplete(text) : javascriptIncomplete(text)),
  complete: async (line) => (window.corralDemo.ready && !state.busy ? call("complete", { line, language: state.mode }) : null),
  historyKey: "corral-demo-history",
});

window.corralDemo = {
  ready: false,
  promptMs: null,       // the prompt is shown and takes input
  readyMs: null,        // the sandbox runs commands
  interrupts: [],       // ms from Ctrl-C to the prompt
  stoppedInPlace: 0,    // Ctrl-Cs that interrupted the command in its worker (no restart)
  typingMs: Number(params.get("typing") ?? 12), // the agent replay's typing speed (0: at once)
  used: state.used,
  audit: state.audit,
  timings: null,
  roundTrips: [],
  restarts: 0,
  get transcript() { return editor.transcript; },
  get line() { return editor.line.join(""); },
  get cols() { return term.cols; },
  get screen() { // the terminal's rows as shown, from the top of the viewport (tests)
    const buffer = term.buffer.active;
    return Array.from({ length: term.rows }, (_, i) => buffer.getLine(buffer.viewportY + i)?.translateToString(true) ?? "");
  },
  standbyReady: false,  // a standby worker is booted for the next Ctrl-C
  standbyOpen: false,   // and its sandbox open from the last snapshot and ledger (openAhead)
  openedAtSwitch: 0,    // switches to a worker whose sandbox had to be opened then
  paste: (text) => term.paste(text), // as the browser's paste does (tests)
  get busy() { return state.busy; },
};

function setState(name) {
  document.body.dataset.state = name;
  $("status").textContent = { ready: "ready", running: "running…", restarting: "restarting…", loading: "loading", error: "error" }[name];
  const idle = name === "ready";
  $("csv-example").disabled = !idle;
  $("agent").disabled = !idle;
  $("replay").disabled = !idle || !state.lastRun;
  $("stop").disabled = name !== "running";
}

function prompt() {
  setState(window.corralDemo.ready ? "ready" : "loading");
  editor.prompt(PROMPTS[state.mode]);
}

// Leave the prompt line (keeping what was typed) to print something, then come back.
function aside(print) {
  const typed = editor.line.join("");
  editor.moveTo(editor.line.length);
  editor.reading = false;
  editor.write("\n");
  print();
  prompt();
  if (typed) editor.insert([...typed]);
}

function showResult(result) {
  let out = result.stdout;
  if (out && !out.endsWith("\n")) out += "\n";
  editor.write(out);
  if (result.stderr) editor.write(red(result.stderr.endsWith("\n") ? result.stderr : result.stderr + "\n"));
  // Why it ended, even when the output cap cut stderr before the guest could say it.
  if (result.error && !(result.stderr || "").includes(result.error)) editor.write(red(`${result.error}\n`));
  if (result.exit_code !== 0) editor.write(dim(`[exit ${result.exit_code}]\n`));
}

async function runLine(code) {
  const started = performance.now();
  const after = state.after;
  state.after = null;
  if (!code.trim()) return prompt();
  // The sandbox has no terminal to clear: the page does what `clear` and `reset` do in one.
  if (state.mode === "shell" && /^\s*(clear|reset)\s*$/.test(code)) {
    term.clear();
    term.write("\x1b[H\x1b[2J");
    return prompt();
  }
  state.busy = true;
  if (!window.corralDemo.ready) {
    editor.write(dim("[the sandbox is still starting: this runs when it is ready]\n"));
    try {
      await state.ready;
    } catch {
      return;
    }
  }
  setState("running");
  try {
    const language = state.mode;
    await expectSnapshot();
    const result = await runWithinLimit(code, language);
    if (result.interrupted) return stoppedInPlace();
    cancelStopping(); // a Ctrl-C as the command ended: it completed, nothing to stop
    if (result.scope) state.scope = result.scope;
    // (A command the page stopped left no trace: Replay keeps to the last completed one.)
    if (!result.terminated) state.lastRun = { code, language, result, trace: state.trace, openedFrom: state.openedFrom };
    showResult(result);
    if (after) await after(result);
  } catch (error) {
    if (error instanceof Interrupted) return;
    cancelStopping();
    snapshotArrived(null); // none comes after an error
    editor.write(red(`corral: ${error.message}\n`));
  }
  state.busy = false;
  prompt();
  window.corralDemo.roundTrips.push(performance.now() - started);
  refreshPanels();
}

// Run a command; if it overruns the time limit by GRACE_MS (code the guest's own checks cannot
// stop), terminate its worker and answer as a timeout.
async function runWithinLimit(code, language) {
  const started = performance.now();
  let timer;
  const overrun = new Promise((resolve) => (timer = setTimeout(resolve, TIMEOUT * 1000 + GRACE_MS, null)));
  state.running = true;
  const signal = signals.get(relay.thread);
  if (signal) Atomics.store(signal, 0, 0); // from here on Ctrl-C stops this command (worker.js: run)
  state.commandStarted = false;
  const ahead = setTimeout(openAhead, OPEN_AHEAD_MS);
  const result = await Promise.race([call("run", { code, language }), overrun]).finally(() => {
    clearTimeout(timer);
    clearTimeout(ahead);
    state.running = false;
  });
  if (result) return result;
  const waited = ((performance.now() - started) / 1000).toFixed(1);
  const error = `TimeoutError: the command ran past the ${TIMEOUT} s time limit and did not stop, so its ` +
    `worker was terminated after ${waited} s; the sandbox goes on with the files and shell session of the last completed command`;
  snapshotArrived(null);
  await switchWorker();
  return { stdout: "", stderr: `${error}\n`, exit_code: 124, error, error_kind: "timeout", terminated: true };
}

const STOPPED = "[stopped: the sandbox goes on from the files and shell session of the last completed command]";

function interrupt() {
  if (!state.busy || !window.corralDemo.ready || state.switching) return;
  state.interrupts++;
  const started = performance.now();
  editor.write("^C\n");
  const signal = state.running && !state.stopping ? signals.get(relay.thread) : undefined;
  if (signal) {
    Atomics.store(signal, 0, 2); // SIGINT: the run answers {interrupted: true} (stoppedInPlace)
    const wait = state.commandStarted ? IN_PLACE_MS : QUEUED_MS;
    state.stopping = { started, timer: setTimeout(() => stopWhenQuick(started), wait) };
    return;
  }
  stopByRestart(state.stopping?.started ?? started);
}

// Not stopped in place after IN_PLACE_MS: replace the worker once that is quick (a standby is
// booted). Until then a restart would wait for the standby's boot anyway, and the interrupt
// may still land (a loaded machine, the first second after ready while the standby boots).
function stopWhenQuick(started) {
  if (state.stopping?.started !== started) return;
  if (relay.standbyBooted) return stopByRestart(started);
  relay.standbyReady().then(() => {
    if (state.stopping?.started === started) stopByRestart(started);
  });
}

// Ctrl-C by replacing the worker: without isolation, or when the command did not stop in place.
function stopByRestart(started) {
  cancelStopping();
  if (state.switching) return;
  restart(wrapWords(STOPPED, Math.max(20, term.cols - 1))).then(() => window.corralDemo.interrupts.push(performance.now() - started));
}

// The worker has started the command: a Ctrl-C pressed before has IN_PLACE_MS from now.
function commandStarted() {
  state.commandStarted = true;
  const stopping = state.stopping;
  if (!stopping) return;
  clearTimeout(stopping.timer);
  stopping.timer = setTimeout(() => stopWhenQuick(stopping.started), IN_PLACE_MS);
}

function cancelStopping() {
  if (state.stopping) clearTimeout(state.stopping.timer);
  state.stopping = null;
}

// The command stopped at Ctrl-C in its own worker: the sandbox is as the last completed command
// left it (corral restores it), and the worker goes on.
function stoppedInPlace() {
  const { started } = state.stopping ?? { started: performance.now() };
  cancelStopping();
  editor.write(dim(`${wrapWords(STOPPED, Math.max(20, term.cols - 1))}\n`));
  state.busy = false;
  prompt();
  window.corralDemo.interrupts.push(performance.now() - started);
  window.corralDemo.stoppedInPlace++;
  refreshPanels();
}

// Terminate the active worker and open the sandbox in the standby (booted ahead), from the last
// snapshot, the ledger and the bindings; a new standby then boots in the background.
async function switchWorker() {
  state.switching = true;
  window.corralDemo.standbyReady = false; // it becomes the active one
  window.corralDemo.standbyOpen = false;
  state.snapshotDue = null;
  state.trace = []; // the new sandbox's; the last command's stays with state.lastRun
  try {
    await relay.replace(new Interrupted("interrupted"));
  } finally {
    state.switching = false;
  }
  window.corralDemo.restarts++;
  watchStandby();
}

async function restart(reason) {
  setState("restarting");
  editor.write(dim(`${reason}\n`));
  try {
    await switchWorker();
  } catch (error) {
    return fatal(error);
  }
  state.busy = false;
  prompt();
  refreshPanels();
}

// --- panels -------------------------------------------------------------------------------------

function el(tag, props = {}, ...children) {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
}

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function showCall(entry) {
  state.audit.push(entry);
  if (entry.decision === "allowed" && entry.pattern) state.used[entry.pattern] = (state.used[entry.pattern] ?? 0) + 1;
  const list = $("calls");
  list.querySelector(".empty")?.remove();
  state.calls.total++;
  if (entry.decision === "denied") state.calls.denied++;
  const args = JSON.stringify(entry.params);
  const item = el("li", { className: entry.decision + (entry.replayed ? " replayed" : "") },
    el("span", { className: "decision", textContent: entry.decision }),
    el("code", { textContent: `${entry.method}(${args})` }),
    el("div", { className: "rule", textContent: entry.decision === "denied" ? entry.error || entry.rule : `by ${entry.rule}` }));
  list.append(item);
  item.scrollIntoView({ block: "nearest" });
  $("call-count").textContent = `${state.calls.total} calls · ${state.calls.denied} denied`;
}

async function refreshPanels() {
  if (state.busy) return;
  try {
    const [caps, tree] = await Promise.all([call("capabilities"), call("tree")]);
    $("caps").replaceChildren(...caps.map((cap) => el("li", {},
      el("code", { textContent: cap.rule }),
      el("div", { className: "remaining", textContent: cap.remaining === null ? "no call budget" : `${cap.remaining} calls left` }))));
    showTree(tree);
    if (state.viewing && tree.some((e) => e.path === state.viewing)) await view(state.viewing);
  } catch (error) {
    if (!(error instanceof Interrupted)) console.warn("panel refresh failed", error);
  }
}

function showTree(entries) {
  $("tree").replaceChildren(...entries.map((entry) => {
    const depth = entry.path.split("/").length - 2;
    const name = depth === 0 ? entry.path : entry.path.slice(entry.path.lastIndexOf("/") + 1);
    const item = el("li", { className: entry.kind === "dir" ? "dir" : "file", title: entry.path },
      entry.kind === "dir" ? `${name}/` : name);
    item.dataset.path = entry.path;
    item.style.paddingLeft = `${4 + depth * 14}px`;
    if (entry.kind !== "dir") {
      item.append(el("span", { className: "size", textContent: formatSize(entry.size) }));
      item.onclick = () => view(entry.path);
      item.tabIndex = 0; // viewed from the keyboard too (Enter or Space)
      item.setAttribute("role", "button");
      item.onkeydown = (event) => {
        if (event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        view(entry.path);
      };
      if (entry.path === state.viewing) item.classList.add("selected");
    }
    return item;
  }));
}

async function view(path) {
  if (state.busy) return;
  const file = await call("view", { path });
  state.viewing = path;
  $("viewer").hidden = false;
  $("viewer-path").textContent = `${path} (${formatSize(file.size)})`;
  $("viewer-text").textContent = file.text + (file.size > file.text.length ? "\n…" : "");
  for (const item of $("tree").children) item.classList.toggle("selected", item.dataset.path === path);
}

async function download() {
  if (!state.viewing || state.busy) return;
  const data = await call("read", { path: state.viewing });
  const link = el("a", { href: URL.createObjectURL(new Blob([data])), download: state.viewing.split("/").pop() });
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

async function upload(file) {
  if (!file || state.busy) return;
  const data = await file.arrayBuffer();
  const path = `/workspace/${file.name}`;
  try {
    await expectSnapshot();
    await call("write", { path, data }, [data]);
    aside(() => editor.write(dim(`[uploaded ${path} (${formatSize(file.size)})]\n`)));
    state.viewing = path;
  } catch (error) {
    snapshotArrived(null);
    aside(() => editor.write(red(`upload failed: ${error.message}\n`)));
  }
  refreshPanels();
}

function setMode(mode) {
  if (mode === state.mode) return;
  state.mode = mode;
  $("mode-shell").classList.toggle("active", mode === "shell");
  $("mode-js").classList.toggle("active", mode === "javascript");
  $("mode-shell").setAttribute("aria-selected", String(mode === "shell"));
  $("mode-js").setAttribute("aria-selected", String(mode === "javascript"));
  editor.setPrompt(PROMPTS[mode]);
  $("mode-hint").textContent = MODE_HINTS[mode];
  term.focus();
}

// Type `code` at the prompt in `mode` and run it; resolves when the command is done.
async function typeAndRun(mode, code) {
  if (state.busy || !editor.reading) return;
  setMode(mode);
  editor.submit(code);
  await state.current;
}

async function csvExample() {
  const [generate, summarise] = JSON.parse(await call("csvExample"));
  await typeAndRun("shell", generate);
  state.after = async (result) => {
    const size = await call("size", { path: "sales.csv" });
    const returned = new TextEncoder().encode(result.stdout + result.stderr).length;
    editor.write(bold(`${formatSize(size)} read inside the sandbox → ${returned} bytes returned ` +
      `(${(size / Math.max(returned, 1)).toFixed(0)}× less for the model to read)\n`));
  };
  await typeAndRun("shell", summarise);
}

// Replay the last completed command: the worker runs the trace of the sandbox that ran it
// again (the page keeps it, so after a Ctrl-C replaced that sandbox it still can), no tool
// called, no clock read, and corral checks every output against the recording.
async function replayLast() {
  if (state.busy || !state.lastRun) return;
  state.busy = true;
  setState("running");
  const last = state.lastRun;
  let replayed;
  try {
    await state.snapshotDue; // the trace of the last command comes with its snapshot
    const snapshot = last.openedFrom ? last.openedFrom.slice(0) : null;
    replayed = await call("replay", { trace: last.trace.join(""), snapshot }, snapshot ? [snapshot] : []);
  } catch (error) {
    replayed = { error: error.message };
  }
  state.busy = false;
  const before = last.trace === state.trace ? "the sandbox's trace" : "the trace of the sandbox before the restart";
  aside(() => {
    editor.write(dim(`[replay of \`${last.code}\` from ${before}: its ${replayed.executions ?? "?"} ` +
      "executions run again, no tool called, no clock read]\n"));
    if (replayed.error) return editor.write(red(`replay failed: ${replayed.error}\n`));
    showResult(replayed.result);
    const same = replayed.identical && replayed.result.stdout === last.result.stdout;
    editor.write(same ? green("✓ output identical to the original run\n") : red("✗ the replayed output differs\n"));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// "Agent at work": a recorded code-mode session (agent_session.json) played back. The task and
// the script the model wrote are typed out, then the worker replays the recorded trace with
// corral.replay_all (every tool answer comes from the trace: no model, no server, no tool
// called) and the tool calls fill the panel one by one before the final answer.
async function agentAtWork() {
  if (state.busy || !editor.reading || !window.corralDemo.ready) return;
  state.busy = true;
  setState("running");
  const typed = editor.line.join("");
  editor.moveTo(editor.line.length);
  editor.reading = false;
  editor.write("\n");
  const speed = window.corralDemo.typingMs;
  try {
    const session = await (await fetch("agent_session.json")).text();
    const { task, code } = JSON.parse(session);
    const interrupts = state.interrupts;
    const replaying = call("agent", { session });
    replaying.catch(() => {}); // awaited below unless a Ctrl-C stops the typing
    const cols = Math.max(20, term.cols - 1);
    const label = "Task (to the model):";
    editor.write(bold(label) + wrapWords(`${label} ${task}`, cols).slice(label.length) + "\n");
    editor.write(dim(wrapWords("The model answers with one script, run in the sandbox (code mode):", cols)) + "\n");
    for (const line of code.split("\n")) {
      for (let i = 0; i < line.length; i += 4) {
        if (state.interrupts !== interrupts) return;
        editor.write(yellow(line.slice(i, i + 4)));
        if (speed) await sleep(speed);
      }
      editor.write("\n");
    }
    const replayed = await replaying;
    for (const entry of replayed.calls) {
      showCall({ ...entry, replayed: true });
      if (speed) await sleep(speed * 40);
    }
    editor.write(green("Answer:") + wrapWords(`Answer: ${replayed.answer}`, cols).slice("Answer:".length) + "\n");
    const note = wrapWords(`[replayed with corral.replay_all from the recorded trace: ${replayed.calls.length} tool calls ` +
      "answered from it, no model, no server]", cols);
    const verdict = replayed.identical ? "✓ identical to the recording" : "✗ differs";
    const fits = note.length - note.lastIndexOf("\n") + verdict.length <= cols; // kept whole
    editor.write(dim(note) + (fits ? " " : "\n") + (replayed.identical ? green : red)(verdict) + "\n");
  } catch (error) {
    if (error instanceof Interrupted) return;
    editor.write(red(`agent replay failed: ${error.message}\n`));
  }
  state.busy = false;
  prompt();
  if (typed) editor.insert([...typed]);
}

function showProgress({ stage, fraction, next, seconds }) {
  const bar = $("progress-bar");
  $("overlay-text").textContent = stage + "…";
  bar.style.transition = "none";
  bar.style.width = `${fraction * 100}%`;
  void bar.offsetWidth; // start the transition from there
  bar.style.transition = `width ${seconds}s ease-out`;
  bar.style.width = `${next * 98}%`;
}

function fatal(error) {
  setState("error");
  $("overlay").hidden = false;
  $("overlay").className = "overlay error";
  $("overlay-text").textContent = `The sandbox could not start: ${error.message}`;
  $("overlay-detail").textContent = "Reload the page to try again; the browser's console has details.";
}

// --- start ---------------------------------------------------------------------------------------

function missingFeatures() {
  const missing = [];
  if (typeof WebAssembly !== "object" || typeof WebAssembly.instantiate !== "function") missing.push("WebAssembly");
  if (typeof BigInt64Array !== "function") missing.push("BigInt");
  if (typeof Worker !== "function") return [...missing, "Web Workers"];
  let moduleWorkers = false;
  try {
    const url = URL.createObjectURL(new Blob([""], { type: "text/javascript" }));
    new Worker(url, { get type() { moduleWorkers = true; return "module"; } }).terminate();
    URL.revokeObjectURL(url);
  } catch { /* reported below */ }
  if (!moduleWorkers) missing.push("module Web Workers");
  return missing;
}

function wireUp() {
  $("timeout").textContent = TIMEOUT;
  $("mode-hint").textContent = MODE_HINTS[state.mode];
  $("mode-shell").onclick = () => setMode("shell");
  $("mode-js").onclick = () => setMode("javascript");
  $("replay").onclick = replayLast;
  $("stop").onclick = () => {
    interrupt();
    term.focus();
  };
  $("csv-example").onclick = csvExample;
  $("agent").onclick = agentAtWork;
  $("download").onclick = download;
  $("upload-label").onkeydown = (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    $("upload").click();
  };
  $("upload").onchange = (event) => upload(event.target.files[0]).finally(() => (event.target.value = ""));
  $("examples").replaceChildren(...EXAMPLES.map(([mode, code, tag]) => el("li", {},
    el("button", { onclick: () => typeAndRun(mode, code), title: `Run in ${mode} mode` },
      el("span", { className: "tag", textContent: `${mode === "shell" ? "sh" : "js"} · ${tag}` }),
      el("code", { textContent: code })))));
  new ResizeObserver(() => fit.fit()).observe($("terminal"));
}

// `text` broken into lines of at most `cols` columns at spaces (xterm.js wraps mid-word).
function wrapWords(text, cols) {
  return text.split("\n").map((paragraph) => {
    const lines = [];
    let line = "";
    for (const word of paragraph.split(" ")) {
      if (line && line.length + 1 + word.length > cols) {
        lines.push(line);
        line = word;
      } else {
        line = line ? `${line} ${word}` : word;
      }
    }
    return [...lines, line].join("\n");
  }).join("\n");
}

function welcome() {
  const cols = Math.max(20, term.cols - 1);
  const intro = wrapWords("corral — a bash-like shell and a JavaScript REPL in a WebAssembly sandbox, " +
    "running in your browser (Pyodide in a Web Worker).", cols);
  editor.write(bold("corral") + dim(intro.slice("corral".length)) + "\n");
  editor.write(dim(wrapWords("Tools: sales_records, get_weather (`tool --list`); every call is checked against " +
    "the Capabilities panel. Tab completes, ↑/↓ recalls, Ctrl-C stops.", cols)) + "\n\n");
}

// The links in the header: the repository the site was built from, and its docs/.
async function links() {
  const { repository } = await (await fetch("manifest.json")).json();
  if (!repository) return;
  Object.assign($("repo-link"), { href: repository, hidden: false });
  Object.assign($("docs-link"), { href: `${repository}/tree/HEAD/docs`, hidden: false });
}

async function main() {
  if (await window.corralIsolating) return; // index.html: reloading under isolate.js
  links().catch(() => {});
  const missing = missingFeatures();
  if (missing.length) {
    window.corralFirstWorker?.terminate();
    $("overlay").className = "overlay error";
    $("overlay-text").textContent = `This browser lacks ${missing.join(", ")}, which the sandbox needs. ` +
      "Use a recent Chrome, Edge, Firefox or Safari.";
    $("overlay-detail").textContent = "";
    setState("error");
    return;
  }
  state.ready = relay.start();
  state.ready.catch(() => {});
  wireUp();
  term.open($("terminal"));
  fit.fit();
  welcome();
  prompt(); // typing is accepted at once; a command entered now runs when the sandbox is ready
  term.focus();
  window.corralDemo.promptMs = performance.now();
  try {
    const { timings } = await state.ready;
    for (const [stage, at] of Object.entries(timings)) {
      if (typeof at === "number") timings[stage] = Math.round(at - performance.timeOrigin);
    }
    window.corralDemo.timings = timings; // when each stage of booting ended (ms since navigation)
  } catch (error) {
    return fatal(error);
  }
  $("overlay").hidden = true;
  window.corralDemo.ready = true;
  window.corralDemo.readyMs = performance.now();
  if (!state.busy) setState("ready");
  refreshPanels();
  watchStandby(); // the standby for Ctrl-C boots once the first sandbox is settled
}

main();
