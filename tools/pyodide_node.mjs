// The parity suite inside Pyodide under Node:
//   node --experimental-wasm-stack-switching tools/pyodide_node.mjs DIST STAGING [--bench] [pytest args...]
// DIST is a Pyodide distribution (pyodide_dist.py), STAGING a directory made by
// pyodide_tests.py. Exits with pytest's status. Stack switching (JSPI) lets sync Python wait on
// promises, which asyncio.run() in the tests needs; Chromium has it on by default.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { runBench, runSuite } from "./pyodide_suite.mjs";

const [dist, staging, ...rest] = process.argv.slice(2);
const bench = rest[0] === "--bench";
const args = bench ? rest.slice(1) : rest;
const { loadPyodide } = await import(pathToFileURL(path.join(dist, "pyodide.mjs")).href);

const started = performance.now();
const pyodide = await loadPyodide({ indexURL: dist + path.sep });
// Raw writes keep pytest's progress dots on one line; Pyodide reuses its buffer: copy it.
const writer = (stream) => ({ write: (bytes) => (stream.write(Buffer.from(bytes)), bytes.length) });
pyodide.setStdout(writer(process.stdout));
pyodide.setStderr(writer(process.stderr));
console.log(`corral-pyodide: Pyodide ${pyodide.version} loaded in ${Math.round(performance.now() - started)} ms`);
const run = bench ? runBench : runSuite;
const status = await run(pyodide, {
  read: async (name) => new Uint8Array(fs.readFileSync(path.join(staging, name))),
  url: (name) => path.join(staging, name),
  args,
  log: (line) => console.log(line),
});
process.exit(status);
