"""The WASI preview-1 shim, in Python, shared by every runtime backend.

The guest's only contact with the outside world besides the corral protocol is this handful of
WASI functions. Clock and random bytes go through :class:`Entropy`, so a run can be recorded and
replayed exactly; there are no preopened directories, no environment and no arguments.
"""

from __future__ import annotations

import os
import struct
import time

from ._record import Record

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol
else:  # at run time a protocol is a plain base class
    Protocol = object

__all__ = ["Entropy", "GuestExit", "Memory", "WasiFunction", "WasiShim"]

# errno values from the WASI preview-1 spec.
ESUCCESS = 0
EBADF = 8
EINVAL = 28
ENOSYS = 52
ESPIPE = 70

CLOCK_REALTIME = 0
CLOCK_MONOTONIC = 1
MAX_DIAGNOSTICS = 64 * 1024  # bytes of guest diagnostics kept (and logged) per instance
FILETYPE_CHARACTER_DEVICE = 2


class Memory(Protocol):
    """Access to the guest's linear memory (implemented by each runtime backend)."""

    def read(self, ptr: int, length: int) -> bytes:
        """Return ``length`` bytes starting at ``ptr``."""

    def write(self, ptr: int, data: bytes) -> None:
        """Write ``data`` at ``ptr``."""


class GuestExit(Exception):
    """The guest called ``proc_exit``: it cannot continue and must be re-instantiated."""

    def __init__(self, code: int) -> None:
        super().__init__(f"guest exited with code {code}")
        self.code = code


class Entropy(Record):
    """Where the guest's clocks and random bytes come from; swap these to record or replay."""

    clock: Callable[[int], int]
    random: Callable[[int], bytes]

    def __init__(self, clock: Callable[[int], int], random: Callable[[int], bytes]) -> None:
        # Written out, not compiled (see corral._record): a first sandbox makes one.
        self.clock, self.random = clock, random

    @classmethod
    def system(cls) -> Entropy:
        """The real clocks (realtime for id 0, monotonic otherwise) and ``os.urandom``."""

        def clock(clock_id: int) -> int:
            return time.time_ns() if clock_id == CLOCK_REALTIME else time.monotonic_ns()

        return cls(clock=clock, random=os.urandom)


class WasiFunction(Record, frozen=True):
    """One import: its wasm signature (``"i"`` = i32, ``"I"`` = i64) and implementation."""

    params: str
    results: str
    func: Callable[..., int | None]

    def __init__(self, params: str, results: str, func: Callable[..., int | None]) -> None:
        # Written out, not compiled (see corral._record): a first sandbox makes them.
        _set = object.__setattr__
        _set(self, "params", params)
        _set(self, "results", results)
        _set(self, "func", func)


class WasiShim:
    """The WASI imports of one guest instance.

    A backend instantiates the module with :meth:`functions`, then calls :meth:`bind` with the
    instance's memory before running any guest code.
    """

    def __init__(
        self, entropy: Entropy | None = None, diagnostics: Callable[[bytes], None] | None = None
    ) -> None:
        self.entropy = entropy or Entropy.system()
        self._diagnostics = diagnostics or _log_diagnostics
        self._memory: Memory | None = None
        # What the guest printed (a panic or abort message), capped: it explains a trap.
        self.diagnostics = bytearray()
        self._partial_line = b""
        self._functions: dict[str, WasiFunction] | None = None  # made on first use

    def bind(self, memory: Memory) -> None:
        """Attach the instance's memory; imports can run from now on."""
        self._memory = memory

    @property
    def memory(self) -> Memory:
        """The bound memory (an error before :meth:`bind`)."""
        if self._memory is None:
            raise RuntimeError("WASI shim used before its memory was bound")
        return self._memory

    def functions(self) -> dict[str, WasiFunction]:
        """The ``wasi_snapshot_preview1`` imports, by name (made once per shim: most
        instances never call one)."""
        if self._functions is None:
            self._functions = self._make_functions()
        return self._functions

    def _make_functions(self) -> dict[str, WasiFunction]:
        return {
            "clock_time_get": WasiFunction("iIi", "i", self.clock_time_get),
            "random_get": WasiFunction("ii", "i", self.random_get),
            "fd_write": WasiFunction("iiii", "i", self.fd_write),
            "fd_close": WasiFunction("i", "i", lambda fd: EBADF),
            "fd_seek": WasiFunction("iIii", "i", lambda fd, offset, whence, out: ESPIPE),
            "fd_fdstat_get": WasiFunction("ii", "i", self.fd_fdstat_get),
            "environ_sizes_get": WasiFunction("ii", "i", self._empty_sizes),
            "environ_get": WasiFunction("ii", "i", lambda env, buf: ESUCCESS),
            "args_sizes_get": WasiFunction("ii", "i", self._empty_sizes),
            "args_get": WasiFunction("ii", "i", lambda argv, buf: ESUCCESS),
            "proc_exit": WasiFunction("i", "", self.proc_exit),
            # No preopened directories and no files: std's file APIs find nothing.
            "fd_prestat_get": WasiFunction("ii", "i", lambda fd, out: EBADF),
            "fd_prestat_dir_name": WasiFunction("iii", "i", lambda fd, path, n: EBADF),
            "fd_read": WasiFunction("iiii", "i", lambda fd, iovs, n, out: EBADF),
            "fd_readdir": WasiFunction("iiiIi", "i", lambda fd, buf, n, cookie, out: EBADF),
            "fd_filestat_get": WasiFunction("ii", "i", lambda fd, out: EBADF),
            "path_filestat_get": WasiFunction("iiiii", "i", lambda fd, fl, p, n, out: EBADF),
            "path_open": WasiFunction("iiiiiIIii", "i", _no_path_open),
        }

    def clock_time_get(self, clock_id: int, precision: int, out: int) -> int:
        """Write the time of ``clock_id`` in nanoseconds at ``out``."""
        self.memory.write(out, struct.pack("<Q", self.entropy.clock(clock_id)))
        return ESUCCESS

    def random_get(self, buf: int, length: int) -> int:
        """Fill ``length`` bytes at ``buf`` with random bytes."""
        self.memory.write(buf, self.entropy.random(length))
        return ESUCCESS

    def fd_write(self, fd: int, iovs: int, iovs_len: int, nwritten: int) -> int:
        """Diagnostics only (a guest panic message): forwarded to the diagnostics sink."""
        if fd not in (1, 2):
            return EBADF
        raw = self.memory.read(iovs, 8 * iovs_len)
        chunks = []
        for i in range(iovs_len):
            ptr, length = struct.unpack_from("<II", raw, 8 * i)
            chunks.append(self.memory.read(ptr, length))
        data = b"".join(chunks)
        room = MAX_DIAGNOSTICS - len(self.diagnostics)
        if room > 0:
            self.diagnostics += data[:room]
            # The guest writes a message in pieces: hand on whole lines only.
            *lines, self._partial_line = (self._partial_line + data[:room]).split(b"\n")
            for line in lines:
                self._diagnostics(line)
        self.memory.write(nwritten, struct.pack("<I", len(data)))
        return ESUCCESS

    def fd_fdstat_get(self, fd: int, out: int) -> int:
        """stdio are character devices with no rights; nothing else exists."""
        if fd not in (0, 1, 2):
            return EBADF
        self.memory.write(out, struct.pack("<BxHxxxxQQ", FILETYPE_CHARACTER_DEVICE, 0, 0, 0))
        return ESUCCESS

    def proc_exit(self, code: int) -> None:
        """The guest gave up; raise so the call into it ends here."""
        raise GuestExit(code)

    def _empty_sizes(self, count_out: int, size_out: int) -> int:
        self.memory.write(count_out, b"\0\0\0\0")
        self.memory.write(size_out, b"\0\0\0\0")
        return ESUCCESS


def _no_path_open(*_: int) -> int:
    return EBADF


# Lines the host turns into an execution's own error (kind ``out_of_memory`` or ``timeout``):
# the result already says what happened, so they are not worth a warning in the host's log.
_HANDLED_DIAGNOSTICS = (
    b"corral: memory allocation of ",  # the guest's allocator (a panic=immediate-abort build)
    b"memory allocation of ",  # std's message (a build that unwinds on panic)
    b"note: run with `RUST_BACKTRACE=1`",
    b"corral: the execution ran past its deadline",
)


def _log_diagnostics(data: bytes) -> None:
    import logging  # only when the guest prints: a fresh process is spared importing it

    level = logging.DEBUG if data.startswith(_HANDLED_DIAGNOSTICS) else logging.WARNING
    logging.getLogger("corral").log(level, "guest: %s", data.decode("utf-8", "replace"))
