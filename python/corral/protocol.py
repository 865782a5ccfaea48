"""The step/resume driver between the host and one guest instance.

Messages are frames: a little-endian ``u32`` header length, a header, then a blob of raw
bytes that the header addresses by ``[offset, length]`` ranges (code, stdin, tool results and
output travel as raw bytes, never base64). An execution's frames (``submit``, ``resume``, the
step reply) have binary headers of fixed fields; the others' headers are JSON. The host
writes each frame into the guest's inbox (``corral_inbox``) and calls an export with its
length; the export returns a reply frame packed as ``ptr << 32 | len``. ``submit`` and
``resume`` also step, so an execution without tool calls is a single call into the guest.

:class:`Driver` runs executions as generators: each yields the batch of host operations the guest
is blocked on and receives their results, so the same loop serves sync and async hosts. It also
recovers from traps: a fresh instance replaces the dead one (which is released at once) and the
execution ends with an error. :meth:`Driver.close` releases the instance for good.
"""

from __future__ import annotations

import struct
import time
from _collections_abc import Generator  # collections.abc's, without collections (issue 14)

from . import _idle, _json, _lazy_names, _lean
from ._image import InitImage, entropy_of, images_for, throwaway_entropy
from ._record import _MISSING, Record, field
from ._wasi import CLOCK_MONOTONIC, CLOCK_REALTIME, Entropy, WasiShim
from .results import timeout_message
from .runtime import Backend, GuestTrap, Instance

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from ._error_kinds import CallErrorKind, ErrorKind

__all__ = [
    "CallErrorKind",
    "Driver",
    "HostOp",
    "OpResult",
    "ProtocolError",
    "RawOutcome",
    "SandboxClosedError",
    "decode_frame",
    "encode_frame",
]

# The native backstop traps the guest BACKSTOP_GRACE seconds after its deadline: the guest's
# own interrupt check ends the execution well before (about a millisecond after it).
BACKSTOP_GRACE = 0.1
SEED_BYTES = 16  # a seed drawn for Math.random, and one for $RANDOM (which uses 8 of them)
GUEST_DEADLINE_TRAP = b"corral: the execution ran past its deadline; trapped\n"
"""What the guest writes before trapping itself half of ``BACKSTOP_GRACE`` after its
deadline, in code that ignores the deadline (its allocator's backstop, which also works where
there is no epoch backstop: the browser); the guest's ``TRAP_LINE`` is the same."""
INBOX_KEPT = 4 * 1024 * 1024
"""The guest keeps an inbox up to this size between calls and frees a larger one after the
call that used it (a 50 MB file written once must not stay as a 50 MB inbox); the guest's
``INBOX_KEPT`` is the same."""


class ProtocolError(RuntimeError):
    """The guest rejected a message or replied with something malformed (a corral bug)."""


class SandboxClosedError(ValueError):
    """The sandbox was closed (:meth:`~corral.sandbox.Sandbox.close`, or the end of its
    ``with`` block) and its guest instance released; it cannot be used any more."""

    def __init__(self) -> None:
        super().__init__(
            "this sandbox is closed (Sandbox.close(), or its with-block ended): create a new "
            "Sandbox, or close this one only when you are done with it"
        )


_header = _json.encoder(separators=(",", ":"))
"""Compact JSON for frame headers, its encoder made once."""


def encode_frame(header: dict[str, Any], blobs: dict[str, bytes] | None = None) -> bytes:
    """Frame ``header``; each ``blobs`` entry goes into the blob and its range into the header."""
    blob = bytearray()
    for key, data in (blobs or {}).items():
        header[key] = [len(blob), len(data)]
        blob += data
    head = _header(header).encode()
    return struct.pack("<I", len(head)) + head + blob


def decode_frame(frame: bytes) -> tuple[dict[str, Any], bytes]:
    """Split a frame into its parsed header and its blob."""
    (length,) = struct.unpack_from("<I", frame)
    # Strict UTF-8, as the guest writes: no byte order mark, no UTF-16 guessed from the bytes.
    header = _json.loads(frame[4 : 4 + length].decode())
    if not isinstance(header, dict):
        raise ProtocolError("frame header is not an object")
    return header, frame[4 + length :]


def _slice(blob: bytes, span: list[int] | None) -> bytes:
    return b"" if span is None else blob[span[0] : span[0] + span[1]]


class HostOp(Record):
    """An operation the guest is blocked on: a tool call (``call``) or a ``sleep``.

    Read-only by convention (the trace keeps the objects): a batch makes one per call, and a
    frozen record took six times as long to make as this slotted one (named tuples need
    ``typing``, which a fresh process's first sandbox does not import). Slotted, so its
    defaults are in its ``__init__``."""

    __slots__ = ("args", "caller", "id", "kind", "ms", "tool")
    id: int
    kind: str
    tool: str
    args: bytes  # JSON text of the call's arguments
    ms: float  # how long a sleep lasts
    caller: str  # who called: "js" or "shell" (hints use the caller's syntax)

    def __init__(  # noqa: PLR0917 - positional, as the dataclass it was
        self,
        id: int,
        kind: str,
        tool: str = "",
        args: bytes = b"",
        ms: float = 0.0,
        caller: str = "js",
    ) -> None:
        self.id, self.kind, self.tool, self.args, self.ms, self.caller = (
            id, kind, tool, args, ms, caller
        )  # fmt: skip


class OpResult(Record):
    """The answer to one :class:`HostOp`: JSON text, or an error of a given kind (read-only
    by convention, slotted like :class:`HostOp`)."""

    __slots__ = ("error", "error_kind", "id", "ok")
    id: int
    ok: bytes | None
    error_kind: CallErrorKind | None
    error: str | None

    def __init__(
        self,
        id: int,
        ok: bytes | None = None,
        error_kind: CallErrorKind | None = None,
        error: str | None = None,
    ) -> None:
        self.id, self.ok, self.error_kind, self.error = id, ok, error_kind, error


class RawOutcome(Record):
    """How an execution ended, before the sandbox turns it into an ``ExecutionResult``."""

    exit_code: int
    stdout: bytes
    stderr: bytes
    value: bytes | None = None
    error_kind: ErrorKind | None = None
    error: str | None = None
    recovered: bool = False  # the instance was replaced after a trap
    fs_generation: int = 0  # the guest's filesystem change counter at the end
    session: bytes | None = None  # the shell session at the end, if shell code ran

    def __init__(  # noqa: PLR0917 - written out, not compiled (see corral._record)
        self,
        exit_code: int,
        stdout: bytes,
        stderr: bytes,
        value: bytes | None = None,
        error_kind: ErrorKind | None = None,
        error: str | None = None,
        recovered: bool = False,
        fs_generation: int = 0,
        session: bytes | None = None,
    ) -> None:
        self.exit_code, self.stdout, self.stderr, self.value = exit_code, stdout, stderr, value
        self.error_kind, self.error, self.recovered = error_kind, error, recovered
        self.fs_generation, self.session = fs_generation, session


# Sent back into an execution generator instead of results: end it now with this error kind.
class Cancel(Record, frozen=True):
    """End the execution now, e.g. because the deadline passed while tools ran."""

    kind: ErrorKind


class _Output(Record):
    stdout: bytearray = field(default_factory=bytearray)
    stderr: bytearray = field(default_factory=bytearray)

    def __init__(self, stdout: bytearray = _MISSING, stderr: bytearray = _MISSING) -> None:
        # Written out, not compiled (see corral._record): a first sandbox makes them.
        self.stdout = bytearray() if stdout is _MISSING else stdout
        self.stderr = bytearray() if stderr is _MISSING else stderr


Execution = Generator[list[HostOp], "list[OpResult] | Cancel", RawOutcome]


class Driver:
    """Owns one guest instance and runs executions on it, one at a time."""

    def __init__(
        self,
        backend: Backend,
        module: object,
        config: dict[str, Any],
        memory_limit: int,
        *,
        shim_factory: Callable[[], WasiShim] = WasiShim,
        backstop_factor: float = 1.0,
    ) -> None:
        self._backend = backend
        self._module = module
        self._config = config
        self._memory_limit = memory_limit
        self._shim_factory = shim_factory
        # A replay stretches the backstop: a slower machine must not trap where the original
        # run did not.
        self.backstop_factor = backstop_factor
        self._inbox = (0, 0)  # (address, capacity) of the guest's inbox
        self._last_diagnostics = b""
        self._files: bytes | None = None  # the last checkpoint of the files
        self._session: bytes | None = None  # ... and of the shell session
        self._files_generation = 0
        self._closed = False
        self._instance: Instance | None = None
        # Held around every guest call, so that idle pages are never released during one.
        self._guest = _lean.RLock()
        self._used = 0.0  # time.monotonic() at the end of the last guest call
        self._releases = backend.releases_memory
        self._watched = False  # whether corral._idle will release its pages
        self._fresh_instance()

    @property
    def instance(self) -> Instance:
        """The live guest instance (a new one after a trap, or if the last restart failed
        half-way).

        Raises :class:`SandboxClosedError` after :meth:`close`.
        """
        if self._closed:
            raise SandboxClosedError()
        return self._instance or self._fresh_instance()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def close(self) -> None:
        """Release the instance and the checkpoint now; idempotent. Any later use raises
        :class:`SandboxClosedError`."""
        self._closed = True
        self._release()
        self._files = self._session = None

    def _release(self) -> None:
        with self._guest:
            instance, self._instance = self._instance, None
            if instance is not None:
                instance.close()

    def release_if_idle(self, since: float) -> None:
        """Give back the instance's unused memory pages (see ``corral._idle``) unless a guest
        call runs or ran after ``since``."""
        if not self._guest.acquire(blocking=False):
            return
        try:
            if self._used <= since:
                # A page map that cannot be read only means nothing is released.
                with _lean.suppress(OSError):
                    if self._instance is not None:
                        self._instance.release_unused()
                self._watched = False
                _idle.done(self)
        finally:
            self._guest.release()

    def _fresh_instance(self) -> Instance:
        """Replace the instance (the old one is released first, so two never coexist)."""
        with self._guest:
            return self._replace_instance()

    def _replace_instance(self) -> Instance:
        self._release()
        if self._closed:
            raise SandboxClosedError()
        self.shim = self._shim_factory()
        instance = self._backend.instantiate(self._module, self.shim, self._memory_limit)
        self._instance = instance
        self._inbox = (0, 0)
        try:
            self._initialize(instance)
            if self._files is not None:
                # The files as of the end of the last completed execution (or host change).
                header, _ = self.request({"op": "restore"}, self._files)
                self._files_generation = header["generation"]
            if self._session is not None:
                self.request({"op": "shell_restore"}, self._session)
        except BaseException:
            self._release()  # half set up: the next use starts afresh
            raise
        return instance

    def _initialize(self, instance: Instance) -> None:
        """Configure a fresh instance: from this configuration's image if there is one (see
        :mod:`corral._image`), else by running the guest's initialization and keeping its
        image; then give the sandbox its own seeds and times."""
        config = encode_frame(dict(self._config))
        images = images_for(self._module)
        image = images.get(config) or self._backend.stored_image(self._module, config)
        if image is not None:
            images.put(config, image)
            image.apply(instance)
            self._inbox = image.inbox
        else:
            before = instance.read(0, instance.memory_size())
            with entropy_of(self.shim, throwaway_entropy()):
                instance.call("_initialize")  # the reactor's constructors
                _ack(self._send("corral_init", config))
            image = InitImage.capture(before, instance, self._inbox)
            images.put(config, image)
            self._backend.store_image(self._module, config, image, instance)
        _ack(self._send("corral_reseed", _seeds(self.shim.entropy)))

    def request(
        self, request: dict[str, Any], data: bytes | None = None
    ) -> tuple[dict[str, Any], bytes]:
        """A host request, made between executions: a file operation (``read``, ``write``,
        ``snapshot``...), the shell session (``shell_reset``, ``shell_save``,
        ``shell_restore``) or ``info`` (see the guest's ``host/requests.rs``). Returns the
        reply's header and blob."""
        frame = encode_frame(dict(request), {"data": data} if data is not None else None)
        header, blob = decode_frame(self._send("corral_request", frame))
        if "generation" not in header:
            raise ProtocolError(str(header.get("error", "malformed host request reply")))
        return header, blob

    def files(self) -> bytes:
        """A snapshot of the sandbox's files.

        The guest replies with pieces: ranges of the reply's blob, and large files' contents
        where they are in linear memory (so a snapshot costs the guest no copy of them).
        """
        header, blob = self.request({"op": "snapshot"})
        pieces = header.get("pieces")
        if not isinstance(pieces, list):
            raise ProtocolError(f"malformed snapshot reply: {header!r:.200}")
        return b"".join(
            _slice(blob, [start, length]) if where == 0 else self.instance.read(start, length)
            for where, start, length in pieces
        )

    def checkpoint(self, generation: int) -> None:
        """Keep a copy of the files (if they changed since the last copy) and of the shell
        session: a trap rolls back to them. Called after every host change."""
        self._keep_files(generation)
        self._session = self.session()

    def _keep_files(self, generation: int) -> None:
        if generation != self._files_generation:
            self._files = self.files()
            self._files_generation = generation

    def _keep(self, outcome: RawOutcome) -> None:
        """:meth:`checkpoint` after an execution, from its outcome: the guest sends the shell
        session only when the execution ran shell code (else it is as it was)."""
        self._keep_files(outcome.fs_generation)
        if outcome.session is not None:
            self._session = outcome.session

    def session(self) -> bytes:
        """The shell session (cwd, variables, functions, options) as bytes."""
        header, blob = self.request({"op": "shell_save"})
        return _slice(blob, header["data"])

    def commands(self) -> list[str]:
        """The names of the shell's commands (applets and builtins)."""
        header, _ = self.request({"op": "info"})
        return list(header["commands"])

    def _send(self, export: str, frame: bytes, deadline: float | None = None) -> bytes:
        """Write ``frame`` into the guest's inbox, call ``export`` with its length, read the
        reply."""
        with self._guest:
            # The instance first: a fresh one (after a trap) restores the files through its
            # inbox, which may move it.
            instance = self.instance
            address, capacity = self._inbox
            if len(frame) > capacity:
                capacity = max(len(frame), min(2 * capacity, INBOX_KEPT), 64 * 1024)
                address = instance.call("corral_inbox", capacity)
                self._inbox = (address, capacity)
            instance.write(address, frame)
            if capacity > INBOX_KEPT:
                self._inbox = (0, 0)  # the guest frees an inbox this large after the call
            reply = _reply(instance, instance.call(export, len(frame), deadline=deadline))
            self._used = time.monotonic()
            if not self._watched and self._releases:
                self._watched = True
                _idle.watch(self)
            return reply

    def run(self, language: str, code: str, stdin: bytes | None, timeout: float) -> Execution:
        """Run one execution; yields op batches, receives results (or :class:`Cancel`).

        The caller decides when time is up (it answers with ``Cancel(ErrorKind.TIMEOUT)``); the
        backstop only stops guest code that ignores its own deadline.
        """
        backstop = time.monotonic() + timeout * self.backstop_factor + BACKSTOP_GRACE
        output = _Output()
        job = _job_frame(language, int(timeout * 1000), code.encode(), stdin)
        try:
            reply = self._send("corral_submit", job, backstop)
            while True:
                step = _parse_step(reply)
                # The guest's deadline starts now, and it needs the time: read here (through
                # the shim, so traces record it where the guest used to read it itself).
                clock = self.shim.entropy.clock(CLOCK_MONOTONIC) if step.clock else None
                output.stdout += step.stdout
                output.stderr += step.stderr
                if step.outcome is not None:
                    self._keep(step.outcome)
                    return _finish(step.outcome, output)
                answer = yield step.ops
                reply = self._resume(answer, backstop, clock)
        except GuestTrap as trap:
            return self._recover(trap, output, timeout)
        except BaseException:
            # Interrupted from the host (Ctrl-C, a failing tool loop, an abandoned run): never
            # leave a half-run guest. Its replacement is made on the next use (``instance``),
            # not now: Ctrl-C gives the prompt back first. Best effort: the original exception
            # is what matters.
            with _lean.suppress(Exception):
                self._release()
            raise

    def _resume(self, answer: list[OpResult] | Cancel, backstop: float, clock: int | None) -> bytes:
        if isinstance(answer, Cancel):
            frame = _cancel_frame(answer.kind)
        else:
            frame = _results_frame(answer, clock)
        return self._send("corral_resume", frame, backstop)

    def _recover(self, trap: GuestTrap, output: _Output, timeout: float) -> RawOutcome:
        """Free the dead instance; the execution ends with an error saying what happened. The
        next use makes a fresh instance (see :attr:`instance`), so the result does not wait
        for one: a runaway's time-to-kill is the backstop's alone."""
        self._last_diagnostics = bytes(self.shim.diagnostics)
        self._release()
        from ._error_kinds import ErrorKind  # here, not at the top: see corral._error_kinds

        kind = trap.kind
        if GUEST_DEADLINE_TRAP in self._last_diagnostics:
            kind = ErrorKind.TIMEOUT
            trap = GuestTrap(
                kind, "the time limit was exceeded inside a builtin that does not check it"
            )
        if kind == ErrorKind.TIMEOUT:
            message = timeout_message(timeout, f"was stopped ({trap.message})")
        elif kind == ErrorKind.STACK_OVERFLOW:
            message = (
                f"RangeError: {trap.message}; use iteration instead of deep recursion, or "
                "smaller nested data"
            )
        elif b"memory allocation of" in self._last_diagnostics:
            kind = ErrorKind.OUT_OF_MEMORY
            message = (
                "InternalError: the sandbox ran out of memory and was restarted; work on "
                "smaller data, or raise Limits(memory=...)"
            )
        else:
            message = f"InternalError: {trap.message}; the sandbox was restarted"
        output.stderr += (message + "\n").encode()
        return RawOutcome(
            exit_code=kind.exit_code,
            stdout=bytes(output.stdout),
            stderr=bytes(output.stderr),
            error_kind=kind,
            error=message,
            recovered=True,
        )


class _Step(Record):
    stdout: bytes
    stderr: bytes
    ops: list[HostOp]
    outcome: RawOutcome | None
    clock: bool = False  # the guest wants the monotonic clock's reading with the resume

    def __init__(
        self,
        stdout: bytes,
        stderr: bytes,
        ops: list[HostOp],
        outcome: RawOutcome | None,
        clock: bool = False,
    ) -> None:
        # Written out, not compiled (see corral._record): a first sandbox makes them.
        self.stdout, self.stderr, self.ops, self.outcome = stdout, stderr, ops, outcome
        self.clock = clock


_STEP = struct.Struct("<BBBxiQ11I")
"""A step reply's fixed header (the guest's ``protocol::StepReply``): done, error kind, flags
(1: a value, 2: a session, 4: send the clock with the resume), exit code, the files'
generation, the ranges of stdout, stderr, the value, the error message and the session, the
number of operations."""
_OP = struct.Struct("<QB3xIIIId")
"""Each operation's row after it: id, kind (``_OP_KINDS``), the tool's range, the arguments'
range, milliseconds."""
_OP_KINDS = (("call", "js"), ("call", "shell"), ("sleep", ""))
_ERROR_KINDS = (None, "exception", "timeout", "deadlock")  # the guest's ErrorKind numbers


def _parse_step(reply: bytes) -> _Step:
    """Decode a step reply (a binary header: see ``_STEP``, read without recursion whatever
    the guest wrote), or the JSON error of a refused message; anything malformed means the
    guest is broken: treat it as a trap."""
    try:
        (length,) = _LENGTH.unpack_from(reply)
        head = reply[4 : 4 + length]
        if head[:1] == b"{":
            header, _ = decode_frame(reply)  # only an Ack: the guest refused the call
            from ._error_kinds import ErrorKind  # here, not at the top: see corral._error_kinds

            raise GuestTrap(ErrorKind.PROTOCOL, f"the guest refused a message: {header['error']}")
        blob = reply[4 + length :]
        done, kind, flags, exit_code, generation, *ranges, count = _STEP.unpack_from(head)
        if len(head) != _STEP.size + count * _OP.size:
            raise ValueError(f"a header of {len(head)} bytes for {count} operations")
        ops = [_host_op(row, blob) for row in _OP.iter_unpack(head[_STEP.size :])]
        outcome = None
        if done:
            if ops or done != 1:
                raise ValueError("a done reply with operations, or an unknown status")
            error_kind = _ERROR_KINDS[kind]
            outcome = RawOutcome(
                fs_generation=generation,
                exit_code=exit_code,
                stdout=b"",
                stderr=b"",
                value=_span(blob, ranges[4], ranges[5]) if flags & 1 else None,
                error_kind=None if error_kind is None else _error_kind(error_kind),
                error=None if error_kind is None else _span(blob, ranges[6], ranges[7]).decode(),
                session=_span(blob, ranges[8], ranges[9]) if flags & 2 else None,
            )
        stdout, stderr = _span(blob, ranges[0], ranges[1]), _span(blob, ranges[2], ranges[3])
        return _Step(stdout, stderr, ops, outcome, bool(flags & 4))
    except (
        ValueError,
        KeyError,
        TypeError,
        IndexError,
        AttributeError,
        RecursionError,
        struct.error,
    ) as error:
        from ._error_kinds import ErrorKind

        raise GuestTrap(
            ErrorKind.PROTOCOL, f"the guest sent a malformed reply ({error!r})"
        ) from error


_LENGTH = struct.Struct("<I")


def _span(blob: bytes, start: int, length: int) -> bytes:
    """The bytes of a range of a reply's blob, which must hold them."""
    if start + length > len(blob):
        raise ValueError(f"the range {start}+{length} is outside the {len(blob)}-byte blob")
    return blob[start : start + length]


def _error_kind(kind: str) -> ErrorKind:
    """The :class:`~corral.results.ErrorKind` the guest names (ValueError if none)."""
    from ._error_kinds import ErrorKind  # here, not at the top: see corral._error_kinds

    return ErrorKind(kind)


def _host_op(row: tuple[int, int, int, int, int, int, float], blob: bytes) -> HostOp:
    id, code, tool_at, tool_length, args_at, args_length, ms = row
    kind, caller = _OP_KINDS[code]
    if kind == "sleep":
        if not 0 <= ms < _NO_SLEEP:  # NaN compares false
            raise ValueError(f"a sleep of {ms} ms")
        return HostOp(id, kind, ms=ms)
    tool = _span(blob, tool_at, tool_length).decode()
    return HostOp(id, kind, tool, _span(blob, args_at, args_length), caller=caller)


_NO_SLEEP = float("inf")


def _seeds(entropy: Entropy) -> bytes:
    """A sandbox's own seeds and times, as ``corral_reseed`` takes them: ``Math.random``'s
    seed, the shell's clock, ``$RANDOM``'s seed, the files' clock (16 random bytes, a realtime
    reading in nanoseconds, 16 bytes, a reading), drawn in the order the guest drew them
    itself when it asked the host for each, so that traces recorded then still replay."""
    js = entropy.random(SEED_BYTES)
    shell_ns = entropy.clock(CLOCK_REALTIME)
    shell = entropy.random(SEED_BYTES)
    return (
        js + struct.pack("<Q", shell_ns) + shell + struct.pack("<Q", entropy.clock(CLOCK_REALTIME))
    )


def _finish(outcome: RawOutcome, output: _Output) -> RawOutcome:
    outcome.stdout = bytes(output.stdout)
    outcome.stderr = bytes(output.stderr)
    return outcome


def _reply(instance: Instance, packed: int) -> bytes:
    """The reply frame an export returned, packed as ``ptr << 32 | len``."""
    return instance.read(packed >> 32, packed & 0xFFFF_FFFF)


def _ack(reply: bytes) -> None:
    header, _ = decode_frame(reply)
    if header.get("error"):
        raise ProtocolError(str(header["error"]))


_JOB = struct.Struct("<IBBxxQIIII")
"""A ``submit`` frame's length prefix and binary header (the guest's ``protocol::Job``):
the language (``_LANGUAGES``), flags (1: stdin), the time limit in milliseconds, the code's
range, stdin's range; the code and stdin follow in the blob."""
_LANGUAGES = {"javascript": 0, "shell": 1}


def _job_frame(language: str, timeout_ms: int, code: bytes, stdin: bytes | None) -> bytes:
    """The ``submit`` frame: one ``struct.pack`` (the guest reads fixed fields: no JSON on
    either side)."""
    number = _LANGUAGES.get(language)
    if number is None:
        raise ValueError(f"unsupported language {language!r}: use 'javascript' or 'shell'")
    extra = b"" if stdin is None else stdin
    head = _JOB.pack(
        _JOB.size - 4, number, stdin is not None, timeout_ms, 0, len(code), len(code), len(extra)
    )
    return head + code + extra


_RESUME = struct.Struct("<IBBxxIQ")
"""A ``resume`` frame's length prefix and binary header (the guest's ``protocol::Resume``):
flags (1: cancel, 2: a clock reading), the cancellation's error kind (its number in
``_ERROR_KINDS``), the number of results, the clock reading in nanoseconds; a ``_RESULT`` row
per result follows."""
_RESULT = struct.Struct("<QB3xIIII")
"""A result's row: its id, 0 (ok: the JSON's range in the blob) or 1 (an error: its kind's
range, its message's range)."""


def _results_frame(results: list[OpResult], clock: int | None = None) -> bytes:
    """The ``resume`` frame of ``results`` (and the monotonic clock's reading when the guest
    asked for it): fixed binary rows, the results' JSON and the errors' text in the blob."""
    rows: list[bytes] = []
    blob = bytearray()
    for result in results:
        ok = result.ok
        if ok is not None:
            rows.append(_RESULT.pack(result.id, 0, len(blob), len(ok), 0, 0))
            blob += ok
        else:
            from ._error_kinds import CallErrorKind

            kind = str(result.error_kind or CallErrorKind.TOOL).encode()
            message = (result.error or "").encode("utf-8", "replace")
            at = len(blob)
            rows.append(_RESULT.pack(result.id, 1, at, len(kind), at + len(kind), len(message)))
            blob += kind + message
    size = _RESUME.size - 4 + _RESULT.size * len(rows)
    head = _RESUME.pack(size, 0 if clock is None else 2, 0, len(rows), clock or 0)
    return head + b"".join(rows) + blob


def _cancel_frame(kind: ErrorKind) -> bytes:
    """The ``resume`` frame that ends the execution with ``kind`` (a kind the guest knows)."""
    if kind not in _ERROR_KINDS[1:]:
        raise ValueError(f"an execution cannot be cancelled as {kind!r}")
    return _RESUME.pack(_RESUME.size - 4, 1, _ERROR_KINDS.index(kind), 0, 0)


# CallErrorKind is made on first use (see corral._error_kinds).
__getattr__, __dir__ = _lazy_names(globals(), {"_error_kinds": ("CallErrorKind",)})
