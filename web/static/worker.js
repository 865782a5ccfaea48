// The sandbox's home: Pyodide runs here, in a Web Worker, so the page stays responsive and a
// runaway command can be stopped by terminating the worker (the page then starts a new one from
// the last snapshot). Messages: the page sends {id, op, args}; the worker answers {id, ok, value}
// or {id, ok: false, error}, and posts {type: "progress" | "ready" | "fatal" | "toolcall" |
// "snapshot"} events.
import { loadPyodide } from "./pyodide/pyodide.mjs";

const here = (path) => new URL(path, self.location.href).href;
let pyodide = null;
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

async function boot({ timeout, snapshot }) {
  const started = performance.now();
  const timings = {};
  const mark = (name) => (timings[name] = Math.round(performance.now() - started));
  const manifest = fetch(here("manifest.json")).then((r) => r.json());
  const source = fetch(here("corral_demo.py")).then((r) => r.text());
  progress("Starting Python (Pyodide)", 0.05, 0.7, 4);
  pyodide = await loadPyodide({ indexURL: here("pyodide/") });
  mark("pyodide");
  // The same wheel a user installs with micropip.install; Pyodide's own loader unpacks it
  // without importing micropip (about half a second here).
  progress("Installing the corral wheel", 0.7, 0.8, 0.5);
  await pyodide.loadPackage(here((await manifest).corral), { messageCallback: () => {} });
  mark("corral");
  progress("Compiling the sandbox module", 0.8, 0.95, 0.6);
  pyodide.FS.writeFile("/home/pyodide/corral_demo.py", await source);
  await pyodide.runPythonAsync("import corral\nawait corral.load()");
  mark("module");
  progress("Creating the sandbox", 0.95, 1, 0.2);
  const demo = pyodide.pyimport("corral_demo");
  const post = (text) => self.postMessage(JSON.parse(text));
  app = demo.DemoApp(post, timeout, snapshot ? new Uint8Array(snapshot) : undefined);
  demo.destroy();
  mark("sandbox");
  self.postMessage({ type: "ready", timings, version: await manifest });
}

// After a command (or an upload) completes: the files and shell session, for a restart. Posted
// after the answer, so the prompt comes back first; the page gets it before the next command.
function postSnapshot() {
  const snapshot = takeBytes(app.snapshot());
  self.postMessage({ type: "snapshot", snapshot }, [snapshot]);
}

// The worker's operations: each returns [value, transferables, what to do after answering].
const ops = {
  run: ({ code, language }) => [JSON.parse(app.run(code, language)), [], postSnapshot],
  replay: () => [JSON.parse(app.replay()), []],
  capabilities: () => [JSON.parse(app.capabilities()), []],
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
  if (data.op === "boot") {
    try {
      await boot(data.args);
    } catch (error) {
      self.postMessage({ type: "fatal", message: message(error) });
    }
    return;
  }
  try {
    const [value, transfer, after] = ops[data.op](data.args || {});
    self.postMessage({ id: data.id, ok: true, value }, transfer);
    if (after) after();
  } catch (error) {
    self.postMessage({ id: data.id, ok: false, error: message(error) });
  }
};
