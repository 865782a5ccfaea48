"""The audit trail: one :class:`AuditRecord` per execution start and end and per tool call.

Every tool call, allowed or denied, is recorded with the decision and the rule behind it.
Records are kept in memory (:meth:`AuditLog.entries`) and, if a sink is given, appended to it
as JSON lines as they happen. Parameters pass through a redaction hook first, so secrets never
reach the log.

An :class:`AuditCollector` (``Sandbox(audit_config=AuditConfig(...))``) is the same trail as
amla-sandbox's users know it: each record becomes an :class:`AuditEntry` carrying the agent's
correlation ids (agent, trace, turn) and any custom fields, kept in memory and written as JSON
lines.
"""

from __future__ import annotations

import os
import time

from . import _lean
from ._record import Record, field, values

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:  # imported where used: a fresh process's first sandbox never needs them
    from collections.abc import Callable, Iterable, Iterator
    from datetime import datetime
    from pathlib import Path
    from typing import IO, Any, TypeAlias

    from .results import ToolCall

__all__ = [
    "AuditCollector",
    "AuditConfig",
    "AuditEntry",
    "AuditLog",
    "AuditRecord",
    "Enricher",
    "Redactor",
]

Redactor: TypeAlias = "Callable[[str, Any], Any]"
"""``redact(method, params) -> params``: what of a call's parameters the log may keep."""

KINDS = ("execution_start", "execution_end", "tool_call")


class AuditRecord(Record, frozen=True):
    """One audited event, as the sandbox records it.

    Attributes:
        timestamp: Unix time (seconds) when the event happened.
        kind: ``execution_start``, ``execution_end`` or ``tool_call``.
        sandbox_id: The sandbox the event belongs to.
        execution_id: The execution (1, 2, ... within the sandbox).
        call_id: The guest's id of the tool call (tool calls only).
        method: The canonical tool name (tool calls only).
        params: The call's parameters after redaction (tool calls only).
        decision: ``allowed`` or ``denied`` (tool calls only).
        rule: The rule behind the decision (tool calls only).
        duration_ms: Time spent in the tool, or in the whole execution for ``execution_end``.
        result_size: Bytes of JSON the tool returned, when it succeeded.
        error: Why a call or an execution failed.
        detail: Extra facts: the language and code size at start, the exit code at the end.
    """

    timestamp: float
    kind: str
    sandbox_id: str
    execution_id: int
    call_id: int | None = None
    method: str | None = None
    params: Any = None
    decision: str | None = None
    rule: str | None = None
    duration_ms: float | None = None
    result_size: int | None = None
    error: str | None = None
    detail: dict[str, Any] | None = None

    def to_json(self) -> str:
        """The entry as one line of JSON (parameters that are not JSON become strings)."""
        import json  # here, not at the top: a sandbox that logs nothing never imports it

        return json.dumps(values(self), default=str, ensure_ascii=False, separators=(",", ":"))


class AuditLog:
    """The audit records of one sandbox, in memory and optionally in a JSONL sink.

    Args:
        sink: A path (appended to) or a text file object that receives one JSON line per entry.
        redact: Applied to every call's parameters before they are recorded.
    """

    def __init__(self, sink: str | Path | IO[str] | None = None, redact: Redactor | None = None):
        # A sandbox's events and batches of tool calls are kept as they came (:meth:`record_event`,
        # :meth:`record_calls`) and made into records when first read: when nothing else sees
        # them, a record per call and two per execution are made only if someone asks.
        self._entries: list[AuditRecord | _Calls | _Event] = []
        self._count = 0
        self._listeners: list[Callable[[AuditRecord], object]] = []
        self._redact = redact
        self._lock = _lean.Lock()
        self._sink: IO[str] | None
        # os.PathLike, not pathlib.Path: a fresh process's first sandbox never imports pathlib.
        self._owns_sink = isinstance(sink, (str, os.PathLike))
        if isinstance(sink, (str, os.PathLike)):
            self._sink = open(sink, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        else:
            self._sink = sink

    def record(self, entry: AuditRecord) -> AuditRecord:
        """Keep ``entry`` (redacting its parameters) and write it to the sink."""
        return self._keep([entry])[0]

    def record_all(self, entries: Iterable[AuditRecord]) -> list[AuditRecord]:
        """:meth:`record` each of ``entries`` in order, taking the lock and flushing the sink
        once for all of them (a batch of tool calls). A subclass that overrides :meth:`record`
        gets each entry through it."""
        if type(self).record is not AuditLog.record:
            return [self.record(entry) for entry in entries]
        return self._keep(entries)

    def record_event(
        self, timestamp: float, kind: str, sandbox_id: str, execution_id: int, **fields: Any
    ) -> None:
        """:meth:`record` ``AuditRecord(timestamp, kind, sandbox_id, execution_id, **fields)``;
        made only when read if nothing needs it now (see :meth:`record_calls`)."""
        if not self._later():
            self.record(AuditRecord(timestamp, kind, sandbox_id, execution_id, **fields))
            return
        with self._lock:
            self._entries.append(_Event(timestamp, kind, sandbox_id, execution_id, fields))
            self._count += 1

    def record_calls(self, sandbox_id: str, execution_id: int, calls: Iterable[ToolCall]) -> None:
        """:meth:`record_all` the records of a batch of tool calls of one execution. When
        nothing needs them now (no sink, redactor or listener, no :meth:`record` or
        :meth:`record_all` of a subclass), they are made only when read."""
        if not self._later():
            self.record_all(_call_record(sandbox_id, execution_id, call) for call in calls)
            return
        batch = _Calls(sandbox_id, execution_id, tuple(calls))
        with self._lock:
            self._entries.append(batch)
            self._count += len(batch.calls)

    def _later(self) -> bool:
        """Whether records may be made when read: nothing sees them as they are kept."""
        mine = type(self)
        plain = mine.record is AuditLog.record and mine.record_all is AuditLog.record_all
        return plain and self._sink is None and self._redact is None and not self._listeners

    def _keep(self, entries: Iterable[AuditRecord]) -> list[AuditRecord]:
        kept = list(entries) if self._redact is None else [self._redacted(e) for e in entries]
        with self._lock:
            self._entries.extend(kept)
            self._count += len(kept)
            if self._sink is not None:
                self._sink.write("".join(entry.to_json() + "\n" for entry in kept))
                self._sink.flush()
            listeners = list(self._listeners)
        if listeners:
            for entry in kept:
                for listener in listeners:
                    listener(entry)
        return kept

    def _redacted(self, entry: AuditRecord) -> AuditRecord:
        if entry.kind == "tool_call" and self._redact is not None and entry.method is not None:
            return _replace_params(entry, self._redact(entry.method, entry.params))
        return entry

    def subscribe(self, listener: Callable[[AuditRecord], object]) -> None:
        """Call ``listener(record)`` with every record kept from now on (after redaction)."""
        with self._lock:
            self._listeners.append(listener)

    def entries(self, since: float | None = None, kind: str | None = None) -> list[AuditRecord]:
        """The entries at or after unix time ``since``, of ``kind`` if given, oldest first."""
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown audit kind {kind!r}; use one of {', '.join(KINDS)}")
        with self._lock:
            records = [*_expanded(self._entries)]
            self._entries = [*records]
            return [
                e
                for e in records
                if (since is None or e.timestamp >= since) and (kind is None or e.kind == kind)
            ]

    def __iter__(self) -> Iterator[AuditRecord]:
        return iter(self.entries())

    def __len__(self) -> int:
        return self._count

    def close(self) -> None:
        """Close the sink if this log opened it."""
        if self._owns_sink and self._sink is not None:
            self._sink.close()
            self._sink = None


Enricher: TypeAlias = "Callable[[dict[str, Any]], dict[str, Any]]"
"""``enrich(data) -> data``: custom fields added to each collected entry's data."""

ENVELOPE = ("type", "session_id", "timestamp", "agent_id", "trace_id", "turn_id")
_BINARY = r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]"  # compiled on first use: a sandbox without
# an audit collector never imports ``re`` (with ``enum``, ~2 ms of a fresh process)


class AuditConfig(Record, frozen=True, kw_only=True):
    """What an :class:`AuditCollector` adds to the trail, and where it writes it.

    Attributes:
        output_path: A JSONL file that collected entries are appended to; ``None`` keeps them
            in memory only.
        agent_id: The agent the sandbox works for, put on every entry.
        trace_id: A trace id correlating the entries with the application's own traces.
        capture_binary: Keep parameter strings that hold binary data (control characters
            other than tab and newlines) as they are; by default each is replaced by
            ``<binary: N chars>``, so the log stays readable text.
        custom_enricher: ``enrich(data) -> data``, applied to every entry collected from a
            sandbox (deployment, region...); what it returns must be a dict.
    """

    output_path: str | Path | None = None
    agent_id: str | None = None
    trace_id: str | None = None
    capture_binary: bool = False
    custom_enricher: Enricher | None = None


class AuditEntry(Record, frozen=True, kw_only=True):
    """One collected event: what happened (``type``, ``data``) and its correlation ids.

    Entries collected from a sandbox have the record's kind as ``type``
    (``execution_start``, ``execution_end``, ``tool_call``), the sandbox id as
    ``session_id``, and the record's facts in ``data`` (``execution_id``, ``method``,
    ``params``, ``decision``, ``rule``, ``duration_ms``, ``error``, ``exit_code``...; the
    facts a kind does not have are left out). :meth:`to_dict` puts ``data``'s fields beside
    the envelope's, so ``data`` may not use the envelope's names.

    >>> from datetime import datetime, timezone
    >>> entry = AuditEntry(type="tool_call", session_id="s1", data={"method": "add"},
    ...     timestamp=datetime(2025, 1, 1, tzinfo=timezone.utc), agent_id="a1", turn_id=0)
    >>> entry.to_jsonl()
    '{"type":"tool_call","session_id":"s1","timestamp":"2025-01-01T00:00:00+00:00","agent_id":"a1","trace_id":null,"turn_id":0,"method":"add"}'
    """

    type: str
    session_id: str
    timestamp: datetime
    data: dict[str, Any] = field(default_factory=dict)
    agent_id: str | None = None
    trace_id: str | None = None
    turn_id: int | None = None

    def __post_init__(self) -> None:
        clash = sorted(set(self.data) & set(ENVELOPE))
        if clash:
            raise ValueError(
                f"AuditEntry data may not use the envelope's names {clash}: rename them "
                f"(the envelope is {', '.join(ENVELOPE)})"
            )

    def to_dict(self) -> dict[str, Any]:
        """The envelope (timestamp in ISO 8601) followed by ``data``'s fields."""
        envelope = {name: getattr(self, name) for name in ENVELOPE}
        envelope["timestamp"] = self.timestamp.isoformat()
        return {**envelope, **self.data}

    def to_jsonl(self) -> str:
        """:meth:`to_dict` as one line of JSON (values that are not JSON become strings)."""
        import json

        return json.dumps(self.to_dict(), default=str, ensure_ascii=False, separators=(",", ":"))


class AuditCollector:
    """Audit entries with the agent's correlation ids, in memory and in a JSONL file.

    Given to a sandbox as ``Sandbox(audit_config=config)`` (then ``sandbox.audit_collector``),
    it collects every record of the sandbox's trail as it happens: each execution's start
    and end and each tool call with its decision, with ``agent_id``, ``trace_id`` and the
    current ``turn_id``. Entries can also be added by hand (:meth:`add_entry`). Closing it
    (or leaving its ``with`` block, or closing its sandbox) closes the file and ends the
    collecting.

    >>> from corral import Sandbox
    >>> with Sandbox(audit_config=AuditConfig(agent_id="agent-7")) as sandbox:
    ...     _ = sandbox.execute("return 1")
    >>> [(e.type, e.agent_id, e.turn_id) for e in sandbox.audit_collector]
    [('execution_start', 'agent-7', 0), ('execution_end', 'agent-7', 0)]
    """

    def __init__(self, config: AuditConfig | None = None) -> None:
        self.config = config or AuditConfig()
        self._entries: list[AuditEntry] = []
        self._turn = 0
        self._file: IO[str] | None = None
        self._closed = False
        self._lock = _lean.Lock()

    @property
    def turn_id(self) -> int:
        """The current turn (0 at first), put on entries collected from a sandbox."""
        return self._turn

    def new_turn(self) -> int:
        """Start the agent's next turn; returns its id."""
        with self._lock:
            self._turn += 1
            return self._turn

    @property
    def entries(self) -> list[AuditEntry]:
        """Every entry so far, oldest first (a copy)."""
        with self._lock:
            return list(self._entries)

    def get_entries(
        self,
        entry_type: str | None = None,
        since: datetime | None = None,
        turn_id: int | None = None,
    ) -> list[AuditEntry]:
        """The entries of ``entry_type``, at or after ``since``, of turn ``turn_id`` (each
        when given), oldest first."""
        if since is not None and since.tzinfo is None:
            raise ValueError("since must be timezone-aware: use datetime.now(timezone.utc)")
        return [
            e
            for e in self.entries
            if (entry_type is None or e.type == entry_type)
            and (since is None or e.timestamp >= since)
            and (turn_id is None or e.turn_id == turn_id)
        ]

    def add_entry(self, entry: AuditEntry, write_to_file: bool = True) -> None:
        """Keep ``entry``, and append it to ``config.output_path`` if ``write_to_file``."""
        if not isinstance(entry, AuditEntry):
            raise TypeError(f"add_entry takes an AuditEntry, not {type(entry).__name__}")
        with self._lock:
            self._entries.append(entry)
            if write_to_file and self.config.output_path is not None:
                self._output().write(entry.to_jsonl() + "\n")
                self._output().flush()

    def add_entries(self, entries: Iterable[AuditEntry], write_to_file: bool = True) -> None:
        """:meth:`add_entry` for each of ``entries``, in order."""
        for entry in entries:
            self.add_entry(entry, write_to_file)

    def collect(self, record: AuditRecord) -> AuditEntry | None:
        """Add the entry for one record of a sandbox's trail (what the sandbox calls); a
        closed collector collects nothing more and returns None."""
        if self._closed:
            return None
        from dataclasses import asdict  # its deep copy: the entry shares nothing with the record

        data = {
            name: value
            for name, value in asdict(record).items()
            if value is not None and name not in ("timestamp", "kind", "sandbox_id", "detail")
        }
        data.update(record.detail or {})
        if not self.config.capture_binary and "params" in data:
            data["params"] = _without_binary(data["params"])
        if self.config.custom_enricher is not None:
            data = self.config.custom_enricher(data)
            if not isinstance(data, dict):
                raise TypeError(
                    f"AuditConfig.custom_enricher must return the data dict, not "
                    f"{type(data).__name__}"
                )
        from datetime import UTC, datetime

        entry = AuditEntry(
            type=record.kind,
            session_id=record.sandbox_id,
            timestamp=datetime.fromtimestamp(record.timestamp, UTC),
            data=data,
            agent_id=self.config.agent_id,
            trace_id=self.config.trace_id,
            turn_id=self._turn,
        )
        self.add_entry(entry)
        return entry

    def _output(self) -> IO[str]:
        if self._closed:
            raise ValueError("this AuditCollector is closed: make a new one to write again")
        if self._file is None:
            assert self.config.output_path is not None
            self._file = open(self.config.output_path, "a", encoding="utf-8")  # noqa: SIM115
        return self._file

    def close(self) -> None:
        """Close the output file (idempotent); the entries stay readable."""
        with self._lock:
            self._closed = True
            if self._file is not None:
                self._file.close()
                self._file = None

    def __enter__(self) -> AuditCollector:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[AuditEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __bool__(self) -> bool:
        """True, even when empty: ``if sandbox.audit_collector:`` asks whether there is one."""
        return True


def _without_binary(value: Any) -> Any:
    """``value`` with every string that holds binary data replaced by a short marker."""
    if isinstance(value, str):
        import re

        return f"<binary: {len(value)} chars>" if re.search(_BINARY, value) else value
    if isinstance(value, dict):
        return {key: _without_binary(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_binary(item) for item in value]
    return value


class _Calls(Record):
    """A batch of tool calls of one execution, kept until its records are read."""

    __slots__ = ("calls", "execution_id", "sandbox_id")

    sandbox_id: str
    execution_id: int
    calls: tuple[ToolCall, ...]


class _Event(Record):
    """The facts of an execution's start or end, kept until its record is read."""

    __slots__ = ("execution_id", "fields", "kind", "sandbox_id", "timestamp")

    timestamp: float
    kind: str
    sandbox_id: str
    execution_id: int
    fields: dict[str, Any]

    def __init__(
        self,
        timestamp: float,
        kind: str,
        sandbox_id: str,
        execution_id: int,
        fields: dict[str, Any],
    ) -> None:
        # Written out, not compiled (see corral._record): a first sandbox makes them.
        self.timestamp, self.kind, self.sandbox_id = timestamp, kind, sandbox_id
        self.execution_id, self.fields = execution_id, fields


def _expanded(entries: Iterable[AuditRecord | _Calls | _Event]) -> Iterator[AuditRecord]:
    for entry in entries:
        if isinstance(entry, _Calls):
            for call in entry.calls:
                yield _call_record(entry.sandbox_id, entry.execution_id, call)
        elif isinstance(entry, _Event):
            yield AuditRecord(
                entry.timestamp, entry.kind, entry.sandbox_id, entry.execution_id, **entry.fields
            )
        else:
            yield entry


def _call_record(sandbox_id: str, execution_id: int, call: ToolCall) -> AuditRecord:
    """The audit record of one tool call of an execution."""
    return AuditRecord(
        timestamp=call.timestamp,
        kind="tool_call",
        sandbox_id=sandbox_id,
        execution_id=execution_id,
        call_id=call.call_id,
        method=call.method,
        params=call.params,
        decision="allowed" if call.allowed else "denied",
        rule=call.rule,
        duration_ms=call.duration_ms,
        result_size=call.result_size,
        error=call.error,
    )


def _replace_params(entry: AuditRecord, params: Any) -> AuditRecord:
    from dataclasses import asdict  # its deep copy, as before

    data = asdict(entry)
    data["params"] = params
    return AuditRecord(**data)


_clock_lock = _lean.Lock()
_last_time = 0.0
TICK = 1e-6  # seconds between two readings of the audit clock, at least


def now() -> float:
    """The audit clock (wall time); one place, so tests can reason about ``since``.

    Strictly increasing: where the wall clock is coarse (a browser's ``Date.now()`` counts
    whole milliseconds) two events still get distinct, ordered timestamps.
    """
    global _last_time  # noqa: PLW0603 - the clock's one piece of state
    with _clock_lock:
        _last_time = max(time.time(), _last_time + TICK)
        return _last_time
