// The Web Worker half of corral-worker.mjs: Pyodide, the corral wheel and one corral.Sandbox.
// The page sends {id, op, args}; the worker answers {id, ok: true, value} or
// {id, ok: false, error}. Everything the sandbox does goes through corral's own Python API
// (Sandbox.execute, Sandbox.snapshot, Sandbox.from_snapshot, Sandbox.fs): this file only
// carries messages.

let pyodide = null;
let host = null; // the Python _WorkerHost below

// Runs once per worker, after Pyodide and the wheel are loaded.
const HOST = `
import json

import corral


class _WorkerHost:
    def __init__(self, limits_json, snapshot):
        limits = corral.Limits(**json.loads(limits_json))
        if snapshot is None:
            self.sandbox = corral.Sandbox(limits=limits)
        else:
            self.sandbox = corral.Sandbox.from_snapshot(snapshot.to_bytes(), limits=limits)
        self.timeout = limits.timeout

    def overrun(self):
        # The result the page reports when it terminates this worker: corral's timeout (its
        # kind, exit code and message), with {waited} for the seconds the page waited.
        kind = corral.ErrorKind.TIMEOUT
        how = (
            "did not stop, so its worker was terminated after {waited} s; the sandbox "
            "continues with its files as of the last completed execution"
        )
        error = corral.results.timeout_message(self.timeout, how)
        return json.dumps({"error_kind": kind, "exit_code": kind.exit_code, "error": error})

    def execute(self, code, language):
        return json.dumps(self.sandbox.execute(code, language).to_dict(), default=str)

    def snapshot(self):
        return self.sandbox.snapshot()

    def read(self, path):
        return self.sandbox.fs.read(path)

    def write(self, path, data):
        self.sandbox.fs.write(path, data.to_bytes())

    def list(self, path):
        return json.dumps(self.sandbox.fs.listdir(path))


await corral.load()
_WorkerHost
`;

// A Python bytes object (a PyProxy) as a transferable ArrayBuffer.
function takeBytes(proxy) {
  const array = proxy.toJs();
  proxy.destroy();
  return array.buffer;
}

const ops = {
  // Pyodide, the wheel and the compiled guest module: everything but the sandbox, so that a
  // standby worker can be booted ahead of need.
  async boot({ pyodideURL, wheelURL }) {
    const { loadPyodide } = await import(new URL("pyodide.mjs", pyodideURL).href);
    pyodide = await loadPyodide({ indexURL: pyodideURL });
    await pyodide.loadPackage(wheelURL, { messageCallback: () => {} });
    self.WorkerHost = await pyodide.runPythonAsync(HOST);
    return [null];
  },
  // The sandbox, fresh or from a snapshot; answers its effective time limit in seconds and
  // the fields of the result of an execution that overruns it (see WorkerHost.overrun).
  open({ limits, snapshot }) {
    host = self.WorkerHost(JSON.stringify(limits), snapshot ? new Uint8Array(snapshot) : undefined);
    return [{ timeout: host.timeout, overrun: JSON.parse(host.overrun()) }];
  },
  // An execution, then the snapshot the page restores from if a later execution is terminated.
  execute({ code, language }) {
    const result = JSON.parse(host.execute(code, language));
    const snapshot = takeBytes(host.snapshot());
    return [{ result, snapshot }, [snapshot]];
  },
  read({ path }) {
    const data = takeBytes(host.read(path));
    return [data, [data]];
  },
  write({ path, data }) {
    host.write(path, new Uint8Array(data));
    const snapshot = takeBytes(host.snapshot());
    return [snapshot, [snapshot]];
  },
  list: ({ path }) => [JSON.parse(host.list(path))],
};

// A Python exception's message is its whole traceback: its last line says what went wrong.
function message(error) {
  const text = String(error && error.message ? error.message : error);
  return error && error.type ? text.trim().split("\n").at(-1) : text;
}

self.onmessage = async ({ data: { id, op, args } }) => {
  try {
    const [value, transfer = []] = await ops[op](args);
    self.postMessage({ id, ok: true, value }, transfer);
  } catch (error) {
    self.postMessage({ id, ok: false, error: message(error) });
  }
};
