// Bytecode for the web demo, compiled by Pyodide's own Python (its magic number and cache tag)
// so that the page imports modules without compiling their sources:
//   node tools/pyodide_bytecode.mjs DIST STDLIB APP MODULE OUT_STDLIB OUT_APP
// DIST is a Pyodide distribution (pyodide_dist.py), STDLIB the standard library zip the page
// loads, APP a zip of what the page unpacks into site-packages (corral and corral_demo.py),
// MODULE corral's guest module as the page compiles it. Python starts from STDLIB, unpacks
// APP, and does what the page does at start (imports corral and the demo, opens a sandbox,
// runs a shell and a JavaScript command). Then:
// - OUT_STDLIB is STDLIB with each module that was imported stored as `name.pyc` instead of
//   `name.py` (a zip on sys.path imports those); the other modules keep their sources;
// - OUT_APP is APP with `dir/__pycache__/name.<cache tag>.pyc` after every `dir/name.py`.
// Both are stored (not deflated); the .pyc are "unchecked hash" ones, valid whatever the
// sources' modification times (unpacking a zip does not keep them). web/build.py runs this.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
if (args.length !== 6) {
  console.error("usage: node tools/pyodide_bytecode.mjs DIST STDLIB APP MODULE OUT_STDLIB OUT_APP");
  process.exit(2);
}
const [dist, stdlib, app, module, outStdlib, outApp] = args;
const { loadPyodide } = await import(pathToFileURL(path.join(dist, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: dist + path.sep, stdLibURL: path.resolve(stdlib) });
pyodide.FS.writeFile("/tmp/stdlib.zip", fs.readFileSync(stdlib));
pyodide.FS.writeFile("/tmp/app.zip", fs.readFileSync(app));
pyodide.FS.writeFile("/tmp/corral.wasm", fs.readFileSync(module));
await pyodide.runPythonAsync(`
import site, sys, zipfile
from pathlib import Path

# What the page does: unpack, import, open a sandbox, run commands.
with zipfile.ZipFile("/tmp/app.zip") as app:
    app.extractall(site.getsitepackages()[0])
Path(site.getsitepackages()[0], "corral", "corral.wasm").write_bytes(Path("/tmp/corral.wasm").read_bytes())
import corral, corral.runtime._pyodide, corral_demo
await corral.load()
demo = corral_demo.DemoApp(lambda message: None)
demo.run("echo hi | wc -c > /tmp/n && cat /tmp/n")
demo.run("let x = 1 + 1; x", "javascript")
demo.complete("ec"), demo.capabilities(), demo.tree(), demo.new_trace()
corral_demo.DemoApp(lambda message: None, snapshot=demo.snapshot())

stdlib = next(entry for entry in sys.path if entry.endswith(".zip")) + "/"
zipped = {
    m.__spec__.origin.removeprefix(stdlib)
    for m in list(sys.modules.values())
    if getattr(m, "__spec__", None) and (m.__spec__.origin or "").startswith(stdlib)
}
import importlib.util, py_compile  # not before: the page does not import them

def compiled(name, data, pyc):
    source = Path("/tmp/src", name)
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_bytes(data)
    return Path(py_compile.compile(
        str(source), str(Path("/tmp/pyc", pyc)), name, doraise=True,
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )).read_bytes()

def rewrite(source, target, bytecode, keep_source):
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            info.compress_type = zipfile.ZIP_STORED
            pyc = bytecode(info.filename)
            if pyc is None or keep_source:
                zout.writestr(info, data)
            if pyc is not None:
                zout.writestr(zipfile.ZipInfo(pyc, info.date_time), compiled(info.filename, data, pyc))

rewrite("/tmp/stdlib.zip", "/tmp/out-stdlib.zip", lambda name: name + "c" if name in zipped else None, keep_source=False)
rewrite("/tmp/app.zip", "/tmp/out-app.zip",
        lambda name: importlib.util.cache_from_source(name) if name.endswith(".py") else None,
        keep_source=True)
print(f"pyodide_bytecode.mjs: {len(zipped)} modules of the standard library imported")
`);
fs.writeFileSync(outStdlib, pyodide.FS.readFile("/tmp/out-stdlib.zip"));
fs.writeFileSync(outApp, pyodide.FS.readFile("/tmp/out-app.zip"));
