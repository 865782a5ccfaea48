// Bytecode for the web demo, compiled by Pyodide's own Python (its magic number and cache tag)
// so that the page imports modules without compiling their sources:
//   node tools/pyodide_bytecode.mjs DIST STDLIB APP MODULE OUT_STDLIB OUT_APP OUT_IMPORTS
// DIST is a Pyodide distribution (pyodide_dist.py), STDLIB the standard library zip the page
// loads, APP the zip the page imports corral and corral_demo.py from, MODULE corral's guest
// module as the page compiles it. Python starts from STDLIB and does what the page does at
// start (imports corral and the demo from APP, opens a sandbox, runs shell and JavaScript
// commands that call tools). OUT_STDLIB and OUT_APP are STDLIB and APP with the source
// `name.py` of each module that was imported replaced by its bytecode `name.pyc` (which Python
// imports when there is no source beside it; lean but for the demo's own file: see rewrite); the
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
import importlib.util  # not before: the page does not import it
from importlib._bootstrap_external import _code_to_hash_pyc
from types import CodeType

def at_first_line(code):
    """The code object with every instruction at its first line (its def or class line): a
    traceback still names each function, and the location table, a run of "no columns, line
    + 0" entries of 8 code units each (Python's format), compresses to almost nothing."""
    units, table = len(code.co_code) // 2, bytearray()
    while units:
        span = min(units, 8)
        table += bytes((0x80 | 13 << 3 | span - 1, 0))
        units -= span
    consts = tuple(at_first_line(c) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_linetable=bytes(table), co_consts=consts)

def rewrite(source, target, modules, lean):
    """Each of modules (names in source) as bytecode; lean(name): without docstrings nor
    asserts, and lines only at each function's first line."""
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            info.compress_type = zipfile.ZIP_STORED
            if info.filename not in modules:
                zout.writestr(info, data)
                continue
            lean_module = lean(info.filename)
            code = compile(data, info.filename, "exec", dont_inherit=True,
                           optimize=2 if lean_module else 0)
            if lean_module:
                code = at_first_line(code)
            pyc = _code_to_hash_pyc(code, importlib.util.source_hash(data), checked=False)
            zout.writestr(zipfile.ZipInfo(info.filename + "c", info.date_time), bytes(pyc))

# Lean bytecode (docstrings, asserts and lines within functions left out) for the standard
# library, Pyodide's Python packages and corral: what the memory snapshot holds of them is
# 0.29 MB smaller with brotli (docs/web-demo.rst). Nothing of the page reads those docstrings
# (Pyodide's C methods took theirs from _pyodide._core_docs during its start, before the
# snapshot; corral reads only the docstrings of tool functions); a traceback still names
# each function and its first line. The demo (corral_demo.py: the tools' docstrings) keeps
# everything.
rewrite("/tmp/stdlib.zip", "/tmp/out-stdlib.zip", from_stdlib, lambda name: True)
rewrite("/tmp/app.zip", "/tmp/out-app.zip", from_app, lambda name: name.startswith("corral/"))
print(f"pyodide_bytecode.mjs: {len(from_stdlib)} + {len(from_app)} modules as bytecode")
`);
fs.writeFileSync(outStdlib, pyodide.FS.readFile("/tmp/out-stdlib.zip"));
fs.writeFileSync(outApp, pyodide.FS.readFile("/tmp/out-app.zip"));
fs.writeFileSync(outImports, pyodide.FS.readFile("/tmp/imports.json"));
