// The Web Worker of the Chromium parity run: loads Pyodide from this origin, runs the suite
// (pyodide_suite.mjs) and posts every output line, then pytest's status, to the page.
import { loadPyodide } from "./pyodide/pyodide.mjs";
import { runSuite, runBench } from "./pyodide_suite.mjs";

const log = (line) => postMessage({ log: line });

onmessage = async ({ data: { args, bench } }) => {
  try {
    const started = performance.now();
    const pyodide = await loadPyodide({ indexURL: new URL("./pyodide/", import.meta.url).href });
    pyodide.setStdout({ batched: log });
    pyodide.setStderr({ batched: log });
    log(`corral-pyodide: Pyodide ${pyodide.version} loaded in ${Math.round(performance.now() - started)} ms`);
    const read = async (name) => {
      const response = await fetch(new URL(name, import.meta.url));
      if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    };
    const url = (name) => new URL(name, import.meta.url).href;
    const run = bench ? runBench : runSuite;
    postMessage({ status: await run(pyodide, { read, url, args, log }) });
  } catch (error) {
    log(`corral-pyodide: the worker failed: ${error.stack || error}`);
    postMessage({ status: 3 });
  }
};
