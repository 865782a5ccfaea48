// The web demo's Pyodide memory snapshot, made at build time so that a first visit skips
// Python's start-up too, not only a returning one:
//   node tools/pyodide_snapshot.mjs DIST STDLIB APP OUT
// DIST is a Pyodide distribution (pyodide_dist.py), STDLIB the standard library zip the page
// loads, APP the zip of the demo's Python files. Python starts from STDLIB, imports corral and
// the demo from APP exactly as web/static/worker.js does when it has no snapshot (same paths:
// the snapshot's import caches point at them), and its memory is written to OUT, which the
// worker hands to loadPyodide (`_loadSnapshot`). A snapshot holds memory, not files: the worker
// writes the same zips at the same paths again. web/build.py runs this.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
if (args.length !== 4) {
  console.error("usage: node tools/pyodide_snapshot.mjs DIST STDLIB APP OUT");
  process.exit(2);
}
const [dist, stdlib, app, out] = args;
const { loadPyodide } = await import(pathToFileURL(path.join(dist, "pyodide.mjs")).href);
const pyodide = await loadPyodide({
  indexURL: dist + path.sep,
  stdLibURL: path.resolve(stdlib),
  packages: [],
  env: { _: "./this.program" }, // as in a browser, not this script's path
  _makeSnapshot: true,
});
// What worker.js's IMPORT does (keep the two the same).
const APP = "/home/pyodide/corral-app.zip";
pyodide.FS.writeFile(APP, fs.readFileSync(app));
pyodide.runPython(`
import sys
sys.path.insert(0, "${APP}")
import corral, corral.runtime._pyodide, corral_demo
import gc
gc.collect()
`);
fs.writeFileSync(out, pyodide.makeMemorySnapshot());
