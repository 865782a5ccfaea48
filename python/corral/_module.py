"""Where the guest module comes from; loading it ahead of time (asynchronously, or into the
disk cache); configuring the engine that runs it."""

from __future__ import annotations

import os

from . import _lean, runtime
from .runtime import get_backend
from .runtime._base import module_bytes

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "configure_runtime",
    "load",
    "precompile_module",
    "wasm_bytes",
    "wasm_file",
    "wasm_path",
]


def wasm_path() -> Path:
    """The guest module: ``$CORRAL_WASM`` if set, else the ``corral.wasm`` in this package."""
    from pathlib import Path

    return Path(wasm_file())


def wasm_file() -> str:
    """:func:`wasm_path` as a ``str``, as backends take it (a fresh process's first sandbox
    never imports ``pathlib``, ~4 ms).

    Backends take the path, not the bytes: with the compiled module in the disk cache, a fresh
    process never reads the file (see :mod:`corral.runtime._wasmtime`)."""
    path = _path(os.environ.get("CORRAL_WASM"))
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"corral guest module not found at {path}: install corral with pip, or build the "
            "module with `nox -s build` (or `python guest/toolchain.py build --out "
            "python/corral/corral.wasm`), or point CORRAL_WASM at a built corral.wasm"
        )
    return path


@_lean.lru_cache(4)
def _path(explicit: str | None) -> str:
    # Remembered: every Sandbox() asks, and making paths costs microseconds.
    return explicit or os.path.join(os.path.dirname(__file__), "corral.wasm")


def wasm_bytes() -> bytes:
    """The guest module's bytes (read once per process while the file stays the same)."""
    return module_bytes(wasm_file())


def precompile_module() -> Path | None:
    """Compile the guest module into the on-disk cache ahead of time.

    Later processes then load it in milliseconds instead of compiling it (about a second).
    Returns the cache file, or None on a backend without a disk cache (the browser).
    """
    backend = get_backend()
    precompile = getattr(backend, "precompile", None)
    if precompile is None:
        return None
    path: Path = precompile(wasm_file())
    return path


async def load() -> None:
    """Compile the guest module without blocking the event loop, once per process (or page).

    Afterwards creating a :class:`~corral.sandbox.Sandbox` only instantiates the compiled
    module, which is synchronous everywhere. On a browser page's main thread, call it before
    the first ``Sandbox()``: Chrome refuses to compile modules over 8 MB synchronously there.
    In a Web Worker, under Node and natively it is optional (the first ``Sandbox()`` compiles
    synchronously), so portable code can always call it::

        import corral

        await corral.load()
        sandbox = corral.Sandbox()
    """
    await get_backend().load_async(wasm_file())


def configure_runtime(
    *, memory_reservation: int | None = None, memory_guard_size: int | None = None
) -> None:
    """Set how much address space each native guest instance reserves; call it once, before
    the first :class:`~corral.sandbox.Sandbox` (later it raises ``RuntimeError``).

    ``memory_reservation``: bytes reserved up front for an instance's linear memory. With
    4 GiB (wasmtime's default) the compiled code needs no bounds checks; with less, memory
    that outgrows it moves, 64 MiB of room to grow is reserved beyond it, and guest code runs
    somewhat slower (bounds checks). ``memory_guard_size``: bytes of inaccessible guard pages
    after it (wasmtime's default: 32 MiB). ``None`` keeps the default: 4 GiB when the
    process's address space is unlimited, else 0 (each instance then reserves about its
    memory plus 64 MiB plus the guard), so that ``ulimit -v`` does not run out after a few
    sandboxes. Under Pyodide the browser's engine decides, and this has no effect.

    >>> configure_runtime(memory_reservation=None)  # the default: nothing changes
    """
    runtime.configure(memory_reservation=memory_reservation, memory_guard_size=memory_guard_size)
