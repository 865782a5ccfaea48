"""The small interface every runtime backend implements (wasmtime natively, the browser's
WebAssembly engine under Pyodide). Nothing above :mod:`corral.runtime` knows which one runs."""

from __future__ import annotations

import os

from .._lean import lru_cache
from .._wasi import WasiShim

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path
    from typing import Any, Protocol, TypeAlias

    from .._error_kinds import ErrorKind
    from .._image import InitImage
else:  # at run time a protocol is a plain base class
    Protocol = object

__all__ = [
    "WASM_PAGE",
    "Backend",
    "GuestTrap",
    "Instance",
    "Wasm",
    "cache_name",
    "content_digest",
    "file_identity",
    "module_bytes",
]

WASM_PAGE = 64 * 1024  # the unit linear memory grows by

Wasm: TypeAlias = "bytes | str | Path"
"""The guest module as a backend takes it: its bytes, or its file (a path: ``str`` on a fresh
process's path, which never imports ``pathlib``), read only when no cache holds its
compiled form (reading and hashing 4.7 MB cost a fresh process milliseconds)."""


def file_identity(path: str | Path) -> str:
    """What tells the content of ``path`` apart without reading it: one ``stat``. Device,
    inode, size, and modification and change times in nanoseconds; rewriting a file changes
    its change time, which no one but the kernel sets."""
    st = os.stat(path)
    return f"{st.st_dev}:{st.st_ino}:{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}"


def module_bytes(wasm: Wasm) -> bytes:
    """The module's bytes; a file is read once per process for as long as it stays the same."""
    return wasm if isinstance(wasm, bytes) else _read(wasm, file_identity(wasm))


def content_digest(wasm: Wasm) -> str:
    """The sha256 of the module's bytes (hex), computed once per process per module."""
    if isinstance(wasm, bytes):
        return _sha256(wasm)
    return _file_digest(wasm, file_identity(wasm))


@lru_cache(2)
def _read(path: str | Path, identity: str) -> bytes:
    with open(path, "rb") as file:
        return file.read()


@lru_cache(8)
def _sha256(data: bytes) -> str:
    import hashlib  # not at the top: it loads OpenSSL's library, ~2 ms of a fresh process

    return hashlib.sha256(data).hexdigest()


def cache_name(data: bytes, chars: int) -> str:
    """A name for ``data`` in the disk cache: ``chars`` hex digits (at most 32) of its BLAKE2b
    digest, from the built-in ``_blake2`` module: :mod:`hashlib` would load OpenSSL's
    library, ~2 ms of a fresh process."""
    try:
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - a Python built without its own BLAKE2
        from hashlib import blake2b
    return blake2b(data, digest_size=16).hexdigest()[:chars]


@lru_cache(8)
def _file_digest(path: str | Path, identity: str) -> str:
    return _sha256(_read(path, identity))


#: What the native backstop (wasmtime's epoch) says it stopped: a builtin that never looks at
#: the deadline. A replay stops the guest with it where the recorded execution was stopped.
EPOCH_TRAP = "the time limit was exceeded inside a builtin that cannot be interrupted"


class GuestTrap(Exception):
    """The guest stopped abnormally; its instance is unusable and must be replaced.

    ``kind`` is one of :attr:`~corral.results.ErrorKind.TIMEOUT` (the host's deadline
    backstop fired), ``STACK_OVERFLOW``, ``EXIT`` (the guest called ``proc_exit``) or ``TRAP``
    (anything else, e.g. an abort); the driver adds ``PROTOCOL`` and ``OUT_OF_MEMORY``.
    """

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class Instance(Protocol):
    """One instantiated guest module."""

    def call(self, name: str, *args: int, deadline: float | None = None) -> int:
        """Call export ``name``; ``deadline`` (``time.monotonic()`` seconds) arms the backstop.

        Raises :class:`GuestTrap` if the guest traps; the instance is then unusable.
        """

    def read(self, ptr: int, length: int) -> bytes:
        """Copy ``length`` bytes out of linear memory at ``ptr``."""

    def write(self, ptr: int, data: bytes) -> None:
        """Copy ``data`` into linear memory at ``ptr``."""

    def memory_size(self) -> int:
        """The current size of linear memory in bytes.

        WebAssembly memory grows and never shrinks, so this is also the peak size since the
        instance was created.
        """

    def grow(self, size: int) -> None:
        """Grow linear memory to at least ``size`` bytes (a multiple of 64 KiB)."""

    def load_image(self, image: InitImage) -> None:
        """Make a fresh instance's memory what ``image`` recorded (see ``corral/_image.py``):
        grown to its size, with its changed pages; nothing runs in the guest."""

    def release_unused(self) -> int:
        """Give back the memory pages whose bytes the system would provide again on the next
        access (pages only read, private copies equal to the image's); the memory's contents
        stay as they are. Returns how many pages; 0 where the backend cannot (see
        :attr:`Backend.releases_memory`). Never called while a guest call runs."""

    def close(self) -> None:
        """Release the instance (its memory and address-space reservation) now; idempotent.

        Dropping the last reference releases it too: nothing the backend keeps (import
        functions, registries) refers back to the instance.
        """


class Backend(Protocol):
    """Compiles and instantiates the guest module."""

    name: str

    @property
    def releases_memory(self) -> bool:
        """Whether :meth:`Instance.release_unused` can give pages back (an idle sandbox's
        pages are then released, see ``corral._idle``)."""

    def load(self, wasm: Wasm) -> object:
        """Compile (or fetch from a cache) the module; the result is opaque to callers."""

    async def load_async(self, wasm: Wasm) -> object:
        """Like :meth:`load`, without blocking the event loop (a browser's main thread may
        only compile large modules this way); later :meth:`load` calls hit the cache."""

    def instantiate(self, module: object, shim: WasiShim, memory_limit: int) -> Instance:
        """Instantiate ``module`` with ``shim``'s imports and a linear-memory cap in bytes.

        No guest code runs: the caller either calls ``_initialize`` (the reactor's
        constructors) or loads an image of an instance that did."""

    def stored_image(self, module: object, config: bytes) -> InitImage | None:
        """The init image of configuration ``config`` (an encoded ``corral_init`` frame) that
        an earlier process stored (see :meth:`store_image`), or None."""

    def store_image(
        self, module: object, config: bytes, image: InitImage, instance: Instance
    ) -> None:
        """Keep ``image``, just captured from ``instance``, for later processes (natively in
        the disk cache, best effort; the browser keeps nothing)."""

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` for the guest (its ``sleep``, ``setTimeout``), interruptible by
        Ctrl-C: natively ``time.sleep``; under Pyodide in short slices, because Python checks
        the page's interrupt buffer between calls, not inside ``time.sleep``'s busy wait."""

    def run_sync(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Run the awaitable ``make()`` builds to completion from synchronous code (a sync
        ``execute()`` whose tools are async): natively on a fresh event loop, in a helper
        thread when this thread already runs one; under Pyodide by suspending on the page's
        event loop (WebAssembly stack switching)."""
