"""Resource limits of a sandbox, as one frozen dataclass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Limits"]

KiB = 1024
MiB = 1024 * KiB
# Linear memory the guest needs beyond the JavaScript heap (code, Rust allocations, buffers).
GUEST_OVERHEAD = 64 * MiB


@dataclass(frozen=True)
class Limits:
    """Limits enforced inside the guest, with a native backstop; exceeding one ends the
    execution with an error in the result and leaves the sandbox usable.

    Recursion depth is bounded by the WebAssembly engine's own stack (QuickJS cannot check
    its stack on WASI): a runaway recursion ends the execution with a ``stack_overflow``
    error, and the sandbox continues on a fresh instance.

    Attributes:
        timeout: Wall-clock seconds per execution, including time spent in tools.
        memory: Bytes of JavaScript heap.
        max_output: Bytes of stdout and of stderr captured per execution; the rest is cut
            with a marker line.
        max_tool_calls: Tool calls allowed per execution (None: no per-execution budget).
        max_fs_bytes: Bytes of files the sandbox may hold in ``/workspace`` and ``/tmp``.
        max_files: Files, directories and links it may hold there.
        max_file_size: Bytes of any one file.
    """

    timeout: float = 30.0
    memory: int = 64 * MiB
    max_output: int = 1 * MiB
    max_tool_calls: int | None = None
    max_fs_bytes: int = 256 * MiB
    max_files: int = 100_000
    max_file_size: int = 64 * MiB

    def __post_init__(self) -> None:
        if not self.timeout > 0:
            raise ValueError(f"Limits.timeout must be > 0 seconds, got {self.timeout!r}")
        for name in ("memory", "max_output", "max_fs_bytes", "max_files", "max_file_size"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive int of bytes, got {value!r}")
        calls = self.max_tool_calls
        if calls is not None and (
            not isinstance(calls, int) or isinstance(calls, bool) or calls < 0
        ):
            raise ValueError(f"Limits.max_tool_calls must be an int >= 0 or None, got {calls!r}")

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
