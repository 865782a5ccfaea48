"""The sandbox: one guest instance, its tools, its authority, its audit trail and its trace.

:meth:`Sandbox.execute` submits code; whenever the guest is blocked on tool calls, each call
goes through the one host-side check point (:mod:`corral._calls`) before its Python function
runs. Failures inside the guest (an exception, a denied call, a timeout) are reported in the
:class:`~corral.results.ExecutionResult`, never raised. Everything that enters the guest is
recorded, so :func:`replay` can run any execution again, exactly.

A sandbox owns its guest instance: :meth:`Sandbox.close` (or the end of a ``with`` block)
releases it at once, and so does dropping the last reference (nothing in the sandbox refers
back to it, so no garbage-collector cycle keeps it alive).
"""

from __future__ import annotations

import os
import struct
import time
import weakref
from contextvars import ContextVar

from . import _json, _lean
from ._module import wasm_file
from ._record import _MISSING, Record, field
from ._wasi import Entropy, WasiShim
from .audit import AuditLog, AuditRecord, now
from .limits import Limits
from .protocol import Driver, Execution, SandboxClosedError
from .results import ExecutionResult
from .runtime import get_backend
from .trace import Cursor, Recorder, ReplayDivergence, Trace, check_ops, decode_answer
from .trace import fixed_entropy as _fixed_entropy

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:  # loaded on first use: a sandbox without tools or authority never needs them
    from collections.abc import Callable, Iterable, Mapping
    from pathlib import Path
    from typing import IO, Any

    from ._calls import Approver, CallDispatcher, Timers, ToolHandler
    from .audit import AuditCollector, AuditConfig, Redactor
    from .capabilities import Authorizer, MethodCapability
    from .fs import SandboxFS
    from .protocol import HostOp, RawOutcome
    from .results import ToolCall
    from .tokens import CapabilityToken
    from .tools import ToolDefinition, ToolLike

__all__ = ["Sandbox", "replay", "replay_all"]

LANGUAGES = {
    "javascript": "javascript",
    "js": "javascript",
    "shell": "shell",
    "bash": "shell",
    "sh": "shell",
    "auto": "auto",
}
REPLAY_BACKSTOP_FACTOR = 10.0
SNAPSHOT_MAGIC = b"CORRAL-SNAPSHOT-1\n"
MUTATING_REQUESTS = {
    "write",
    "append",
    "mkdir",
    "remove",
    "restore",
    "shell_reset",
    "shell_restore",
}
_EXECUTING: ContextVar[frozenset[int]] = ContextVar("corral_executing", default=frozenset())
"""The ids of the sandboxes whose execution this context runs in (its tools see it)."""


def _language(language: object) -> str:
    """``language`` checked and canonical (``javascript``, ``shell`` or ``auto``)."""
    if not isinstance(language, str):
        raise TypeError(
            f"language must be a str ('javascript', 'shell' or 'auto'), not {language!r}"
        )
    lang = LANGUAGES.get(language.lower())
    if lang is None:
        raise ValueError(
            f"unsupported language {language!r}: use 'javascript', 'shell' (or 'bash'), or 'auto'"
        )
    return lang


class _Run(Record):
    """The bookkeeping of the execution in flight."""

    run: Execution
    execution_id: int
    started: float
    deadline: float
    records: list[ToolCall] = field(default_factory=list)

    def __init__(
        self,
        run: Execution,
        execution_id: int,
        started: float,
        deadline: float,
        records: list[ToolCall] = _MISSING,
    ) -> None:
        # Written out, not compiled (see corral._record): a first sandbox makes one.
        self.run, self.execution_id, self.started = run, execution_id, started
        self.deadline = deadline
        self.records = [] if records is _MISSING else records


class Sandbox:
    """A WebAssembly sandbox that runs JavaScript and lets it call only the tools you give it.

    Args:
        tools: Python functions (sync or async), :class:`~corral.tools.ToolDefinition` objects,
            or dicts with ``name``, ``description`` and ``parameters`` (served by
            ``tool_handler``).
        capabilities: What the code may call. When omitted (and no ``token``), each tool gets
            one unconstrained capability; when given, only these apply (deny by default).
        tool_handler: ``handler(name, params)`` (sync or async) for tools without a function.
        limits: Resource limits; see :class:`~corral.limits.Limits`.
        token: A :class:`~corral.tokens.CapabilityToken` (or its serialised form) whose
            authority the sandbox enforces instead of ``capabilities``; needs ``key``.
        key: The root key that verifies ``token``; with ``capabilities`` instead, the sandbox
            mints a root token with it, so that :meth:`delegate` can narrow it.
        approve: ``approve(request) -> bool`` (sync or async), asked before every call whose
            capability has ``requires_approval=True``; a refusal is a denial.
        max_calls: A budget of tool calls for the whole sandbox.
        max_calls_per_tool: A budget per canonical tool name.
        audit_sink: A path or text file that receives the audit trail as JSON lines.
        redact: ``redact(method, params) -> params`` applied before parameters are audited.
        audit_config: Collect the trail as :class:`~corral.audit.AuditEntry` objects with
            these correlation ids, custom fields and JSONL file (:attr:`audit_collector`).
        seed: Seed the guest's random numbers (``Math.random``) for deterministic runs.
        clock: Start the guest's clock at this unix time, advancing 1 ms per reading.
        record: Keep a :attr:`trace` for :func:`replay` (on by default).
        sandbox_id: This sandbox's id (default: a random one); a token bound to a sandbox
            only works in the sandbox with that id.
        mcp_servers: MCP servers whose tools the code may call, as ``PREFIX/TOOL`` (a list,
            each prefixed with its own name, or a mapping ``{prefix: server}``); see
            :mod:`corral.integrations.mcp_client`. Their sessions end with the sandbox.

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
        *,
        token: CapabilityToken | str | None = None,
        key: bytes | None = None,
        approve: Approver | None = None,
        max_calls: int | None = None,
        max_calls_per_tool: Mapping[str, int] | None = None,
        audit_sink: str | Path | IO[str] | AuditLog | None = None,
        redact: Redactor | None = None,
        audit_config: AuditConfig | None = None,
        seed: int | None = None,
        clock: float | None = None,
        record: bool = True,
        sandbox_id: str | None = None,
        mcp_servers: Iterable[Any] | Mapping[str, Any] | None = None,
    ) -> None:
        self.id = sandbox_id or os.urandom(16).hex()
        self.limits = limits or Limits()
        # Run by close() (and when the sandbox is collected): each releases what it holds.
        self._on_close: list[Callable[[], Any]] = []
        if mcp_servers:
            from .integrations.mcp_client import MCPTools

            connected = MCPTools(mcp_servers)
            self._on_close.append(weakref.finalize(self, connected.close))
            tools = [*(tools or ()), *connected]
        # The tools machinery, capabilities and tokens load only when they are used: a
        # first Sandbox() without them spends no time importing them (issue 14).
        self.tools: dict[str, ToolDefinition] = {}
        if tools:
            from .tools import tool_table

            self.tools = tool_table(tools, tool_handler)
        self._key = key
        self.token = _authority(self.id, self.tools, capabilities, token, key)
        caps = self.token.verify(key, sandbox_id=self.id) if self.token and key else None
        if caps is None:
            caps = _default_capabilities(self.tools, capabilities)
        self._authorizer: Authorizer | None = None
        if caps or max_calls is not None or max_calls_per_tool is not None:
            from .capabilities import Authorizer

            self._authorizer = Authorizer(caps, max_calls, max_calls_per_tool)
        self._tool_handler = tool_handler
        self._approve = approve
        self._made_dispatcher: CallDispatcher | None = None  # see _dispatcher
        self._log = audit_sink if isinstance(audit_sink, AuditLog) else AuditLog(audit_sink, redact)
        self.audit_collector = _collector(audit_config)
        """The :class:`~corral.audit.AuditCollector` made from ``audit_config``, or None."""
        if self.audit_collector is not None:
            self._log.subscribe(self.audit_collector.collect)
            self._on_close.append(self.audit_collector.close)
        entropy = (
            Entropy.system() if seed is None and clock is None else _fixed_entropy(seed, clock)
        )
        config: dict[str, Any] = {
            "tools": [t.to_json() for t in self.tools.values()],
            "limits": self.limits.to_guest(),
        }
        if self.tools:
            from .tools import DECLARATIONS_PATH, declarations_file

            dts = declarations_file(self.tools.values(), self.authorizer)
            config["files"] = {DECLARATIONS_PATH: dts}
        self._recorder = (
            Recorder(
                {
                    "config": config,
                    "memory_limit": self.limits.wasm_memory,
                    "sandbox_id": self.id,
                },
                entropy,
            )
            if record
            else None
        )
        backend = get_backend()
        self._driver = Driver(
            backend,
            backend.load(wasm_file()),
            config,
            self.limits.wasm_memory,
            shim_factory=self._recorder.shim if self._recorder else lambda: WasiShim(entropy),
        )
        self._executions = 0
        self._executing = False
        self._thread: int | None = None  # the thread whose execution holds the sandbox
        self._commands: frozenset[str] | None = None
        self._lock = _lean.Lock()
        self._init: dict[str, Any] = {
            "tools": list(self.tools.values()),
            "capabilities": capabilities,
            "tool_handler": tool_handler,
            "limits": self.limits,
            "token": token,
            "key": key,
            "approve": approve,
            "max_calls": max_calls,
            "max_calls_per_tool": max_calls_per_tool,
            "audit_sink": self._log,
            "seed": seed,
            "clock": clock,
            "record": record,
        }

    # --- running code ---------------------------------------------------------------------

    def execute(
        self, code: str, language: str = "javascript", stdin: str | bytes | None = None
    ) -> ExecutionResult:
        """Run ``code`` to completion and return what it produced (never raises for guest
        failures). Async tools run concurrently when the code issues them together.

        Raises :class:`RuntimeError` when called from inside this sandbox's own execution (a
        tool of it), which would wait for itself forever; a tool may use another sandbox.
        """
        with self._held("execute"):
            current = self._begin(code, language, stdin)
            try:
                ops = next(current.run)
                dispatcher, timers = self._calls()
                while True:
                    answer, records = dispatcher.dispatch_sync(ops, current.deadline, timers)
                    ops = current.run.send(self._answered(current, ops, answer, records))
            except StopIteration as stop:
                return self._end(current, stop.value)
            except BaseException:
                # Interrupted between two steps (Ctrl-C in a sleep, a tool raising
                # KeyboardInterrupt, a cancelled task): closing the run now puts back the
                # files and shell session of the last completed execution, even while the
                # exception (and through it the run) is kept alive by a caller, a REPL or
                # Pyodide's error object.
                current.run.close()
                raise
            finally:
                self._executing = False

    async def aexecute(
        self, code: str, language: str = "javascript", stdin: str | bytes | None = None
    ) -> ExecutionResult:
        """Like :meth:`execute`, awaiting async tools on the running event loop."""
        import asyncio  # here, not at the top: a sync-only process never imports it

        self._refuse_reentry("aexecute", blocking=False)
        while not self._lock.acquire(blocking=False):  # never block the event loop
            await asyncio.sleep(0.001)
        executing = _EXECUTING.set(_EXECUTING.get() | {id(self)})
        try:
            current = self._begin(code, language, stdin)
            try:
                ops = next(current.run)
                dispatcher, timers = self._calls()
                while True:
                    answer, records = await dispatcher.dispatch_async(ops, current.deadline, timers)
                    ops = current.run.send(self._answered(current, ops, answer, records))
            except StopIteration as stop:
                return self._end(current, stop.value)
            except BaseException:
                current.run.close()  # as in execute: the guest never stays half-run
                raise
        finally:
            self._executing = False
            self._thread = None
            _EXECUTING.reset(executing)
            self._lock.release()

    def _calls(self) -> tuple[CallDispatcher, Timers]:
        """The dispatcher, and the sleeps of an execution, once the guest asks for a call or a
        sleep (an execution that asks for neither never imports them)."""
        dispatcher = self._dispatcher
        return dispatcher, dispatcher.timers()

    @property
    def _dispatcher(self) -> CallDispatcher:
        """The dispatcher of the tool calls, made on first use."""
        if self._made_dispatcher is None:
            from ._calls import CallDispatcher

            self._made_dispatcher = CallDispatcher(
                self.tools, self.authorizer, self._tool_handler, self._approve, self.limits.memory
            )
            # Not a bound method: the sandbox must not be in a reference cycle (see close()).
            self._made_dispatcher.gate = _lean.partial(_expired, self.token)
        return self._made_dispatcher

    @property
    def authorizer(self) -> Authorizer:
        """The :class:`~corral.capabilities.Authorizer` that decides this sandbox's calls."""
        if self._authorizer is None:  # no capability and no budget: made on first use
            from .capabilities import Authorizer

            self._authorizer = Authorizer(())
            if self._executions:
                self._authorizer.start_execution(self.limits.max_tool_calls)
        return self._authorizer

    def _held(self, action: str) -> _Held:
        """Hold the sandbox for one operation from sync code, as its execution would."""
        return _Held(self, action)

    def _refuse_reentry(self, action: str, *, blocking: bool = True) -> None:
        """Refuse a call made from inside this sandbox's own execution: it would wait for the
        execution, which waits for it (a tool calling execute() on its own sandbox). A
        ``blocking`` call is also refused on the thread that runs the execution (it would
        block that thread, or its event loop, for good)."""
        on_thread = blocking and self._thread == _lean.get_ident()
        if id(self) in _EXECUTING.get() or on_thread:
            raise RuntimeError(
                f"Sandbox.{action}() was called from inside this sandbox's own execution (by "
                "one of its tools) and would wait for itself forever; a tool may run code in "
                "another sandbox (a new Sandbox(), or sandbox.fork() before the execution)"
            )

    execute_async = aexecute  # amla-sandbox's name

    def shell(self, command: str, stdin: str | bytes | None = None) -> ExecutionResult:
        """Run a shell command line in the sandbox's shell session:
        ``execute(command, language="shell")``.

        >>> print(Sandbox().shell("echo hi | tr a-z A-Z"))
        HI
        <BLANKLINE>
        """
        return self.execute(command, "shell", stdin)

    def _begin(self, code: str, language: str, stdin: str | bytes | None) -> _Run:
        if self._driver.closed:
            raise SandboxClosedError()
        if not isinstance(code, str):
            raise TypeError(f"code must be a str, not {type(code).__name__}")
        lang = _language(language)
        if stdin is not None and not isinstance(stdin, str | bytes):
            raise TypeError(f"stdin must be a str, bytes or None, not {type(stdin).__name__}")
        if lang == "auto":
            from .language import detect_language

            lang = detect_language(code, self.commands)
        data = stdin.encode() if isinstance(stdin, str) else stdin
        self._executions += 1
        if self._authorizer is not None:  # else it starts when it is made (authorizer)
            self._authorizer.start_execution(self.limits.max_tool_calls)
        detail = {"language": lang, "code_bytes": len(code.encode())}
        self._audit("execution_start", self._executions, detail=detail)
        if self._recorder:
            self._recorder.execute(lang, code, data, self.limits.timeout)
        run = self._driver.run(lang, code, data, self.limits.timeout)
        self._executing = True
        self._thread = _lean.get_ident()
        deadline = time.monotonic() + self.limits.timeout
        return _Run(run, self._executions, time.perf_counter(), deadline)

    def _answered(
        self, current: _Run, ops: list[HostOp], answer: Any, records: list[ToolCall]
    ) -> Any:
        current.records.extend(records)
        if records:
            self._log.record_calls(self.id, current.execution_id, records)
        if self._recorder:
            self._recorder.ops(ops)
            self._recorder.answer(answer)
        return answer

    def _end(self, current: _Run, raw: RawOutcome) -> ExecutionResult:
        duration = (time.perf_counter() - current.started) * 1000
        result = _result(raw, current.records, duration)
        if self._recorder:
            self._recorder.end(result)
        detail = {"exit_code": result.exit_code, "error_kind": result.error_kind}
        self._audit(
            "execution_end",
            current.execution_id,
            duration_ms=duration,
            error=result.error,
            detail=detail,
        )
        return result

    def _audit(self, kind: str, execution_id: int, **fields: Any) -> None:
        self._log.record_event(now(), kind, self.id, execution_id, **fields)

    def _token_gate(self) -> str | None:
        """Why the token forbids every call now (it expired), or None."""
        return _expired(self.token)

    # --- the prompt -----------------------------------------------------------------------

    def prompt(self, language: str = "javascript") -> str:
        """What a model should read to write code for this sandbox in ``language``
        (``javascript``, ``shell`` or ``auto``): how code runs, prints and returns, the
        limits, and every tool as a TypeScript declaration with the constraints and budgets
        in force now (the same declarations are in the guest at ``/tools/index.d.ts``).
        """
        from .tools import code_mode_prompt

        lang = _language(language)
        return code_mode_prompt(self.tools.values(), self.authorizer, self.limits, lang)

    # --- authority ------------------------------------------------------------------------

    def can_call(self, method: str, params: Mapping[str, Any] | None = None) -> bool:
        """Whether a call of ``method`` with ``params`` (default: none) would be allowed now
        (no budget used)."""
        return self._token_gate() is None and self.authorizer.can_call(method, params or {})

    def remaining_calls(self) -> dict[str, int | None]:
        """Calls left per capability pattern (None means unlimited)."""
        return self.authorizer.remaining_calls()

    @property
    def capabilities(self) -> tuple[MethodCapability, ...]:
        """The capabilities in force, in the order they are tried (from ``capabilities=``,
        from the token, or one per tool)."""
        return self.authorizer.capabilities

    def get_capabilities(self) -> list[MethodCapability]:
        """:attr:`capabilities` as a list (amla-sandbox's name)."""
        return list(self.capabilities)

    def get_remaining_calls(self, key: str) -> int | None:
        """Calls left under the capability whose key is ``key`` (see
        :meth:`~corral.capabilities.MethodCapability.key`; a bare pattern also does); None
        means unlimited."""
        remaining = self.remaining_calls()
        pattern = key.removeprefix("cap:method:")
        if pattern not in remaining:
            keys = ", ".join(repr(cap.key()) for cap in self.capabilities) or "none"
            raise KeyError(f"no capability has the key {key!r}; the keys are {keys}")
        return remaining[pattern]

    def get_call_counts(self) -> dict[str, int]:
        """Calls left per capability key (``cap:method:<pattern>``), for the capabilities
        with a budget."""
        return {
            f"cap:method:{pattern}": left
            for pattern, left in self.remaining_calls().items()
            if left is not None
        }

    def delegate(
        self,
        capabilities: Iterable[MethodCapability],
        *,
        expires_in: float | None = None,
        limits: Limits | None = None,
    ) -> Sandbox:
        """A child sandbox with the same tools whose authority is this one's token narrowed
        to ``capabilities`` (bound to the child's id). Widening raises
        :class:`~corral.tokens.TokenError`; the guest has no way to create authority.

        A sandbox created without ``key=`` mints its token on first use, with a random key
        that only this sandbox and its children hold.

        >>> from corral import MethodCapability
        >>> def pay(amount: int) -> int:
        ...     '''Pay an amount.'''
        ...     return amount
        >>> parent = Sandbox(tools=[pay], capabilities=[MethodCapability("pay", max_calls=5)])
        >>> parent.delegate([MethodCapability("pay", max_calls=2)]).remaining_calls()
        {'pay': 2}
        """
        from .tokens import CapabilityToken

        if self.token is None:
            self._key = os.urandom(32)
            self.token = CapabilityToken.mint(self._key, list(self.capabilities))
            self._init["key"] = self._key
        child_id = f"{self.id}/{os.urandom(6).hex()}"  # a path: the parent's binding covers it
        child_token = self.token.attenuate(
            list(capabilities), expires_in=expires_in, sandbox_id=child_id
        )
        options = {**self._init, "capabilities": None, "token": child_token}
        return Sandbox(**{**options, "limits": limits or self.limits}, sandbox_id=child_id)

    # --- lifetime ---------------------------------------------------------------------------

    def close(self) -> None:
        """Release the guest instance now: its memory and its address-space reservation.

        Idempotent. Afterwards running code or touching files raises
        :class:`~corral.protocol.SandboxClosedError`; the audit trail and the trace stay
        readable. ``with Sandbox() as sandbox:`` closes at the end of the block; a sandbox that
        is dropped without ``close()`` is released as soon as the last reference goes.

        >>> with Sandbox() as sandbox:
        ...     sandbox.execute("return 1 + 1").return_value
        2
        >>> sandbox.closed
        True
        """
        with self._held("close"):
            self._driver.close()
            for release in self._on_close:
                release()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._driver.closed

    def __enter__(self) -> Sandbox:
        """``with``: the sandbox itself, closed at the end of the block."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close at the end of the ``with`` block (also when it raised)."""
        self.close()

    # --- resources --------------------------------------------------------------------------

    @property
    def memory_bytes(self) -> int:
        """The size of the guest's linear memory in bytes (its files, heap and buffers; read-only).

        WebAssembly memory never shrinks, so this is the peak since the guest instance was
        created (a new sandbox, or a fresh instance after a trap, starts small again).
        """
        return self._driver.instance.memory_size()

    # --- the shell session ------------------------------------------------------------------

    @property
    def commands(self) -> frozenset[str]:
        """The shell's command names (applets and builtins), for
        :func:`~corral.language.detect_language`."""
        if self._commands is None:
            # Asked from inside execute() (which holds the lock) or before any execution.
            self._commands = frozenset(self._driver.commands())
        return self._commands

    def reset_shell(self) -> None:
        """Forget the shell session: variables, functions and options; the working directory
        goes back to ``/workspace``. Files are kept."""
        self._request({"op": "shell_reset"}, None)

    # --- files ----------------------------------------------------------------------------

    @property
    def fs(self) -> SandboxFS:
        """Direct access to the sandbox's files (see :class:`~corral.fs.SandboxFS`)."""
        from .fs import SandboxFS

        return SandboxFS(self._request)

    def _request(self, request: dict[str, Any], data: bytes | None) -> tuple[dict[str, Any], bytes]:
        """A host request (:meth:`~corral.protocol.Driver.request`), recorded in the trace;
        one that changes the files or the session is checkpointed."""
        if self._driver.closed:
            raise SandboxClosedError()  # before the trace records an operation that never ran
        if self._executing:
            raise RuntimeError(
                "sandbox files cannot be accessed while an execution runs (from a tool, say): "
                "access them before or after execute()"
            )
        with self._lock:
            if self._recorder:
                self._recorder.request(request, data)
            header, blob = self._driver.request(request, data)
            if request["op"] in MUTATING_REQUESTS and "error" not in header:
                self._driver.checkpoint(header["generation"])
            return header, blob

    def snapshot(self) -> bytes:
        """The sandbox's files and shell session as bytes, for :meth:`from_snapshot`."""
        with self._held("snapshot"):
            session = self._driver.session()
            files = self._driver.files()
        return SNAPSHOT_MAGIC + struct.pack("<I", len(session)) + session + files

    def restore(self, snapshot: bytes) -> None:
        """Replace the sandbox's files and shell session with ``snapshot``'s (from
        :meth:`snapshot`)."""
        if not snapshot.startswith(SNAPSHOT_MAGIC) or len(snapshot) < len(SNAPSHOT_MAGIC) + 4:
            raise ValueError("not a corral snapshot (it must come from Sandbox.snapshot())")
        body = snapshot[len(SNAPSHOT_MAGIC) :]
        (length,) = struct.unpack_from("<I", body)
        session, files = body[4 : 4 + length], body[4 + length :]
        header, _ = self._request({"op": "restore"}, files)
        if "error" in header:
            raise ValueError(f"the snapshot cannot be restored: {header['error']['message']}")
        header, _ = self._request({"op": "shell_restore"}, session)
        if header.get("error"):
            raise ValueError(f"the snapshot's shell session cannot be restored: {header['error']}")

    @classmethod
    def from_snapshot(cls, snapshot: bytes, *args: Any, **kwargs: Any) -> Sandbox:
        """A new sandbox (same arguments as :class:`Sandbox`) holding ``snapshot``'s files."""
        sandbox = cls(*args, **kwargs)
        sandbox.restore(snapshot)
        return sandbox

    def fork(self) -> Sandbox:
        """A new sandbox with the same tools, authority and limits, and a copy of the files.

        The fork's id is ``<this id>/fork-<random>``, so a token bound to this sandbox works
        there too; it shares this sandbox's audit trail.
        """
        fork = Sandbox(**self._init, sandbox_id=f"{self.id}/fork-{os.urandom(4).hex()}")
        fork.restore(self.snapshot())
        return fork

    # --- audit and trace ------------------------------------------------------------------

    def audit(self, since: float | None = None, kind: str | None = None) -> list[AuditRecord]:
        """The audit trail: entries at or after unix time ``since``, of ``kind`` if given
        (``execution_start``, ``execution_end`` or ``tool_call``)."""
        return self._log.entries(since=since, kind=kind)

    @property
    def trace(self) -> Trace:
        """Everything that entered the guest so far, for :func:`replay`."""
        if self._recorder is None:
            raise ValueError("this sandbox does not record: create it with record=True")
        import copy  # here, not at the top: a fresh process's first sandbox skips it

        return Trace(copy.deepcopy(self._recorder.trace.events))


def _authority(
    sandbox_id: str,
    tools: Mapping[str, ToolDefinition],
    capabilities: Iterable[MethodCapability] | None,
    token: CapabilityToken | str | None,
    key: bytes | None,
) -> CapabilityToken | None:
    """The sandbox's token: the one given (checked), one minted with ``key``, or None."""
    if token is None and key is None:
        return None
    from .tokens import CapabilityToken, TokenError

    if token is not None:
        if capabilities is not None:
            raise ValueError("pass either capabilities=... or token=..., not both")
        if key is None:
            raise TokenError("a token needs the key that verifies it: pass key=...")
        parsed = CapabilityToken.parse(token) if isinstance(token, str) else token
        parsed.verify(key, sandbox_id=sandbox_id)
        return parsed
    if key is None:
        return None
    return CapabilityToken.mint(key, _default_capabilities(tools, capabilities))


def _default_capabilities(
    tools: Mapping[str, ToolDefinition], capabilities: Iterable[MethodCapability] | None
) -> list[MethodCapability]:
    if capabilities is not None:
        return list(capabilities)
    if not tools:
        return []
    from .capabilities import MethodCapability

    return [MethodCapability(name) for name in tools]


def _collector(config: AuditConfig | None) -> AuditCollector | None:
    if config is None:
        return None
    from .audit import AuditCollector, AuditConfig

    if not isinstance(config, AuditConfig):
        raise TypeError(
            f"audit_config must be a corral.audit.AuditConfig, not {type(config).__name__}"
        )
    return AuditCollector(config)


def _result(raw: RawOutcome, records: Iterable[ToolCall], duration_ms: float) -> ExecutionResult:
    try:
        value = None if raw.value is None else _json.loads(raw.value)
    except (ValueError, RecursionError) as error:  # a replaced JSON.stringify sent it
        raw = _unreadable_value(raw, error)
        value = None
    return ExecutionResult(
        stdout=raw.stdout.decode("utf-8", "replace"),
        stderr=raw.stderr.decode("utf-8", "replace"),
        exit_code=raw.exit_code,
        return_value=value,
        error=raw.error,
        error_kind=raw.error_kind,
        tool_calls=tuple(records),
        duration_ms=duration_ms,
    )


def _unreadable_value(raw: RawOutcome, error: Exception) -> RawOutcome:
    """The outcome of an execution whose returned value is not strict JSON: an exception."""
    from ._error_kinds import ErrorKind  # here, not at the top: see corral._error_kinds

    message = (
        f"TypeError: the returned value is not valid JSON ({error}); return plain data, and "
        "leave JSON.stringify as it is"
    )
    return raw.__replace__(
        exit_code=raw.exit_code or 1,
        stderr=raw.stderr + (message + "\n").encode(),
        error=raw.error or message,
        error_kind=raw.error_kind or ErrorKind.EXCEPTION,
    )


class _Held:
    """What :meth:`Sandbox._held` returns: the sandbox's lock, with the sandbox marked as
    executing in this context (a class, not a generator's context manager: ~1 µs less per
    execution)."""

    __slots__ = ("_action", "_executing", "_sandbox")

    def __init__(self, sandbox: Sandbox, action: str) -> None:
        self._sandbox = sandbox
        self._action = action

    def __enter__(self) -> None:
        sandbox = self._sandbox
        sandbox._refuse_reentry(self._action)
        sandbox._lock.acquire()
        try:
            self._executing = _EXECUTING.set(_EXECUTING.get() | {id(sandbox)})
        except BaseException:
            sandbox._lock.release()
            raise

    def __exit__(self, *_: object) -> None:
        try:
            self._sandbox._thread = None
            _EXECUTING.reset(self._executing)
        finally:
            self._sandbox._lock.release()


def _expired(token: CapabilityToken | None) -> str | None:
    """Why ``token`` forbids every call now (it expired), or None."""
    if token is None or token.expires_at is None or time.time() < token.expires_at:
        return None
    return f"the capability token expired at {_iso(token.expires_at)}"


def _iso(timestamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(timestamp))


# --- replay ---------------------------------------------------------------------------------


def replay_all(trace: Trace | str) -> list[ExecutionResult]:
    """Run every execution of ``trace`` again, calling no tool and reading no clock.

    Returns results identical to the originals (tool-call records and durations come from
    the trace). Raises :class:`~corral.trace.ReplayDivergence` naming the first request the
    guest makes that the trace does not hold, or the first result that differs.
    """
    trace = Trace.from_jsonl(trace) if isinstance(trace, str) else trace
    head = trace.events[0]
    cursor = Cursor(trace)
    backend = get_backend()
    driver = Driver(
        backend,
        backend.load(wasm_file()),
        head["config"],
        head["memory_limit"],
        shim_factory=cursor.shim,
        backstop_factor=REPLAY_BACKSTOP_FACTOR,
    )
    results = []
    while (event := cursor.peek()) is not None:
        if event["t"] == "fs":
            cursor.take("fs", "a host request")
            header, _ = driver.request(event["request"], event["data"])
            if event["request"]["op"] in MUTATING_REQUESTS and "error" not in header:
                driver.checkpoint(header["generation"])
        else:
            results.append(_replay_one(driver, cursor))
    return results


def replay(trace: Trace | str) -> ExecutionResult:
    """Replay ``trace`` (see :func:`replay_all`) and return its last execution's result."""
    results = replay_all(trace)
    if not results:
        raise ValueError("the trace holds no execution")
    return results[-1]


def _replay_one(driver: Driver, cursor: Cursor) -> ExecutionResult:
    event = cursor.take("execute", "the start of an execution")
    run = driver.run(event["language"], event["code"], event["stdin"], event["timeout"])
    try:
        ops = next(run)
        while True:
            check_ops(cursor, ops)
            ops = run.send(decode_answer(cursor.take("answer", "the answer to those calls")))
    except StopIteration as stop:
        raw: RawOutcome = stop.value
    recorded = ExecutionResult.from_dict(cursor.take("end", "the end of the execution")["result"])
    replayed = _result(raw, recorded.tool_calls, recorded.duration_ms)
    for name in ("stdout", "stderr", "exit_code", "return_value", "error", "error_kind"):
        mine, theirs = getattr(replayed, name), getattr(recorded, name)
        if mine != theirs:
            raise ReplayDivergence(
                f"the replayed execution's {name} is {mine!r}, the trace recorded {theirs!r}"
            )
    return replayed
