"""Runtime backends: the one place that knows which WebAssembly engine runs the guest.

Natively that is wasmtime (:mod:`corral.runtime._wasmtime`); under Pyodide
(``sys.platform == "emscripten"``) it will be the browser's own engine. The choice is made here,
once; every other module talks to the :class:`Backend` interface.
"""

from __future__ import annotations

import sys
from functools import cache

from ._base import Backend, GuestTrap, Instance

__all__ = ["Backend", "GuestTrap", "Instance", "get_backend"]


@cache
def get_backend() -> Backend:
    """The backend for this platform (created once per process)."""
    if sys.platform == "emscripten":
        raise RuntimeError(
            "the browser backend is not available yet in this version of corral; "
            "run corral natively (wasmtime) for now"
        )
    from ._wasmtime import WasmtimeBackend

    return WasmtimeBackend()
