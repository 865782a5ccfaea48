"""The module cache, the WASI shim and the command line."""

from __future__ import annotations

import asyncio
import ctypes
import os
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest

import corral
from corral import Sandbox, precompile_module
from corral._module import wasm_bytes
from corral._wasi import EBADF, Entropy, GuestExit, WasiShim
from corral.results import ErrorKind
from corral.runtime import GuestTrap, get_backend


class FakeMemory:
    def __init__(self) -> None:
        self.data = bytearray(256)

    def read(self, ptr: int, length: int) -> bytes:
        return bytes(self.data[ptr : ptr + length])

    def write(self, ptr: int, data: bytes) -> None:
        self.data[ptr : ptr + len(data)] = data


def shim_with(memory: FakeMemory, sink: list[bytes] | None = None) -> WasiShim:
    entropy = Entropy(clock=lambda clock_id: 1000 + clock_id, random=lambda n: b"\x07" * n)
    shim = WasiShim(entropy, diagnostics=(sink.append if sink is not None else None))
    shim.bind(memory)
    return shim


def test_wasi_clock_and_random_come_from_the_entropy_source() -> None:
    memory = FakeMemory()
    shim = shim_with(memory)
    assert shim.clock_time_get(1, 0, 8) == 0
    assert struct.unpack_from("<Q", memory.data, 8) == (1001,)
    assert shim.random_get(32, 4) == 0
    assert memory.data[32:36] == b"\x07" * 4


def test_wasi_fd_write_goes_to_diagnostics_only_for_stdio() -> None:
    memory, sink = FakeMemory(), []
    shim = shim_with(memory, sink)
    memory.write(100, b"hello")
    memory.write(0, struct.pack("<II", 100, 5))
    assert shim.fd_write(2, 0, 1, 16) == 0
    assert sink == []  # no whole line yet
    memory.write(100, b" you\nthere")
    memory.write(0, struct.pack("<II", 100, 10))
    assert shim.fd_write(2, 0, 1, 16) == 0
    assert sink == [b"hello you"]
    assert struct.unpack_from("<I", memory.data, 16) == (10,)
    assert shim.fd_write(7, 0, 1, 16) == EBADF


def test_wasi_proc_exit_raises() -> None:
    with pytest.raises(GuestExit, match="guest exited with code 3"):
        shim_with(FakeMemory()).proc_exit(3)


@pytest.mark.needs_native("inspects the module with wasmtime")
def test_the_guest_imports_only_a_few_wasi_functions() -> None:
    import wasmtime

    module = wasmtime.Module(wasmtime.Engine(), wasm_bytes())
    imports = sorted((i.module, i.name) for i in module.imports)
    allowed = set(WasiShim().functions())
    assert {module for module, _ in imports} == {"wasi_snapshot_preview1"}
    assert {name for _, name in imports} <= allowed
    exports = {e.name for e in module.exports if e.name.startswith("corral_")}
    assert exports == {
        "corral_inbox",
        "corral_init",
        "corral_reseed",
        "corral_submit",
        "corral_step",
        "corral_resume",
        "corral_request",
    }


@pytest.mark.needs_native("the wasmtime disk cache")
def test_precompile_writes_the_disk_cache_atomically(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path))
    path = precompile_module()
    assert path is not None and path.parent == tmp_path / "modules" and path.suffix == ".cwasm"
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary files left
    from corral.runtime._wasmtime import WasmtimeBackend

    fresh = WasmtimeBackend()  # a new engine: no in-process cache
    assert fresh.cache_path(wasm_bytes()) == path
    fresh.load(wasm_bytes())  # deserialised from the file


@pytest.mark.needs_native("the wasmtime disk cache")
def test_the_disk_cache_keeps_the_most_recently_loaded_modules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every corral upgrade or wasmtime build compiles another ~14 MB module: without a bound
    # the cache only grows.
    from corral.runtime._wasmtime import MODULES_KEPT, WasmtimeBackend

    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path))
    modules = tmp_path / "modules"
    modules.mkdir()
    stale = [modules / f"stale-{n}.cwasm" for n in range(MODULES_KEPT + 2)]
    for age, path in enumerate(stale):
        path.write_bytes(b"old")
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    path = precompile_module()
    assert path is not None
    kept = sorted(p.name for p in modules.iterdir())
    assert kept == sorted([path.name, *(p.name for p in stale[-(MODULES_KEPT - 1) :])])
    # Loading a cached module counts as a use: it is the last to be forgotten.
    os.utime(path, (1_000, 1_000))
    WasmtimeBackend().load(wasm_bytes())  # a new engine: read from the file
    assert path.stat().st_mtime > 2_000_000


@pytest.mark.needs_native("the wasmtime disk cache")
def test_cache_key_depends_on_the_module() -> None:
    from corral.runtime._wasmtime import WasmtimeBackend

    backend = get_backend()
    assert isinstance(backend, WasmtimeBackend)
    assert backend.cache_key(b"\0asm") != backend.cache_key(wasm_bytes())


@pytest.mark.needs_native("the wasmtime disk cache")
def test_corrupt_cache_file_is_recompiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from corral.runtime._wasmtime import WasmtimeBackend

    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path))
    fresh = WasmtimeBackend()
    path = fresh.cache_path(wasm_bytes())
    path.parent.mkdir(parents=True)
    path.write_bytes(b"garbage")
    fresh.load(wasm_bytes())
    assert path.read_bytes() != b"garbage"


@pytest.mark.needs_native("the wasmtime disk cache")
def test_a_module_file_is_hashed_once_per_machine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from corral.runtime import _base, _wasmtime

    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path / "cache"))
    module = tmp_path / "guest.wasm"
    module.write_bytes(b"\0asm\1\0\0\0")
    backend = _wasmtime.WasmtimeBackend()
    key = backend.cache_key(module)
    assert key == backend.cache_key(module.read_bytes())
    # A fresh process: nothing remembered in memory, the file's hash remembered on disk.
    _wasmtime._remembered_digest.cache_clear()
    _base._read.cache_clear()
    assert backend.cache_key(module) == key
    assert _base._read.cache_info().misses == 0  # the file was not read
    # A changed file is another module, whether rewritten in place or replaced.
    module.write_bytes(b"\0asm\1\0\0\0\0\x01")
    assert backend.cache_key(module) == backend.cache_key(module.read_bytes()) != key
    replacement = tmp_path / "new.wasm"
    replacement.write_bytes(b"\0asm\1\0\0\0")
    replacement.replace(module)
    assert backend.cache_key(module) == key


@pytest.mark.needs_native("runs Python in a subprocess")
def test_a_fresh_process_with_a_warm_cache_imports_and_reads_little() -> None:
    # The first sandbox of a process (issue 14): none of these modules, and the 4.7 MB module
    # is neither read nor hashed when its compiled form (and its init image, which the first
    # process below may have to store) is in the disk cache.
    precompile_module()
    code = (
        "import sys, corral\n"
        "assert corral.Sandbox().execute('return 1 + 2').return_value == 3\n"
        "from corral.runtime import _base\n"
        "slow = {'asyncio', 'importlib.metadata', 'logging', 'tempfile', 'wasmtime',\n"
        "        'platform', 'corral.sandbox_tool', 'corral.capabilities._constraints'}\n"
        "slow &= set(sys.modules)\n"
        "print(sorted(slow), _base._read.cache_info().misses)"
    )
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False
        )
    assert (done.returncode, done.stdout, done.stderr) == (0, "[] 0\n", "")


def test_load_compiles_once_then_sandboxes_only_instantiate() -> None:
    asyncio.run(corral.load())
    backend = get_backend()
    assert backend.load(wasm_bytes()) is backend.load(wasm_bytes())
    assert Sandbox().execute("return 1 + 2").return_value == 3


def test_second_sandbox_reuses_the_compiled_module() -> None:
    backend = get_backend()
    assert backend.load(wasm_bytes()) is backend.load(wasm_bytes())
    Sandbox()
    Sandbox()


def run_cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "corral", *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.needs_native("runs the CLI in a subprocess")
def test_cli_run() -> None:
    done = run_cli("run", "-c", "console.log('hi'); return 2")
    assert (done.returncode, done.stdout) == (0, "hi\n2\n")
    wrong = run_cli("run", "-l", "cobol", "-c", "x")
    assert (wrong.returncode, wrong.stderr) == (
        2,
        "corral: unsupported language 'cobol': use 'javascript', 'shell' (or 'bash'), or 'auto'\n",
    )
    failed = run_cli("run", stdin="throw new Error('x')")
    assert (failed.returncode, failed.stderr) == (
        1,
        "Error: x\n    at <anonymous> (code.js:1:11)\n",
    )


@pytest.mark.needs_native("runs the CLI in a subprocess")
def test_cli_demo_runs() -> None:
    done = run_cli("demo")
    assert done.returncode == 0, done.stderr
    assert "CapabilityError: payments/transfer denied: amount <= 1000 failed" in done.stdout
    assert "TimeoutError: execution exceeded the 0.5 s time limit" in done.stdout


@pytest.mark.needs_native("runs the CLI in a subprocess")
def test_cli_precompile(tmp_path: Path) -> None:
    import os

    done = subprocess.run(
        [sys.executable, "-m", "corral", "precompile"],
        capture_output=True,
        text=True,
        env={**os.environ, "CORRAL_CACHE_DIR": str(tmp_path)},
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip().startswith(str(tmp_path))


@pytest.mark.needs_native("runs Python in a subprocess")
def test_import_corral_loads_nothing_until_a_name_is_used() -> None:
    code = (
        "import sys, corral\n"
        "print(sorted(m for m in sys.modules if m.startswith('corral')))\n"
        "from corral import Limits\n"
        "print(corral.Limits is Limits, 'corral.sandbox' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "['corral']\nTrue False\n", "")


# What a fresh process's first sandbox loads (issue 14: every module costs it time). A module
# that joins this list must be one that `Sandbox().execute("return 1+2")` cannot do without:
# tools, capabilities, tokens, the call dispatcher and fs load on first use.
FIRST_SANDBOX_MODULES = [
    "corral",
    "corral._idle",
    "corral._image",
    "corral._json",
    "corral._lean",
    "corral._module",
    "corral._record",
    "corral._wasi",
    "corral.audit",
    "corral.limits",
    "corral.protocol",
    "corral.results",
    "corral.runtime",
    "corral.runtime._base",
    "corral.runtime._capi",
    "corral.runtime._wasmtime",
    "corral.sandbox",
    "corral.trace",
]
# Standard modules it must not load (each costs a fresh process a millisecond or more;
# pathlib, with urllib.parse and ipaddress, ~4 ms: its paths are str; typing ~2 ms; json
# with re ~2.5 ms: corral._json calls the C accelerator _json itself; enum ~1.5 ms with the two
# enums: corral._error_kinds is imported when an execution fails; threading, functools and
# contextlib with collections, operator, keyword and reprlib ~2-3 ms: see corral._lean).
FIRST_SANDBOX_SPARES = [
    "asyncio",
    "base64",
    "collections",
    "contextlib",
    "copy",
    "dataclasses",
    "datetime",
    "enum",
    "functools",
    "hashlib",
    "hmac",
    "inspect",
    "ipaddress",
    "json",
    "keyword",
    "logging",
    "operator",
    "pathlib",
    "random",
    "re",
    "reprlib",
    "secrets",
    "tempfile",
    "threading",
    "typing",
    "urllib.parse",
]


@pytest.mark.needs_native("runs Python in a subprocess")
def test_the_first_sandbox_loads_only_what_it_needs() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)  # what the interpreter's start-up loaded\n"
        "import corral._record as records\n"
        "compiled, make = [], records._make_init  # the records whose __init__ is compiled\n"
        "records._make_init = lambda record: compiled.append(record.__name__) or make(record)\n"
        "import corral\n"
        "assert corral.Sandbox().execute('return 1+2').return_value == 3\n"
        "print(sorted(m for m in sys.modules if m.startswith('corral')))\n"
        f"print([m for m in {FIRST_SANDBOX_SPARES!r} if m in set(sys.modules) - before])\n"
        "print(compiled)"
    )
    for _ in range(2):  # the first run may compile the module and write the caches
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=False
        )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"{FIRST_SANDBOX_MODULES}\n[]\n[]\n"


def test_every_public_name_resolves_and_is_listed() -> None:
    assert {name for names in corral._HOMES.values() for name in names} == set(corral.__all__)
    for name in corral.__all__:
        value = getattr(corral, name)
        assert value.__name__ == name and name in dir(corral)
    with pytest.raises(AttributeError, match="module 'corral' has no attribute 'Sandboxes'"):
        corral.Sandboxes  # noqa: B018
    from corral import capabilities

    public = {name for names in capabilities._HOMES.values() for name in names}
    assert public == {*capabilities.__all__, "SPEC_FORMS", "MAX_NAME_LENGTH"}
    missing = r"module 'corral\.capabilities' has no attribute 'Authorize'"
    with pytest.raises(AttributeError, match=missing):
        capabilities.Authorize  # noqa: B018
    for name in public:
        assert getattr(capabilities, name) is not None and name in dir(capabilities)


@pytest.mark.needs_native("loads wasmtime's library")
def test_another_wasmtime_release_is_refused_with_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from corral.runtime import _capi

    monkeypatch.setattr(_capi, "_version", lambda package: "51.0.0")
    with pytest.raises(ImportError) as refused:
        _capi.load()
    assert str(refused.value) == (
        "corral binds the C API of wasmtime 50.x, and wasmtime 51.0.0 is installed: "
        "pip install 'wasmtime>=50,<51'"
    )
    monkeypatch.setattr(_capi, "_version", lambda package: None)
    with pytest.raises(ImportError, match="a wasmtime whose version is unknown is installed"):
        _capi.load()
    monkeypatch.undo()
    assert _capi.load().path.endswith(os.path.join(*_capi._library_location()))


@pytest.mark.needs_native("loads wasmtime's library")
def test_every_declared_function_is_in_the_library_and_declared_once_used() -> None:
    # Declared on first use (a first sandbox uses about half, issue 14): a name that the
    # library lacks would only fail there, so each is looked up here.
    from corral.runtime import _capi

    library = _capi.load()
    assert not set(vars(library)) & set(_capi._FULL_NAMES)
    for name, full in _capi._FULL_NAMES.items():
        function = getattr(library, name)
        assert vars(library)[name] is function and function.argtypes == _capi._SIGNATURES[full][1]
    with pytest.raises(AttributeError, match="no_such_function"):
        library.no_such_function  # noqa: B018 - the lookup is the test


@pytest.mark.needs_native("the wasmtime backend's page map reading")
def test_the_page_kinds_table_reads_the_present_and_file_bits() -> None:
    from corral.runtime._wasmtime import _PAGE_KINDS

    kinds = ["." if not flags & 0x80 else "F" if flags & 0x20 else "P" for flags in range(256)]
    assert "".join(kinds).encode() == _PAGE_KINDS


@pytest.mark.needs_native("runs Python in a subprocess")
def test_the_package_imports_without_wasmtime() -> None:
    # Under Pyodide there is no wasmtime: only the wasmtime backend may import it.
    code = (
        "import sys; sys.modules['wasmtime'] = None\n"
        "import corral, corral.protocol, corral.capabilities, corral.tools, corral._wasi\n"
        "assert 'corral.runtime._wasmtime' not in sys.modules\n"
        "print('ok')"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")


@pytest.mark.needs_native("inspects the module with wasmtime")
def test_the_browser_rewrite_imports_the_memory_and_stays_valid() -> None:
    # The Pyodide backend caps each instance's memory by giving it an imported memory.
    import wasmtime

    from corral.runtime._pyodide import import_memory

    rewritten, pages = import_memory(wasm_bytes())
    module = wasmtime.Module(wasmtime.Engine(), rewritten)  # validates the rewritten module
    memories = [i for i in module.imports if isinstance(i.type, wasmtime.MemoryType)]
    assert [(i.module, i.name) for i in memories] == [("corral", "memory")]
    assert memories[0].type.limits.min == pages > 0
    assert "memory" in {e.name for e in module.exports}
    with pytest.raises(ValueError, match="not a WebAssembly module"):
        import_memory(b"nope")
    # A module rewritten already (a site may serve it so) is taken as it is.
    assert import_memory(rewritten) == (rewritten, pages)


def test_the_browser_backend_adopts_a_module_compiled_by_the_page(tmp_path: Path) -> None:
    """A page compiles the rewritten module itself (compileStreaming, while Pyodide starts)
    and hands it over: corral then neither reads nor compiles the file while it stays the same."""
    from corral.runtime._pyodide import PyodideBackend, import_memory

    rewritten, pages = import_memory(wasm_bytes())
    path = tmp_path / "corral.wasm"
    path.write_bytes(rewritten)
    backend = PyodideBackend()
    assert not backend.cached(path)
    compiled = object()  # a WebAssembly.Module in the browser
    backend.adopt(path, compiled, pages)
    assert backend.cached(path)
    loaded = backend.load(path)  # no JavaScript needed: nothing to compile
    assert (loaded.module, loaded.min_pages) == (compiled, pages)
    path.write_bytes(rewritten)  # written again: another file, as far as corral knows
    os.utime(path, ns=(1, 1))
    assert not backend.cached(path)


def test_memory_size_is_whole_pages_and_grows_with_use() -> None:
    sandbox = Sandbox()
    instance = sandbox._driver.instance
    before = instance.memory_size()
    assert before > 0 and before % 65536 == 0
    sandbox.execute("globalThis.big = 'x'.repeat(8 * 1024 * 1024)")
    assert instance.memory_size() > before


def test_memory_bytes_is_the_peak_linear_memory_and_grows_with_the_files() -> None:
    sandbox = Sandbox()
    before = sandbox.memory_bytes
    assert before > 0 and before % 65536 == 0  # whole wasm pages
    sandbox.fs.write("big.bin", b"\x00" * (8 << 20))
    sandbox.fs.remove("big.bin")
    assert sandbox.memory_bytes >= before + (8 << 20)  # memory never shrinks: a peak


def test_a_large_host_write_costs_the_guest_one_copy_at_its_peak() -> None:
    # The inbox that carried it becomes the file's buffer (no second copy); the checkpoint's
    # snapshot references the file in place instead of copying it.
    sandbox = Sandbox()
    before = sandbox.memory_bytes
    data = bytes(range(256)) * (64 << 10)  # 16 MiB
    sandbox.fs.write("big.bin", data)
    assert sandbox.memory_bytes - before < 1.25 * len(data)
    assert sandbox.execute("wc -c < big.bin", language="shell").stdout == f"{len(data)}\n"
    assert sandbox.fs.read("big.bin") == data
    assert Sandbox.from_snapshot(sandbox.snapshot()).fs.read("big.bin") == data


def test_copies_after_a_call_that_grew_the_memory_reach_its_new_pages() -> None:
    # The instance asks the memory's address and size once after each guest call: a call that
    # grew (or moved) the memory must not leave the old ones behind.
    sandbox = Sandbox()
    sandbox.fs.write("small.txt", b"small")
    before = sandbox.memory_bytes
    result = sandbox.execute("globalThis.big = 'x'.repeat(16 << 20); return 'y'.repeat(4 << 20)")
    assert sandbox.memory_bytes > before + (16 << 20)
    assert result.return_value == "y" * (4 << 20)
    sandbox.fs.write("big.bin", b"z" * (24 << 20))  # its inbox lies past the old size
    assert (sandbox.fs.read("big.bin"), sandbox.fs.read("small.txt")) == (
        b"z" * (24 << 20),
        b"small",
    )


@pytest.mark.needs_native("the wasmtime backend's memory address")
def test_a_memory_that_cannot_move_is_located_once_not_after_every_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The default reservation (4 GiB) covers any memory limit, so the memory never moves: the
    # copies in and out of a tool call's two guest calls need no C call to find it.
    def echo(x: int) -> dict[str, int]:
        """Return the argument."""
        return {"x": x}

    sandbox = Sandbox(tools=[echo])
    assert sandbox.execute("return await echo({x: 1})").return_value == {"x": 1}
    lib = sandbox._driver.instance._lib
    asked: list[str] = []
    for name in ("memory_data", "memory_data_size"):
        real = getattr(lib, name)
        monkeypatch.setattr(
            lib, name, lambda *args, real=real, name=name: asked.append(name) or real(*args)
        )
    results = [sandbox.execute("return await echo({x: 2})").return_value for _ in range(3)]
    assert (results, asked) == ([{"x": 2}] * 3, [])


@pytest.mark.needs_native("calls wasmtime's C API")
def test_exports_are_called_through_the_c_api_with_the_same_results() -> None:
    import functools

    sandbox = Sandbox()
    instance = sandbox._driver.instance
    direct = instance._export("corral_inbox")
    assert not isinstance(direct, functools.partial)  # the fast path is in use
    address = direct(100)
    assert address > 0 and instance.call("corral_inbox", 100) == address  # the same inbox
    assert sandbox.execute("echo hi", language="shell").stdout == "hi\n"
    with pytest.raises(TypeError, match="expected 1 arguments"):
        direct()


@pytest.mark.needs_native("the wasmtime backend's page population")
def test_a_large_write_into_fresh_memory_faults_its_pages_in_first() -> None:
    from corral.runtime import _wasmtime

    with Sandbox() as sandbox:
        instance = sandbox._driver.instance
        top = instance.memory_size()
        instance.grow(top + (1 << 20))
        data = bytes(range(256)) * 1024  # 256 KiB, not page-aligned below
        instance.write(top + 100, data)
        assert instance.read(top + 100, len(data)) == data
        assert len(data) >= _wasmtime.POPULATE_FROM  # the path that populates first


@pytest.mark.needs_native("the wasmtime backend's epoch thread")
def test_the_epoch_thread_parks_when_idle_and_the_backstop_still_stops_a_builtin() -> None:
    import time

    from corral import Limits
    from corral.runtime import _wasmtime

    sandbox = Sandbox(limits=Limits(timeout=0.3))
    assert sandbox.execute("return 1").return_value == 1
    ticker = sandbox._driver.instance._backend._ticker
    give_up = time.monotonic() + 20 * _wasmtime.PARK_AFTER
    while not ticker.parked and time.monotonic() < give_up:
        time.sleep(_wasmtime.PARK_AFTER / 4)
    assert ticker.parked  # no guest call: the thread sleeps
    # Array.join does not poll the guest's own deadline: only the epoch stops it.
    result = sandbox.execute('return [].constructor(1e9).join("").length')
    assert (result.error_kind, ticker.parked) == ("timeout", False)
    assert sandbox.execute("return 2").return_value == 2


@pytest.mark.needs_native("a closed wasmtime store has freed the memory at once")
def test_a_closed_instance_refuses_memory_access() -> None:
    sandbox = Sandbox()
    instance = sandbox._driver.instance
    assert instance.read(0, 4) == instance.read(0, 4)
    sandbox.close()
    with pytest.raises(ValueError, match="closed"):
        instance.read(0, 4)
    with pytest.raises(ValueError, match="closed"):
        instance.write(0, b"x")


class _Boom(Exception):
    pass


@pytest.mark.needs_native("the wasmtime backend's WASI imports")
@pytest.mark.parametrize("failure", [_Boom("from the clock"), GuestExit(7)])
def test_an_exception_in_a_wasi_import_crosses_the_guest_intact(failure: Exception) -> None:
    import dataclasses

    def echo(x: int) -> int:
        """Return x."""
        return x

    def clock(*_args: int) -> int:
        raise failure

    sandbox = Sandbox(tools=[echo])
    assert sandbox.execute("return await echo({x: 1})").return_value == 1
    imports = sandbox._driver.instance._shim.functions()  # type: ignore[attr-defined]
    imports["clock_time_get"] = dataclasses.replace(imports["clock_time_get"], func=clock)
    reads_the_clock = "return [await echo({x: 2}), Date.now()]"  # Date.now() is a WASI call
    if isinstance(failure, GuestExit):  # the guest's own exit: the execution ends with it
        result = sandbox.execute(reads_the_clock)
        assert (result.error_kind, result.error) == (
            "exit",
            "InternalError: the guest aborted (exit code 7); the sandbox was restarted",
        )
    else:  # a failure of the host's own: raised to the caller
        with pytest.raises(_Boom, match="from the clock"):
            sandbox.execute(reads_the_clock)
    assert sandbox.execute("return await echo({x: 3})").return_value == 3  # a fresh instance


@pytest.mark.needs_native("the native epoch backstop")
def test_the_epoch_backstop_lets_a_late_guest_run_its_own_checks_first() -> None:
    """On a loaded machine the guest may not run at all between its deadline and the epoch's:
    the epoch then lets it run ``CPU_GRACE`` of its own CPU time (where its deadline checks end
    it cleanly, with no restart) before it traps it."""
    from corral.runtime import _wasmtime

    lib = _wasmtime._library()
    delta, kind = (ctypes.c_uint64 * 1)(), (ctypes.c_uint8 * 1)(7)
    _wasmtime._RUNNING.overdue_since = None  # as at the start of a call
    assert _wasmtime._at_epoch_deadline(lib, 0, 0, delta, kind) == 0
    assert (delta[0], kind[0]) == (1, 0)  # go on, a tick more
    started = time.thread_time()
    while time.thread_time() - started < _wasmtime.CPU_GRACE:
        pass
    error = _wasmtime._at_epoch_deadline(lib, 0, 0, delta, kind)
    assert error
    lib.error_delete(error)
    trap, _wasmtime._RUNNING.error = _wasmtime._RUNNING.error, None
    assert isinstance(trap, GuestTrap) and trap.kind == ErrorKind.TIMEOUT
    # A guest that gets no CPU time at all is trapped after WALL_GRACE of real time.
    wall = _wasmtime._RUNNING.overdue_since[1]
    _wasmtime._RUNNING.overdue_since = (time.thread_time(), wall - _wasmtime.WALL_GRACE)
    error = _wasmtime._at_epoch_deadline(lib, 0, 0, delta, kind)
    assert error
    lib.error_delete(error)
    _wasmtime._RUNNING.error = None
