// Bytecode for the web demo, compiled by Pyodide's own Python (its magic number and cache tag)
// so that the page imports modules without compiling their sources:
//   node tools/pyodide_bytecode.mjs DIST STDLIB APP MODULE OUT_STDLIB OUT_APP OUT_IMPORTS
// DIST is a Pyodide distribution (pyodide_dist.py), STDLIB the standard library zip the page
// loads, APP the zip the page imports corral and corral_demo.py from, MODULE corral's guest
// module as the page compiles it. Python starts from STDLIB and does what the page does at
// start (imports corral and the demo from APP, opens a sandbox, runs shell and JavaScript
// commands that call tools). OUT_STDLIB and OUT_APP are STDLIB and APP with the source
// `name.py` of each module that was imported replaced by its bytecode `name.pyc` (which Python
// imports when there is no source beside it; the standard library's without docstrings); the
// other modules keep their sources. Both are
// stored (not deflated); the .pyc are "unchecked hash" ones, valid whatever the files'
// modification times. OUT_IMPORTS is the JSON list of the modules imported from the two zips
// (what tools/pyodide_snapshot.mjs imports, and the worker without a snapshot): the one list
// of what the page imports. web/build.py runs this.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
if (args.length !== 7) {
  console.error("usage: node tools/pyodide_bytecode.mjs DIST STDLIB APP MODULE OUT_STDLIB OUT_APP OUT_IMPORTS");
  process.exit(2);
}
const [dist, stdlib, app, module, outStdlib, outApp, outImports] = args;
const { loadPyodide } = await import(pathToFileURL(path.join(dist, "pyodide.mjs")).href);
// Code objects without column positions (as \`-X no_debug_ranges\`), like those of the memory
// snapshot (tools/pyodide_snapshot.mjs): smaller zips for an import the snapshot lacks.
const pyodide = await loadPyodide({
  indexURL: dist + path.sep,
  stdLibURL: path.resolve(stdlib),
  env: { PYTHONNODEBUGRANGES: "1" },
});
pyodide.FS.writeFile("/tmp/stdlib.zip", fs.readFileSync(stdlib));
pyodide.FS.writeFile("/tmp/app.zip", fs.readFileSync(app));
pyodide.FS.writeFile("/tmp/corral.wasm", fs.readFileSync(module));
await pyodide.runPythonAsync(`
import json, os, sys, zipfile
from pathlib import Path

stdlib = next(entry for entry in sys.path if entry.endswith(".zip")) + "/"
# What the page does (web/static/worker.js): import from the zip, open a sandbox, run commands.
sys.path.insert(0, "/tmp/app.zip")
os.environ["CORRAL_WASM"] = "/tmp/corral.wasm"
import corral, corral.runtime._pyodide, corral_demo
await corral.load()
demo = corral_demo.DemoApp(lambda message: None)
demo.run("echo hi | wc -c > /tmp/n && cat /tmp/n")
demo.run("tool get_weather --city Paris; tool get_weather --city Mars")  # allowed, denied
demo.run("let x = (await get_weather({city: 'Tokyo'})).temp_c; x", "javascript")
demo.complete("ec"), demo.capabilities(), demo.tree(), demo.new_trace()
corral_demo.DemoApp(lambda message: None, snapshot=demo.snapshot())

def imported(root):
    """The modules imported so far from under root: {name: file (relative to root)}."""
    return {
        name: m.__spec__.origin.removeprefix(root)
        for name, m in list(sys.modules.items())
        if getattr(m, "__spec__", None) and (m.__spec__.origin or "").startswith(root)
    }

stdlib_modules, app_modules = imported(stdlib), imported("/tmp/app.zip/")
Path("/tmp/imports.json").write_text(json.dumps(sorted({**stdlib_modules, **app_modules})))
from_stdlib, from_app = set(stdlib_modules.values()), set(app_modules.values())
import py_compile  # not before: the page does not import it

def rewrite(source, target, modules, optimize):
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            info.compress_type = zipfile.ZIP_STORED
            if info.filename not in modules:
                zout.writestr(info, data)
                continue
            source = Path("/tmp/src", info.filename)
            source.parent.mkdir(parents=True, exist_ok=True)
            source.write_bytes(data)
            pyc = Path(py_compile.compile(
                str(source), str(Path("/tmp/pyc", info.filename + "c")), info.filename,
                doraise=True, invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
                optimize=optimize(info.filename),
            ))
            zout.writestr(zipfile.ZipInfo(info.filename + "c", info.date_time), pyc.read_bytes())

# The standard library's bytecode without docstrings (nor asserts): 0.6 MB of the ~10 MB of
# Python's heap in the memory snapshot, 0.16 MB of its transfer. Pyodide's own packages read
# theirs. corral's too (0.1 MB of the heap, 0.04 MB of the transfer: corral reads only the
# docstrings of tool functions, and the demo's tools are in corral_demo.py, which keeps them).
KEEP_DOCSTRINGS = ("_pyodide/", "pyodide/")
rewrite("/tmp/stdlib.zip", "/tmp/out-stdlib.zip", from_stdlib,
        lambda name: 0 if name.startswith(KEEP_DOCSTRINGS) else 2)
rewrite("/tmp/app.zip", "/tmp/out-app.zip", from_app,
        lambda name: 2 if name.startswith("corral/") else 0)
print(f"pyodide_bytecode.mjs: {len(from_stdlib)} + {len(from_app)} modules as bytecode")
`);
fs.writeFileSync(outStdlib, pyodide.FS.readFile("/tmp/out-stdlib.zip"));
fs.writeFileSync(outApp, pyodide.FS.readFile("/tmp/out-app.zip"));
fs.writeFileSync(outImports, pyodide.FS.readFile("/tmp/imports.json"));
