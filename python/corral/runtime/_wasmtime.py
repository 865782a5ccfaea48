"""The native backend: wasmtime. The only module that imports ``wasmtime``.

Compiled modules are cached twice: in this process (a second ``Sandbox()`` only instantiates)
and on disk under the user cache directory, keyed by the module's hash, the wasmtime build, the
engine configuration and the platform, written atomically. So that a fresh process neither
reads nor hashes the 4.7 MB module, the disk cache also remembers each module file's hash under
the file's identity (``file_identity`` in ``corral.runtime._base``: one ``stat``). An epoch
deadline is the backstop for guest code that the guest's own interrupt checks cannot stop.

Each instance reserves address space for its linear memory up front (see
:func:`memory_settings`); on Linux, a sandbox made from an init image maps the image's memory
file over its linear memory, copy-on-write (see ``WasmtimeInstance.load_image``). Nothing the
engine keeps refers back to an instance: the import functions that wasmtime-py registers hold
the WASI shim, and the shim holds only a weak reference to the instance, so a dropped instance
is freed with its store.
"""

from __future__ import annotations

import atexit
import contextlib
import contextvars
import ctypes
import functools
import hashlib
import math
import mmap
import os
import platform
import struct
import sys
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import wasmtime

from .._wasi import GuestExit, WasiFunction, WasiShim
from ..results import ErrorKind
from ._base import (
    WASM_PAGE,
    GuestTrap,
    Wasm,
    content_digest,
    file_identity,
    module_bytes,
)

if TYPE_CHECKING:
    from .._image import InitImage
    from ._base import Instance

__all__ = ["WasmtimeBackend", "cache_dir", "memory_settings"]

EPOCH_TICK = 0.005  # seconds per epoch tick while any guest call runs
PARK_AFTER = 0.1  # seconds without a guest call after which the epoch thread sleeps
MAX_TICKS = 2**62  # an epoch deadline that never comes
MiB = 1 << 20
GiB = 1 << 30
FULL_RESERVATION = 4 * GiB
"""Reserving all a wasm32 memory can address lets wasmtime drop bounds checks (its default)."""
BOUNDED_RESERVATION = 0
"""What an instance reserves up front when the process's address space is limited: only its
current memory (plus :data:`GROWTH_RESERVE` and the guard); it moves when it outgrows that."""
GROWTH_RESERVE = 64 * MiB
"""Room to grow in place reserved beyond a bounded memory (without it, every growth copies)."""
# Describes every engine setting that changes compiled code; part of the cache key.
ENGINE_SETTINGS = "epoch_interruption=1;opt=speed"


def memory_settings(reservation: int | None, guard: int | None) -> dict[str, int]:
    """The engine's linear-memory settings: ``memory_reservation``, ``memory_guard_size`` and
    ``memory_reservation_for_growth`` in bytes, each left out for wasmtime's default.

    Without an explicit ``reservation``: wasmtime's default (4 GiB, no bounds checks) when the
    process's address space is unlimited, else ``BOUNDED_RESERVATION`` (0), so that an
    address-space limit (``ulimit -v``) does not run out after a few instances. A reservation
    under 4 GiB also gets ``GROWTH_RESERVE`` (64 MiB) of room to grow in place.
    """
    if reservation is None and _address_space_limited():
        reservation = BOUNDED_RESERVATION
    settings: dict[str, int] = {}
    if reservation is not None:
        settings["memory_reservation"] = reservation
        if reservation < FULL_RESERVATION:
            settings["memory_reservation_for_growth"] = GROWTH_RESERVE
    if guard is not None:
        settings["memory_guard_size"] = guard
    return settings


def _address_space_limited() -> bool:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no rlimits
        return False
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return soft != resource.RLIM_INFINITY


def cache_dir() -> Path:
    """Where compiled modules are cached: ``$CORRAL_CACHE_DIR`` or the user cache directory."""
    env = os.environ.get
    return _cache_dir(
        env("CORRAL_CACHE_DIR"), env("LOCALAPPDATA"), env("XDG_CACHE_HOME"), env("HOME")
    )


@functools.lru_cache(maxsize=4)
def _cache_dir(explicit: str | None, local: str | None, xdg: str | None, home: str | None) -> Path:
    # By the environment variables it depends on: every Sandbox() asks, and paths cost µs.
    if explicit:
        return Path(explicit)
    if sys.platform == "win32":
        base = Path(local or Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(xdg or Path.home() / ".cache")
    return base / "corral"


class _EpochTicker:
    """Advances the engine's epoch every :data:`EPOCH_TICK` seconds while a guest call runs.

    The epoch counts running time, not wake-ups: a tick that comes late (a loaded machine)
    catches up, so :meth:`ticks_until` turns a deadline in seconds into epoch ticks exactly.
    Idle time (no guest call running) is not counted, and no deadline spans it. The thread
    parks after :data:`PARK_AFTER` seconds without a guest call, so that :meth:`enter` and
    :meth:`leave` of back-to-back calls only count (waking a thread costs more than a call).
    """

    def __init__(self, engine: wasmtime.Engine) -> None:
        self._engine = engine
        self._active = 0
        self._epoch = 0  # increments done
        self._origin = 0.0  # the monotonic time that epoch 0 stands for
        self._idle_since = 0.0  # when the last guest call ended
        self._lock = threading.Lock()
        self._running = threading.Event()  # set while the thread ticks, clear while parked
        self._thread: threading.Thread | None = None  # started on first use

    def _loop(self) -> None:
        while True:
            self._running.wait()
            with self._lock:
                due = self._origin + (self._epoch + 1) * EPOCH_TICK
            time.sleep(max(0.0, due - time.monotonic()))
            with self._lock:
                now = time.monotonic()
                if self._active:
                    target = math.floor((now - self._origin) / EPOCH_TICK)
                    while self._epoch < target:
                        self._engine.increment_epoch()
                        self._epoch += 1
                elif now - self._idle_since >= PARK_AFTER:
                    self._running.clear()
                else:  # idle: the next tick is due a tick from now
                    self._origin = now - self._epoch * EPOCH_TICK

    def enter(self) -> None:
        """A guest call starts: tick from now on."""
        with self._lock:
            if self._active == 0:  # idle until now: idle time does not count
                self._origin = time.monotonic() - self._epoch * EPOCH_TICK
            self._active += 1
            if not self._running.is_set():  # parked (or never started)
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._loop, name="corral-epoch", daemon=True
                    )
                    self._thread.start()
                self._running.set()

    def leave(self) -> None:
        """A guest call ended."""
        with self._lock:
            self._active -= 1
            if self._active == 0:
                self._idle_since = time.monotonic()

    def ticks_until(self, deadline: float | None) -> int:
        """Epoch ticks from now until ``deadline`` (``time.monotonic()`` seconds); call between
        :meth:`enter` and :meth:`leave`."""
        if deadline is None:
            return MAX_TICKS
        with self._lock:
            due = math.ceil((deadline - self._origin) / EPOCH_TICK)
            return min(MAX_TICKS, max(1, due - self._epoch))


class WasmtimeBackend:
    """Compiles with one shared engine (epoch interruption on) and caches compiled modules."""

    name = "wasmtime"

    def __init__(
        self, memory_reservation: int | None = None, memory_guard_size: int | None = None
    ) -> None:
        config = wasmtime.Config()
        config.epoch_interruption = True
        config.cranelift_opt_level = "speed"
        self.memory = memory_settings(memory_reservation, memory_guard_size)
        """The linear-memory settings in force (see :func:`memory_settings`)."""
        for name, value in self.memory.items():
            setattr(config, name, value)
        settings = ";".join([ENGINE_SETTINGS, *(f"{k}={v}" for k, v in self.memory.items())])
        context = f"{_wasmtime_build()};{settings};{sys.platform};{platform.machine()}"
        self._context = hashlib.sha256(context.encode()).hexdigest()[:16]
        self.engine = wasmtime.Engine(config)
        self._ticker = _EpochTicker(self.engine)
        self.linker = wasmtime.Linker(self.engine)
        """The WASI imports of every instance, each defined once, when the first module that
        imports it is instantiated (each forwards to the shim of the instance running)."""
        self._defined: set[str] = set()  # the names defined in it
        self._linked: weakref.WeakSet[wasmtime.Module] = weakref.WeakSet()  # modules it serves
        self._modules: dict[str, wasmtime.Module] = {}
        self._keys: weakref.WeakKeyDictionary[wasmtime.Module, str] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()
        # Free the compiled modules and the linker while wasmtime can still do it: at
        # interpreter shutdown its bindings may be torn down before this backend, and deleting
        # them then fails noisily.
        atexit.register(_forget_modules, weakref.ref(self))

    def cache_key(self, wasm: Wasm) -> str:
        """The disk-cache key of ``wasm`` under this engine, wasmtime build and platform."""
        return f"{_digest(wasm)[:32]}-{self._context}"

    def cache_path(self, wasm: Wasm) -> Path:
        """The file that holds (or will hold) the compiled form of ``wasm``."""
        return cache_dir() / "modules" / f"{self.cache_key(wasm)}.cwasm"

    def precompile(self, wasm: Wasm) -> Path:
        """Compile ``wasm`` into the disk cache (if not there yet) and return its path."""
        path = self.cache_path(wasm)
        if not path.exists():
            _store(path, wasmtime.Module(self.engine, module_bytes(wasm)).serialize())
        return path

    def load(self, wasm: Wasm) -> wasmtime.Module:
        """The compiled module: from this process, else from disk, else compiled and cached."""
        key = self.cache_key(wasm)
        with self._lock:
            module = self._modules.get(key)
            if module is None:
                module = self._load_uncached(wasm, cache_dir() / "modules" / f"{key}.cwasm")
                self._modules[key] = module
                self._keys[module] = key
            return module

    async def load_async(self, wasm: Wasm) -> wasmtime.Module:
        """:meth:`load` in a worker thread, so the event loop keeps running meanwhile."""
        import asyncio  # only for async code: importing it costs a fresh process milliseconds

        return await asyncio.to_thread(self.load, wasm)

    def _load_uncached(self, wasm: Wasm, path: Path) -> wasmtime.Module:
        if path.exists():
            try:
                return wasmtime.Module.deserialize_file(self.engine, str(path))
            except wasmtime.WasmtimeError:
                pass  # stale or corrupt: recompile and overwrite
        module = wasmtime.Module(self.engine, module_bytes(wasm))
        with contextlib.suppress(OSError):  # a read-only cache only costs speed
            _store(path, module.serialize())
        return module

    def stored_image(self, module: object, config: bytes) -> InitImage | None:
        """The init image of ``config`` that an earlier process left in the disk cache (see
        :meth:`store_image`), in a memory file; None if there is none (or no memory files)."""
        path = self._image_path(module, config)
        if path is None:
            return None
        image_file = _ImageFile.load(path)
        if image_file is None:
            return None
        from .._image import InitImage

        return InitImage(image_file.size, (), image_file.inbox, {self.name: image_file})

    def store_image(
        self, module: object, config: bytes, image: InitImage, instance: Instance
    ) -> None:
        """Keep ``image`` (``instance``'s memory now) in a memory file, which this process's
        later sandboxes of ``config`` map, and in the disk cache, from which a later process's
        first one does, instead of initializing the guest (best effort: a read-only cache
        only costs speed)."""
        path = self._image_path(module, config)
        if path is None:
            return
        memory = instance.read(0, image.size)
        image.prepared[self.name] = _ImageFile.create(memory, image.inbox)
        with contextlib.suppress(OSError):
            _store(path, memory + _IMAGE_TRAILER.pack(image.size, *image.inbox, _IMAGE_MAGIC))
            _forget_old_images(path.parent)

    def _image_path(self, module: object, config: bytes) -> Path | None:
        key = self._keys.get(module) if isinstance(module, wasmtime.Module) else None
        if key is None or not _memory_files():
            return None
        name = f"{key}-{hashlib.sha256(config).hexdigest()[:32]}.image"
        return cache_dir() / "images" / name

    def run_sync(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Run ``make()`` on a fresh event loop (in a helper thread when this thread already
        runs a loop; it sees this thread's context variables)."""
        import asyncio  # only when tools are async: importing it costs a fresh process ms

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(_await(make))
        box: dict[str, Any] = {}
        context = contextvars.copy_context()

        def target() -> None:
            try:
                box["value"] = context.run(asyncio.run, _await(make))
            except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
                box["error"] = error

        thread = threading.Thread(target=target, name="corral-tools")
        thread.start()
        thread.join()
        if "error" in box:
            raise box["error"]
        return box.get("value")

    def instantiate(self, module: object, shim: WasiShim, memory_limit: int) -> WasmtimeInstance:
        """A fresh instance of ``module`` in its own store, with WASI bound to ``shim``."""
        assert isinstance(module, wasmtime.Module)
        if module not in self._linked:
            with self._lock:
                _define_wasi(self.linker, self._defined, module)
                self._linked.add(module)
        return WasmtimeInstance(self, module, shim, memory_limit)


def _forget_modules(backend: weakref.ref[WasmtimeBackend]) -> None:
    alive = backend()
    if alive is not None:
        alive._modules.clear()
        alive.linker.close()  # deleted later, wasmtime's bindings may be gone already


async def _await(make: Callable[[], Awaitable[Any]]) -> Any:
    return await make()


def _store(path: Path, data: bytes | bytearray) -> None:
    """Write ``data`` to ``path`` atomically (a reader sees the old file or the whole new one)."""
    import tempfile  # only when writing the cache: importing it costs a fresh process ~1 ms

    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        try:
            _write_sparse(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _wasmtime_build() -> str:
    """Which wasmtime compiles: its native library's size and modification time (one ``stat``;
    asking ``importlib.metadata`` for the version costs a fresh process ~10 ms). Another
    release is another library; a cached module it cannot use is recompiled anyway."""
    try:
        from wasmtime._ffi import filename

        st = os.stat(filename)
    except (ImportError, OSError):  # pragma: no cover - depends on the wasmtime release
        from importlib.metadata import version

        return version("wasmtime")
    return f"{st.st_size}:{st.st_mtime_ns}"


def _digest(wasm: Wasm) -> str:
    """:func:`content_digest`, for a file remembered on disk by its identity, so that a fresh
    process finds its compiled module without reading the file."""
    if isinstance(wasm, bytes):
        return content_digest(wasm)
    return _remembered_digest(wasm, file_identity(wasm), cache_dir())


@functools.lru_cache(maxsize=8)
def _remembered_digest(path: Path, identity: str, cache: Path) -> str:
    stamp = cache / "digests" / hashlib.sha256(identity.encode()).hexdigest()[:32]
    with contextlib.suppress(OSError, UnicodeDecodeError):
        digest = stamp.read_text("ascii")
        if len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
            return digest
    digest = content_digest(path)
    with contextlib.suppress(OSError):  # a read-only cache only costs speed
        _store(stamp, digest.encode("ascii"))
    return digest


_VALTYPES = {"i": wasmtime.ValType.i32, "I": wasmtime.ValType.i64}

# The WASI shim of the instance this thread is running: a guest calls WASI only from inside an
# export call, which sets it (see WasmtimeInstance.call).
_RUNNING = threading.local()


def _define_wasi(linker: wasmtime.Linker, defined: set[str], module: wasmtime.Module) -> None:
    """Define in ``linker`` the WASI imports of ``module`` not ``defined`` yet, each forwarding
    to the running instance's shim. One linker serves every instance: that saves each a linker
    of its own, and wasmtime's registry of host functions never refers to a sandbox (nothing
    for it to leak). Only what the module imports is defined (each definition costs tens of
    µs). An import the shim does not have is left out: instantiating then fails with
    wasmtime's error naming it."""
    functions = WasiShim().functions()
    for item in module.imports:
        name = item.name or ""
        fn = functions.get(name)
        if item.module != "wasi_snapshot_preview1" or fn is None or name in defined:
            continue
        ty = wasmtime.FuncType(
            [_VALTYPES[c]() for c in fn.params], [_VALTYPES[c]() for c in fn.results]
        )
        if fn.results not in ("", "i") or not _define_raw(linker, name, ty, fn):
            linker.define_func("wasi_snapshot_preview1", name, ty, _forward(name))
        defined.add(name)


def _forward(name: str) -> Callable[..., int | None]:
    def forward(*args: int) -> int | None:
        return _RUNNING.shim.functions()[name].func(*args)  # type: ignore[no-any-return]

    forward.__name__ = name
    return forward


_RAW_IMPORTS: list[Any] = []
"""The callbacks of :func:`_define_raw`, kept for the process's life (the linkers call them)."""


def _define_raw(
    linker: wasmtime.Linker, name: str, ty: wasmtime.FuncType, fn: WasiFunction
) -> bool:
    """Define the WASI import ``name`` with wasmtime's raw calling convention: the callback
    reads its integer arguments straight from wasmtime's array, where wasmtime-py's generic
    trampoline makes a ``Caller`` and converts every argument and the result through ``Val``
    (about 20 Python calls per call out of the guest: a clock reading cost as much as checking
    a tool call). An exception raised by the shim crosses the guest as wasmtime-py's own do
    (``wasmtime._func.LAST_EXCEPTION``, raised again after the trap). False if this wasmtime
    release lacks what it needs (the caller then defines it the generic way)."""
    try:
        from wasmtime import _ffi as ffi
        from wasmtime import _func

        callback_type = ffi.wasmtime_func_unchecked_callback_t
        define = ffi.wasmtime_linker_define_func_unchecked
        _func.LAST_EXCEPTION  # noqa: B018 - present in the releases this was written for
    except (ImportError, AttributeError):  # pragma: no cover - depends on the wasmtime release
        return False
    fields = ["i32" if kind == "i" else "i64" for kind in fn.params]
    result = bool(fn.results)  # an i32 (an errno), or nothing
    forward = _forward(name)

    def call(_env: Any, _caller: Any, values: Any, _count: int) -> int:
        try:
            returned = forward(*[getattr(values[i], kind) for i, kind in enumerate(fields)])
            if result:
                values[0].i32 = returned
            return 0
        except BaseException as error:  # noqa: BLE001 - re-raised by the export's caller
            _func.LAST_EXCEPTION = error  # type: ignore[assignment]  # as its trampoline does
            trap = wasmtime.Trap("python exception")._consume()
            return ctypes.cast(trap, ctypes.c_void_p).value or 0

    callback = callback_type(call)
    raw = name.encode()
    error = define(
        linker.ptr(),
        ctypes.create_string_buffer(b"wasi_snapshot_preview1"),
        len(b"wasi_snapshot_preview1"),
        ctypes.create_string_buffer(raw),
        len(raw),
        ty.ptr(),
        callback,
        None,
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(),
    )
    if error:  # pragma: no cover - the same definition as define_func's
        raise wasmtime.WasmtimeError._from_ptr(error)
    _RAW_IMPORTS.append(callback)
    return True


class WasmtimeInstance:
    """One guest instance: its store, exports and memory."""

    def __init__(
        self, backend: WasmtimeBackend, module: wasmtime.Module, shim: WasiShim, memory_limit: int
    ) -> None:
        self._backend = backend
        self._store = wasmtime.Store(backend.engine)
        self._store.set_limits(memory_size=memory_limit)
        self._store.set_epoch_deadline(MAX_TICKS)
        self._shim = shim
        self._instance: wasmtime.Instance | None = backend.linker.instantiate(self._store, module)
        memory = self._extern("memory")
        assert isinstance(memory, wasmtime.Memory)
        self._memory = memory
        # Plain addresses for the C API (see _c_api): 0 once the store is closed.
        self._context = _address(self._store._context())
        self._memory_address = ctypes.addressof(memory._memory)
        # Callers of the exports, made on first use (a sandbox calls a few of them).
        self._exports: dict[str, Callable[..., Any]] = {}
        # Weakly: wasmtime-py's function registry holds the shim until the store is deleted.
        shim.bind(weakref.proxy(self))

    def _export(self, name: str) -> Callable[..., Any]:
        func = self._exports.get(name)
        if func is None:
            found = self._extern(name)
            if not isinstance(found, wasmtime.Func):
                raise ValueError(f"no export {name!r}, or the instance is closed")
            func = self._exports[name] = _direct_call(self._store, found, found.type(self._store))
        return func

    def _set_deadline(self, ticks: int) -> None:
        api = _c_api()
        if api is None:  # pragma: no cover - depends on the wasmtime release
            self._store.set_epoch_deadline(ticks)
        elif self._context:
            api.set_epoch_deadline(self._context, ticks)

    def call(self, name: str, *args: int, deadline: float | None = None) -> int:
        """Call an export; the epoch backstop traps the guest once ``deadline`` has passed."""
        func = self._export(name)
        # Without a deadline the epoch need not tick (and its thread need not wake).
        ticker = self._backend._ticker if deadline is not None else None
        if ticker is not None:
            ticker.enter()
        outer, _RUNNING.shim = getattr(_RUNNING, "shim", None), self._shim
        try:
            self._set_deadline(ticker.ticks_until(deadline) if ticker else MAX_TICKS)
            result = func(*args)
        except wasmtime.Trap as trap:
            raise _classify(trap) from trap
        except GuestExit as exit_:
            raise GuestTrap(
                ErrorKind.EXIT, f"the guest aborted (exit code {exit_.code})"
            ) from exit_
        except wasmtime.WasmtimeError as error:
            raise GuestTrap(ErrorKind.TRAP, f"the guest failed: {error}") from error
        finally:
            _RUNNING.shim = outer
            if ticker is not None:
                ticker.leave()
        return int(result or 0) & 0xFFFF_FFFF_FFFF_FFFF

    def close(self) -> None:
        """Delete the store: the instance, its memory and its reservation go at once."""
        self._exports.clear()
        self._instance = None
        self._context = 0
        self._store.close()

    def _extern(self, name: str) -> object:
        """Export ``name`` (None if there is none, or the instance is closed), looked up alone:
        wasmtime-py's ``Instance.exports`` wraps every export of the module first."""
        if self._instance is None:
            return None
        try:
            from wasmtime import _ffi as ffi
            from wasmtime._extern import wrap_extern

            item, export_get = ffi.wasmtime_extern_t(), ffi.wasmtime_instance_export_get
        except (ImportError, AttributeError):  # pragma: no cover - depends on the release
            return self._instance.exports(self._store).get(name)
        raw = name.encode()
        found = export_get(
            self._store._context(),
            ctypes.byref(self._instance._instance),
            ctypes.create_string_buffer(raw),
            len(raw),
            ctypes.byref(item),
        )
        return wrap_extern(item) if found else None

    def _base(self, ptr: int, length: int) -> int:
        """The host address of ``[ptr, ptr + length)`` in linear memory, checked. Asked anew
        on every access: any call into the guest may grow (and so move) its memory."""
        api = _c_api()
        if api is None:  # pragma: no cover - depends on the wasmtime release
            size = self._memory.data_len(self._store)
            base = ctypes.addressof(self._memory.data_ptr(self._store).contents)
        elif self._context:
            size = api.memory_data_size(self._context, self._memory_address)
            base = api.memory_data(self._context, self._memory_address)
        else:
            raise ValueError("the instance is closed")
        if ptr < 0 or length < 0 or ptr + length > size:
            raise GuestTrap(ErrorKind.TRAP, f"guest memory access out of bounds ({ptr}+{length})")
        return int(base) + ptr

    def read(self, ptr: int, length: int) -> bytes:
        """Copy bytes out of linear memory."""
        return ctypes.string_at(self._base(ptr, length), length) if length else b""

    def write(self, ptr: int, data: bytes) -> None:
        """Copy bytes into linear memory (a large copy faults its pages in first, at once)."""
        if data:
            address = self._base(ptr, len(data))
            if len(data) >= POPULATE_FROM:
                _populate(address, len(data))
            ctypes.memmove(address, data, len(data))

    def memory_size(self) -> int:
        """The current (and, since memory never shrinks, peak) linear-memory size in bytes."""
        api = _c_api()
        if api is None or not self._context:
            return int(self._memory.data_len(self._store))
        return int(api.memory_data_size(self._context, self._memory_address))

    def grow(self, size: int) -> None:
        """Grow linear memory to at least ``size`` bytes."""
        missing = -(-(size - self.memory_size()) // WASM_PAGE)
        if missing > 0:
            try:
                self._memory.grow(self._store, missing)
            except wasmtime.WasmtimeError as error:
                raise GuestTrap(
                    ErrorKind.TRAP, f"linear memory cannot grow to {size} bytes"
                ) from error

    def load_image(self, image: InitImage) -> None:
        """Map the image's memory copy-on-write over this fresh instance's (one ``mmap`` of a
        memory file made from the first instance that copied it in): its pages are shared by
        every instance until one writes to them. Copied where there are no memory files."""
        self.grow(image.size)
        source = image.prepared.get(self._backend.name)
        if isinstance(source, _ImageFile):
            source.map(self._base(0, image.size), image.size)
            return
        image.copy_into(self)
        if source is None:
            memory = self.read(0, image.size)
            image.prepared[self._backend.name] = _ImageFile.create(memory, image.inbox)


class _ImageFile:
    """An init image's whole memory in an anonymous memory file (Linux ``memfd_create``), its
    zero pages left as holes, which instances map privately: each reads the shared pages and
    copies only those it writes (a hole reads as the kernel's zero page, which costs no
    memory). The file is closed when the image is forgotten; mappings keep what they use.

    In the disk cache, an image is a file (``images/KEY-CONFIG.image``: the memory, with the
    same holes, then :data:`_IMAGE_TRAILER`) that :meth:`load` copies into a memory file: a
    regular file's holes, once read, are pages of zeros that each instance would count in
    its resident memory."""

    def __init__(self, fd: int, size: int, inbox: tuple[int, int]) -> None:
        self.fd = fd
        self.size = size
        self.inbox = inbox
        weakref.finalize(self, os.close, fd)

    @classmethod
    def create(cls, memory: bytes, inbox: tuple[int, int]) -> _ImageFile | bool:
        """A memory file holding ``memory``, or False where memory files or ``mmap`` are
        missing."""
        if not _memory_files():
            return False
        fd = os.memfd_create("corral-image", os.MFD_CLOEXEC)
        try:
            _write_sparse(fd, memory)
        except OSError:
            os.close(fd)
            return False
        return cls(fd, len(memory), inbox)

    @classmethod
    def load(cls, path: Path) -> _ImageFile | None:
        """The image stored at ``path``, in a memory file; None if it is missing or not a
        whole image (or there are no memory files)."""
        try:
            disk = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            size = os.fstat(disk).st_size - _IMAGE_TRAILER.size
            stored, address, capacity, magic = _IMAGE_TRAILER.unpack(
                os.pread(disk, _IMAGE_TRAILER.size, max(0, size))
            )
            if size <= 0 or stored != size or size % WASM_PAGE or magic != _IMAGE_MAGIC:
                return None
            if not _memory_files():
                return None
            fd = os.memfd_create("corral-image", os.MFD_CLOEXEC)
            try:
                _copy_sparse(disk, fd, size)
            except OSError:
                os.close(fd)
                return None
            return cls(fd, size, (address, capacity))
        except (OSError, struct.error):
            return None
        finally:
            os.close(disk)

    def map(self, address: int, size: int) -> None:
        """Replace the memory at ``address`` (page-aligned) with a private mapping of the file."""
        mapped = _mmap()(address, size, _PROT_RW, _MAP_PRIVATE_FIXED, self.fd, 0)  # type: ignore[misc]
        if mapped != address:
            raise GuestTrap(
                ErrorKind.TRAP,
                f"cannot map the init image into a new instance (errno {ctypes.get_errno()}: "
                "out of memory, or of memory mappings, see vm.max_map_count): close the "
                "sandboxes you no longer use",
            )


_IMAGE_MAGIC = b"corral-image-v1\0"
_IMAGE_TRAILER = struct.Struct("<QQQ16s")
"""What follows the memory in an image file: its size, the inbox (address, capacity), and
:data:`_IMAGE_MAGIC`."""
IMAGES_KEPT = 32
"""Image files the disk cache keeps (each about a MiB on disk); the oldest go first."""


def _forget_old_images(directory: Path) -> None:
    """Delete the oldest image files beyond :data:`IMAGES_KEPT` (a process that maps one
    keeps its pages)."""
    files = []
    for entry in os.scandir(directory):
        with contextlib.suppress(OSError):
            if entry.name.endswith(".image"):
                files.append((entry.stat().st_mtime_ns, entry.path))
    for _, path in sorted(files)[: max(0, len(files) - IMAGES_KEPT)]:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _memory_files() -> bool:
    return _mmap() is not None and hasattr(os, "memfd_create")


def _copy_sparse(source: int, target: int, size: int) -> None:
    """Copy the first ``size`` bytes of file ``source`` into the empty file ``target``, only
    the data, its holes left as holes (where the filesystem tells them apart)."""
    os.ftruncate(target, size)
    offset = 0
    while offset < size:
        try:
            start = os.lseek(source, offset, os.SEEK_DATA)
        except OSError:  # ENXIO: only a hole is left
            return
        end = min(size, os.lseek(source, start, os.SEEK_HOLE))
        while start < end:
            chunk = os.pread(source, min(end - start, 1 << 20), start)
            if not chunk:
                raise OSError("the image file is shorter than it says")
            os.pwrite(target, chunk, start)
            start += len(chunk)
        offset = end


def _write_sparse(fd: int, data: bytes | bytearray) -> None:
    """Write ``data`` into the empty file ``fd``, its zero pages left as holes."""
    os.ftruncate(fd, len(data))
    page = mmap.PAGESIZE
    zero = bytes(page)
    start: int | None = None
    for offset in range(0, len(data), page):
        chunk = data[offset : offset + page]
        if chunk != zero[: len(chunk)]:
            start = offset if start is None else start
        elif start is not None:
            os.pwrite(fd, data[start:offset], start)
            start = None
    if start is not None:
        os.pwrite(fd, data[start:], start)


_PROT_RW = mmap.PROT_READ | mmap.PROT_WRITE
_MAP_PRIVATE_FIXED = mmap.MAP_PRIVATE | 0x10  # MAP_FIXED: the same value on Linux and macOS


@functools.cache
def _libc(name: str, restype: Any, *argtypes: Any) -> Any:
    """libc's function ``name`` with these C types (found once), on Linux; else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        func = getattr(ctypes.CDLL(None, use_errno=True), name)
    except (OSError, AttributeError):  # pragma: no cover - no libc symbols to find
        return None
    func.argtypes = argtypes
    func.restype = restype
    return func


def _mmap() -> Callable[[int, int, int, int, int, int], int | None] | None:
    """libc's ``mmap`` on Linux, else None."""
    c = ctypes
    types = (c.c_void_p, c.c_size_t, c.c_int, c.c_int, c.c_int, c.c_int64)
    return _libc("mmap", c.c_void_p, *types)  # type: ignore[no-any-return]


POPULATE_FROM = 64 * 1024
"""A write into linear memory this large first has the kernel fault in its pages in one call
(``madvise(MADV_POPULATE_WRITE)``, Linux 5.14+): a fresh instance's memory has none yet, and
faulting them one at a time made copying a sandbox's init image a third slower."""
_MADV_POPULATE_WRITE = 23


@functools.cache
def _madvise() -> Callable[[int, int, int], int] | None:
    """libc's ``madvise``, where the kernel has ``MADV_POPULATE_WRITE``; else None."""
    madvise = _libc("madvise", ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    if madvise is None:
        return None
    probe = ctypes.create_string_buffer(2 * mmap.PAGESIZE)
    start = -(-ctypes.addressof(probe) // mmap.PAGESIZE) * mmap.PAGESIZE
    if madvise(start, mmap.PAGESIZE, _MADV_POPULATE_WRITE) != 0:  # pragma: no cover - old
        return None
    return madvise  # type: ignore[no-any-return]


def _populate(address: int, length: int) -> None:
    """Fault in the pages of ``[address, address + length)`` for writing (best effort)."""
    madvise = _madvise()
    if madvise is not None:
        start = address - address % mmap.PAGESIZE
        madvise(start, address + length - start, _MADV_POPULATE_WRITE)


def _classify(trap: wasmtime.Trap) -> GuestTrap:
    code = trap.trap_code
    if code == wasmtime.TrapCode.INTERRUPT:
        return GuestTrap(
            ErrorKind.TIMEOUT,
            "the time limit was exceeded inside a builtin that cannot be interrupted",
        )
    if code == wasmtime.TrapCode.STACK_OVERFLOW:
        return GuestTrap(ErrorKind.STACK_OVERFLOW, "stack overflow: recursion too deep")
    if code == wasmtime.TrapCode.MEMORY_OUT_OF_BOUNDS:
        # With the stack placed first in memory, a shadow-stack overflow lands below address 0.
        return GuestTrap(
            ErrorKind.STACK_OVERFLOW,
            "stack overflow: recursion too deep (memory access out of bounds)",
        )
    lines = [line.strip() for line in trap.message.splitlines() if line.strip()]
    cause = next(
        (line for line in lines if line.startswith("wasm trap:")), lines[-1] if lines else ""
    )
    return GuestTrap(ErrorKind.TRAP, f"the guest trapped ({cause})")


class _CApi:
    """The few functions of wasmtime's C API that every call into the guest and every copy in
    or out of its memory use, called with plain addresses: wasmtime-py's wrappers look up the
    store's context and wrap their arguments and results on every call (together about half
    the host's cost of a trivial execution's memory copies and epoch deadline)."""

    def __init__(self, dll: ctypes.CDLL) -> None:
        self.memory_data = self._function(dll, "wasmtime_memory_data", 2, ctypes.c_void_p)
        self.memory_data_size = self._function(dll, "wasmtime_memory_data_size", 2, ctypes.c_size_t)
        self.set_epoch_deadline = self._function(
            dll, "wasmtime_context_set_epoch_deadline", 1, None, ctypes.c_uint64
        )
        self.func_call = self._function(
            dll, "wasmtime_func_call", 2, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
            ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
        )  # fmt: skip

    @staticmethod
    def _function(dll: ctypes.CDLL, name: str, pointers: int, restype: Any, *rest: Any) -> Any:
        # dll[name] is a function object of its own (dll.name is the one wasmtime-py set up).
        function = dll[name]
        function.argtypes = [ctypes.c_void_p] * pointers + list(rest)
        function.restype = restype
        return function


@functools.cache
def _c_api() -> _CApi | None:
    """:class:`_CApi` from wasmtime-py's own library, or None if a release lacks it."""
    try:
        from wasmtime import _ffi as ffi

        return _CApi(ffi.dll)
    except (ImportError, AttributeError):  # pragma: no cover - depends on the wasmtime release
        return None


def _address(pointer: Any) -> int:
    """The address a ctypes pointer holds."""
    return ctypes.cast(pointer, ctypes.c_void_p).value or 0


def _direct_call(store: wasmtime.Store, func: wasmtime.Func, ty: wasmtime.FuncType) -> Any:
    """A caller of ``func`` (integer parameters and results only, as all of the guest's
    exports are) through wasmtime's C API, with its signature read once.

    wasmtime-py's ``Func.__call__`` reads and converts the signature on every call: about a
    fifth of the host's time for a trivial execution. This calls :class:`_CApi` with buffers
    made once, and raises what wasmtime-py would (``wasmtime._func``'s trap handling: an
    exception raised by a host function crosses the guest intact); if a wasmtime release lacks
    these, or the signature is not all-integer, it falls back to ``Func.__call__``. The caller
    is used only while the store is open (the instance forgets its callers when it closes).
    """
    api = _c_api()
    try:
        from wasmtime import _ffi as ffi
        from wasmtime._func import maybe_raise_last_exn

        # What the caller below uses: a release without one of them gets the public call.
        ffi.wasmtime_val_t, ffi.WASMTIME_I32, ffi.WASMTIME_I64, ffi.wasm_trap_t  # noqa: B018
    except (ImportError, AttributeError):  # pragma: no cover - depends on the wasmtime release
        api = None
    kinds = {str(wasmtime.ValType.i32()): "i32", str(wasmtime.ValType.i64()): "i64"}
    params = [kinds.get(str(t)) for t in ty.params]
    results = [kinds.get(str(t)) for t in ty.results]
    if api is None or None in params or None in results or len(results) > 1:  # pragma: no cover
        return functools.partial(func, store)
    tags = {"i32": ffi.WASMTIME_I32.value, "i64": ffi.WASMTIME_I64.value}
    # The argument, result and trap buffers are made once: an instance runs one call at a
    # time, and the guest never calls an export from inside another.
    values = (ffi.wasmtime_val_t * max(1, len(params)))()
    for slot, kind in enumerate(params):
        values[slot].kind = tags[kind]  # type: ignore[assignment,index]
    out = (ffi.wasmtime_val_t * max(1, len(results)))()
    result = results[0] if results else None
    trap = ctypes.c_void_p()
    call_c = functools.partial(
        api.func_call,
        _address(store._context()),
        ctypes.byref(func._func),  # keeps it alive: the caller may outlive `func`
        ctypes.addressof(values),
        len(params),
        ctypes.addressof(out),
        len(results),
        ctypes.addressof(trap),
    )

    def call(*args: int) -> int | None:
        if len(args) != len(params):
            raise TypeError(f"expected {len(params)} arguments, got {len(args)}")
        for slot, (kind, arg) in enumerate(zip(params, args, strict=True)):
            setattr(values[slot].of, kind, arg)  # type: ignore[arg-type]
        trap.value = None
        error = call_c()
        if trap.value:
            raised = wasmtime.Trap._from_ptr(
                ctypes.cast(trap.value, ctypes.POINTER(ffi.wasm_trap_t))
            )
            maybe_raise_last_exn()
            raise raised
        if error:
            maybe_raise_last_exn()
            raise wasmtime.WasmtimeError._from_ptr(
                ctypes.cast(error, ctypes.POINTER(ffi.wasmtime_error_t))
            )
        return None if result is None else int(getattr(out[0].of, result))

    return call
