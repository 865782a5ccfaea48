// The Web Worker of the Chromium parity run: loads Pyodide from this origin, runs the suite
// (pyodide_suite.mjs) and posts every output line, then pytest's status, to the page.
import { loadPyodide } from "./pyodide/pyodide.mjs";
import { runSuite, runBench } from "./pyodide_suite.mjs";

const log = (line) => postMessage({ log: line });

// Raw writes, posted a whole line at a time (pytest's progress dots come one by one).
function lineWriter() {
  const decoder = new TextDecoder();
  let pending = "";
  return {
    write(bytes) {
      pending += decoder.decode(bytes, { stream: true });
      const lines = pending.split("\n");
      pending = lines.pop();
      lines.forEach(log);
      return bytes.length;
    },
    flush() {
      if (pending) log(pending);
      pending = "";
    },
  };
}

onmessage = async ({ data: { args, bench } }) => {
  try {
    const started = performance.now();
    const pyodide = await loadPyodide({ indexURL: new URL("./pyodide/", import.meta.url).href });
    const out = lineWriter();
    pyodide.setStdout({ write: out.write });
    pyodide.setStderr({ write: out.write });
    log(`corral-pyodide: Pyodide ${pyodide.version} loaded in ${Math.round(performance.now() - started)} ms`);
    const read = async (name) => {
      const response = await fetch(new URL(name, import.meta.url));
      if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
      return new Uint8Array(await response.arrayBuffer());
    };
    const url = (name) => new URL(name, import.meta.url).href;
    const run = bench ? runBench : runSuite;
    const status = await run(pyodide, { read, url, args, log });
    out.flush();
    postMessage({ status });
  } catch (error) {
    log(`corral-pyodide: the worker failed: ${error.stack || error}`);
    postMessage({ status: 3 });
  }
};
