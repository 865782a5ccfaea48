"""Traces for exact replay: everything that enters the guest, recorded as it happens.

A sandbox records a :class:`Trace` of its life: its configuration, each guest instance it
started, every clock reading and random byte the guest asked for, each execution's code and
stdin, every batch of host operations the guest issued and the answers it got, and each
execution's result. :func:`~corral.sandbox.replay` runs the same guest module from that trace
alone, calling no tool and reading no clock, and returns results identical to the
originals. If the guest asks for something the trace does not hold, :class:`ReplayDivergence`
names the first difference.
"""

from __future__ import annotations

from ._record import _MISSING, Record, field
from ._wasi import CLOCK_REALTIME, Entropy, WasiShim
from .protocol import Cancel, HostOp, OpResult
from .results import ExecutionResult
from .runtime import GuestTrap
from .runtime._base import EPOCH_TRAP

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from pathlib import Path
    from typing import Any

__all__ = [
    "Cursor",
    "Recorder",
    "ReplayDivergence",
    "Trace",
    "check_ops",
    "decode_answer",
    "fixed_entropy",
]

TRACE_VERSION = 2  # 2: a sandbox's seeds are drawn after its initialization


def _event(number: int, line: str) -> dict[str, Any]:
    """Line ``number`` of a trace, which must be a JSON object with a string ``t``."""
    import json  # here and below, not at the top: a fresh process's first sandbox skips it

    try:
        event = json.loads(line)
    except ValueError as error:
        raise ValueError(f"not a corral trace: line {number} is not JSON ({error})") from None
    if not isinstance(event, dict) or not isinstance(event.get("t"), str):
        raise ValueError(f"not a corral trace: line {number} is not a trace event")
    return event


class ReplayDivergence(Exception):
    """The replayed guest asked for something other than what the trace recorded."""


class Trace(Record):
    """The record of a sandbox's life, as a list of JSON-able events.

    Serialise it with :meth:`to_jsonl` (one event per line) and read it back with
    :meth:`from_jsonl`; :meth:`save` and :meth:`load` do the same with a file.
    """

    events: list[dict[str, Any]] = field(default_factory=list)

    def __init__(self, events: list[dict[str, Any]] = _MISSING) -> None:
        # Written out, not compiled (see corral._record): a first sandbox makes one.
        self.events = [] if events is _MISSING else events

    def to_jsonl(self) -> str:
        """The trace as JSON lines (bytes, such as file data, as base64)."""
        import json

        return "".join(
            json.dumps(e, separators=(",", ":"), default=_bytes_as_base64) + "\n"
            for e in self.events
        )

    @classmethod
    def from_jsonl(cls, text: str) -> Trace:
        """Parse a trace written by :meth:`to_jsonl`."""
        events = [_event(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
        if not events or events[0].get("t") != "sandbox":
            raise ValueError("not a corral trace: the first event must be the sandbox's")
        if events[0].get("v") != TRACE_VERSION:
            raise ValueError(
                f"unsupported trace version {events[0].get('v')!r} (this corral reads version "
                f"{TRACE_VERSION}: replay a trace with the corral release that recorded it)"
            )
        import base64  # here and below, not at the top: a fresh process's first sandbox skips it

        for event in events:
            field_name = _BYTES_FIELDS.get(event["t"])
            if field_name is not None and event[field_name] is not None:
                event[field_name] = base64.b64decode(event[field_name])
        return cls(events)

    def save(self, path: str | Path) -> None:
        """Write the trace to ``path`` as JSON lines."""
        from pathlib import Path

        Path(path).write_text(self.to_jsonl(), encoding="utf-8")

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """Read a trace saved with :meth:`save`."""
        from pathlib import Path

        return cls.from_jsonl(Path(path).read_text(encoding="utf-8"))

    @property
    def executions(self) -> int:
        """How many executions the trace holds."""
        return sum(1 for e in self.events if e["t"] == "execute")


# The event fields that hold bytes: kept as bytes in memory (a reference to the caller's data,
# not a copy), written as base64 in JSON lines.
_BYTES_FIELDS = {"execute": "stdin", "fs": "data"}


def _bytes_as_base64(value: object) -> str:
    import base64

    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _text(data: bytes) -> str:
    # Guest bytes are normally UTF-8; surrogateescape keeps any other byte exactly.
    return data.decode("utf-8", "surrogateescape")


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


def encode_ops(ops: Iterable[HostOp]) -> list[dict[str, Any]]:
    """Host operations as trace JSON."""
    return [
        {"id": o.id, "kind": "sleep", "ms": o.ms}
        if o.kind == "sleep"
        else {"id": o.id, "kind": o.kind, "tool": o.tool, "args": _text(o.args)}
        for o in ops
    ]


def encode_answer(answer: list[OpResult] | Cancel) -> dict[str, Any]:
    """An answer to the guest as a trace event."""
    if isinstance(answer, Cancel):
        return {"t": "answer", "cancel": answer.kind}
    results: list[dict[str, Any]] = []
    for r in answer:
        if r.ok is not None:
            results.append({"id": r.id, "ok": _text(r.ok)})
        else:
            results.append({"id": r.id, "error_kind": r.error_kind, "error": r.error})
    return {"t": "answer", "results": results}


def decode_answer(event: dict[str, Any]) -> list[OpResult] | Cancel:
    """The answer a trace event recorded."""
    from ._error_kinds import CallErrorKind, ErrorKind  # see corral._error_kinds

    if "cancel" in event:
        return Cancel(ErrorKind(event["cancel"]))
    return [
        OpResult(r["id"], ok=_bytes(r["ok"]))
        if "ok" in r
        else OpResult(
            r["id"], error_kind=CallErrorKind(r["error_kind"] or "tool"), error=r["error"]
        )
        for r in event["results"]
    ]


class Recorder:
    """Appends the events of a live sandbox to its :class:`Trace`.

    A batch of calls and its answer are kept as the (immutable) objects the sandbox has, and
    made trace JSON only when :attr:`trace` is read: recording costs a tool call nothing more
    than a reference.
    """

    def __init__(self, config: dict[str, Any], entropy: Entropy) -> None:
        self._trace = Trace([{"t": "sandbox", "v": TRACE_VERSION, **config}])
        self._entropy = entropy
        self._encoded = 1  # the events before this one are trace JSON

    @property
    def trace(self) -> Trace:
        """The trace so far (the events recorded since the last read are encoded now)."""
        events = self._trace.events
        for index in range(self._encoded, len(events)):
            event = events[index]
            if event["t"] == "ops":
                events[index] = {"t": "ops", "ops": encode_ops(event["ops"])}
            elif event["t"] == "answer" and "raw" in event:
                events[index] = encode_answer(event["raw"])
            elif event["t"] == "end" and "raw" in event:
                # Not the result's value now: the one copied when it was recorded.
                result = event["raw"].__replace__(return_value=None).to_dict()
                result["return_value"] = event["value"]
                events[index] = {"t": "end", "result": result}
        self._encoded = len(events)
        return self._trace

    def _add(self, event: dict[str, Any]) -> None:
        self._trace.events.append(event)

    def shim(self) -> WasiShim:
        """A WASI shim for a new guest instance whose clock and randomness are recorded."""
        self._add({"t": "instance"})

        def clock(clock_id: int) -> int:
            ns = self._entropy.clock(clock_id)
            self._add({"t": "clock", "id": clock_id, "ns": ns})
            return ns

        def rand(n: int) -> bytes:
            data = self._entropy.random(n)
            self._add({"t": "random", "hex": data.hex()})
            return data

        return WasiShim(Entropy(clock=clock, random=rand))

    def execute(self, language: str, code: str, stdin: bytes | None, timeout: float) -> None:
        """An execution starts."""
        self._add(
            {
                "t": "execute",
                "language": language,
                "code": code,
                "stdin": None if stdin is None else bytes(stdin),
                "timeout": timeout,
            }
        )

    def request(self, request: dict[str, Any], data: bytes | None) -> None:
        """The host made a host request (the files, the shell session). Its event keeps the
        name ``fs`` that traces have always used for it."""
        kept = None if data is None else bytes(data)
        self._add({"t": "fs", "request": dict(request), "data": kept})

    def ops(self, ops: list[HostOp]) -> None:
        """The guest issued a batch of host operations."""
        self._add({"t": "ops", "ops": list(ops)})

    def answer(self, answer: list[OpResult] | Cancel) -> None:
        """The host answered the last batch."""
        self._add({"t": "answer", "raw": answer if isinstance(answer, Cancel) else list(answer)})

    def end(self, result: ExecutionResult) -> None:
        """The execution ended with ``result``. Its returned value is copied now (the caller
        may change it); the rest is immutable, or shared with the trace as it always was (the
        calls' parameters and results), so the dict of it is made when the trace is read."""
        self._add({"t": "end", "raw": result, "value": _copy(result.return_value)})


_FLAT = frozenset({str, int, float, bool, type(None)})


def _copy(value: Any) -> Any:
    """A copy of a returned value (what the guest's JSON decoded to: dicts with string keys,
    lists, scalars). A flat dict or list is copied in C, without ``copy.deepcopy``'s walk
    (~2 µs of a small one per execution); anything nested is deep-copied."""
    kind = type(value)
    if kind is dict or kind is list:
        if _FLAT.issuperset(map(type, value.values() if kind is dict else value)):
            return kind(value)
    elif kind in _FLAT:
        return value
    import copy  # here, not at the top: a fresh process's first sandbox skips it

    return copy.deepcopy(value)


class Cursor:
    """Reads a trace's events in order during a replay."""

    def __init__(self, trace: Trace) -> None:
        self.events = trace.events
        self.position = 1  # after the sandbox event

    def peek(self) -> dict[str, Any] | None:
        """The next event, or None at the end."""
        return self.events[self.position] if self.position < len(self.events) else None

    def take(self, kind: str, wanted: str) -> dict[str, Any]:
        """The next event, which must be of ``kind``; ``wanted`` says what the guest asked."""
        event = self.peek()
        if event is None or event["t"] != kind:
            found = "the end of the trace" if event is None else _describe(event)
            raise ReplayDivergence(
                f"event {self.position}: the replay needs {wanted}, but the trace has {found}"
            )
        self.position += 1
        return event

    def shim(self) -> WasiShim:
        """A WASI shim for a new instance, fed from the trace."""
        self.take("instance", "a new guest instance")

        def clock(clock_id: int) -> int:
            end = self.peek()
            if end is not None and end["t"] == "end" and end["result"]["error_kind"] == "timeout":
                # The original ran on past its last reading until the native backstop stopped
                # it, which a replay cannot time: stop it here the same way.
                from ._error_kinds import ErrorKind  # see corral._error_kinds

                raise GuestTrap(ErrorKind.TIMEOUT, EPOCH_TRAP)
            event = self.take("clock", f"a reading of clock {clock_id}")
            if event["id"] != clock_id:
                raise ReplayDivergence(
                    f"event {self.position - 1}: the guest read clock {clock_id}, the trace "
                    f"recorded clock {event['id']}"
                )
            return int(event["ns"])

        def rand(n: int) -> bytes:
            data = bytes.fromhex(self.take("random", f"{n} random bytes")["hex"])
            if len(data) != n:
                raise ReplayDivergence(
                    f"event {self.position - 1}: the guest asked for {n} random bytes, the "
                    f"trace recorded {len(data)}"
                )
            return data

        return WasiShim(Entropy(clock=clock, random=rand))


def _describe(event: dict[str, Any]) -> str:
    kind = event["t"]
    if kind == "ops":
        calls = ", ".join(_show_op(o) for o in event["ops"])
        return f"the calls {calls}"
    if kind == "clock":
        return f"a reading of clock {event['id']}"
    if kind == "random":
        return f"{len(event['hex']) // 2} random bytes"
    return {"instance": "a new guest instance", "end": "the end of the execution"}.get(
        kind, f"a {kind!r} event"
    )


def _show_op(op: dict[str, Any]) -> str:
    if op.get("kind") == "sleep":
        return f"sleep({op['ms']} ms)"
    return f"{op['tool']}({op['args']})"


def check_ops(cursor: Cursor, ops: list[HostOp]) -> None:
    """The guest's batch must be exactly the recorded one."""
    wanted = encode_ops(ops)
    shown = ", ".join(_show_op(o) for o in wanted)
    event = cursor.take("ops", f"the calls {shown}")
    for index, (mine, theirs) in enumerate(zip(wanted, event["ops"], strict=False)):
        if mine != theirs:
            raise ReplayDivergence(
                f"event {cursor.position - 1}, request {index + 1}: the guest asked for "
                f"{_show_op(mine)} but the trace recorded {_show_op(theirs)}"
            )
    if len(wanted) != len(event["ops"]):
        raise ReplayDivergence(
            f"event {cursor.position - 1}: the guest issued {len(wanted)} calls, the trace "
            f"recorded {len(event['ops'])}"
        )


def fixed_entropy(seed: int | None, clock: float | None) -> Entropy:
    """Deterministic sources: random bytes from ``seed``, and a clock that starts at ``clock``
    (unix seconds) and advances 1 ms per reading. Either may be None for the real source."""
    real = Entropy.system()
    rand: Callable[[int], bytes] = real.random
    if seed is not None:
        import random

        generator = random.Random(seed)
        rand = generator.randbytes
    read_clock: Callable[[int], int] = real.clock
    if clock is not None:
        ticks = [0]
        start_ns = int(clock * 1e9)

        def read_clock(clock_id: int) -> int:
            ticks[0] += 1
            base = start_ns if clock_id == CLOCK_REALTIME else 0
            return base + ticks[0] * 1_000_000

    return Entropy(clock=read_clock, random=rand)
