// The sandbox's home: Pyodide runs here, in a Web Worker, so the page stays responsive and a
// runaway command can be stopped by terminating the worker. The page keeps a second worker
// booted ahead ("boot": Pyodide, the wheel, the compiled module) and, when it terminates the
// active one, opens the sandbox in the standby ("open") from the last snapshot and the page's
// ledger of calls made, in a few milliseconds.
// Messages: the page sends {id, op, args}; the worker answers {id, ok, value} or
// {id, ok: false, error}, and posts {type: "progress" | "toolcall" | "snapshot"} events.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const here = (path) => new URL(path, self.location.href).href;
let pyodide = null;
let DemoApp = null;
let app = null;

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

// Pyodide's memory snapshot: its memory once Python has started and imported corral and the
// demo, kept in the browser's Cache Storage under the site's build (manifest.json's "build":
// the wheel, the demo, the standard library and Pyodide's version), so a returning visitor skips Python's start-up.
// A standby worker makes it on the first visit, off the critical path; without Cache Storage
// (a page not served from localhost or HTTPS) every start is a full one.
const SNAPSHOTS = "corral-demo-pyodide-snapshot";
const snapshotKey = (build) => here(`pyodide-snapshot-${build}`);

// The stored snapshot's Response (its body not read yet), or null.
async function storedSnapshot(build) {
  try {
    return (await (await caches.open(SNAPSHOTS)).match(snapshotKey(build))) ?? null;
  } catch {
    return null;
  }
}

async function storeSnapshot(build, snapshot) {
  const cache = await caches.open(SNAPSHOTS);
  for (const old of await cache.keys()) await cache.delete(old); // earlier builds'
  await cache.put(snapshotKey(build), new Response(snapshot));
}

// Python with corral and the demo imported: from the stored snapshot when there is one (then
// Python's random generator is seeded afresh, not shared by every restored worker), else
// started and imported, and with `makeSnapshot` the snapshot is taken and stored. Either way
// from the demo's own standard library (build.py: the modules the page imports as bytecode).
async function startPython(manifest, stored, makeSnapshot) {
  const options = { indexURL: here("pyodide/"), stdLibURL: here(manifest.demo.stdlib), packages: [] };
  const snapshot = await stored;
  progress("Starting Python (Pyodide)", 0.05, 0.7, snapshot ? 0.8 : 2.5);
  if (snapshot) {
    try {
      // Its 30 MB are read while Pyodide loads its own JavaScript.
      const restored = await loadPyodide({ ...options, _loadSnapshot: snapshot.arrayBuffer() });
      restored.runPython("import random; random.seed()");
      return { pyodide: restored, restored: true };
    } catch (error) {
      console.warn("the stored Pyodide snapshot did not load; starting Python afresh", error);
      caches.delete(SNAPSHOTS).catch(() => {});
    }
  }
  const started = await loadPyodide({ ...options, _makeSnapshot: makeSnapshot });
  return { pyodide: started, restored: false };
}

// Python's half of booting. The demo's Python files (corral-app.zip: the wheel's files but its
// module, and corral_demo.py; each module the page imports as bytecode) are imported from the
// zip itself, written to APP (a snapshot holds memory, not files: it is written again after a
// restore, the same bytes, whose index the snapshot's zipimport cache holds). Started afresh,
// the zip goes on sys.path and the modules a memory snapshot should hold are imported.
const APP = "/home/pyodide/corral-app.zip";
const IMPORT = `
import sys
sys.path.insert(0, "${APP}")
import corral, corral.runtime._pyodide, corral_demo
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

// What booting needs, fetched as soon as the worker loads (index.html starts the first worker
// before the page's own modules have loaded, so this overlaps with them), and while Pyodide
// starts: the manifest, the demo's Python files, the guest module (compiled meanwhile with
// compileStreaming, off this thread) and the stored snapshot. They come from the same wheel a
// user installs with micropip.install (build.py); micropip is not needed.
const fetched = (async () => {
  const manifest = await (await fetch(here("manifest.json"))).json();
  const response = fetch(here(manifest.demo.module));
  const files = {
    manifest,
    app: fetch(here(manifest.demo.app)).then((r) => r.arrayBuffer()),
    module: response.then((r) => WebAssembly.compileStreaming(r.clone())),
    moduleBytes: response.then((r) => r.arrayBuffer()),
    snapshot: storedSnapshot(manifest.build),
  };
  for (const promise of Object.values(files)) promise.catch?.(() => {}); // awaited in boot
  return files;
})();
fetched.catch(() => {}); // awaited in boot

// Everything but the sandbox itself.
async function boot({ makeSnapshot = false } = {}) {
  const started = performance.now();
  const timings = {};
  const mark = (name) => (timings[name] = Math.round(performance.now() - started));
  timings.startedAt = performance.timeOrigin + started; // the page turns it into its own clock
  const { manifest, app, module, moduleBytes, snapshot } = await fetched;
  const snapshotting = makeSnapshot && "caches" in self;
  const python = await startPython(manifest, snapshot, snapshotting);
  pyodide = python.pyodide;
  timings.snapshot = python.restored;
  mark("pyodide");
  progress("Installing the corral wheel", 0.7, 0.8, 0.3);
  pyodide.FS.writeFile(APP, new Uint8Array(await app));
  let stored = null;
  if (!python.restored) {
    pyodide.runPython(IMPORT);
    if (snapshotting) {
      try {
        stored = storeSnapshot(manifest.build, pyodide.makeMemorySnapshot());
      } catch (error) {
        stored = Promise.reject(error);
      }
    }
    mark("corral");
  }
  progress("Compiling the sandbox module", 0.8, 0.97, 0.6);
  const adopt = pyodide.runPython(ADOPT);
  adopt(new Uint8Array(await moduleBytes), await module, manifest.demo.min_pages);
  adopt.destroy();
  DemoApp = pyodide.pyimport("corral_demo").DemoApp; // the module stays alive with it
  mark("module");
  if (stored) {
    await stored.catch((error) => console.warn("could not store the Pyodide snapshot", error));
    mark("stored");
  }
  return { timings, version: manifest };
}

// The sandbox: fresh, or from `snapshot` with the calls `used` so far per capability pattern
// charged against its budgets (the page keeps that ledger, so no restart refills a budget) and
// the JavaScript REPL's bindings (`scope`).
function open({ timeout, snapshot, used, scope }) {
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

// The worker's operations: each returns [value, transferables, what to do after answering].
const ops = {
  open,
  run: ({ code, language }) => [JSON.parse(app.run(code, language)), [], postSnapshot],
  replay: ({ trace, snapshot }) => [JSON.parse(app.replay(trace, snapshot ? new Uint8Array(snapshot) : null)), []],
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
