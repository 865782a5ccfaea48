"""The small interface every runtime backend implements (wasmtime natively, the browser's
WebAssembly engine under Pyodide). Nothing above :mod:`corral.runtime` knows which one runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from .._wasi import WasiShim
from ..results import ErrorKind

__all__ = ["WASM_PAGE", "Backend", "GuestTrap", "Instance"]

WASM_PAGE = 64 * 1024  # the unit linear memory grows by


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

    def close(self) -> None:
        """Release the instance (its memory and address-space reservation) now; idempotent.

        Dropping the last reference releases it too: nothing the backend keeps (import
        functions, registries) refers back to the instance.
        """


class Backend(Protocol):
    """Compiles and instantiates the guest module."""

    name: str

    def load(self, wasm: bytes) -> object:
        """Compile (or fetch from a cache) the module; the result is opaque to callers."""

    async def load_async(self, wasm: bytes) -> object:
        """Like :meth:`load`, without blocking the event loop (a browser's main thread may
        only compile large modules this way); later :meth:`load` calls hit the cache."""

    def instantiate(self, module: object, shim: WasiShim, memory_limit: int) -> Instance:
        """Instantiate ``module`` with ``shim``'s imports and a linear-memory cap in bytes."""

    def run_sync(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Run the awaitable ``make()`` builds to completion from synchronous code (a sync
        ``execute()`` whose tools are async): natively on a fresh event loop, in a helper
        thread when this thread already runs one; under Pyodide by suspending on the page's
        event loop (WebAssembly stack switching)."""
