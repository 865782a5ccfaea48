"""What an execution returns: :class:`ExecutionResult` and its :class:`ToolCall` records."""

from __future__ import annotations

from . import _lazy_names
from ._record import Record, values

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from typing import Any

    from ._error_kinds import ErrorKind

__all__ = ["ErrorKind", "ExecutionResult", "ToolCall", "timeout_message"]


def timeout_message(timeout: float, how: str = "was stopped") -> str:
    """The error of an execution that ran past its ``timeout`` (seconds); ``how`` says how it
    ended. The guest writes the same message when it stops the code itself.

    >>> print(timeout_message(0.5))
    TimeoutError: execution exceeded the 0.5 s time limit and was stopped; do less work per
    execution or raise Limits(timeout=...)
    """
    return (
        f"TimeoutError: execution exceeded the {timeout:g} s time limit and {how}; do less work "
        "per execution or raise Limits(timeout=...)"
    )


class ToolCall(Record, frozen=True):
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


class ExecutionResult(Record, frozen=True):
    """What one execution produced.

    Attributes:
        stdout: Standard output (``console.log``, and the returned value when there is one).
        stderr: Standard error (``console.error``, uncaught exceptions, limit errors).
        exit_code: 0 on success, else the :attr:`ErrorKind.exit_code` of ``error_kind`` (1,
            or 124 for a timeout), or the shell script's own exit status.
        return_value: The value the code returned, decoded from JSON (None if none).
        error: A one-line description of the failure, or None.
        error_kind: How the execution failed (an :class:`ErrorKind`, a ``str``), or None.
        tool_calls: Every tool call the execution made, in order.
        duration_ms: Wall-clock time of the execution.
    """

    stdout: str
    stderr: str
    exit_code: int
    return_value: Any = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    duration_ms: float = 0.0

    def __init__(  # noqa: PLR0917 - positional, as the dataclass it was
        self,
        stdout: str,
        stderr: str,
        exit_code: int,
        return_value: Any = None,
        error: str | None = None,
        error_kind: ErrorKind | None = None,
        tool_calls: tuple[ToolCall, ...] = (),
        duration_ms: float = 0.0,
    ) -> None:
        # Written out, not compiled from the fields (see corral._record): every execution
        # makes one; tests/test_records.py checks it against the fields.
        _set = object.__setattr__
        _set(self, "stdout", stdout)
        _set(self, "stderr", stderr)
        _set(self, "exit_code", exit_code)
        _set(self, "return_value", return_value)
        _set(self, "error", error)
        _set(self, "error_kind", error_kind)
        _set(self, "tool_calls", tool_calls)
        _set(self, "duration_ms", duration_ms)

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
        import copy  # here, not at the top: a fresh process's first sandbox skips it

        data = values(self)
        data["return_value"] = copy.deepcopy(self.return_value)
        data["tool_calls"] = [values(call) for call in self.tool_calls]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExecutionResult:
        """The inverse of :meth:`to_dict`."""
        calls = tuple(ToolCall(**call) for call in data.get("tool_calls", ()))
        kind = data.get("error_kind")
        return cls(
            **{**data, "tool_calls": calls, "error_kind": None if kind is None else ErrorKind(kind)}
        )


# ErrorKind is made on first use (see corral._error_kinds).
__getattr__, __dir__ = _lazy_names(globals(), {"_error_kinds": ("ErrorKind",)})
