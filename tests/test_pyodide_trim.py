"""``tools/pyodide_trim.py``: the web demo's copy of Pyodide's module keeps only the exports
some JavaScript names, and its JavaScript only their bindings (on a small module shaped like
Pyodide's; the demo itself runs on the real one in ``playwright/``)."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path
from types import ModuleType

import pytest

pytestmark = pytest.mark.needs_native("tools/ is not copied into the Pyodide test run")

TOOL = Path(__file__).resolve().parent.parent / "tools" / "pyodide_trim.py"

# A main module's shape: exported functions and globals (data addresses), a table whose entries
# are function pointers, a memory.
WAT = """
(module
  (func $called (export "called_by_name") (result i32) (call $helper))
  (func $helper (result i32) (i32.const 1))
  (func (export "bound_only") (result i32) (call $only_for_bound_only))
  (func $only_for_bound_only (result i32) (i32.const 2))
  (func (export "via_module") (result i32) (i32.const 3))
  (func $pointed (result i32) (i32.const 4))
  (table (export "__indirect_function_table") 1 funcref)
  (elem (i32.const 0) $pointed)
  (memory (export "memory") 1)
  (global (export "data_named") i32 (i32.const 8))
  (global (export "data_bound_only") i32 (i32.const 16)))
"""
# Emscripten's bindings, then code that uses some of them, as pyodide.asm.mjs has them.
BINDINGS = (
    "var _called_by_name,_bound_only,_via_module,_data_named,_data_bound_only,memory;"
    "function assignWasmExports(wasmExports){"
    '_called_by_name=Module["_called_by_name"]=wasmExports["called_by_name"];'
    '_bound_only=Module["_bound_only"]=wasmExports["bound_only"];'
    '_via_module=Module["_via_module"]=wasmExports["via_module"];'
    '_data_named=Module["_data_named"]=wasmExports["data_named"].value>>>0;'
    '_data_bound_only=Module["_data_bound_only"]=wasmExports["data_bound_only"].value>>>0;'
    'memory=Module["memory"]=wasmMemory=wasmExports["memory"]}'
)
JAVASCRIPT = f"var x=1;{BINDINGS}function f(){{return _called_by_name()+HEAP32[_data_named>>2]}}"
PAGE = 'const signals = pyodide._module; signals["_via_module"]();'
KEPT = {"called_by_name", "via_module", "data_named", "memory", "__indirect_function_table"}


@pytest.fixture(scope="module")
def trim() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pyodide_trim", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def small_module() -> bytes:
    """:data:`WAT` as WebAssembly (wasmtime is imported here: under Pyodide, where this
    module's tests are skipped, it does not exist)."""
    import wasmtime

    return bytes(wasmtime.wat2wasm(WAT))


def functions(trim: ModuleType, wasm: bytes) -> int:
    """How many functions ``wasm`` defines (its function section's count)."""
    for section, _, payload, _ in trim._sections(wasm):
        if section == 3:
            count: int = trim._leb(wasm, payload)[0]
            return count
    return 0


def test_only_the_exports_some_javascript_names_are_kept(trim: ModuleType) -> None:
    wasm = small_module()
    kept = trim.used_exports(wasm, JAVASCRIPT, [PAGE])
    assert kept == KEPT
    smaller = trim.keep_exports(wasm, kept)
    assert trim.exports(smaller) == {name: trim.exports(wasm)[name] for name in KEPT}
    assert trim.exports(trim.keep_exports(wasm, set())) == {}


def test_the_javascript_keeps_the_bindings_of_kept_exports_only(trim: ModuleType) -> None:
    trimmed = trim.trim_javascript(JAVASCRIPT, KEPT)
    assert trimmed == (
        "var x=1;var _called_by_name,_via_module,_data_named,memory;"
        "function assignWasmExports(wasmExports){"
        '_called_by_name=Module["_called_by_name"]=wasmExports["called_by_name"];'
        '_via_module=Module["_via_module"]=wasmExports["via_module"];'
        '_data_named=Module["_data_named"]=wasmExports["data_named"].value>>>0;'
        'memory=Module["memory"]=wasmMemory=wasmExports["memory"]}'
        "function f(){return _called_by_name()+HEAP32[_data_named>>2]}"
    )


def test_javascript_it_does_not_know_is_refused(trim: ModuleType) -> None:
    with pytest.raises(trim.TrimError, match="no `function assignWasmExports`"):
        trim.used_exports(small_module(), "var a;", [])
    odd = JAVASCRIPT.replace('_bound_only=Module["_bound_only"]=', "_bound_only=")
    with pytest.raises(trim.TrimError, match="binds an export in an unknown way: _bound_only="):
        trim.trim_javascript(odd, KEPT)


@pytest.mark.skipif(shutil.which("wasm-opt") is None, reason="needs binaryen's wasm-opt")
def test_what_only_dropped_exports_reached_is_removed(trim: ModuleType, tmp_path: Path) -> None:
    """wasm-opt removes the functions only dropped exports reached; the table's stay, and the
    module still runs."""
    dist, out = tmp_path / "dist", tmp_path / "out"
    dist.mkdir()
    wasm = small_module()
    (dist / "pyodide.asm.wasm").write_bytes(wasm)
    (dist / "pyodide.asm.mjs").write_text(JAVASCRIPT)
    for name in ("pyodide.mjs", "pyodide-lock.json", "package.json"):
        (dist / name).write_text("{}")
    kept = trim.kept_exports(dist, [PAGE])
    assert kept == KEPT
    trim.trim(dist, out, kept, shutil.which("wasm-opt"))
    trimmed = (out / "pyodide.asm.wasm").read_bytes()
    assert set(trim.exports(trimmed)) == KEPT
    # bound_only and its callee go, called_by_name's helper is inlined, $pointed stays.
    assert functions(trim, wasm) == 6
    assert functions(trim, trimmed) == 3
    assert (out / "pyodide.asm.mjs").read_text() == trim.trim_javascript(JAVASCRIPT, KEPT)
    import wasmtime

    store = wasmtime.Store()
    instance = wasmtime.Instance(store, wasmtime.Module(store.engine, trimmed), [])
    assert instance.exports(store)["called_by_name"](store) == 1
    table = instance.exports(store)["__indirect_function_table"]
    assert table.get(store, 0)(store) == 4


# Data segments as a main module has them: active at constant addresses, one passive.
DATA_WAT = """
(module
  (memory (export "memory") 1)
  (data (i32.const 16) "abcdefgh")
  (data (i32.const 200) "0123456789")
  (data "passive, never placed"))
"""


def test_zeroed_data_reads_as_zeros_where_the_ranges_say(trim: ModuleType) -> None:
    """The frozen modules' code the memory snapshot zeroed (tools/pyodide_snapshot.mjs) is
    zeroed in the page's module too: a range may span segments and the gaps between them, and
    nothing outside it changes."""
    import wasmtime

    wasm = bytes(wasmtime.wat2wasm(DATA_WAT))
    zeroed = trim.zero_data(wasm, [(20, 22), (23, 205), (209, 300)])
    assert len(zeroed) == len(wasm)
    store = wasmtime.Store()
    instance = wasmtime.Instance(store, wasmtime.Module(store.engine, zeroed), [])
    memory = instance.exports(store)["memory"]
    assert bytes(memory.read(store, 16, 24)) == b"abcd\0\0g\0"
    assert bytes(memory.read(store, 200, 210)) == bytes(5) + b"5678\0"
    assert b"passive, never placed" in zeroed
    assert trim.zero_data(wasm, []) == wasm
