"""Runtime backends: the one place that knows which WebAssembly engine runs the guest.

Natively that is wasmtime (:mod:`corral.runtime._wasmtime`); under Pyodide
(``sys.platform == "emscripten"``) it is the JavaScript engine's own ``WebAssembly``
(:mod:`corral.runtime._pyodide`). The choice is made here, once; every other module talks to the
:class:`Backend` interface.
"""

from __future__ import annotations

import sys

from .._lean import lru_cache
from ._base import Backend, GuestTrap, Instance

__all__ = ["Backend", "GuestTrap", "Instance", "configure", "get_backend"]

_options: dict[str, int | None] = {"memory_reservation": None, "memory_guard_size": None}


def configure(
    *, memory_reservation: int | None = None, memory_guard_size: int | None = None
) -> None:
    """Set the native engine's address space per instance (see
    :func:`corral._module.configure_runtime`); only before the backend starts."""
    wanted = {"memory_reservation": memory_reservation, "memory_guard_size": memory_guard_size}
    for name, value in wanted.items():
        if value is not None and (not isinstance(value, int) or isinstance(value, bool)):
            raise TypeError(f"{name} must be an int of bytes or None, not {value!r}")
        if value is not None and not 0 <= value <= 2**48:
            raise ValueError(f"{name} must be from 0 to 2**48 bytes (or None), got {value}")
    if get_backend.cache_info().currsize and wanted != _options:
        raise RuntimeError(
            "the runtime has started already (a Sandbox exists, or a module was loaded): call "
            "corral.configure_runtime() once, before the first Sandbox()"
        )
    _options.update(wanted)


@lru_cache(None)
def get_backend() -> Backend:
    """The backend for this platform (created once per process)."""
    if sys.platform == "emscripten":
        from ._pyodide import PyodideBackend

        return PyodideBackend()
    from ._wasmtime import WasmtimeBackend

    return WasmtimeBackend(**_options)
