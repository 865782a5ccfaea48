"""The browser backend: the JavaScript engine's own ``WebAssembly``, reached from Pyodide.

The only module that imports ``js`` and ``pyodide``. There is no epoch deadline in the browser:
the guest's own checks (the interrupt handler, the shell's loop checks, the memory limit, the
quotas) end a runaway execution, and the ``deadline`` argument of :meth:`PyodideInstance.call`
is accepted and ignored. The linear-memory cap is real: the module is rewritten once so that
it imports its memory, and each instance gets a ``WebAssembly.Memory`` whose ``maximum`` is the
cap, so ``memory.grow`` fails past it exactly as under wasmtime's store limits.

Chrome refuses to compile modules over 8 MB synchronously on a page's main thread;
:meth:`PyodideBackend.load` then says to ``await corral.load()`` first, which compiles
asynchronously (:meth:`PyodideBackend.load_async`) into the per-page cache. In a Web Worker
and under Node the synchronous path works.
"""

from __future__ import annotations

import gc
import importlib
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from .._wasi import GuestExit, WasiFunction, WasiShim
from ..results import ErrorKind
from ._base import GuestTrap, Instance, Wasm, content_digest, file_identity, module_bytes

if TYPE_CHECKING:
    from pathlib import Path

    from .._image import InitImage

__all__ = [
    "CompiledModule",
    "LinearMemory",
    "PyodideBackend",
    "PyodideInstance",
    "import_memory",
]

PAGE = 64 * 1024
MAX_PAGES = 65536  # 4 GiB: all a wasm32 memory can address
MEMORY_MODULE = "corral"  # the rewritten module imports its memory as corral.memory
SLEEP_SLICE = 0.005  # seconds: how soon a sleep notices Ctrl-C (PyodideBackend.sleep)
_MEMORY_SECTION = 5
_IMPORT_SECTION = 2
_MEMORY_KIND = 2


def _js() -> Any:
    """Pyodide's ``js`` module (the page's or the worker's global scope), imported lazily."""
    return importlib.import_module("js")


def _ffi() -> Any:
    """``pyodide.ffi``, imported lazily: natively this module must import without it."""
    return importlib.import_module("pyodide.ffi")


def _read_leb(data: bytes | bytearray, pos: int) -> tuple[int, int]:
    """An unsigned LEB128 number at ``pos``: its value and the position after it."""
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _leb(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _name(text: str) -> bytes:
    return _leb(len(text)) + text.encode()


def import_memory(wasm: bytes) -> tuple[bytes, int]:
    """Rewrite ``wasm`` so that it imports its one memory as ``corral.memory`` instead of
    defining it; returns the new module and the memory's minimum size in pages.

    The memory keeps index 0 (imported memories come first), so its export and every
    instruction stay valid. A host can then give each instance a memory with its own
    ``maximum``: the browser's way to cap linear memory per instance. A module rewritten
    already is returned as it is (a site may serve it rewritten: see
    :meth:`PyodideBackend.adopt`).
    """
    if wasm[:8] != b"\0asm\x01\0\0\0":
        raise ValueError("not a WebAssembly module (version 1)")
    sections: list[tuple[int, bytes]] = []
    pos = 8
    while pos < len(wasm):
        section_id = wasm[pos]
        size, start = _read_leb(wasm, pos + 1)
        sections.append((section_id, wasm[start : start + size]))
        pos = start + size
    memories = [body for section_id, body in sections if section_id == _MEMORY_SECTION]
    import_sections = [body for section_id, body in sections if section_id == _IMPORT_SECTION]
    if not memories and import_sections:
        rewritten = _imported_memory_pages(import_sections[0])
        if rewritten is not None:  # rewritten already (a site may serve it so, see adopt)
            return bytes(wasm), rewritten
    if len(memories) != 1:
        raise ValueError("the module must define exactly one memory section")
    count, at = _read_leb(memories[0], 0)
    flags = memories[0][at]
    if count != 1 or flags not in (0, 1):
        raise ValueError("the module must define one unshared 32-bit memory")
    minimum, _ = _read_leb(memories[0], at + 1)
    entry = _name(MEMORY_MODULE) + _name("memory") + bytes([_MEMORY_KIND, 0]) + _leb(minimum)
    out = bytearray(wasm[:8])
    for section_id, body in sections:
        if section_id == _MEMORY_SECTION:
            continue
        if section_id == _IMPORT_SECTION:
            imports, at = _read_leb(body, 0)
            new_body = _leb(imports + 1) + body[at:] + entry
        else:
            new_body = body
        out += bytes([section_id]) + _leb(len(new_body)) + new_body
    if not any(section_id == _IMPORT_SECTION for section_id, _ in sections):
        raise ValueError("the module has no import section")  # the guest always imports WASI
    return bytes(out), minimum


def _imported_memory_pages(imports: bytes) -> int | None:
    """The minimum pages of the ``corral.memory`` import :func:`import_memory` appends last to
    an import section, or None when the section does not end with it."""
    marker = _name(MEMORY_MODULE) + _name("memory") + bytes([_MEMORY_KIND, 0])
    at = imports.rfind(marker)
    if at < 0:
        return None
    pages, end = _read_leb(imports, at + len(marker))
    return pages if end == len(imports) else None


class CompiledModule:
    """A compiled (memory-importing) module and the minimum size of its memory."""

    def __init__(self, module: Any, min_pages: int) -> None:
        self.module = module
        self.min_pages = min_pages


class PyodideBackend:
    """Compiles with ``WebAssembly`` and caches compiled modules for the page's lifetime."""

    name = "pyodide"
    releases_memory = False  # see PyodideInstance.release_unused

    def __init__(self) -> None:
        self._modules: dict[str, CompiledModule] = {}
        self._adopted: dict[tuple[str, str], CompiledModule] = {}  # by path and file identity
        self._wasi: Any = None  # the shared WASI imports (see _wasi_imports), made on first use

    def adopt(self, wasm: str | Path, module: Any, min_pages: int) -> None:
        """Use ``module``, a ``WebAssembly.Module`` compiled by JavaScript, as the compiled
        form of the module file ``wasm``; ``min_pages`` is the minimum size of its memory.

        The file must hold the module as :func:`import_memory` rewrote it. A page can then
        fetch that file and compile it with ``WebAssembly.compileStreaming`` while Pyodide
        starts, off Python's path (the browser may also cache the compiled code for its URL);
        from then on, while the file stays the same (one ``stat``), it is neither read nor
        hashed nor compiled again.
        """
        self._adopted[str(wasm), file_identity(wasm)] = CompiledModule(module, min_pages)

    def _known(self, wasm: Wasm) -> tuple[str, CompiledModule | None]:
        """The module's content key (its digest; for an adopted file, its identity), and its
        compiled form if there is one already."""
        if not isinstance(wasm, bytes):
            adopted = self._adopted.get((str(wasm), file_identity(wasm)))
            if adopted is not None:
                return "", adopted
        key = content_digest(wasm)
        return key, self._modules.get(key)

    def wasi_imports(self) -> Any:
        """WASI for every instance, as one JavaScript object made once (see _wasi_imports)."""
        if self._wasi is None:
            self._wasi = _wasi_imports()
        return self._wasi

    def cached(self, wasm: Wasm) -> bool:
        """Whether ``wasm`` is compiled already (``Sandbox()`` then needs no compilation)."""
        return self._known(wasm)[1] is not None

    def load(self, wasm: Wasm) -> CompiledModule:
        """The compiled module, compiling synchronously the first time.

        Allowed in a Web Worker and under Node; on a browser's main thread Chrome refuses it
        for modules over 8 MB: ``await corral.load()`` first.
        """
        key, compiled = self._known(wasm)
        if compiled is None:
            rewritten, min_pages = import_memory(module_bytes(wasm))
            js, ffi = _js(), _ffi()
            try:
                module = js.WebAssembly.Module.new(ffi.to_js(rewritten))
            except ffi.JsException as error:
                raise RuntimeError(
                    "this browser refuses to compile the corral module synchronously on the "
                    "main thread; run `await corral.load()` once before creating a Sandbox, "
                    f"or run Pyodide in a Web Worker ({_js_error(error)})"
                ) from error
            compiled = self._modules[key] = CompiledModule(module, min_pages)
        return compiled

    async def load_async(self, wasm: Wasm) -> CompiledModule:
        """Compile ``wasm`` with ``WebAssembly.compile`` (allowed everywhere) into the cache."""
        key, compiled = self._known(wasm)
        if compiled is None:
            rewritten, min_pages = import_memory(module_bytes(wasm))
            module = await _js().WebAssembly.compile(_ffi().to_js(rewritten))
            compiled = self._modules.setdefault(key, CompiledModule(module, min_pages))
        return compiled

    def sleep(self, seconds: float) -> None:
        """Wait in slices of at most 5 ms, looking at the interrupt buffer (Ctrl-C, see
        web/static/worker.js) before each: ``time.sleep`` is a busy wait that never looks, and
        Python itself looks only every few dozen calls, so a sleep held Ctrl-C off for its
        whole length (or for a few hundred milliseconds on a loaded machine)."""
        check = importlib.import_module("pyodide_js").checkInterrupt
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            check()  # raises KeyboardInterrupt once the page has signalled
            time.sleep(min(left, SLEEP_SLICE))

    def run_sync(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Wait for ``make()`` on the page's event loop, suspending this call (JSPI); needs
        WebAssembly stack switching and Python code run from async JavaScript (as
        ``runPythonAsync`` does)."""
        ffi = _ffi()
        if not ffi.can_run_sync():
            raise RuntimeError(
                "a synchronous execute() cannot wait for an async tool here: this JavaScript "
                "runtime has no WebAssembly stack switching, or Python was not called from async "
                "code; use `await sandbox.aexecute(...)`"
            )
        return ffi.run_sync(_await(make))

    def stored_image(self, module: object, config: bytes) -> InitImage | None:
        """None: a page keeps no init images between visits."""
        return None

    def store_image(
        self, module: object, config: bytes, image: InitImage, instance: Instance
    ) -> None:
        """Nothing: a page keeps no init images between visits."""

    def instantiate(self, module: object, shim: WasiShim, memory_limit: int) -> PyodideInstance:
        """A fresh instance with its own memory capped at ``memory_limit`` bytes."""
        assert isinstance(module, CompiledModule)
        return PyodideInstance(module, shim, memory_limit, self.wasi_imports())


async def _await(make: Callable[[], Awaitable[Any]]) -> Any:
    return await make()


# The WASI functions of the instance running now: a guest calls WASI only from inside an
# export call, which sets them (see PyodideInstance.call); Pyodide runs one call at a time.
_RUNNING: list[dict[str, WasiFunction]] = [{}]


# Ctrl-C at the guest's clock reads, looked for in JavaScript: Pyodide's interrupt buffer holds
# 2 (SIGINT) once the page has signalled (web/static/worker.js). A KeyboardInterrupt raised in
# the Python import instead crosses the guest's frames as Pyodide's PythonError, whose whole
# stack (every guest and interpreter frame) Pyodide formats and parses on its way back into
# Python: 13-190 ms to the prompt on a loaded machine. This error's default short stack is not.
_INTERRUPTED = "corral: interrupted (Ctrl-C)"
_INTERRUPTIBLE_CLOCK = f"""
const signals = pyodide._module;
return (...args) => {{
  const signal = signals.Py_EmscriptenSignalBuffer;
  if (signal && signal[0] === 2) {{
    signal[0] = 0;
    throw new Error("{_INTERRUPTED}");
  }}
  return clock(...args);
}};
"""


def _wasi_imports() -> Any:
    """The ``wasi_snapshot_preview1`` imports, made once: each forwards to the running
    instance's shim. Proxies made per instance cost ~1 ms each to create and destroy, and a
    JavaScript import that held a shim would tie the instance to it."""
    ffi = _ffi()
    wasi = _js().Object.new()
    pyodide = importlib.import_module("pyodide_js")
    interruptible = _js().Function.new("pyodide", "clock", _INTERRUPTIBLE_CLOCK)
    for name in WasiShim().functions():
        function = ffi.create_proxy(_forward(name))
        if name == "clock_time_get" and getattr(pyodide, "_module", None) is not None:
            function = interruptible(pyodide, function)  # else Python's own periodic checks
        setattr(wasi, name, function)
    return wasi


def _forward(name: str) -> Callable[..., int | None]:
    """A WASI import as JavaScript calls it: i64 parameters arrive as ints (from BigInt)."""

    def call(*args: Any) -> int | None:
        return _RUNNING[0][name].func(*(int(arg) for arg in args))

    return call


class LinearMemory:
    """A guest's ``WebAssembly.Memory``, read and written through fresh ``Uint8Array`` views.

    The WASI shim holds this, not the instance, so that the instance (with its address-space
    reservation) goes as soon as its last Python reference does.
    """

    def __init__(self, memory: Any) -> None:
        self.memory = memory

    def size(self) -> int:
        """The current size in bytes."""
        return int(self.memory.buffer.byteLength)

    def _view(self, ptr: int, length: int) -> Any:
        # A fresh view every time: growing memory detaches the old buffer.
        buffer = self.memory.buffer
        if ptr < 0 or length < 0 or ptr + length > buffer.byteLength:
            raise GuestTrap(ErrorKind.TRAP, f"guest memory access out of bounds ({ptr}+{length})")
        return _js().Uint8Array.new(buffer, ptr, length)

    def read(self, ptr: int, length: int) -> bytes:
        """Copy bytes out of linear memory."""
        return bytes(self._view(ptr, length).to_bytes()) if length else b""

    def write(self, ptr: int, data: bytes) -> None:
        """Copy bytes into linear memory."""
        if data:
            self._view(ptr, len(data)).assign(data)


def _new_memory(initial: int, maximum: int) -> Any:
    """A ``WebAssembly.Memory``; when the engine is out of address space for another one,
    collect Python's garbage (it may hold the last references to dead instances) and retry."""
    js, ffi = _js(), _ffi()
    descriptor = js.Object.new()
    descriptor.initial = initial
    descriptor.maximum = maximum
    try:
        return js.WebAssembly.Memory.new(descriptor)
    except ffi.JsException:
        gc.collect()
        return js.WebAssembly.Memory.new(descriptor)


class PyodideInstance:
    """One guest instance: its ``WebAssembly.Instance``, exports and memory."""

    def __init__(
        self, compiled: CompiledModule, shim: WasiShim, memory_limit: int, wasi: Any
    ) -> None:
        js, ffi = _js(), _ffi()
        maximum = max(compiled.min_pages, min(MAX_PAGES, memory_limit // PAGE))
        self._memory = LinearMemory(_new_memory(compiled.min_pages, maximum))
        self._wasi = shim.functions()
        own = js.Object.new()
        own.memory = self._memory.memory
        imports = js.Object.new()
        setattr(imports, "wasi_snapshot_preview1", wasi)  # noqa: B010 - a JS property
        setattr(imports, MEMORY_MODULE, own)
        try:
            instance = js.WebAssembly.Instance.new(compiled.module, imports)
        except ffi.JsException as error:
            raise GuestTrap(
                ErrorKind.TRAP, f"the guest could not be instantiated ({_js_error(error)})"
            ) from error
        self._exports = instance.exports
        shim.bind(self._memory)

    def call(self, name: str, *args: int, deadline: float | None = None) -> int:
        """Call an export. ``deadline`` is ignored: there is no epoch backstop in the browser;
        the guest's own interrupt checks end a runaway execution."""
        func = getattr(self._exports, name)
        outer, _RUNNING[0] = _RUNNING[0], self._wasi
        try:
            result = func(*args)
        except GuestTrap:
            raise
        except GuestExit as exit_:
            raise GuestTrap(
                ErrorKind.EXIT, f"the guest aborted (exit code {exit_.code})"
            ) from exit_
        except _ffi().JsException as error:
            if _INTERRUPTED in str(getattr(error, "message", "")):
                raise KeyboardInterrupt from None  # the page's Ctrl-C, at a clock read
            raise _classify(error) from error
        except RecursionError as error:  # the JavaScript stack ran out in a Python frame
            raise GuestTrap(
                ErrorKind.STACK_OVERFLOW, "stack overflow: recursion too deep"
            ) from error
        finally:
            _RUNNING[0] = outer
        return int(result or 0) & 0xFFFF_FFFF_FFFF_FFFF

    def memory_size(self) -> int:
        """The current size of linear memory in bytes."""
        return self._memory.size()

    def grow(self, size: int) -> None:
        """Grow linear memory to at least ``size`` bytes."""
        missing = -(-(size - self._memory.size()) // PAGE)
        if missing > 0:
            try:
                self._memory.memory.grow(missing)
            except Exception as error:  # a RangeError from JavaScript past the maximum
                raise GuestTrap(
                    ErrorKind.TRAP, f"linear memory cannot grow to {size} bytes"
                ) from error

    def load_image(self, image: InitImage) -> None:
        """Copy the image's changed pages in (a browser cannot map memory)."""
        image.copy_into(self)

    def release_unused(self) -> int:
        """Nothing: a browser gives no page of a ``WebAssembly.Memory`` back."""
        return 0

    def close(self) -> None:
        """Drop the instance; the engine frees the memory."""
        self._exports = _js().Object.new()  # a closed instance has no exports

    def read(self, ptr: int, length: int) -> bytes:
        """Copy bytes out of linear memory."""
        return self._memory.read(ptr, length)

    def write(self, ptr: int, data: bytes) -> None:
        """Copy bytes into linear memory."""
        self._memory.write(ptr, data)


def _js_error(error: Any) -> str:
    name = str(getattr(error, "name", "") or "Error")
    message = str(getattr(error, "message", "") or error)
    return f"{name}: {message}"


def _classify(error: Any) -> GuestTrap:
    """A JavaScript exception out of the guest, as the same trap kinds wasmtime reports."""
    text = _js_error(error)
    if "call stack size" in text or "too much recursion" in text:
        return GuestTrap(ErrorKind.STACK_OVERFLOW, "stack overflow: recursion too deep")
    if "out of bounds" in text and "memory" in text:
        # With the stack placed first in memory, a shadow-stack overflow lands below address 0.
        return GuestTrap(
            ErrorKind.STACK_OVERFLOW,
            "stack overflow: recursion too deep (memory access out of bounds)",
        )
    return GuestTrap(ErrorKind.TRAP, f"the guest trapped ({text})")
