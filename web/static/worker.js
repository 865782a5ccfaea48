// The sandbox's home: Pyodide runs here, in a Web Worker, so the page stays responsive and a
// runaway command can be stopped by terminating the worker. The page keeps a second worker
// booted ahead ("boot": Pyodide, the wheel, the compiled module) with the sandbox open in it
// ("open") from the last snapshot and the page's ledger of calls made, and when it terminates
// the active one, goes on in the standby.
// Messages: the page sends {id, op, args}; the worker answers {id, ok, value} or
// {id, ok: false, error}, and posts {type: "progress" | "toolcall" | "snapshot" | "started"} events.
import { loadPyodide } from "./pyodide/pyodide.mjs";
import { withMemoryBase } from "./snapshot-delta.mjs";

const here = (path) => new URL(path, self.location.href).href;
// When each stage of booting ended (ms since the epoch; the page makes them its own clock's).
const stages = {};
const reached = (stage) => (stages[stage] = performance.timeOrigin + performance.now());
reached("worker");
let pyodide = null;
let DemoApp = null;
let app = null;
// Ctrl-C in place: the page's Int32Array on a SharedArrayBuffer (when it is cross-origin
// isolated), Pyodide's interrupt buffer while a command runs. The page writes 2 (SIGINT) into
// it; Python raises KeyboardInterrupt at its next check, which the guest's frequent clock reads
// reach, and corral puts the sandbox back as the last completed command left it.
let signal = null;

// A loading stage starts: the bar is at `fraction` and creeps towards `next` over about `seconds`.
function progress(stage, fraction, next, seconds) {
  self.postMessage({ type: "progress", stage, fraction, next, seconds });
}

// A Python bytes object (a PyProxy) as a transferable ArrayBuffer.
function takeBytes(proxy) {
  const array = proxy.toJs();
  proxy.destroy();
  return array.buffer;
}

// The build's memory snapshot of Python with corral and the demo imported (build.py:
// tools/pyodide_snapshot.mjs), ~31 MB: from the browser's Cache Storage when a standby worker
// stored it on an earlier visit, else fetched. Stored without its zero pages (`compact`: two
// thirds of it are zeros, the stack and the free memory, and the module's data as
// snapshot-delta.mjs ships it), so a returning visitor reads ~11 MB instead of decoding the
// HTTP cache's brotli body again, and `expand` writes it straight into the buffer Pyodide
// restores from. Kept under the site's build (manifest.json's "build"), so a new build never
// restores an old one; without Cache Storage (a page not served from localhost or HTTPS) it is
// fetched every time. `into(bytes, stored)` is handed what was read (compact if `stored`).
const SNAPSHOTS = "corral-demo-pyodide-snapshot";
const snapshotKey = (manifest) => here(`${manifest.demo.snapshot}?build=${manifest.build}&compact`);

async function snapshotBytes(manifest, into) {
  const stored = await caches.open(SNAPSHOTS).then((cache) => cache.match(snapshotKey(manifest))).catch(() => null);
  const response = stored ?? (await fetch(here(manifest.demo.snapshot)));
  if (!response.ok) throw new Error(`${manifest.demo.snapshot}: HTTP ${response.status}`);
  const bytes = await response.arrayBuffer();
  reached(stored ? "snapshotStored" : "snapshotFetched");
  into(bytes, Boolean(stored));
  return { bytes, stored: Boolean(stored) };
}

// The compact form: a count N, N (offset, length) pairs of 32-bit words, then those runs of
// the snapshot's bytes; everything else is zero. Runs are of whole 4 KiB pages.
const PAGE = 4096;
function compact(bytes) {
  const words = new Uint32Array(bytes, 0, bytes.byteLength >> 2);
  const zero = (offset) => words.subarray(offset >> 2, (offset + PAGE) >> 2).every((word) => word === 0);
  const runs = [];
  for (let offset = 0; offset < bytes.byteLength; offset += PAGE) {
    const length = Math.min(PAGE, bytes.byteLength - offset);
    if (length === PAGE && zero(offset)) continue;
    const last = runs[runs.length - 1];
    if (last && last[0] + last[1] === offset) last[1] += length;
    else runs.push([offset, length]);
  }
  const header = new Uint32Array([runs.length, ...runs.flat()]);
  return new Blob([header, ...runs.map(([offset, length]) => new Uint8Array(bytes, offset, length))]);
}

function expand(stored, target) {
  const count = new Uint32Array(stored, 0, 1)[0];
  const header = new Uint32Array(stored, 0, Math.min(1 + 2 * count, stored.byteLength >> 2));
  let from = header.byteLength, total = header.byteLength;
  for (let i = 1; i + 1 < header.length; i += 2) total += header[i + 1];
  if (header.length !== 1 + 2 * count || total !== stored.byteLength) throw new Error("the stored Pyodide snapshot is damaged");
  for (let i = 1; i < header.length; i += 2) {
    const [offset, length] = [header[i], header[i + 1]];
    if (offset + length > target.length) throw new Error("the stored Pyodide snapshot is damaged");
    target.set(new Uint8Array(stored, from, length), offset);
    from += length;
  }
}

async function storeSnapshot(manifest, bytes) {
  const cache = await caches.open(SNAPSHOTS);
  for (const old of await cache.keys()) await cache.delete(old); // earlier builds'
  await cache.put(snapshotKey(manifest), new Response(compact(bytes)));
}

// Python with corral and the demo imported, started at once: from the snapshot, read while
// Pyodide loads its own JavaScript and WebAssembly, so Python's start-up is a memory copy (then
// Python's random generator is seeded afresh, not shared by every visitor). The snapshot holds
// every module the page imports (manifest.json's demo.imports), so it starts from an empty
// standard library and fetches the demo's zips only when Python imports something else
// (corral_demo.FetchLibrary, in boot). If the snapshot does not load, Python starts afresh
// (from Pyodide's own module), from the demo's own standard library (build.py: the modules the page imports as bytecode),
// and imports them (IMPORT, in boot). Either way with a lockfile naming no package (the page
// loads none), so Pyodide fetches neither its full standard library nor its lockfile.
const EMPTY_ZIP = "data:application/zip;base64,UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==";

// Pyodide's loader comes from pyodide/, its module and that module's JavaScript from
// manifest.demo.runtime: the demo's copy (build.py's demo_runtime), which keeps only the
// exports this page's JavaScript uses and so is 0.3 MB smaller on the wire.
async function startPython(manifest) {
  const options = {
    indexURL: here(manifest.demo.runtime),
    stdLibURL: here(manifest.demo.stdlib),
    lockFileContents: manifest.lockfile,
    packages: [],
  };
  // Pyodide waits for the snapshot's bytes before it instantiates its module; given a buffer of
  // the snapshot's size at once, it compiles while the snapshot downloads, and the restore
  // waits for the buffer to be filled.
  const buffer = new Uint8Array(manifest.demo.snapshot_size);
  const snapshot = snapshotBytes(manifest, (bytes, stored) => {
    if (stored) return expand(bytes, buffer);
    if (bytes.byteLength !== buffer.length) throw new Error(`${manifest.demo.snapshot}: ${bytes.byteLength} bytes, not ${buffer.length}`);
    buffer.set(new Uint8Array(bytes));
  });
  snapshot.catch(() => {}); // awaited before the restore
  try {
    const { default: factory } = await import(here(`${manifest.demo.runtime}pyodide.asm.mjs`));
    const delta = withMemoryBase(factory, manifest.demo.snapshot_base_bytes, { filled: snapshot });
    const restored = await loadPyodide({ ...options, ...delta.options, stdLibURL: EMPTY_ZIP, _loadSnapshot: buffer });
    restored.runPython("import random; random.seed()");
    return { pyodide: restored, snapshot: await snapshot };
  } catch (error) {
    console.warn("the Pyodide snapshot did not load; starting Python afresh", error);
    caches.delete(SNAPSHOTS).catch(() => {});
  }
  // Afresh from Pyodide's own module: the demo's copy has the code of the frozen modules the
  // snapshot imported zeroed (tools/pyodide_snapshot.mjs), so Python could not start from it.
  return { pyodide: await loadPyodide({ ...options, indexURL: here("pyodide/") }), snapshot: null };
}

// The demo's Python files (corral-app.zip: the wheel's files but its module, and
// corral_demo.py; each module the page imports as bytecode) are imported from the zip itself,
// at APP, on sys.path (the snapshot was made with it there: tools/pyodide_snapshot.mjs).
// Started afresh, Python imports the modules the snapshot holds (IMPORT); restored, it gets a
// finder (corral_demo.FetchLibrary) that, on the first import the snapshot does not hold, has
// that zip and the standard library fetched synchronously (fetchLibrary: a worker may).
const APP = "/home/pyodide/corral-app.zip";
const IMPORT = `
import importlib, sys
def import_all(modules):
    sys.path.insert(0, "${APP}")
    for name in modules:
        importlib.import_module(name)
import_all
`;
// Then the guest module (the demo serves it rewritten to import its memory): written to a file
// CORRAL_WASM names, and the module the worker compiled handed to corral's backend for it.
const ADOPT = `
import os
from pathlib import Path
from corral.runtime import get_backend
def adopt(data, module, min_pages):
    path = Path("/home/pyodide/corral.wasm")
    path.write_bytes(data.to_bytes())
    os.environ["CORRAL_WASM"] = str(path)
    get_backend().adopt(path, module, min_pages)
adopt
`;

// corral_demo.FetchLibrary's fetch: the two zips, where the snapshot's sys.path names them
// (Pyodide keeps its standard library at /lib/pythonXY.zip).
function fetchLibrary(manifest, name) {
  console.info(`corral demo: fetching the Python library to import ${name}`);
  const [major, minor] = manifest.python.split(".");
  const stdlib = `/lib/python${major}${minor}.zip`;
  for (const [url, path] of [[manifest.demo.stdlib, stdlib], [manifest.demo.app, APP]]) {
    const request = new XMLHttpRequest();
    request.open("GET", here(url), false);
    request.responseType = "arraybuffer";
    request.send();
    if (request.status !== 200) throw new Error(`${url}: HTTP ${request.status}`);
    pyodide.FS.writeFile(path, new Uint8Array(request.response));
  }
  reached("library");
}
// What booting needs, started as soon as the worker loads (index.html starts the first worker
// before the page's own modules have loaded, so this overlaps with them): Python (above), the
// demo's Python files and the guest module (compiled meanwhile with compileStreaming, off this
// thread). They come from the same wheel a user installs with micropip.install (build.py);
// micropip is not needed.
const fetched = (async () => {
  const manifest = await (await fetch(here("manifest.json"))).json();
  reached("manifest");
  const response = fetch(here(manifest.demo.module));
  const files = {
    manifest,
    python: startPython(manifest),
    module: response.then((r) => WebAssembly.compileStreaming(r.clone())).finally(() => reached("moduleCompiled")),
    moduleBytes: response.then((r) => r.arrayBuffer()),
  };
  for (const promise of Object.values(files)) promise.catch?.(() => {}); // awaited in boot
  return files;
})();
fetched.catch(() => {}); // awaited in boot

// Everything but the sandbox itself.
// `store`: keep the snapshot in Cache Storage if it came from the network (the page asks its
// standby worker, off the prompt's path).
async function boot({ store = false, interrupt = null } = {}) {
  reached("boot");
  signal = interrupt;
  const { manifest, python, module, moduleBytes } = await fetched;
  progress("Starting Python (Pyodide)", 0.05, 0.7, 1);
  const { snapshot } = await python;
  ({ pyodide } = await python);
  self.pyodide = pyodide; // for the curious in DevTools, and the end-to-end tests
  reached("python");
  if (snapshot) {
    const { FetchLibrary } = pyodide.pyimport("corral_demo");
    pyodide.pyimport("sys").meta_path.append(FetchLibrary((name) => fetchLibrary(manifest, name)));
  } else {
    progress("Installing the corral wheel", 0.7, 0.8, 0.3);
    const app = await (await fetch(here(manifest.demo.app))).arrayBuffer();
    pyodide.FS.writeFile(APP, new Uint8Array(app));
    const importAll = pyodide.runPython(IMPORT);
    importAll(pyodide.toPy(manifest.demo.imports));
    importAll.destroy();
    reached("corral");
  }
  progress("Compiling the sandbox module", 0.8, 0.97, 0.6);
  const adopt = pyodide.runPython(ADOPT);
  adopt(new Uint8Array(await moduleBytes), await module, manifest.demo.min_pages);
  adopt.destroy();
  DemoApp = pyodide.pyimport("corral_demo").DemoApp; // the module stays alive with it
  reached("adopted");
  if (store && snapshot && !snapshot.stored && "caches" in self) {
    await storeSnapshot(manifest, snapshot.bytes).catch((error) => console.warn("could not store the Pyodide snapshot", error));
    reached("stored");
  }
  return { timings: { snapshot: Boolean(snapshot), ...stages }, version: manifest };
}

// The sandbox: fresh, or from `snapshot` with the calls `used` so far per capability pattern
// charged against its budgets (the page keeps that ledger, so no restart refills a budget) and
// the JavaScript REPL's bindings (`scope`).
// A standby is opened again when what the page holds has changed since (app.js: openAhead):
// the sandbox it had is closed first.
function open({ timeout, snapshot, used, scope }) {
  if (app) {
    app.close();
    app.destroy();
    app = null;
  }
  const post = (text) => self.postMessage(JSON.parse(text));
  const data = snapshot ? new Uint8Array(snapshot) : undefined;
  app = DemoApp(post, timeout, data, pyodide.toPy(used ?? {}), pyodide.toPy(scope ?? {}));
  return [null, []];
}

// After a command (or an upload) completes: the files and shell session, for a restart, and the
// sandbox's trace events since the last time, so the page can replay the last command after a
// restart too. Posted after the answer, so the prompt comes back first; the page gets it
// before the next command.
function postSnapshot() {
  const snapshot = takeBytes(app.snapshot());
  self.postMessage({ type: "snapshot", snapshot, trace: app.new_trace() }, [snapshot]);
}

// Run a command, interruptible from the page while it runs (only then: a signal that comes
// late must not interrupt what follows); interrupted, the answer is {interrupted: true}. The
// page clears the signal as it sends the command, not the worker as it starts it: a Ctrl-C
// pressed while the command waits behind the worker's previous work stops it.
function run({ code, language }) {
  if (signal === null) return JSON.parse(app.run(code, language));
  self.postMessage({ type: "started" }); // the page's Ctrl-C waits IN_PLACE_MS from here (app.js)
  pyodide.setInterruptBuffer(signal);
  try {
    return JSON.parse(app.run(code, language));
  } catch (error) {
    if (error.type === "KeyboardInterrupt") return { interrupted: true };
    throw error;
  } finally {
    pyodide.setInterruptBuffer(undefined);
  }
}

// The worker's operations: each returns [value, transferables, what to do after answering].
const ops = {
  open,
  run: (args) => [run(args), [], postSnapshot],
  // (undefined, not null, for none: Pyodide makes null a JsNull, not None)
  replay: ({ trace, snapshot }) => [JSON.parse(app.replay(trace, snapshot ? new Uint8Array(snapshot) : undefined)), []],
  agent: ({ session }) => [JSON.parse(app.agent(session)), []],
  capabilities: () => [JSON.parse(app.capabilities()), []],
  complete: ({ line, language }) => [JSON.parse(app.complete(line, language)), []],
  csvExample: () => [app.csv_example(), []],
  tree: () => [JSON.parse(app.tree()), []],
  view: ({ path }) => [JSON.parse(app.view(path)), []],
  size: ({ path }) => [app.size(path), []],
  read({ path }) {
    const data = takeBytes(app.read(path));
    return [data, [data]];
  },
  write: ({ path, data }) => [app.write(path, new Uint8Array(data)), [], postSnapshot],
};

const message = (error) => String(error && error.message ? error.message : error);

self.onmessage = async ({ data }) => {
  try {
    if (data.op === "boot") {
      self.postMessage({ id: data.id, ok: true, value: await boot(data.args) });
      return;
    }
    const [value, transfer, after] = ops[data.op](data.args || {});
    self.postMessage({ id: data.id, ok: true, value }, transfer);
    if (after) after();
  } catch (error) {
    self.postMessage({ id: data.id, ok: false, error: message(error) });
  }
};
