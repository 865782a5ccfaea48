"""The native backend: wasmtime, through its C API (``corral.runtime._capi``). The only
module that runs wasmtime.

Compiled modules are cached twice: in this process (a second ``Sandbox()`` only instantiates)
and on disk under the user cache directory, keyed by the module's hash, the wasmtime build, the
engine configuration and the platform, written atomically. So that a fresh process neither
reads nor hashes the 4.7 MB module, the disk cache also remembers each module file's hash under
the file's identity (``file_identity`` in ``corral.runtime._base``: one ``stat``). An epoch
deadline is the backstop for guest code that the guest's own interrupt checks cannot stop.

Each instance reserves address space for its linear memory up front (see
:func:`memory_settings`); on Linux, a sandbox made from an init image maps the image's memory
file over its linear memory, copy-on-write (see ``WasmtimeInstance.load_image``). Nothing the
engine keeps refers back to an instance: the WASI imports are defined once per backend and
forward to the shim of the instance running, and the shim holds only a weak reference to the
instance, so a dropped instance is freed with its store.
"""

from __future__ import annotations

import contextvars
import ctypes
import math
import mmap
import os
import struct
import sys
import time
import weakref

from .. import _lean
from .._wasi import GuestExit, WasiFunction, WasiShim
from ._base import (
    EPOCH_TRAP,
    WASM_PAGE,
    GuestTrap,
    Wasm,
    cache_name,
    content_digest,
    file_identity,
    module_bytes,
)
from ._capi import (
    CALLBACK,
    DEADLINE_CALLBACK,
    EXTERN_FUNC,
    EXTERN_MEMORY,
    FINALIZER,
    OPT_LEVEL_SPEED,
    TRAP_INTERRUPT,
    TRAP_MEMORY_OUT_OF_BOUNDS,
    TRAP_STACK_OVERFLOW,
    Extern,
    Library,
    Raw,
    Vec,
    WasmtimeError,
    machine,
)
from ._capi import load as _load_library

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path
    from typing import Any

    from .._image import InitImage
    from ._base import Instance

__all__ = ["CompiledModule", "WasmtimeBackend", "cache_dir", "memory_settings"]

EPOCH_TICK = 0.005  # seconds per epoch tick while any guest call runs
PARK_AFTER = 0.1  # seconds without a guest call after which the epoch thread sleeps
MAX_TICKS = 2**62  # an epoch deadline that never comes
# Seconds of its own CPU time a guest still past the backstop's deadline gets to stop itself
# before it is trapped: on a loaded machine it may not have run at all since its deadline.
CPU_GRACE = 0.05
# ... but never more than this many seconds of real time: what a runaway that only the epoch
# stops (`[].sort.call({length: 2 ** 32 - 1})`) costs on a starved machine stays bounded.
WALL_GRACE = 0.5
MiB = 1 << 20
GiB = 1 << 30
FULL_RESERVATION = 4 * GiB
"""Reserving all a wasm32 memory can address lets wasmtime drop bounds checks (its default)."""
_DEFAULT_RESERVATION = FULL_RESERVATION if sys.maxsize > 1 << 32 else 0
"""What wasmtime reserves when not told (4 GiB on 64-bit hosts; assume nothing elsewhere)."""
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


def cache_dir() -> str:
    """Where compiled modules are cached: ``$CORRAL_CACHE_DIR`` or the user cache directory
    (a ``str``, as every path on a fresh process's way to its first sandbox: importing
    ``pathlib`` would cost it ~4 ms)."""
    env = os.environ.get
    return _cache_dir(
        env("CORRAL_CACHE_DIR"), env("LOCALAPPDATA"), env("XDG_CACHE_HOME"), env("HOME")
    )


@_lean.lru_cache(4)
def _cache_dir(explicit: str | None, local: str | None, xdg: str | None, home: str | None) -> str:
    # By the environment variables it depends on: every Sandbox() asks, and paths cost µs.
    if explicit:
        return explicit
    user = os.path.expanduser("~")
    if sys.platform == "win32":
        base = local or os.path.join(user, "AppData", "Local")
    elif sys.platform == "darwin":
        base = os.path.join(user, "Library", "Caches")
    else:
        base = xdg or os.path.join(user, ".cache")
    return os.path.join(base, "corral")


class _EpochTicker:
    """Advances the engine's epoch every :data:`EPOCH_TICK` seconds while a guest call runs.

    The epoch counts running time, not wake-ups: a tick that comes late (a loaded machine)
    catches up, so :meth:`enter` turns a deadline in seconds into epoch ticks exactly.
    Idle time (no guest call running) is not counted, and no deadline spans it. The thread
    parks after :data:`PARK_AFTER` seconds without a guest call, so that :meth:`enter` and
    :meth:`leave` of back-to-back calls only count (waking a thread costs more than a call).
    """

    def __init__(self, increment: Callable[[], None]) -> None:
        self._increment = increment
        self._active = 0
        self._epoch = 0  # increments done
        self._origin = 0.0  # the monotonic time that epoch 0 stands for
        self._idle_since = 0.0  # when the last guest call ended
        self._lock = _lean.Lock()
        self.parked = True  # no thread ticks (none started yet, or it sleeps on _wake)
        self._started = False
        # Held while parked; enter() releases it once per park (a lock, not a threading.Event:
        # see corral._lean).
        self._wake = _lean.Lock()
        self._wake.acquire()

    def _loop(self) -> None:
        while True:
            self._wake.acquire()  # parked until enter() releases it
            while self._tick():
                pass

    def _tick(self) -> bool:
        """Sleep until the next tick is due, then tick; False once parked."""
        with self._lock:
            due = self._origin + (self._epoch + 1) * EPOCH_TICK
        time.sleep(max(0.0, due - time.monotonic()))
        with self._lock:
            now = time.monotonic()
            if self._active:
                target = math.floor((now - self._origin) / EPOCH_TICK)
                while self._epoch < target:
                    self._increment()
                    self._epoch += 1
            elif now - self._idle_since >= PARK_AFTER:
                self.parked = True
                return False
            else:  # idle: the next tick is due a tick from now
                self._origin = now - self._epoch * EPOCH_TICK
        return True

    def enter(self, deadline: float) -> int:
        """A guest call starts: tick from now on. Returns the epoch ticks from now until
        ``deadline`` (``time.monotonic()`` seconds), worked out under the same lock (one lock
        per call instead of two: a tool call makes two guest calls)."""
        with self._lock:
            if self._active == 0:  # idle until now: idle time does not count
                self._origin = time.monotonic() - self._epoch * EPOCH_TICK
            self._active += 1
            if self.parked:  # (or never started)
                if not self._started:
                    self._started = True
                    _lean.start(self._loop)
                self.parked = False
                self._wake.release()
            due = math.ceil((deadline - self._origin) / EPOCH_TICK)
            return min(MAX_TICKS, max(1, due - self._epoch))

    def leave(self) -> None:
        """A guest call ended."""
        with self._lock:
            self._active -= 1
            if self._active == 0:
                self._idle_since = time.monotonic()


class WasmtimeBackend:
    """Compiles with one shared engine (epoch interruption on) and caches compiled modules."""

    name = "wasmtime"

    def __init__(
        self, memory_reservation: int | None = None, memory_guard_size: int | None = None
    ) -> None:
        lib = self._lib = _library()
        config = lib.config_new()
        lib.config_epoch_interruption_set(config, True)
        lib.config_cranelift_opt_level_set(config, OPT_LEVEL_SPEED)
        self.memory = memory_settings(memory_reservation, memory_guard_size)
        """The linear-memory settings in force (see :func:`memory_settings`)."""
        for name, value in self.memory.items():
            getattr(lib, f"config_{name}_set")(config, value)
        settings = ";".join([ENGINE_SETTINGS, *(f"{k}={v}" for k, v in self.memory.items())])
        context = f"{_wasmtime_build(lib)};{settings};{sys.platform};{machine()}"
        self._context = cache_name(context.encode(), 16)
        self.engine: int = lib.engine_new_with_config(config)  # it takes the config
        """The ``wasm_engine_t *`` every module and store of this backend belongs to."""
        self._ticker = _EpochTicker(_lean.partial(lib.engine_increment_epoch, self.engine))
        self.linker: int = lib.linker_new(self.engine)
        """The WASI imports of every instance (a ``wasmtime_linker_t *``), each defined once,
        when the first module that imports it is instantiated (each forwards to the shim of
        the instance running)."""
        self._defined: set[str] = set()  # the names defined in it
        self._callbacks: list[Any] = []  # what the linker calls: kept as long as it lives
        self.at_deadline = DEADLINE_CALLBACK(_lean.partial(_at_epoch_deadline, lib))
        """What every store calls when the epoch backstop's deadline comes."""
        self._linked: weakref.WeakSet[CompiledModule] = weakref.WeakSet()  # modules it serves
        self._modules: dict[str, CompiledModule] = {}
        self._keys: weakref.WeakKeyDictionary[CompiledModule, str] = weakref.WeakKeyDictionary()
        self._lock = _lean.Lock()
        # Freed with the backend, not at exit (the process ends: nothing to tidy, and the
        # epoch thread may still tick the engine).
        _free(self, lib.linker_delete, self.linker)
        _free(self, lib.engine_delete, self.engine)

    def cache_key(self, wasm: Wasm) -> str:
        """The disk-cache key of ``wasm`` under this engine, wasmtime build and platform."""
        return f"{_digest(wasm)[:32]}-{self._context}"

    def cache_path(self, wasm: Wasm) -> Path:
        """The file that holds (or will hold) the compiled form of ``wasm``."""
        from pathlib import Path

        return Path(_module_file(self.cache_key(wasm)))

    def precompile(self, wasm: Wasm) -> Path:
        """Compile ``wasm`` into the disk cache (if not there yet) and return its path."""
        path = self.cache_path(wasm)
        if not path.exists():
            _store_module(str(path), self._compile(module_bytes(wasm)))
        return path

    def load(self, wasm: Wasm) -> CompiledModule:
        """The compiled module: from this process, else from disk, else compiled and cached."""
        key = self.cache_key(wasm)
        with self._lock:
            module = self._modules.get(key)
            if module is None:
                module = self._load_uncached(wasm, _module_file(key))
                self._modules[key] = module
                self._keys[module] = key
            return module

    async def load_async(self, wasm: Wasm) -> CompiledModule:
        """:meth:`load` in a worker thread, so the event loop keeps running meanwhile."""
        import asyncio  # only for async code: importing it costs a fresh process milliseconds

        return await asyncio.to_thread(self.load, wasm)

    def _load_uncached(self, wasm: Wasm, path: str) -> CompiledModule:
        found = ctypes.c_void_p()
        error = self._lib.module_deserialize_file(
            self.engine, os.fsencode(path), ctypes.byref(found)
        )
        if not error:
            with _lean.suppress(OSError):  # its use, for _forget_oldest (read-only: fine)
                os.utime(path)
            return CompiledModule(found.value or 0)
        self._lib.error(error)  # missing, stale or corrupt (freed): recompile and overwrite
        module = self._compile(module_bytes(wasm))
        with _lean.suppress(OSError):  # a read-only cache only costs speed
            _store_module(path, module)
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
        with _lean.suppress(OSError):
            _store(path, memory + _IMAGE_TRAILER.pack(image.size, *image.inbox, _IMAGE_MAGIC))
            _forget_oldest(os.path.dirname(path), ".image", IMAGES_KEPT)

    def _image_path(self, module: object, config: bytes) -> str | None:
        key = self._keys.get(module) if isinstance(module, CompiledModule) else None
        if key is None or not _memory_files():
            return None
        name = f"{key}-{cache_name(config, 32)}.image"
        return os.path.join(cache_dir(), "images", name)

    def sleep(self, seconds: float) -> None:
        """``time.sleep``: a signal (Ctrl-C) interrupts it."""
        time.sleep(seconds)

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

        import threading  # only here: see corral._lean

        thread = threading.Thread(target=target, name="corral-tools")
        thread.start()
        thread.join()
        if "error" in box:
            raise box["error"]
        return box.get("value")

    @property
    def releases_memory(self) -> bool:
        """Whether instances can give back unused pages, which they can on Linux (see
        ``WasmtimeInstance.release_unused``)."""
        return _pagemap() is not None

    def instantiate(self, module: object, shim: WasiShim, memory_limit: int) -> WasmtimeInstance:
        """A fresh instance of ``module`` in its own store, with WASI bound to ``shim``."""
        assert isinstance(module, CompiledModule)
        if module not in self._linked:
            with self._lock:
                self._define_wasi(module)
                self._linked.add(module)
        return WasmtimeInstance(self, module, shim, memory_limit)

    def _compile(self, wasm: bytes) -> CompiledModule:
        module = ctypes.c_void_p()
        self._lib.check(self._lib.module_new(self.engine, wasm, len(wasm), ctypes.byref(module)))
        return CompiledModule(module.value or 0)

    def _define_wasi(self, module: CompiledModule) -> None:
        """Define in the linker the WASI imports of ``module`` not defined yet, each
        forwarding to the running instance's shim. One linker serves every instance: that
        saves each a linker of its own, and wasmtime's registry of host functions never
        refers to a sandbox (nothing for it to leak). Only what the module imports is
        defined (each definition costs tens of µs). An import the shim does not have is left
        out: instantiating then fails with wasmtime's error naming it."""
        functions = WasiShim().functions()
        for space, name in self._lib.imports(module.ptr):
            fn = functions.get(name)
            if space != "wasi_snapshot_preview1" or fn is None or name in self._defined:
                continue
            self._callbacks.append(_define_raw(self._lib, self.linker, space, name, fn))
            self._defined.add(name)


def _free(owner: object, delete: Callable[[int], None], pointer: int) -> None:
    """Call ``delete(pointer)`` when ``owner`` is collected (not at interpreter exit)."""
    weakref.finalize(owner, delete, pointer).atexit = False


class CompiledModule:
    """What :meth:`WasmtimeBackend.load` returns (opaque above the backend): a compiled
    module (a ``wasmtime_module_t *``), freed when collected, with the signatures of its
    exports as instances read them (the same in every instance)."""

    def __init__(self, ptr: int) -> None:
        self._lib = _library()
        self.ptr = ptr
        self.signatures: dict[str, tuple[str, str]] = {}
        _free(self, self._lib.module_delete, ptr)

    def serialize(self) -> bytes:
        """The compiled code, as :meth:`WasmtimeBackend.load` reads it back from a file."""
        vec = Vec()
        self._lib.check(self._lib.module_serialize(self.ptr, ctypes.byref(vec)))
        try:
            return ctypes.string_at(vec.data, vec.size)
        finally:
            self._lib.byte_vec_delete(ctypes.byref(vec))


async def _await(make: Callable[[], Awaitable[Any]]) -> Any:
    return await make()


def _module_file(key: str) -> str:
    """The disk cache's file for the compiled module of cache key ``key``."""
    return os.path.join(cache_dir(), "modules", f"{key}.cwasm")


def _store_module(path: str, module: CompiledModule) -> None:
    """Write ``module``'s compiled form to the disk cache file ``path``, then forget the least
    recently loaded beyond :data:`MODULES_KEPT` (every upgrade would otherwise add one)."""
    _store(path, module.serialize())
    _forget_oldest(os.path.dirname(path), ".cwasm", MODULES_KEPT)


def _store(path: str, data: bytes | bytearray) -> None:
    """Write ``data`` to ``path`` atomically (a reader sees the old file or the whole new one)."""
    import tempfile  # only when writing the cache: importing it costs a fresh process ~1 ms

    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        try:
            _write_sparse(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with _lean.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@_lean.lru_cache(None)
def _library() -> Library:
    """wasmtime's library, loaded once (see ``corral.runtime._capi``)."""
    return _load_library()


def _wasmtime_build(lib: Library) -> str:
    """Which wasmtime compiles: its native library's size and modification time (one
    ``stat``). Another release is another library; a cached module it cannot use is
    recompiled anyway."""
    st = os.stat(lib.path)
    return f"{st.st_size}:{st.st_mtime_ns}"


def _digest(wasm: Wasm) -> str:
    """:func:`content_digest`, for a file remembered on disk by its identity, so that a fresh
    process finds its compiled module without reading the file."""
    if isinstance(wasm, bytes):
        return content_digest(wasm)
    return _remembered_digest(wasm, file_identity(wasm), cache_dir())


@_lean.lru_cache(8)
def _remembered_digest(path: str | Path, identity: str, cache: str) -> str:
    stamp = os.path.join(cache, "digests", identity.replace(":", "-"))  # a name everywhere
    # Bytes, decoded apart: a text file's "ascii" codec would import encodings.ascii.
    with _lean.suppress(OSError, UnicodeDecodeError), open(stamp, "rb") as file:
        digest = file.read().decode("ascii")
        if len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
            return digest
    digest = content_digest(path)
    with _lean.suppress(OSError):  # a read-only cache only costs speed
        _store(stamp, digest.encode("ascii"))
    return digest


# The WASI shim of the instance this thread is running (a guest calls WASI only from inside an
# export call, which sets it: see WasmtimeInstance.call), and the exception one of its
# functions raised, which the call raises again once the guest has trapped.
_RUNNING = _lean.local()


def _define_raw(lib: Library, linker: int, space: str, name: str, fn: WasiFunction) -> Any:
    """Define the import ``space.name`` in ``linker``, forwarding to ``fn`` of the running
    shim with wasmtime's raw calling convention: the callback reads its integer arguments
    straight from wasmtime's array. An exception raised by the shim crosses the guest: the
    callback keeps it and returns a trap; :meth:`WasmtimeInstance.call` raises it again.
    Returns the callback, which must live as long as the linker."""
    fields = ["i32" if kind == "i" else "i64" for kind in fn.params]
    result = bool(fn.results)  # an i32 (an errno), or nothing
    if fn.results not in ("", "i"):  # pragma: no cover - every WASI function the shim has
        raise ValueError(f"WASI function {name} returns {fn.results!r}: only an i32 or nothing")

    def call(_env: Any, _caller: Any, values: Any, _count: int) -> int | None:
        try:
            function = _RUNNING.shim.functions()[name].func
            returned = function(*[getattr(values[i], kind) for i, kind in enumerate(fields)])
            if result:
                values[0].i32 = returned
            return None
        except BaseException as error:  # noqa: BLE001 - raised again by the export's caller
            _RUNNING.error = error
            return lib.trap_new(b"python exception", len(b"python exception"))  # type: ignore[no-any-return]

    callback = CALLBACK(call)
    functype = lib.functype(fn.params, fn.results)
    try:
        raw_space, raw_name = space.encode(), name.encode()
        lib.check(
            lib.linker_define_func_unchecked(
                linker, raw_space, len(raw_space), raw_name, len(raw_name), functype,
                callback, None, FINALIZER(),
            )
        )  # fmt: skip
    finally:
        lib.functype_delete(functype)
    return callback


class WasmtimeInstance:
    """One guest instance: its store, exports and memory, reached through wasmtime's C API
    with plain addresses."""

    def __init__(
        self, backend: WasmtimeBackend, module: CompiledModule, shim: WasiShim, memory_limit: int
    ) -> None:
        self._backend = backend
        self._module = module
        lib = self._lib = backend._lib
        store = lib.store_new(backend.engine, None, FINALIZER())
        self._close = weakref.finalize(self, lib.store_delete, store)
        self._close.atexit = False
        lib.store_limiter(store, memory_limit, -1, -1, -1, -1)
        self._context: int = lib.store_context(store)  # 0 once the store is closed
        lib.context_set_epoch_deadline(self._context, MAX_TICKS)
        lib.store_epoch_deadline_callback(store, backend.at_deadline, None, FINALIZER())
        self._instance = (ctypes.c_uint64 * 2)()  # a wasmtime_instance_t
        # Callers of the exports, made on first use (a sandbox calls a few of them).
        self._exports: dict[str, Callable[..., Any]] = {}
        trap = ctypes.c_void_p()
        error = lib.linker_instantiate(
            backend.linker, self._context, module.ptr, self._instance, ctypes.byref(trap)
        )
        if error or trap.value:
            self.close()
            message = lib.error(error) if error else lib.trap(trap.value or 0)[1]
            from .._error_kinds import ErrorKind

            raise GuestTrap(ErrorKind.TRAP, f"the guest could not be instantiated: {message}")
        self._shim = shim
        self._memory = self._extern("memory", EXTERN_MEMORY)
        if self._memory is None:
            from .._error_kinds import ErrorKind

            raise GuestTrap(ErrorKind.TRAP, "the guest exports no memory")
        self._memory_address = ctypes.addressof(self._memory.of)
        # The memory's host address and size, asked at the first access after a guest call
        # (only a call or grow() can move or grow the memory): a reply read after a call and
        # the frame written before the next one ask once (two C calls, ~1.5 µs). Where the
        # reservation covers the memory limit the memory never moves, so they are kept across
        # calls and asked again only for an access past the size known (memory never shrinks).
        self._span: tuple[int, int] | None = None
        reserved = backend.memory.get("memory_reservation", _DEFAULT_RESERVATION)
        self._fixed = reserved >= memory_limit
        # The image file mapped over the memory, and where (see release_unused).
        self._mapped: tuple[_ImageFile, int] | None = None
        # Weakly: the shim must not keep its instance alive.
        shim.bind(weakref.proxy(self))

    def _export(self, name: str) -> Callable[..., Any]:
        func = self._exports.get(name)
        if func is None:
            found = self._extern(name, EXTERN_FUNC)
            if found is None:
                raise ValueError(f"no export {name!r}, or the instance is closed")
            func = self._exports[name] = self._caller(name, found)
        return func

    def _caller(self, name: str, func: Extern) -> Callable[..., int | None]:
        """A caller of export ``name`` (integer parameters and at most one integer result,
        as all of the guest's exports are) with its buffer made once: an instance runs one
        call at a time, and the guest never calls an export from inside another."""
        signature = self._module.signatures.get(name)
        if signature is None:
            signature = self._lib.signature(self._context, ctypes.addressof(func.of))
            self._module.signatures[name] = signature
        params, results = signature
        if "?" in params + results or len(results) > 1:
            raise ValueError(f"export {name!r} is not a function of integers: {signature}")
        fields = ["i32" if kind == "i" else "i64" for kind in params]
        result = ("i32" if results == "i" else "i64") if results else None
        values = (Raw * max(1, len(params), len(results)))()
        trap = ctypes.c_void_p()
        call_c = _lean.partial(
            self._lib.func_call_unchecked,
            self._context,
            ctypes.byref(func.of),  # keeps `func` alive as long as the caller
            values,
            len(values),
            ctypes.byref(trap),
        )
        lib = self._lib

        def call(*args: int) -> int | None:
            if len(args) != len(fields):
                raise TypeError(f"expected {len(fields)} arguments, got {len(args)}")
            for slot, (kind, arg) in enumerate(zip(fields, args, strict=True)):
                setattr(values[slot], kind, arg)
            trap.value = None
            error = call_c()
            if trap.value:
                code, message = lib.trap(trap.value)
                _raise_pending()
                raise _classify(code, message)
            if error:
                _raise_pending()
                raise lib.error(error)
            return None if result is None else int(getattr(values[0], result))

        return call

    def call(self, name: str, *args: int, deadline: float | None = None) -> int:
        """Call an export; the epoch backstop traps the guest once ``deadline`` has passed."""
        func = self._export(name)
        # Without a deadline the epoch need not tick (and its thread need not wake).
        ticker, ticks = None, MAX_TICKS
        if deadline is not None:
            ticker = self._backend._ticker
            ticks = ticker.enter(deadline)
        outer, _RUNNING.shim = getattr(_RUNNING, "shim", None), self._shim
        if not self._fixed:
            self._span = None
        _RUNNING.overdue_since = None
        try:
            if self._context:
                self._lib.context_set_epoch_deadline(self._context, ticks)
            result = func(*args)
        except GuestExit as exit_:
            from .._error_kinds import ErrorKind

            raise GuestTrap(
                ErrorKind.EXIT, f"the guest aborted (exit code {exit_.code})"
            ) from exit_
        except WasmtimeError as error:
            raise GuestTrap(ErrorKind.TRAP, f"the guest failed: {error}") from error
        finally:
            if not self._fixed:
                self._span = None
            _RUNNING.shim = outer
            if ticker is not None:
                ticker.leave()
        return int(result or 0) & 0xFFFF_FFFF_FFFF_FFFF

    def close(self) -> None:
        """Delete the store: the instance, its memory and its reservation go at once."""
        self._exports.clear()
        self._context = 0
        self._close()

    def _extern(self, name: str, kind: int) -> Extern | None:
        """Export ``name`` if it is of ``kind`` (None if not, or the instance is closed)."""
        if not self._context:
            return None
        item = Extern()
        raw = name.encode()
        found = self._lib.instance_export_get(
            self._context, self._instance, raw, len(raw), ctypes.byref(item)
        )
        return item if found and item.kind == kind else None

    def _base(self, ptr: int, length: int) -> int:
        """The host address of ``[ptr, ptr + length)`` in linear memory, checked. Asked anew
        after every call into the guest (which may grow, and so move, its memory), unless
        the memory cannot move; then only past the size last known."""
        if not self._context:
            raise ValueError("the instance is closed")
        span = self._span
        if span is None or ptr + length > span[1]:  # not known, or the memory grew since
            size = self._lib.memory_data_size(self._context, self._memory_address)
            span = self._span = (
                int(self._lib.memory_data(self._context, self._memory_address)),
                size,
            )
        base, size = span
        if ptr < 0 or length < 0 or ptr + length > size:
            from .._error_kinds import ErrorKind

            raise GuestTrap(ErrorKind.TRAP, f"guest memory access out of bounds ({ptr}+{length})")
        return base + ptr

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
        if not self._context:
            raise ValueError("the instance is closed")
        return int(self._lib.memory_data_size(self._context, self._memory_address))

    def grow(self, size: int) -> None:
        """Grow linear memory to at least ``size`` bytes."""
        missing = -(-(size - self.memory_size()) // WASM_PAGE)
        if missing > 0:
            self._span = None
            previous = ctypes.c_uint64()
            error = self._lib.memory_grow(
                self._context, self._memory_address, missing, ctypes.byref(previous)
            )
            if error:
                from .._error_kinds import ErrorKind

                raise GuestTrap(
                    ErrorKind.TRAP, f"linear memory cannot grow to {size} bytes"
                ) from self._lib.error(error)

    def load_image(self, image: InitImage) -> None:
        """Map the image's memory copy-on-write over this fresh instance's (one ``mmap`` of a
        memory file made from the first instance that copied it in): its pages are shared by
        every instance until one writes to them. Copied where there are no memory files."""
        self.grow(image.size)
        source = image.prepared.get(self._backend.name)
        if isinstance(source, _ImageFile):
            address = self._base(0, image.size)
            source.map(address, image.size)
            self._mapped = (source, address)
            return
        image.copy_into(self)
        if source is None:
            memory = self.read(0, image.size)
            image.prepared[self._backend.name] = _ImageFile.create(memory, image.inbox)

    def release_unused(self) -> int:
        """Give back the pages of linear memory that hold what the kernel would map there
        anyway (Linux: ``/proc/self/pagemap`` says which pages are present, then
        ``madvise(MADV_DONTNEED)``): pages of the image file that were only read, and private
        copies whose bytes are the image's (a rewound realm's) or zeros. Returns how many."""
        pagemap = _pagemap()
        if pagemap is None or not self._context:
            return 0
        size = self.memory_size()
        base = self._base(0, size)
        page = mmap.PAGESIZE
        entries = os.pread(pagemap, size // page * 8, base // page * 8)
        kinds = entries[7::8].translate(_PAGE_KINDS)  # F: a file's page, P: private, .: none
        # A file's page that was only read holds the file's bytes: always given back.
        drop = bytearray(kinds.replace(b"P", b"."))
        mapped, address = self._mapped or (None, 0)
        # A private page only where the image file is mapped (not if the memory moved, having
        # outgrown its reservation), and where its bytes are what the kernel maps back: the
        # file's within it, zeros past it (elsewhere the module's own data may lie beneath).
        if mapped is not None and address == base:
            image = mapped.view()
            at = kinds.find(b"P")
            while at >= 0:
                offset = at * page
                want = image[offset : offset + page] if offset < mapped.size else _ZERO_PAGE
                if ctypes.string_at(base + offset, page) == want:
                    drop[at] = ord("F")
                at = kinds.find(b"P", at + 1)
        released = 0
        madvise = _libc("madvise", ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
        start = drop.find(b"F")
        while start >= 0:
            end = drop.find(b".", start)
            end = len(drop) if end < 0 else end
            madvise(base + start * page, (end - start) * page, _MADV_DONTNEED)
            released += end - start
            start = drop.find(b"F", end)
        return released


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
        self._view: mmap.mmap | None = None
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
    def load(cls, path: str) -> _ImageFile | None:
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

    def view(self) -> mmap.mmap:
        """The file's bytes, mapped read-only in this process (once)."""
        if self._view is None:
            self._view = mmap.mmap(self.fd, self.size, prot=mmap.PROT_READ)
        return self._view

    def map(self, address: int, size: int) -> None:
        """Replace the memory at ``address`` (page-aligned) with a private mapping of the file."""
        mapped = _mmap()(address, size, _PROT_RW, _MAP_PRIVATE_FIXED, self.fd, 0)  # type: ignore[misc]
        if mapped != address:
            from .._error_kinds import ErrorKind

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
MODULES_KEPT = 4
"""Compiled modules the disk cache keeps (each ~14 MB: one per corral release, wasmtime build
and engine setting in use); the least recently loaded go first."""


def _forget_oldest(directory: str, suffix: str, kept: int) -> None:
    """Delete the least recently used files named ``*suffix`` in ``directory`` beyond ``kept``
    (a process that maps or runs one keeps its pages: the file goes, its mapping stays)."""
    files = []
    for entry in os.scandir(directory):
        with _lean.suppress(OSError):
            if entry.name.endswith(suffix):
                files.append((entry.stat().st_mtime_ns, entry.path))
    for _, path in sorted(files)[: max(0, len(files) - kept)]:
        with _lean.suppress(OSError):
            os.unlink(path)


def _memory_files() -> bool:
    return _mmap() is not None and hasattr(os, "memfd_create")


def _copy_sparse(source: int, target: int, size: int) -> None:
    """Copy the first ``size`` bytes of file ``source`` into the empty file ``target``, only
    the data, its holes left as holes (where the filesystem tells them apart). ``sendfile``
    copies in the kernel: half the time of reading and writing each chunk (a fresh process's
    first sandbox copies a MiB)."""
    os.ftruncate(target, size)
    offset = 0
    while offset < size:
        try:
            start = os.lseek(source, offset, os.SEEK_DATA)
        except OSError:  # ENXIO: only a hole is left
            return
        end = min(size, os.lseek(source, start, os.SEEK_HOLE))
        os.lseek(target, start, os.SEEK_SET)  # where sendfile writes (it reads at ``start``)
        while start < end:
            sent = os.sendfile(target, source, start, end - start)
            if not sent:
                raise OSError("the image file is shorter than it says")
            start += sent
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


@_lean.lru_cache(None)
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


@_lean.lru_cache(None)
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


_MADV_DONTNEED = 4
_ZERO_PAGE = bytes(mmap.PAGESIZE)
_PAGE_KINDS = b"." * 0x80 + (b"P" * 0x20 + b"F" * 0x20) * 2
"""A ``/proc/self/pagemap`` entry's top byte to its page's kind: bit 63 (0x80) says the page
is present, bit 61 (0x20) that it is a file's page (not a private copy)."""


def _pagemap() -> int | None:
    """This process's page map, open for reading (Linux), else None."""
    return _pagemap_of(os.getpid())  # a forked child must not read its parent's


@_lean.lru_cache(None)
def _pagemap_of(pid: int) -> int | None:
    if _libc("madvise", ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int) is None:
        return None
    try:
        return os.open("/proc/self/pagemap", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:  # pragma: no cover - /proc not mounted
        return None


def _at_epoch_deadline(lib: Library, _context: int, _env: int, delta: Any, kind: Any) -> int:
    """The epoch backstop's deadline came: trap the guest once it has had :data:`CPU_GRACE`
    of its own CPU time since (a tick at a time; at most :data:`WALL_GRACE` of real time), so
    that its own deadline checks, which end it cleanly, come first where a loaded machine kept
    it from running at its deadline."""
    # The guest's thread: wasmtime calls this from inside the call.
    now = (time.thread_time(), time.monotonic())
    since = getattr(_RUNNING, "overdue_since", None)
    if since is None:
        _RUNNING.overdue_since = since = now
    if now[0] - since[0] < CPU_GRACE and now[1] - since[1] < WALL_GRACE:
        delta[0], kind[0] = 1, 0  # continue, one tick on
        return 0
    from .._error_kinds import ErrorKind

    _RUNNING.error = GuestTrap(ErrorKind.TIMEOUT, EPOCH_TRAP)
    return int(lib.error_new(b"the epoch deadline passed"))


def _raise_pending() -> None:
    """Raise the exception a WASI import raised during the call that just trapped, if any."""
    error = getattr(_RUNNING, "error", None)
    if error is not None:
        _RUNNING.error = None
        raise error


def _classify(code: int | None, message: str) -> GuestTrap:
    """What a trap (its code and wasmtime's message) means for the execution."""
    from .._error_kinds import ErrorKind

    if code == TRAP_INTERRUPT:
        return GuestTrap(ErrorKind.TIMEOUT, EPOCH_TRAP)
    if code == TRAP_STACK_OVERFLOW:
        return GuestTrap(ErrorKind.STACK_OVERFLOW, "stack overflow: recursion too deep")
    if code == TRAP_MEMORY_OUT_OF_BOUNDS:
        # With the stack placed first in memory, a shadow-stack overflow lands below address 0.
        return GuestTrap(
            ErrorKind.STACK_OVERFLOW,
            "stack overflow: recursion too deep (memory access out of bounds)",
        )
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    cause = next(
        (line for line in lines if line.startswith("wasm trap:")), lines[-1] if lines else ""
    )
    return GuestTrap(ErrorKind.TRAP, f"the guest trapped ({cause})")
