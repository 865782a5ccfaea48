// The page: a terminal, the tool-call and capability panels, the file tree, and the worker that
// runs corral in Pyodide. After every completed command the worker hands back a snapshot of the
// sandbox's files and shell session; Ctrl-C terminates the worker and starts a new one from it.
import { Terminal } from "./vendor/xterm/xterm.mjs";
import { FitAddon } from "./vendor/xterm/addon-fit.mjs";
import { LineEditor } from "./terminal.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const TIMEOUT = Math.min(Math.max(Number(params.get("timeout")) || 20, 0.5), 600); // seconds
const color = (code) => (text) => `\x1b[${code}m${text}\x1b[0m`;
const red = color("31"), dim = color("2"), yellow = color("33"), green = color("32"), bold = color("1");
const PROMPTS = { shell: `${green("corral")}${dim("$")} `, javascript: `${yellow("js")}${dim(">")} ` };

const MODE_HINTS = {
  shell: "Shell: bash-like commands; `tool NAME --key value` calls a tool",
  javascript: "JavaScript: the line is the body of an async function; tools are async functions",
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
  worker: null,
  mode: "shell",
  busy: false,
  snapshot: null,       // the last completed command's snapshot (ArrayBuffer)
  snapshotDue: null,    // resolves when the snapshot of the last command has arrived
  snapshotArrived: null,
  pending: new Map(),   // request id -> {resolve, reject}
  nextId: 1,
  lastRun: null,        // {code, language, result}
  after: null,          // printed after the next command's output (the CSV example)
  viewing: null,
  calls: { total: 0, denied: 0 },
};

// --- the worker ---------------------------------------------------------------------------------

class Interrupted extends Error {}

function startWorker(onProgress) {
  return new Promise((resolve, reject) => {
    window.corralDemo.workerStartedMs ??= performance.now();
    const worker = new Worker("worker.js", { type: "module" });
    state.worker = worker;
    worker.onmessage = ({ data }) => {
      if (data.type === "progress") onProgress(data);
      else if (data.type === "toolcall") showCall(data.entry);
      else if (data.type === "snapshot") snapshotArrived(data.snapshot);
      else if (data.type === "ready") resolve(data);
      else if (data.type === "fatal") reject(new Error(data.message));
      else settle(data);
    };
    worker.onerror = (event) => {
      const message = event.message || "the worker stopped";
      if (window.corralDemo.ready && state.worker === worker) restart(`[the sandbox's worker failed (${message}); restarting]`);
      else reject(new Error(message));
    };
    worker.postMessage({ op: "boot", args: { timeout: TIMEOUT, snapshot: state.snapshot } });
  });
}

// The worker posts a snapshot after each command that may change the files (run, write), after
// its answer. Before the next such command the page waits for it (it is already on its way), so
// that a Ctrl-C during that command restarts from it.
async function expectSnapshot() {
  await state.snapshotDue;
  state.snapshotDue = new Promise((resolve) => (state.snapshotArrived = resolve));
}

function snapshotArrived(snapshot) {
  if (snapshot) state.snapshot = snapshot;
  state.snapshotArrived?.();
}

function settle({ id, ok, value, error }) {
  const waiter = state.pending.get(id);
  state.pending.delete(id);
  if (waiter) ok ? waiter.resolve(value) : waiter.reject(new Error(error));
}

function call(op, args = {}, transfer = []) {
  const id = state.nextId++;
  return new Promise((resolve, reject) => {
    state.pending.set(id, { resolve, reject });
    state.worker.postMessage({ id, op, args }, transfer);
  });
}

// --- the terminal -------------------------------------------------------------------------------

const term = new Terminal({
  cursorBlink: true,
  fontFamily: 'ui-monospace, "DejaVu Sans Mono", Menlo, monospace',
  fontSize: 13,
  theme: { background: "#0b0f13" },
  scrollback: 5000,
});
const fit = new FitAddon();
term.loadAddon(fit);
const editor = new LineEditor(term, { onLine: (line) => (state.current = runLine(line)), onInterrupt: interrupt });

window.corralDemo = {
  ready: false,
  readyMs: null,
  timings: null,
  roundTrips: [],
  restarts: 0,
  get transcript() { return editor.transcript; },
  get busy() { return state.busy; },
};

function setState(name) {
  document.body.dataset.state = name;
  $("status").textContent = { ready: "ready", running: "running…", restarting: "restarting…", loading: "loading", error: "error" }[name];
  const idle = name === "ready";
  $("csv-example").disabled = !idle;
  $("replay").disabled = !idle || !state.lastRun;
}

function prompt() {
  setState("ready");
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
  if (result.exit_code !== 0) editor.write(dim(`[exit ${result.exit_code}]\n`));
}

async function runLine(code) {
  const started = performance.now();
  const after = state.after;
  state.after = null;
  if (!code.trim()) return prompt();
  state.busy = true;
  setState("running");
  try {
    const language = state.mode;
    await expectSnapshot();
    const result = await call("run", { code, language });
    state.lastRun = { code, language, result };
    showResult(result);
    if (after) await after(result);
  } catch (error) {
    if (error instanceof Interrupted) return;
    snapshotArrived(null); // none comes after an error
    editor.write(red(`corral: ${error.message}\n`));
  }
  state.busy = false;
  prompt();
  window.corralDemo.roundTrips.push(performance.now() - started);
  refreshPanels();
}

function interrupt() {
  if (!state.busy || document.body.dataset.state === "restarting") return;
  editor.write("^C\n");
  restart("[stopped: the sandbox restarts from the files and shell session of the last completed command]");
}

// Replace the worker by a new one that starts from the last snapshot.
async function restart(reason) {
  setState("restarting");
  state.worker.terminate();
  for (const waiter of state.pending.values()) waiter.reject(new Interrupted("interrupted"));
  state.pending.clear();
  state.snapshotDue = null;
  editor.write(dim(`${reason}\n`));
  try {
    await startWorker(() => {});
    window.corralDemo.restarts++;
    state.lastRun = null; // the new sandbox's trace starts here
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
  const list = $("calls");
  list.querySelector(".empty")?.remove();
  state.calls.total++;
  if (entry.decision === "denied") state.calls.denied++;
  const args = JSON.stringify(entry.params);
  const item = el("li", { className: entry.decision },
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

async function replayLast() {
  if (state.busy || !state.lastRun) return;
  state.busy = true;
  setState("running");
  const original = state.lastRun.result;
  let replayed;
  try {
    replayed = await call("replay");
  } catch (error) {
    replayed = { error: error.message };
  }
  state.busy = false;
  aside(() => {
    editor.write(dim(`[replay of \`${state.lastRun.code}\` from the sandbox's trace: its ${replayed.executions ?? "?"} ` +
      "executions run again, no tool called, no clock read]\n"));
    if (replayed.error) return editor.write(red(`replay failed: ${replayed.error}\n`));
    showResult(replayed.result);
    const same = replayed.identical && replayed.result.stdout === original.stdout;
    editor.write(same ? green("✓ output identical to the original run\n") : red("✗ the replayed output differs\n"));
  });
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
  $("csv-example").onclick = csvExample;
  $("download").onclick = download;
  $("upload").onchange = (event) => upload(event.target.files[0]).finally(() => (event.target.value = ""));
  $("examples").replaceChildren(...EXAMPLES.map(([mode, code, tag]) => el("li", {},
    el("button", { onclick: () => typeAndRun(mode, code), title: `Run in ${mode} mode` },
      el("span", { className: "tag", textContent: `${mode === "shell" ? "sh" : "js"} · ${tag}` }),
      el("code", { textContent: code })))));
  new ResizeObserver(() => fit.fit()).observe($("terminal"));
}

async function main() {
  const missing = missingFeatures();
  if (missing.length) {
    $("overlay").className = "overlay error";
    $("overlay-text").textContent = `This browser lacks ${missing.join(", ")}, which the sandbox needs. ` +
      "Use a recent Chrome, Edge, Firefox or Safari.";
    $("overlay-detail").textContent = "";
    setState("error");
    return;
  }
  const booting = startWorker(showProgress);
  wireUp();
  term.open($("terminal"));
  fit.fit();
  try {
    window.corralDemo.timings = (await booting).timings;
  } catch (error) {
    return fatal(error);
  }
  $("overlay").hidden = true;
  editor.write(bold("corral") + dim(` — a bash-like shell and JavaScript in a WebAssembly sandbox, running in your browser (Pyodide in a Web Worker).\n`));
  editor.write(dim("Tools: sales_records, get_weather (see `tool --list`); every call is checked against the capabilities on the right.\n\n"));
  prompt();
  term.focus();
  window.corralDemo.ready = true;
  window.corralDemo.readyMs = performance.now();
  refreshPanels();
}

main();
