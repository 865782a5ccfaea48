// Runs corral's pytest suite (or a short benchmark) inside a loaded Pyodide: shared by the Node
// runner (pyodide_node.mjs) and the Web Worker of the Chromium runner (pyodide_worker.mjs).
//
// The staging directory (made by pyodide_tests.py) holds manifest.json, the wheels and
// suite.tar (tests/ and pyproject.toml). `read(name)` returns one of its files as bytes,
// `url(name)` its URL (a path under Node), `log(line)` reports a line of output.

async function install(pyodide, { read, url, log }, names) {
  const manifest = JSON.parse(new TextDecoder().decode(await read("manifest.json")));
  const started = performance.now();
  // micropip itself comes in with loadPackage, by URL: the lockfile's hashes are not PyPI's.
  await pyodide.loadPackage(manifest.base.map(url), { messageCallback: () => {} });
  pyodide.FS.mkdirTree("/tmp/wheels");
  const local = [];
  for (const name of names(manifest)) {
    pyodide.FS.writeFile(`/tmp/wheels/${name}`, await read(name));
    local.push(`emfs:/tmp/wheels/${name}`);
  }
  pyodide.globals.set("_wheels", pyodide.toPy(local));
  // deps=False: everything is local, micropip must not ask an index.
  await pyodide.runPythonAsync("import micropip\nawait micropip.install(_wheels, deps=False)");
  log(`corral-pyodide: installed ${local.length + manifest.base.length} wheels in ${Math.round(performance.now() - started)} ms`);
  return manifest;
}

export async function runSuite(pyodide, io) {
  await install(pyodide, io, (manifest) => [manifest.corral, ...manifest.test]);
  pyodide.FS.mkdirTree("/suite");
  pyodide.unpackArchive(await io.read("suite.tar"), "tar", { extractDir: "/suite" });
  pyodide.globals.set("_args", pyodide.toPy(io.args));
  const started = performance.now();
  const status = await pyodide.runPythonAsync(`
import os, sys
os.chdir("/suite")
import pytest, corral
print(f"corral-pyodide: corral {corral.__version__} from {os.path.dirname(corral.__file__)}, "
      f"platform {sys.platform}, Python {sys.version.split()[0]}")
int(pytest.main(list(_args)))
`);
  io.log(`corral-pyodide: pytest exited with ${status} after ${Math.round(performance.now() - started)} ms`);
  return status;
}

// Timings in a browser without cross-origin isolation are coarsened to 0.1 ms.
export async function runBench(pyodide, io) {
  await install(pyodide, io, (manifest) => [manifest.corral]);
  await pyodide.runPythonAsync(`
import json, statistics, time

def ms(start):
    return round((time.perf_counter() - start) * 1000, 3)

def median_ms(run, n):
    times = []
    for _ in range(n):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return round(statistics.median(times) * 1000, 3)

start = time.perf_counter()
import corral
numbers = {"import_corral_ms": ms(start)}
start = time.perf_counter()
await corral.load()
numbers["load_compile_ms"] = ms(start)
start = time.perf_counter()
sandbox = corral.Sandbox()
numbers["first_sandbox_ms"] = ms(start)
numbers["next_sandbox_median_ms"] = median_ms(corral.Sandbox, 20)
numbers["next_sandbox_closed_median_ms"] = median_ms(lambda: corral.Sandbox().close(), 20)
# Inside Sandbox(): a bare instance (WebAssembly.Instance, its memory, the data segments), then
# the init image written into one (there is no copy-on-write here: both are copies).
from corral._image import images_for
from corral._module import wasm_path
from corral._wasi import WasiShim
from corral.runtime import get_backend
backend = get_backend()
module = backend.load(wasm_path())
image = next(iter(images_for(module)._by_config.values()))
numbers["instantiate_median_ms"] = median_ms(lambda: backend.instantiate(module, WasiShim(), 1 << 28), 20)
instances = [backend.instantiate(module, WasiShim(), 1 << 28) for _ in range(20)]
numbers["image_apply_median_ms"] = median_ms(lambda: image.apply(instances.pop()), 20)
assert sandbox.execute("return 1+2").return_value == 3
assert sandbox.execute("echo hi", language="shell").stdout == "hi\\n"
numbers["execute_js_median_ms"] = median_ms(lambda: sandbox.execute("return 1+2"), 200)
numbers["execute_shell_echo_median_ms"] = median_ms(
    lambda: sandbox.execute("echo hi", language="shell"), 200
)
numbers["memory_bytes"] = sandbox._driver.instance.memory_size()
print("corral-pyodide-bench: " + json.dumps(numbers))
`);
  return 0;
}

// On a page's main thread: a Sandbox() before corral.load() may be refused (Chrome does not
// compile large modules synchronously there); after `await corral.load()` the sync API works.
export async function runMainThreadCheck(pyodide, io) {
  await install(pyodide, io, (manifest) => [manifest.corral]);
  return await pyodide.runPythonAsync(`
import os, time
import corral
from corral import _module

def sandbox_before_load():
    try:
        corral.Sandbox()
        return "compiled synchronously"
    except RuntimeError as error:
        return f"was refused: {error}"

# A module over Chrome's limit for synchronous compilation: the padded guest (a custom section).
pad = b"\\x03pad" + b"\\0" * (2 * 1024 * 1024)
size, length = bytearray(), len(pad)
while True:
    size.append((length & 0x7F) | (0x80 if length >> 7 else 0))
    length >>= 7
    if not length:
        break
padded = _module.wasm_bytes() + b"\\0" + bytes(size) + pad
with open("/tmp/padded.wasm", "wb") as f:
    f.write(padded)
os.environ["CORRAL_WASM"] = "/tmp/padded.wasm"
print(f"corral-pyodide: main thread: with a {len(padded) >> 20} MiB module, a Sandbox() before "
      f"corral.load() {sandbox_before_load()}")
del os.environ["CORRAL_WASM"]
print(f"corral-pyodide: main thread: with the {len(_module.wasm_bytes()) >> 20} MiB module, a "
      f"Sandbox() before corral.load() {sandbox_before_load()}")
start = time.perf_counter()
await corral.load()
loaded = (time.perf_counter() - start) * 1000
value = corral.Sandbox().execute("return 1 + 2").return_value
print(f"corral-pyodide: main thread: corral.load() took {loaded:.0f} ms; then execute() gave {value}")
0 if value == 3 else 1
`);
}
