"""Answering a batch of tool calls: the one place where a call is checked, approved and run.

For each host operation the guest issued: the canonical name must be a known tool, the
arguments must fit its schema, the :class:`~corral.capabilities.Authorizer` must allow it,
and, when its capability requires it, the approver must say yes. Only then does the tool run.
Sync tools run in turn on the caller's thread; async tools run concurrently, bounded by the
execution's deadline. ``asyncio`` is imported only when a batch has async work, and the result
encoders at the first result: a sandbox that calls no tool never pays for them (together a
fifth of ``import corral`` in a fresh process).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import math
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from . import _json
from .audit import now
from .capabilities import Authorizer, CapabilityError
from .protocol import CallErrorKind, Cancel, HostOp, OpResult
from .results import ErrorKind, ToolCall
from .runtime import get_backend
from .tools import ToolArgumentError, ToolDefinition, acall_tool, call_tool, validate_arguments
from .tools._validate import quick_check

__all__ = [
    "ApprovalRequest",
    "Approver",
    "CallDispatcher",
    "Timers",
    "ToolHandler",
    "run_coroutine",
]

CANCELLED = "cancelled: the execution's time limit passed while the tool ran"
DEADLINE_EVERY = 64
"""A batch's calls are decided (decoded, validated, authorized: ~60 us each) this many at a
time between looks at the clock: a batch of 50,000 calls must not hold an execution 3 s past
its deadline."""
ToolHandler = Callable[[str, dict[str, Any]], Any]
"""``handler(name, params)`` (sync or async) for tools that have no Python function."""


@dataclass(frozen=True)
class ApprovalRequest:
    """A call waiting for a human (or policy) to approve it.

    Attributes:
        method: The canonical tool name.
        params: The arguments the guest passed.
        rule: The capability that allows the call, pending approval.
    """

    method: str
    params: dict[str, Any]
    rule: str


Approver = Callable[[ApprovalRequest], Any]
"""``approve(request) -> bool`` (or an awaitable of bool); anything but True refuses."""


class _Pending:
    """A call that passed the checks and is about to run (slotted, its ``__init__`` written
    out: every call makes one)."""

    __slots__ = ("needs_approval", "op", "params", "rule", "timestamp", "tool")

    def __init__(  # noqa: PLR0917 - positional, as the dataclass it was
        self,
        op: HostOp,
        tool: ToolDefinition,
        params: dict[str, Any],
        rule: str,
        timestamp: float,
        needs_approval: bool = False,
    ) -> None:
        self.op, self.tool, self.params, self.rule = op, tool, params, rule
        self.timestamp, self.needs_approval = timestamp, needs_approval


class Timers:
    """The sleeps of one execution that the guest still waits for (``setTimeout``, the shell's
    ``sleep``), by op id: when each ends, on the monotonic clock. A sleep is answered when it
    ends, not with the batch it came in, so a short timer never waits for a long one and a
    tool result never waits for a timer (``Promise.race([tool(), timeout(5000)])``)."""

    __slots__ = ("due",)

    def __init__(self) -> None:
        self.due: dict[int, float] = {}

    def add(self, ops: Sequence[HostOp]) -> None:
        """Start the sleeps among ``ops``."""
        now = time.monotonic()
        for op in ops:
            if op.kind == "sleep":
                self.due[op.id] = now + op.ms / 1000

    def wait(self, answering: bool, deadline: float) -> tuple[float, bool]:
        """How long to wait before answering (nothing when there are results to give, else
        until the first sleep ends), and whether that ends before ``deadline``."""
        if answering or not self.due:
            return 0.0, True
        now = time.monotonic()
        wait = max(0.0, min(self.due.values()) - now)
        remaining = max(0.0, deadline - now)
        return min(wait, remaining), wait <= remaining

    def take_ended(self) -> list[OpResult]:
        """The answers to the sleeps that have ended, earliest first (so timers fire in
        order)."""
        if not self.due:
            return []
        now = time.monotonic()
        ended = sorted((due, op_id) for op_id, due in self.due.items() if due <= now)
        for _, op_id in ended:
            del self.due[op_id]
        return [OpResult(op_id, ok=b"null") for _, op_id in ended]


class _Batch:
    """The answers for one batch of host operations, filled in as calls finish."""

    __slots__ = ("records", "results")

    def __init__(self) -> None:
        self.results: dict[int, OpResult] = {}
        self.records: dict[int, ToolCall] = {}


class CallDispatcher:
    """Checks and runs the tool calls of one sandbox."""

    def __init__(
        self,
        tools: Mapping[str, ToolDefinition],
        authorizer: Authorizer,
        handler: ToolHandler | None,
        approver: Approver | None,
        max_result: int,
    ) -> None:
        self.tools = tools
        self.authorizer = authorizer
        self.handler = handler
        self.approver = approver
        self.max_result = max_result
        # Checked before every call: a reason to deny all calls now (an expired token).
        self.gate: Callable[[], str | None] | None = None
        self._quick_checks: dict[str, tuple[ToolDefinition, Callable[[object], bool]]] = {}

    timers = Timers
    """A new execution's :class:`Timers` (for the sandbox, which imports this module only once
    it needs it: an import statement per execution cost ~1 µs)."""

    # --- one batch ----------------------------------------------------------------------

    def dispatch_sync(
        self, ops: Sequence[HostOp], deadline: float, timers: Timers
    ) -> tuple[list[OpResult] | Cancel, list[ToolCall]]:
        """Answer ``ops`` (and the execution's sleeps that have ended) from sync code; async
        tools run on a private event loop."""
        batch = _Batch()
        timers.add(ops)
        calls = self._check_all(ops, batch, deadline)
        sync_calls: list[_Pending] = []
        async_calls: list[_Pending] = []
        for call in calls:
            (async_calls if self._is_async(call) else sync_calls).append(call)
        for call in sync_calls:
            if time.monotonic() >= deadline:
                break  # the rest are recorded as cancelled, and the execution ends
            self._invoke_sync(call, batch)
        finished = not async_calls or run_coroutine(
            lambda: self._run_concurrently(async_calls, batch, deadline)
        )
        wait, fits = timers.wait(bool(batch.results), deadline)
        if finished and wait > 0:
            get_backend().sleep(wait)
        return self._answer(ops, calls, batch, finished and fits, deadline, timers)

    async def dispatch_async(
        self, ops: Sequence[HostOp], deadline: float, timers: Timers
    ) -> tuple[list[OpResult] | Cancel, list[ToolCall]]:
        """Answer ``ops`` (and the execution's sleeps that have ended) on the running event
        loop."""
        batch = _Batch()
        timers.add(ops)
        calls = self._check_all(ops, batch, deadline)
        finished = await self._run_concurrently(calls, batch, deadline)
        wait, fits = timers.wait(bool(batch.results), deadline)
        if finished and wait > 0:
            import asyncio

            await asyncio.sleep(wait)
        return self._answer(ops, calls, batch, finished and fits, deadline, timers)

    async def _run_concurrently(
        self, calls: list[_Pending], batch: _Batch, deadline: float
    ) -> bool:
        """Run ``calls`` together; False when the execution's deadline passed first."""
        import asyncio

        remaining = max(0.0, deadline - time.monotonic())
        tasks = [self._invoke_async(call, batch) for call in calls]
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), timeout=remaining)
        except TimeoutError:
            return False
        return True

    @staticmethod
    def _answer(  # noqa: PLR0917 - one answer, many facts
        ops: Sequence[HostOp],
        calls: list[_Pending],
        batch: _Batch,
        finished: bool,
        deadline: float,
        timers: Timers,
    ) -> tuple[list[OpResult] | Cancel, list[ToolCall]]:
        """Every call's record (unfinished ones as cancelled) and the answer for the guest:
        the calls' results in the order they were issued, then the sleeps that have ended."""
        for call in calls:
            if call.op.id not in batch.records:
                batch.records[call.op.id] = _record(call, error=CANCELLED)
        records = [batch.records[op.id] for op in ops if op.id in batch.records]
        if not finished or time.monotonic() >= deadline:
            return Cancel(ErrorKind.TIMEOUT), records
        answers = [batch.results[op.id] for op in ops if op.id in batch.results]
        return answers + timers.take_ended(), records

    # --- checks -------------------------------------------------------------------------

    def _check_all(self, ops: Sequence[HostOp], batch: _Batch, deadline: float) -> list[_Pending]:
        """The calls among ``ops`` that may run. Deciding stops once ``deadline`` has passed
        (looked at every :data:`DEADLINE_EVERY` calls): the execution then ends as timed out,
        and the calls left undecided never ran and are not recorded."""
        calls = []
        for index, op in enumerate(ops):
            if index % DEADLINE_EVERY == 0 and index and time.monotonic() >= deadline:
                break
            call = self._check(op, batch)
            if call is not None:
                calls.append(call)
        return calls

    def _check(self, op: HostOp, batch: _Batch) -> _Pending | None:
        """Validate and authorize one call; on refusal record the answer and return None."""
        if op.kind == "sleep":
            return None  # not a tool call: answered by the Timers when it ends
        stamp = now()
        params, undecodable = _decode_arguments(op.args)
        tool = self.tools.get(op.tool)
        if tool is None:
            listing = ", ".join(self.tools) or "none"
            message = f"unknown tool {op.tool!r} (available: {listing})"
            _refuse(op, batch, params, stamp, CallErrorKind.TOOL, message, rule=message)
            return None
        try:
            if undecodable is not None:
                raise ToolArgumentError(tool.name, undecodable)
            if not self._quick_check(tool)(params):
                validate_arguments(tool, params, caller=op.caller)
        except ToolArgumentError as error:
            _refuse(op, batch, params, stamp, CallErrorKind.ARGUMENT, str(error), rule=str(error))
            return None
        closed = self.gate() if self.gate is not None else None
        if closed is not None:
            message = str(CapabilityError(op.tool, closed))
            _refuse(op, batch, params, stamp, CallErrorKind.CAPABILITY, message, rule=closed)
            return None
        decision = self.authorizer.admit(op.tool, params)  # charges unless approval is due
        if not decision.allowed:
            message = str(decision.error())
            _refuse(op, batch, params, stamp, CallErrorKind.CAPABILITY, message, rule=decision.rule)
            return None
        return _Pending(op, tool, params, decision.rule, stamp, decision.requires_approval)

    def _quick_check(self, tool: ToolDefinition) -> Callable[[object], bool]:
        """The tool's ``quick_check``, compiled at its first call
        (and again if the sandbox's tool of that name is replaced)."""
        known = self._quick_checks.get(tool.name)
        if known is None or known[0] is not tool:
            known = self._quick_checks[tool.name] = (tool, quick_check(tool))
        return known[1]

    def _approval_refused(self, call: _Pending, answer: Any) -> str | None:
        """Why an approved-or-not call may not run (None: it may), charging on approval."""
        if answer is not True:
            return "approval refused" if self.approver else "requires approval but no approver"
        decision = self.authorizer.authorize(call.op.tool, call.params)
        return None if decision.allowed else decision.rule

    def _deny_unapproved(self, call: _Pending, batch: _Batch, rule: str) -> None:
        message = str(CapabilityError(call.op.tool, rule))
        batch.results[call.op.id] = OpResult(
            call.op.id, error_kind=CallErrorKind.CAPABILITY, error=message
        )
        batch.records[call.op.id] = dataclasses.replace(
            _record(call, error=message), allowed=False, rule=rule
        )

    # --- running ------------------------------------------------------------------------

    def _is_async(self, call: _Pending) -> bool:
        approver_async = call.needs_approval and inspect.iscoroutinefunction(self.approver)
        if call.tool.func is not None:
            return call.tool.is_async or approver_async
        return inspect.iscoroutinefunction(self.handler) or approver_async

    def _invoke_sync(self, call: _Pending, batch: _Batch) -> None:
        if call.needs_approval:
            answer = self._ask(call)
            if inspect.isawaitable(answer):
                answer = run_coroutine(lambda: _awaitable(answer))
            refused = self._approval_refused(call, answer)
            if refused is not None:
                self._deny_unapproved(call, batch, refused)
                return
        started = time.perf_counter()
        try:
            if call.tool.func is not None:
                outcome = call_tool(call.tool, call.params, validated=True)
            else:
                assert self.handler is not None
                outcome = self.handler(call.tool.name, call.params)
        except Exception as error:  # noqa: BLE001 - a tool's failure goes back to the guest
            self._failed(call, batch, started, error)
        else:
            self._succeeded(call, batch, started, outcome)

    async def _invoke_async(self, call: _Pending, batch: _Batch) -> None:
        if call.needs_approval:
            answer = self._ask(call)
            if inspect.isawaitable(answer):
                answer = await answer
            refused = self._approval_refused(call, answer)
            if refused is not None:
                self._deny_unapproved(call, batch, refused)
                return
        started = time.perf_counter()
        try:
            if call.tool.func is not None:
                outcome = await acall_tool(call.tool, call.params, validated=True)
            else:
                assert self.handler is not None
                outcome = self.handler(call.tool.name, call.params)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
        except Exception as error:  # noqa: BLE001 - a tool's failure goes back to the guest
            self._failed(call, batch, started, error)
        else:
            self._succeeded(call, batch, started, outcome)

    def _ask(self, call: _Pending) -> Any:
        if self.approver is None:
            return False
        try:
            return self.approver(ApprovalRequest(call.op.tool, call.params, call.rule))
        except Exception:  # noqa: BLE001 - an approver that fails refuses (fail closed)
            return False

    def _succeeded(self, call: _Pending, batch: _Batch, started: float, outcome: Any) -> None:
        try:
            payload = _encode_result()(outcome)
        except Exception as error:  # noqa: BLE001 - what a tool returns never escapes
            self._failed(call, batch, started, error)
            return
        if len(payload) > self.max_result:
            too_big = ValueError(
                f"its result is {len(payload)} bytes of JSON, more than the sandbox's "
                f"{self.max_result}-byte memory limit; return less data"
            )
            self._failed(call, batch, started, too_big)
            return
        elapsed = (time.perf_counter() - started) * 1000
        batch.results[call.op.id] = OpResult(call.op.id, ok=payload)
        # The record holds what the guest saw (JSON), so results and replays compare equal.
        seen = outcome if _plain_json(outcome) else json.loads(payload)
        batch.records[call.op.id] = _record(
            call, result=seen, duration_ms=elapsed, result_size=len(payload)
        )

    @staticmethod
    def _failed(call: _Pending, batch: _Batch, started: float, error: BaseException) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        message = f"{call.op.tool} failed: {_describe(error)}"
        batch.results[call.op.id] = OpResult(
            call.op.id, error_kind=CallErrorKind.TOOL, error=message
        )
        batch.records[call.op.id] = _record(call, error=message, duration_ms=elapsed)


@functools.cache
def _encode_result() -> Callable[[Any], bytes]:
    """:func:`corral._tool_result.encode_result`, imported at the first result (its encoders
    pull in decimal, datetime and uuid), then kept (an import statement per call costs)."""
    from ._tool_result import encode_result

    return encode_result


def _describe(error: BaseException) -> str:
    """``ExceptionType: message``, even when the exception's ``__str__`` itself fails."""
    try:
        text = str(error)
    except Exception as failure:  # noqa: BLE001 - a broken exception is still a tool failure
        text = f"(its message cannot be shown: str() raised {type(failure).__name__})"
    return f"{type(error).__name__}: {text}"


def _decode_arguments(args: bytes) -> tuple[Any, str | None]:
    """A call's arguments, decoded strictly (no NaN, Infinity or overflowing numbers: they
    would slip past numeric constraints), or None and why they cannot be decoded."""
    try:
        return _json.loads(args), None
    except (ValueError, RecursionError) as error:
        return None, (
            f"the arguments are not valid JSON ({error}); pass plain JSON values (a replaced "
            "JSON.stringify cannot send NaN or Infinity)"
        )


_STR: Final = frozenset({str})
_SCALARS: Final = frozenset({str, int, bool, type(None)})  # floats are checked for finiteness


def _plain_json(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` is already exactly what JSON decoding would give (the common case)."""
    kind = type(value)
    if kind is dict and _STR.issuperset(map(type, value)):
        if _SCALARS.issuperset(map(type, value.values())):
            return True  # a flat object of plain values, the commonest result: all in C
    elif kind is list and _SCALARS.issuperset(map(type, value)):
        return True
    if value is None or isinstance(value, (str, bool, int)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if depth > 32:
        return False
    if isinstance(value, list):
        return all(_plain_json(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v, depth + 1) for k, v in value.items())
    return False


def _record(call: _Pending, **fields: Any) -> ToolCall:
    return ToolCall(
        method=call.op.tool,
        params=call.params,
        allowed=True,
        rule=call.rule,
        call_id=call.op.id,
        timestamp=call.timestamp,
        **fields,
    )


def _refuse(  # noqa: PLR0917 - one record, many facts
    op: HostOp,
    batch: _Batch,
    params: Any,
    stamp: float,
    kind: CallErrorKind,
    message: str,
    *,
    rule: str,
) -> None:
    batch.results[op.id] = OpResult(op.id, error_kind=kind, error=message)
    batch.records[op.id] = ToolCall(
        op.tool, params, False, rule, error=message, call_id=op.id, timestamp=stamp
    )


async def _awaitable(value: Awaitable[Any]) -> Any:
    return await value


def run_coroutine(make: Callable[[], Awaitable[Any]]) -> Any:
    """Run the awaitable ``make()`` builds to completion from sync code (how depends on the
    platform: see :meth:`corral.runtime.Backend.run_sync`)."""
    return get_backend().run_sync(make)
