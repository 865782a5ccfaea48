"""The small interface every runtime backend implements (wasmtime natively, the browser's
WebAssembly engine under Pyodide). Nothing above :mod:`corral.runtime` knows which one runs."""

from __future__ import annotations

from typing import Protocol

from .._wasi import WasiShim

__all__ = ["Backend", "GuestTrap", "Instance"]


class GuestTrap(Exception):
    """The guest stopped abnormally; its instance is unusable and must be replaced.

    ``kind`` is one of ``timeout`` (the host's deadline backstop fired), ``stack_overflow``,
    ``exit`` (the guest called ``proc_exit``) or ``trap`` (anything else, e.g. an abort).
    """

    def __init__(self, kind: str, message: str) -> None:
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


class Backend(Protocol):
    """Compiles and instantiates the guest module."""

    name: str

    def load(self, wasm: bytes) -> object:
        """Compile (or fetch from a cache) the module; the result is opaque to callers."""

    def instantiate(self, module: object, shim: WasiShim, memory_limit: int) -> Instance:
        """Instantiate ``module`` with ``shim``'s imports and a linear-memory cap in bytes."""
