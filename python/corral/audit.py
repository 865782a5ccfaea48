"""The audit trail: one :class:`AuditEntry` per execution start and end and per tool call.

Every tool call, allowed or denied, is recorded with the decision and the rule behind it.
Entries are kept in memory (:meth:`AuditLog.entries`) and, if a sink is given, appended to it
as JSON lines as they happen. Parameters pass through a redaction hook first, so secrets never
reach the log.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

__all__ = ["AuditEntry", "AuditLog", "Redactor"]

Redactor = Callable[[str, Any], Any]
"""``redact(method, params) -> params``: what of a call's parameters the log may keep."""

KINDS = ("execution_start", "execution_end", "tool_call")


@dataclass(frozen=True)
class AuditEntry:
    """One audited event.

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
        return json.dumps(asdict(self), default=str, ensure_ascii=False, separators=(",", ":"))


class AuditLog:
    """The audit entries of one sandbox, in memory and optionally in a JSONL sink.

    Args:
        sink: A path (appended to) or a text file object that receives one JSON line per entry.
        redact: Applied to every call's parameters before they are recorded.
    """

    def __init__(self, sink: str | Path | IO[str] | None = None, redact: Redactor | None = None):
        self._entries: list[AuditEntry] = []
        self._redact = redact
        self._lock = threading.Lock()
        self._sink: IO[str] | None
        self._owns_sink = isinstance(sink, (str, Path))
        if isinstance(sink, (str, Path)):
            self._sink = open(sink, "a", encoding="utf-8")  # noqa: SIM115 - closed in close()
        else:
            self._sink = sink

    def record(self, entry: AuditEntry) -> AuditEntry:
        """Keep ``entry`` (redacting its parameters) and write it to the sink."""
        if entry.kind == "tool_call" and self._redact is not None and entry.method is not None:
            entry = _replace_params(entry, self._redact(entry.method, entry.params))
        with self._lock:
            self._entries.append(entry)
            if self._sink is not None:
                self._sink.write(entry.to_json() + "\n")
                self._sink.flush()
        return entry

    def entries(self, since: float | None = None, kind: str | None = None) -> list[AuditEntry]:
        """The entries at or after unix time ``since``, of ``kind`` if given, oldest first."""
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown audit kind {kind!r}; use one of {', '.join(KINDS)}")
        with self._lock:
            return [
                e
                for e in self._entries
                if (since is None or e.timestamp >= since) and (kind is None or e.kind == kind)
            ]

    def __iter__(self) -> Iterator[AuditEntry]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    def close(self) -> None:
        """Close the sink if this log opened it."""
        if self._owns_sink and self._sink is not None:
            self._sink.close()
            self._sink = None


def _replace_params(entry: AuditEntry, params: Any) -> AuditEntry:
    data = asdict(entry)
    data["params"] = params
    return AuditEntry(**data)


_clock_lock = threading.Lock()
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
