"""Resource limits of a sandbox, as one frozen dataclass.

:meth:`Limits.to_guest` is what the guest receives: its ``Limits`` in ``guest/src/limits.rs``,
next to the fixed limits the guest enforces besides these (listed in the docs' limits page).
"""

from __future__ import annotations

import math

from ._record import Record

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from typing import Any

__all__ = ["Limits"]

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB
# Linear memory the guest needs beyond the JavaScript heap (code, Rust allocations, buffers).
GUEST_OVERHEAD = 64 * MiB
WASM32_MEMORY = 4 * GiB  # all the linear memory a wasm32 guest can address
MAX_TIMEOUT = 86_400.0  # one day: anything longer is a mistake, and clocks must not overflow
MIN_MEMORY = 1 * MiB  # the smallest heap the guest's JavaScript engine starts in
MAX_MEMORY = WASM32_MEMORY - GUEST_OVERHEAD - 1 * MiB  # with the smallest max_fs_bytes
MAX_COUNT = 2**32 - 1
# The range of each int field: (smallest, largest, unit). memory + max_fs_bytes is bounded too.
RANGES = {
    "memory": (MIN_MEMORY, MAX_MEMORY, "bytes"),
    "max_output": (1, MAX_MEMORY, "bytes"),
    "max_fs_bytes": (1, MAX_MEMORY, "bytes"),
    "max_files": (1, MAX_COUNT, "files"),
    "max_file_size": (1, MAX_MEMORY, "bytes"),
    "max_tool_calls": (0, MAX_COUNT, "calls, or None"),
}


class Limits(Record, frozen=True):
    """Limits enforced inside the guest, with a native backstop; exceeding one ends the
    execution with an error in the result and leaves the sandbox usable.

    Recursion depth is bounded by the WebAssembly engine's own stack (QuickJS cannot check
    its stack on WASI): a runaway recursion ends the execution with a ``stack_overflow``
    error, and the sandbox continues on a fresh instance.

    Attributes:
        timeout: Wall-clock seconds per execution, including time spent in tools.
        memory: Bytes of JavaScript heap.
        max_output: Bytes of stdout and of stderr captured per execution; the rest is cut
            with a marker line, and a shell command writing past it is stopped as by a
            closed pipe.
        max_tool_calls: Tool calls allowed per execution (None: no per-execution budget).
        max_fs_bytes: Bytes of files the sandbox may hold in its writable directories
            (``/workspace``, ``/tmp``, ``/state`` and ``/cache`` together).
        max_files: Files, directories and links it may hold there.
        max_file_size: Bytes of any one file.

    Every field is checked here, not later: a value of the wrong type raises
    :class:`TypeError`, one out of its range :class:`ValueError`, naming the range. ``timeout``
    is a finite number of seconds, more than 0 and at most one day; ``memory`` at least 1 MiB;
    ``memory + max_fs_bytes`` at most 4032 MiB (a wasm32 guest addresses 4 GiB and keeps
    64 MiB for itself); counts are at most ``2**32 - 1``.

    >>> Limits(timeout=float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: Limits.timeout must be > 0 and at most 86400 seconds (one day), got inf
    """

    timeout: float = 30.0
    memory: int = 64 * MiB
    max_output: int = 1 * MiB
    max_tool_calls: int | None = None
    max_fs_bytes: int = 256 * MiB
    max_files: int = 100_000
    max_file_size: int = 64 * MiB

    def __init__(  # noqa: PLR0917 - positional, as the dataclass it was
        self,
        timeout: float = 30.0,
        memory: int = 64 * MiB,
        max_output: int = 1 * MiB,
        max_tool_calls: int | None = None,
        max_fs_bytes: int = 256 * MiB,
        max_files: int = 100_000,
        max_file_size: int = 64 * MiB,
    ) -> None:
        # Written out, not compiled from the fields (see corral._record): a fresh process's
        # first sandbox makes one; tests/test_records.py checks it against the fields.
        _set = object.__setattr__
        _set(self, "timeout", timeout)
        _set(self, "memory", memory)
        _set(self, "max_output", max_output)
        _set(self, "max_tool_calls", max_tool_calls)
        _set(self, "max_fs_bytes", max_fs_bytes)
        _set(self, "max_files", max_files)
        _set(self, "max_file_size", max_file_size)
        self.__post_init__()

    def __post_init__(self) -> None:
        _check_timeout(self.timeout)
        for name in RANGES:
            if name != "max_tool_calls" or self.max_tool_calls is not None:
                _check_int(name, getattr(self, name))
        if self.wasm_memory > WASM32_MEMORY:
            raise ValueError(
                f"Limits.memory + Limits.max_fs_bytes must be at most "
                f"{_size(WASM32_MEMORY - GUEST_OVERHEAD)} (a wasm32 guest addresses "
                f"{_size(WASM32_MEMORY)}, {_size(GUEST_OVERHEAD)} of it for itself), got "
                f"{_size(self.memory)} + {_size(self.max_fs_bytes)}"
            )

    @property
    def wasm_memory(self) -> int:
        """The cap on the guest's whole linear memory (the heap, the files, the guest's own
        needs)."""
        return self.memory + self.max_fs_bytes + GUEST_OVERHEAD

    def to_guest(self) -> dict[str, Any]:
        """The limits the guest enforces itself, as sent in its configuration."""
        return {
            "memory": self.memory,
            "max_output": self.max_output,
            "vfs": {
                "max_bytes": self.max_fs_bytes,
                "max_files": self.max_files,
                "max_file_size": self.max_file_size,
            },
        }


def _check_timeout(value: object) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise TypeError(f"Limits.timeout must be a number of seconds (int or float), not {value!r}")
    if not (math.isfinite(value) and 0 < value <= MAX_TIMEOUT):
        raise ValueError(
            f"Limits.timeout must be > 0 and at most {MAX_TIMEOUT:g} seconds (one day), got "
            f"{value!r}"
        )


def _check_int(name: str, value: object) -> None:
    low, high, unit = RANGES[name]
    if unit == "bytes":
        where = f"from {_size(low)} to {_size(high)}"
    else:
        where = f"from {low:_} to {high:_} {unit}"
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"Limits.{name} must be an int {where}, not {value!r}")
    if not low <= value <= high:
        raise ValueError(f"Limits.{name} must be {where}, got {value!r}")


def _size(n: int) -> str:
    if n >= MiB and n % MiB == 0:
        return f"{n // MiB} MiB"
    return "1 byte" if n == 1 else f"{n:_} bytes"
