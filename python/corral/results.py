"""What an execution returns: :class:`ExecutionResult` and its :class:`ToolCall` records."""

from __future__ import annotations

import copy
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["ExecutionResult", "ToolCall"]


@dataclass(frozen=True)
class ToolCall:
    """One tool call made during an execution, allowed or not.

    Attributes:
        method: The canonical tool name.
        params: The arguments the guest passed.
        allowed: Whether the call was allowed (capability check and, if required, approval).
        rule: The rule that decided it (the denying rule, or the allowing capability).
        result: The tool's return value, when it ran and succeeded.
        error: Why the call failed (denial, bad arguments, the tool's exception, cancellation).
        duration_ms: Time spent in the tool.
        call_id: The guest's id for the call (unique within the sandbox).
        timestamp: Unix time when the call was decided.
        result_size: Bytes of JSON returned to the guest, when the tool succeeded.
    """

    method: str
    params: Any
    allowed: bool
    rule: str
    result: Any = None
    error: str | None = None
    duration_ms: float = 0.0
    call_id: int = 0
    timestamp: float = 0.0
    result_size: int | None = None


@dataclass(frozen=True)
class ExecutionResult:
    """What one execution produced.

    Attributes:
        stdout: Standard output (``console.log``, and the returned value when there is one).
        stderr: Standard error (``console.error``, uncaught exceptions, limit errors).
        exit_code: 0 on success, 1 for an uncaught exception, 124 for a timeout.
        return_value: The value the code returned, decoded from JSON (None if none).
        error: A one-line description of the failure, or None.
        error_kind: ``exception``, ``timeout``, ``deadlock``, ``stack_overflow``, ... or None.
        tool_calls: Every tool call the execution made, in order.
        duration_ms: Wall-clock time of the execution.
    """

    stdout: str
    stderr: str
    exit_code: int
    return_value: Any = None
    error: str | None = None
    error_kind: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    duration_ms: float = 0.0

    @property
    def ok(self) -> bool:
        """Whether the execution succeeded (exit code 0)."""
        return self.exit_code == 0

    def text(self) -> str:
        """What a model should read: stdout, then stderr, then the exit code if non-zero."""
        text = self.stdout + self.stderr
        if self.exit_code != 0 and not self.stderr:
            text += f"[exit code {self.exit_code}]\n"
        return text

    def __str__(self) -> str:
        """The result as a model reads it: :meth:`text`.

        >>> print(ExecutionResult(stdout="", stderr="Error: boom\\n", exit_code=1))
        Error: boom
        <BLANKLINE>
        """
        return self.text()

    def __contains__(self, item: str) -> bool:
        """Whether ``item`` occurs in :meth:`text` (``"hello" in result``)."""
        return item in self.text()

    def __getattr__(self, name: str) -> Any:
        """The methods of ``str`` apply to :meth:`text` (``result.strip()``,
        ``result.splitlines()``), as when ``execute()`` returned text (amla-sandbox's form)."""
        if name.startswith("_") or not callable(getattr(str, name, None)):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self.text(), name)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-able data (tool results that are not JSON become strings
        when serialised)."""
        # What asdict() gives, without its recursive walk over every field (a measurable part
        # of a trivial execution): only the returned value can hold mutable data to copy.
        data = {field.name: getattr(self, field.name) for field in _RESULT_FIELDS}
        data["return_value"] = copy.deepcopy(self.return_value)
        data["tool_calls"] = [
            {field.name: getattr(call, field.name) for field in _CALL_FIELDS}
            for call in self.tool_calls
        ]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExecutionResult:
        """The inverse of :meth:`to_dict`."""
        calls = tuple(ToolCall(**call) for call in data.get("tool_calls", ()))
        return cls(**{**data, "tool_calls": calls})


_RESULT_FIELDS = fields(ExecutionResult)
_CALL_FIELDS = fields(ToolCall)
