"""Runtime backends: the one place that knows which WebAssembly engine runs the guest.

Natively that is wasmtime (:mod:`corral.runtime._wasmtime`); under Pyodide
(``sys.platform == "emscripten"``) it is the JavaScript engine's own ``WebAssembly``
(:mod:`corral.runtime._pyodide`). The choice is made here, once; every other module talks to the
:class:`Backend` interface.
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
        from ._pyodide import PyodideBackend

        return PyodideBackend()
    from ._wasmtime import WasmtimeBackend

    return WasmtimeBackend()
