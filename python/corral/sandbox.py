"""The public face of corral: :class:`Sandbox`, :class:`SandboxTool` and their factories.

A sandbox owns one guest instance. :meth:`Sandbox.execute` submits code, and whenever the guest
is blocked on tool calls, every call goes through the one host-side capability check
(:class:`~corral.capabilities.Authorizer`) before its Python function runs. Failures inside
the guest (an exception, a denied call, a timeout) are reported in the
:class:`ExecutionResult`, never raised.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._module import wasm_bytes
from .capabilities import Authorizer, MethodCapability, capabilities_from_dict
from .limits import Limits
from .protocol import Cancel, Driver, Execution, HostOp, OpResult, RawOutcome
from .runtime import get_backend
from .tools import (
    ToolArgumentError,
    ToolDefinition,
    acall_tool,
    call_tool,
    tool_from_function,
    validate_arguments,
)

__all__ = [
    "ExecutionResult",
    "Sandbox",
    "SandboxTool",
    "ToolCall",
    "ToolHandler",
    "create_bash_tool",
    "create_sandbox_tool",
]

LANGUAGES = {"javascript": "javascript", "js": "javascript"}
CANCELLED = "cancelled: the execution's time limit passed while the tool ran"
ToolHandler = Callable[[str, dict[str, Any]], Any | Awaitable[Any]]
"""``handler(name, params)`` for tools that have no Python function of their own."""
ToolLike = Callable[..., Any] | ToolDefinition | Mapping[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """One tool call made during an execution, allowed or not.

    Attributes:
        method: The canonical tool name.
        params: The arguments the guest passed.
        allowed: Whether the capability check allowed the call.
        rule: The rule that decided it (the denying rule, or the allowing capability).
        result: The tool's return value, when it ran and succeeded.
        error: Why the call failed (denial, bad arguments, or the tool's exception).
        duration_ms: Time spent in the tool.
    """

    method: str
    params: Any
    allowed: bool
    rule: str
    result: Any = None
    error: str | None = None
    duration_ms: float = 0.0


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


@dataclass
class _Pending:
    """A call that passed every check and is about to run."""

    op: HostOp
    tool: ToolDefinition
    params: dict[str, Any]
    rule: str


@dataclass
class _Batch:
    """The answers for one batch of host operations, filled in as calls finish."""

    results: dict[int, OpResult] = field(default_factory=dict)
    records: dict[int, ToolCall] = field(default_factory=dict)

    def ordered(self, ops: Sequence[HostOp]) -> list[OpResult]:
        return [self.results[op.id] for op in ops]


def _json_default(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    dump = getattr(value, "model_dump", None)  # pydantic models
    if callable(dump):
        return dump()
    return str(value)


class Sandbox:
    """A WebAssembly sandbox that runs JavaScript and lets it call only the tools you give it.

    Args:
        tools: Python functions (sync or async), :class:`~corral.tools.ToolDefinition` objects,
            or dicts with ``name``, ``description`` and ``parameters`` (served by
            ``tool_handler``).
        capabilities: What the code may call. When omitted, each tool gets one unconstrained
            capability; when given, only these apply (deny by default).
        tool_handler: ``handler(name, params)`` (sync or async) for tools without a function.
        limits: Resource limits; see :class:`~corral.limits.Limits`.

    >>> def add(a: int, b: int) -> int:
    ...     '''Add two numbers.'''
    ...     return a + b
    >>> sandbox = Sandbox(tools=[add])
    >>> sandbox.execute("return await add({a: 2, b: 3})").return_value
    5
    """

    def __init__(
        self,
        tools: Iterable[ToolLike] | None = None,
        capabilities: Iterable[MethodCapability] | None = None,
        tool_handler: ToolHandler | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.limits = limits or Limits()
        self.tools: dict[str, ToolDefinition] = {}
        for tool in map(_definition, tools or ()):
            if tool.name in self.tools:
                raise ValueError(f"two tools are named {tool.name!r}; tool names must be unique")
            self.tools[tool.name] = tool
        missing = [t.name for t in self.tools.values() if t.func is None and tool_handler is None]
        if missing:
            raise ValueError(f"tools {missing} have no function: pass tool_handler=...")
        self.tool_handler = tool_handler
        caps = (
            [MethodCapability(name) for name in self.tools]
            if capabilities is None
            else list(capabilities)
        )
        self.authorizer = Authorizer(caps)
        backend = get_backend()
        config = {
            "tools": [t.to_json() for t in self.tools.values()],
            "limits": self.limits.to_guest(),
        }
        self._driver = Driver(backend, backend.load(wasm_bytes()), config, self.limits.wasm_memory)
        self._lock = threading.Lock()

    # --- running code ---------------------------------------------------------------------

    def execute(
        self, code: str, language: str = "javascript", stdin: str | bytes | None = None
    ) -> ExecutionResult:
        """Run ``code`` to completion and return what it produced (never raises for guest
        failures). Async tools run concurrently when the code issues them together."""
        with self._lock:
            started = time.perf_counter()
            deadline = time.monotonic() + self.limits.timeout
            run, records = self._start(code, language, stdin)
            try:
                ops = next(run)
                while True:
                    ops = run.send(self._dispatch_sync(ops, records, deadline))
            except StopIteration as stop:
                return _result(stop.value, records, started)

    async def aexecute(
        self, code: str, language: str = "javascript", stdin: str | bytes | None = None
    ) -> ExecutionResult:
        """Like :meth:`execute`, awaiting async tools on the running event loop."""
        with self._lock:
            started = time.perf_counter()
            deadline = time.monotonic() + self.limits.timeout
            run, records = self._start(code, language, stdin)
            try:
                ops = next(run)
                while True:
                    ops = run.send(await self._dispatch_async(ops, records, deadline))
            except StopIteration as stop:
                return _result(stop.value, records, started)

    def _start(
        self, code: str, language: str, stdin: str | bytes | None
    ) -> tuple[Execution, list[ToolCall]]:
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, not {type(code).__name__}")
        lang = LANGUAGES.get(language.lower())
        if lang is None:
            raise ValueError(
                f"unsupported language {language!r}: use language='javascript' (the shell "
                "arrives in a later version)"
            )
        data = stdin.encode() if isinstance(stdin, str) else stdin
        return self._driver.run(lang, code, data, self.limits.timeout), []

    # --- tool calls -----------------------------------------------------------------------

    def _check(self, op: HostOp, batch: _Batch) -> _Pending | None:
        """Validate and authorize one call; on refusal record the answer and return None."""
        try:
            params = json.loads(op.args)
        except ValueError:
            params = None
        tool = self.tools.get(op.tool)
        if tool is None:
            listing = ", ".join(self.tools) or "none"
            message = f"unknown tool {op.tool!r} (available: {listing})"
            return self._refuse(op, batch, params, "tool", message, rule=message)
        try:
            validate_arguments(tool, params)
        except ToolArgumentError as error:
            return self._refuse(op, batch, params, "argument", str(error), rule=str(error))
        decision = self.authorizer.authorize(op.tool, params)
        if not decision.allowed:
            message = str(decision.error())
            return self._refuse(op, batch, params, "capability", message, rule=decision.rule)
        return _Pending(op, tool, params, decision.rule)

    @staticmethod
    def _refuse(
        op: HostOp, batch: _Batch, params: Any, kind: str, message: str, *, rule: str
    ) -> None:
        batch.results[op.id] = OpResult(op.id, error_kind=kind, error=message)
        batch.records[op.id] = ToolCall(op.tool, params, False, rule, error=message)

    def _succeeded(self, call: _Pending, batch: _Batch, started: float, outcome: Any) -> None:
        try:
            payload = json.dumps(outcome, default=_json_default, ensure_ascii=False).encode()
        except (TypeError, ValueError) as error:  # e.g. a circular structure
            self._failed(call, batch, started, error)
            return
        if len(payload) > self.limits.memory:
            too_big = ValueError(
                f"its result is {len(payload)} bytes of JSON, more than the sandbox's "
                f"{self.limits.memory}-byte memory limit; return less data"
            )
            self._failed(call, batch, started, too_big)
            return
        elapsed = (time.perf_counter() - started) * 1000
        batch.results[call.op.id] = OpResult(call.op.id, ok=payload)
        batch.records[call.op.id] = ToolCall(
            call.op.tool, call.params, True, call.rule, outcome, None, elapsed
        )

    @staticmethod
    def _failed(call: _Pending, batch: _Batch, started: float, error: BaseException) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        message = f"{call.op.tool} failed: {type(error).__name__}: {error}"
        batch.results[call.op.id] = OpResult(call.op.id, error_kind="tool", error=message)
        batch.records[call.op.id] = ToolCall(
            call.op.tool, call.params, True, call.rule, None, message, elapsed
        )

    def _is_async(self, call: _Pending) -> bool:
        if call.tool.func is not None:
            return call.tool.is_async
        return inspect.iscoroutinefunction(self.tool_handler)

    def _invoke_sync(self, call: _Pending, batch: _Batch) -> None:
        started = time.perf_counter()
        try:
            if call.tool.func is not None:
                outcome = call_tool(call.tool, call.params, validated=True)
            else:
                assert self.tool_handler is not None
                outcome = self.tool_handler(call.tool.name, call.params)
        except Exception as error:  # noqa: BLE001 - a tool's failure goes back to the guest
            self._failed(call, batch, started, error)
        else:
            self._succeeded(call, batch, started, outcome)

    async def _invoke_async(self, call: _Pending, batch: _Batch) -> None:
        started = time.perf_counter()
        try:
            if call.tool.func is not None:
                outcome = await acall_tool(call.tool, call.params, validated=True)
            else:
                assert self.tool_handler is not None
                outcome = self.tool_handler(call.tool.name, call.params)
                if inspect.isawaitable(outcome):
                    outcome = await outcome
        except Exception as error:  # noqa: BLE001 - a tool's failure goes back to the guest
            self._failed(call, batch, started, error)
        else:
            self._succeeded(call, batch, started, outcome)

    def _dispatch_sync(
        self, ops: list[HostOp], records: list[ToolCall], deadline: float
    ) -> list[OpResult] | Cancel:
        batch = _Batch()
        calls = [call for op in ops if (call := self._check(op, batch)) is not None]
        async_calls = [call for call in calls if self._is_async(call)]
        for call in calls:
            if call not in async_calls:
                self._invoke_sync(call, batch)
        finished = not async_calls or _run_coroutine(
            lambda: self._run_concurrently(async_calls, batch, deadline)
        )
        return _answer(ops, calls, batch, records, finished)

    async def _dispatch_async(
        self, ops: list[HostOp], records: list[ToolCall], deadline: float
    ) -> list[OpResult] | Cancel:
        batch = _Batch()
        calls = [call for op in ops if (call := self._check(op, batch)) is not None]
        finished = await self._run_concurrently(calls, batch, deadline)
        return _answer(ops, calls, batch, records, finished)

    async def _run_concurrently(
        self, calls: list[_Pending], batch: _Batch, deadline: float
    ) -> bool:
        """Run ``calls`` together; False when the execution's deadline passed first."""
        remaining = max(0.0, deadline - time.monotonic())
        tasks = [self._invoke_async(call, batch) for call in calls]
        try:
            await asyncio.wait_for(asyncio.gather(*tasks), timeout=remaining)
        except TimeoutError:
            return False
        return True

    # --- capabilities ---------------------------------------------------------------------

    def can_call(self, method: str, params: Mapping[str, Any]) -> bool:
        """Whether a call of ``method`` with ``params`` would be allowed now (no budget used)."""
        return self.authorizer.can_call(method, params)

    def remaining_calls(self) -> dict[str, int | None]:
        """Calls left per capability pattern (None means unlimited)."""
        return self.authorizer.remaining_calls()


def _answer(
    ops: list[HostOp],
    calls: list[_Pending],
    batch: _Batch,
    records: list[ToolCall],
    finished: bool,
) -> list[OpResult] | Cancel:
    """Record every call of the batch (unfinished ones as cancelled) and answer the guest."""
    for call in calls:
        if call.op.id not in batch.records:
            batch.records[call.op.id] = ToolCall(
                call.op.tool, call.params, True, call.rule, error=CANCELLED
            )
    records.extend(batch.records[op.id] for op in ops)
    return batch.ordered(ops) if finished else Cancel("timeout")


def _definition(tool: ToolLike) -> ToolDefinition:
    if isinstance(tool, ToolDefinition):
        return tool
    if isinstance(tool, Mapping):
        return ToolDefinition(
            name=tool["name"],
            description=tool.get("description", ""),
            parameters=dict(tool.get("parameters") or {"type": "object", "properties": {}}),
        )
    if callable(tool):
        return tool_from_function(tool)
    raise TypeError(f"a tool must be a function, a ToolDefinition or a dict, not {tool!r}")


def _run_coroutine(make: Callable[[], Awaitable[Any]]) -> Any:
    """Run the awaitable ``make()`` builds to completion from sync code, on a fresh event loop
    (in a helper thread when this thread already runs a loop)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(make))
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = asyncio.run(_awaited(make))
        except BaseException as error:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = error

    thread = threading.Thread(target=target, name="corral-tools")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


async def _awaited(make: Callable[[], Awaitable[Any]]) -> Any:
    return await make()


def _result(raw: RawOutcome, records: list[ToolCall], started: float) -> ExecutionResult:
    value = None
    if raw.value is not None:
        value = json.loads(raw.value)
    return ExecutionResult(
        stdout=raw.stdout.decode("utf-8", "replace"),
        stderr=raw.stderr.decode("utf-8", "replace"),
        exit_code=raw.exit_code,
        return_value=value,
        error=raw.error,
        error_kind=raw.error_kind,
        tool_calls=tuple(records),
        duration_ms=(time.perf_counter() - started) * 1000,
    )


class SandboxTool:
    """A sandbox packaged as one tool for an agent: the model passes code, gets text back.

    ``run`` returns what a model should read: stdout, then stderr, then the exit code when it
    is non-zero (see :meth:`ExecutionResult.text`).
    """

    name = "sandbox"

    def __init__(self, sandbox: Sandbox, language: str = "javascript") -> None:
        self.sandbox = sandbox
        self.language = language

    @classmethod
    def from_functions(
        cls,
        functions: Iterable[ToolLike],
        capabilities: Iterable[MethodCapability] | None = None,
        limits: Limits | None = None,
        tool_handler: ToolHandler | None = None,
    ) -> SandboxTool:
        """A sandbox tool whose code can call ``functions``, under ``capabilities``."""
        return cls(Sandbox(functions, capabilities, tool_handler, limits))

    def run(self, code: str, language: str | None = None) -> str:
        """Execute ``code`` and return its output as text."""
        return self.sandbox.execute(code, language or self.language).text()

    async def arun(self, code: str, language: str | None = None) -> str:
        """Async :meth:`run`."""
        return (await self.sandbox.aexecute(code, language or self.language)).text()

    @property
    def description(self) -> str:
        """A description of the tool for the model, listing the functions it can call."""
        lines = [
            "Run JavaScript in an isolated sandbox. The code is the body of an async function: "
            "use await, print with console.log, and `return` a value to output it. "
            "No network, no require(); call these async functions (one object argument each):",
        ]
        for tool in self.sandbox.tools.values():
            props = tool.parameters.get("properties", {})
            fields = ", ".join(f"{k}: {v.get('type', 'any')}" for k, v in props.items())
            summary = f" - {tool.description}" if tool.description else ""
            lines.append(f"  await {tool.js_name}({{{fields}}}){summary}")
        return "\n".join(lines)

    @property
    def parameters(self) -> dict[str, Any]:
        """JSON Schema of this tool's own arguments (``code``, and ``language``)."""
        return {
            "type": "object",
            "properties": {
                "code": {"type": "string", "description": "The JavaScript to run."},
                "language": {"type": "string", "enum": ["javascript"]},
            },
            "required": ["code"],
            "additionalProperties": False,
        }


def create_sandbox_tool(
    tools: Iterable[ToolLike] | None = None,
    constraints: Mapping[str, Mapping[str, Any]] | None = None,
    max_calls: Mapping[str, int] | int | None = None,
    limits: Limits | None = None,
    tool_handler: ToolHandler | None = None,
) -> SandboxTool:
    """A :class:`SandboxTool` over ``tools`` with constraints in the compact dict form.

    ``constraints`` maps a tool name to ``{param: spec}`` where a spec is ``"<=1000"``,
    ``">=N"``, ``"<N"``, ``">N"``, ``"==X"``, ``"!=X"``, ``"startswith:X"``, ``"endswith:X"``,
    ``"contains:X"``, ``"regex:X"``, a list (membership) or a bare value (equality);
    ``max_calls`` maps a tool name to its budget (or is one budget for every tool). A spec
    that is not understood raises ``ValueError`` here, never later.

    >>> def get_weather(city: str) -> dict:
    ...     '''Get weather for a city.'''
    ...     return {"city": city, "temp": 72}
    >>> sandbox = create_sandbox_tool(tools=[get_weather])
    >>> sandbox.run("return (await get_weather({city: 'SF'})).temp")
    '72'
    """
    definitions = [_definition(t) for t in tools or ()]
    caps = capabilities_from_dict([t.name for t in definitions], constraints, max_calls)
    return SandboxTool(Sandbox(definitions, caps, tool_handler, limits))


def create_bash_tool(
    tools: Iterable[ToolLike] | None = None,
    constraints: Mapping[str, Mapping[str, Any]] | None = None,
    max_calls: Mapping[str, int] | int | None = None,
    limits: Limits | None = None,
    tool_handler: ToolHandler | None = None,
) -> SandboxTool:
    """The code-mode tool agents get by default; same arguments as :func:`create_sandbox_tool`.

    Today it runs JavaScript; once the guest's shell lands, ``run`` without a language will
    choose between the shell and JavaScript by a documented rule.
    """
    return create_sandbox_tool(tools, constraints, max_calls, limits, tool_handler)
