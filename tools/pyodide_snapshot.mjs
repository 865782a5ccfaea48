// The web demo's Pyodide memory snapshot, made at build time so that a first visit skips
// Python's start-up too, not only a returning one:
//   node tools/pyodide_snapshot.mjs DIST STDLIB APP IMPORTS OUT
// DIST is a Pyodide distribution (pyodide_dist.py), STDLIB the standard library zip the page
// loads, APP the zip of the demo's Python files, IMPORTS a JSON list of the modules the page
// imports (tools/pyodide_bytecode.mjs records it; the worker imports the same list when it
// starts without a snapshot). Python starts from STDLIB and imports those modules from APP
// and STDLIB at the paths the worker uses; then the zips' cached indexes are dropped, so that
// the restored Python reads the zips only if it imports something else (the worker fetches
// them then, not on every visit). Its memory goes to OUT as web/static/snapshot-delta.mjs
// ships it (the module's data XORed out), and OUT.json says how many bytes of it are XORed.
// web/build.py runs this.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { withMemoryBase, xorInto } from "../web/static/snapshot-delta.mjs";

const args = process.argv.slice(2);
if (args.length !== 5) {
  console.error("usage: node tools/pyodide_snapshot.mjs DIST STDLIB APP IMPORTS OUT");
  process.exit(2);
}
const [dist, stdlib, app, imports, out] = args;
const url = (name) => pathToFileURL(path.join(dist, name)).href;
const { loadPyodide } = await import(url("pyodide.mjs"));
const { default: factory } = await import(url("pyodide.asm.mjs"));
const hook = withMemoryBase(factory, null, { restoring: false });
const pyodide = await loadPyodide({
  ...hook.options,
  indexURL: dist + path.sep,
  stdLibURL: path.resolve(stdlib),
  packages: [],
  // `_` as in a browser, not this script's path. No column positions in code objects (as
  // `-X no_debug_ranges`): the snapshot keeps Python's config, so the page's Python runs
  // without them too (tracebacks keep their line numbers, not the ^^^ under a column range).
  env: { _: "./this.program", PYTHONNODEBUGRANGES: "1" },
  _makeSnapshot: true,
});
const APP = "/home/pyodide/corral-app.zip"; // worker.js's APP
pyodide.FS.writeFile(APP, fs.readFileSync(app));
pyodide.globals.set("modules", pyodide.toPy(JSON.parse(fs.readFileSync(imports, "utf8"))));
pyodide.runPython(`
import gc, importlib, sys, zipimport
sys.path.insert(0, "${APP}")
for name in modules:
    importlib.import_module(name)
del modules
`);
// Pyodide's package loader (and what only it imports: zipfile, tarfile's compressors, shutil,
// tempfile) is never used by the page, which loads no package, yet Pyodide's start imports it
// and the JavaScript side asks for it again on a restore. A stand-in takes its place: it has
// what the restore reads, and imports the real one (from the zips, as any module the snapshot
// lacks) on first use of anything else. The old JavaScript proxy to the loader is destroyed so
// that nothing holds it; the restore makes a new one.
const STAND_IN = `
import importlib, os, sys

def init_loaded_packages():
    """Called on every start: the real one if a package is installed (the page installs none)."""
    if any(name.endswith(".dist-info") for name in os.listdir(SITE_PACKAGES)):
        __getattr__("init_loaded_packages")()

def __getattr__(name):
    """Anything else comes from the real loader, imported now in place of this module (not
    for a probe such as hasattr(module, "__file__"))."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if vars(sys.modules.get(__name__, sys)) is globals():
        del sys.modules[__name__]
    return getattr(importlib.import_module(__name__), name)
`;
pyodide.globals.set("STAND_IN", STAND_IN);
pyodide.runPython(`
import gc, importlib, sys, types, weakref
LOADER = "pyodide._package_loader"
real = sys.modules.pop(LOADER)
stand_in = types.ModuleType(LOADER, "Pyodide's package loader, imported on first use.")
# What Pyodide's JavaScript reads on a restore; loadedPackages is a JavaScript object that
# Pyodide expects Python to hold when it takes the snapshot.
for name in ("SITE_PACKAGES", "DSO_DIR", "loadedPackages"):
    setattr(stand_in, name, getattr(real, name))
exec(STAND_IN, stand_in.__dict__)
sys.modules[LOADER] = sys.modules["pyodide"]._package_loader = stand_in
ONLY_THE_LOADER = (
    "pyodide.common", "shutil", "tempfile", "zipfile", "zipfile._path", "zipfile._path.glob",
    "compression", "compression._common", "compression._common._streams", "compression.zstd",
    "compression.zstd._zstdfile", "bz2", "_bz2", "lzma", "_lzma", "_zstd",
)
dropped = [weakref.ref(real)]
for name in ONLY_THE_LOADER:
    module = sys.modules.pop(name, None)
    if module is not None:
        dropped.append(weakref.ref(module))
        parent, _, child = name.rpartition(".")
        if getattr(sys.modules.get(parent), child, None) is module:
            delattr(sys.modules[parent], child)
del real, module, stand_in, name, parent, child, STAND_IN
`);
pyodide._api.package_loader.destroy();
pyodide.runPython(`
import gc, sys, zipimport
gc.collect()
kept = [ref().__name__ for ref in dropped if ref() is not None]
if kept:  # what Pyodide's start imports has changed: ONLY_THE_LOADER must follow
    raise RuntimeError(f"still referenced after the package loader was dropped: {kept}")
del dropped, kept, ONLY_THE_LOADER, LOADER
sys.path_importer_cache.clear()
zipimport._zip_directory_cache.clear()
gc.collect()
`);
// The frozen modules Python has imported (importlib's bootstrap, os, codecs, site...: their
// marshalled code, ~0.4 MB, is in the module's data) are never read again: zeroed here and in
// the page's copy of the module (build.py, by the ranges OUT.json lists), they are zeros on
// the wire. Python would take a zeroed one for invalid ("Frozen object named 'os' is
// invalid"), not run it, were one imported anew. Found by their entries in Python's tables of
// frozen modules: {name, code, size, is_package}, 4 bytes each, in the module's data.
const frozenNames = new Set(pyodide.runPython(`
import sys
sorted(name for name, m in list(sys.modules.items())
       if getattr(getattr(m, "__spec__", None), "origin", None) == "frozen")
`).toJs());
// What tells an entry from bytes that look like one: its code unmarshals to a module's.
const isFrozenModule = pyodide.runPython(`
import marshal
def is_frozen_module(data):
    try:
        code = marshal.loads(data.to_bytes())
    except Exception:
        return False
    return getattr(code, "co_name", None) == "<module>" and code.co_filename.startswith("<frozen ")
is_frozen_module
`);
const frozenRanges = frozenCode(pyodide._module, hook.state.base, frozenNames, isFrozenModule);
isFrozenModule.destroy();
pyodide.runPython("del is_frozen_module");
if (frozenRanges.length < 10) throw new Error("the frozen modules' code was not found: Pyodide's layout changed");
for (const [start, end] of frozenRanges) {
  pyodide._module.HEAPU8.fill(0, start, end);
  hook.state.base.fill(0, start, end);
}

function frozenCode(module, base, imported, isFrozenModule) {
  const words = new Int32Array(base.buffer, base.byteOffset, base.length >> 2);
  const memory = module.HEAPU8;
  const live = new Int32Array(memory.buffer, 0, base.length >> 2);
  const name = (at) => {
    let end = at;
    while (end < base.length && memory[end] !== 0 && end - at < 256) end++;
    return new TextDecoder().decode(memory.subarray(at, end));
  };
  // Entries by their code: a range is zeroed only if every name it is frozen under was imported
  // (an alias such as __hello_alias__ shares its code with __hello__).
  const byCode = new Map();
  for (let i = 256; i + 3 < live.length; i++) {
    const [at, code, size] = [live[i], live[i + 1], Math.abs(live[i + 2])];
    if (at <= 0 || at >= base.length || code <= 0 || code + size > base.length || size === 0) continue;
    if (words[i] !== at || words[i + 1] !== code || words[i + 2] !== live[i + 2]) continue; // data
    if ((memory[code] & 0x7f) !== 0x63) continue; // marshal's code object ("c", maybe flagged)
    const frozen = name(at);
    if (!/^[A-Za-z_][\w.]*$/.test(frozen)) continue;
    const entry = byCode.get(code) ?? { size, names: [] };
    entry.names.push(frozen);
    byCode.set(code, entry);
  }
  return [...byCode]
    .filter(([, { names }]) => names.every((n) => imported.has(n)))
    .filter(([code, { size }]) => isFrozenModule(memory.subarray(code, code + size)))
    .map(([code, { size }]) => [code, code + size])
    .sort((a, b) => a[0] - b[0]);
}

// The stack below the current frame holds what finished calls left, and malloc's free chunks
// what freed objects left: zeros compress better. Each free chunk is allocated (the heap may
// not grow meanwhile: malloc fails instead), zeroed, and freed again.
const module = pyodide._module;
module.HEAPU8.fill(0, module._emscripten_stack_get_end(), module.stackSave());
module._malloc_set_footprint_limit(module._malloc_footprint());
const held = [];
for (let size = 1 << 24; size >= 8; size >>= 1) {
  for (let block = module._malloc(size); block; block = module._malloc(size)) {
    module.HEAPU8.fill(0, block, block + size);
    held.push(block);
  }
}
for (const block of held) module._free(block);
module._malloc_set_footprint_limit(-1); // SIZE_MAX: no limit, as before
const snapshot = pyodide.makeMemorySnapshot();
const base = hook.state.base;
let bytes = base.length;
while (bytes > 0 && base[bytes - 1] === 0) bytes--;
bytes = Math.ceil(bytes / 4096) * 4096;
const heap = new Uint32Array(snapshot.buffer, snapshot.byteOffset, 2)[1]; // its offset
xorInto(snapshot.subarray(heap, heap + bytes), base.subarray(0, bytes));
fs.writeFileSync(out, snapshot);
fs.writeFileSync(`${out}.json`, `${JSON.stringify({ base_bytes: bytes, zeroed: frozenRanges })}\n`);
