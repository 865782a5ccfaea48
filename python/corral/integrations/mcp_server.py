"""corral as an MCP server: ``corral mcp`` (needs ``pip install 'corral[mcp]'``).

A client gets five tools: ``run_javascript`` and ``run_shell`` (each taking ``code``),
``read_file``, ``write_file`` and ``list_files``. Each client session has a sandbox of its own,
created on its first call and released when the session ends: its files persist from call to
call and no other session sees them. The code calls the tools of a Python module
(:func:`tools_from_module`) and of other MCP servers, under the capabilities, limits and
budgets of a config file (:mod:`corral.integrations.mcp_config`). A guest failure (an exception,
a denied call, a timeout, a non-zero exit) comes back as a result with ``is_error`` set and the
guest's text, verbatim.

Over stdio the session is the process. Over HTTP it is the SDK's session (``mcp-session-id``,
from the initialize handshake): the 2026-07-28 protocol has no sessions there, so the server
answers ``server/discover`` with the handshake versions only and such clients fall back to the
handshake. An in-process client asks for it with ``mcp.Client(server, mode="legacy")``.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..capabilities import MethodCapability
from ..limits import Limits
from ..results import ExecutionResult
from ..sandbox import Sandbox
from ..sandbox_tool import SandboxTool
from ..tools import ToolDefinition, ToolLike, as_definition
from . import require

require("mcp", "mcp")

import anyio  # noqa: E402 - after the check that names the extra
from mcp import types  # noqa: E402
from mcp.server import Server  # noqa: E402
from mcp.server.context import ServerRequestContext  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS  # noqa: E402

from .mcp_client import MCPTools  # noqa: E402
from .mcp_config import ServerConfig  # noqa: E402

__all__ = ["SandboxServer", "tools_from_module"]

_STATE_KEY = "corral.sandbox"


# --- tools from a module ----------------------------------------------------------------------


def tools_from_module(name: str) -> list[ToolDefinition]:
    """The tools a module offers: its ``TOOLS`` list if it has one (functions,
    :class:`~corral.tools.ToolDefinition` objects or dicts), else every public function it
    defines (not those it imports; names starting with ``_`` are private), in source order.

    Raises:
        ImportError: when the module cannot be imported.
        ValueError: when it offers no tool.
    """
    try:
        module = importlib.import_module(name)
    except ImportError as error:
        raise ImportError(
            f"cannot import the tools module {name!r} ({error}); give its dotted name, "
            "importable from the current directory or the environment"
        ) from error
    listed = getattr(module, "TOOLS", None)
    if listed is not None:
        if not isinstance(listed, (list, tuple)):
            raise ValueError(f"{name}.TOOLS must be a list of functions or ToolDefinitions")
        return [as_definition(tool) for tool in listed]
    functions = [
        value
        for key, value in vars(module).items()
        if inspect.isfunction(value)
        and value.__module__ == module.__name__
        and not key.startswith("_")
    ]
    if not functions:
        raise ValueError(f"module {name!r} defines no public function and no TOOLS list")
    return [as_definition(function) for function in functions]


# --- the server ------------------------------------------------------------------------------


def _code_schema() -> dict[str, Any]:
    return _schema({"code": {"type": "string", "description": "The script to run."}})


def _schema(properties: dict[str, Any], optional: Sequence[str] = ()) -> dict[str, Any]:
    required = [key for key in properties if key not in optional]
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


_PATH = {"type": "string", "description": "A path; relative paths are under /workspace."}
_PERSIST = "Files in /workspace and /tmp persist from call to call within this session."


@dataclass
class _Session:
    """A client session's sandbox; the lock runs its calls one at a time."""

    sandbox: Sandbox
    lock: anyio.Lock


class SandboxServer:
    """An MCP server (the SDK's low-level :class:`mcp.server.Server`, as :attr:`server`) that
    gives each client session a sandbox of its own.

    Args:
        tools: What the code may call (as for :class:`~corral.sandbox.Sandbox`).
        capabilities: What the code may call (None: every tool, unconstrained).
        limits: The limits of every execution.
        max_calls: Tool calls allowed per session, all tools together.
        name: The server's name, as clients see it.

    Raises:
        ValueError: for tools or capabilities a :class:`~corral.sandbox.Sandbox` refuses.
    """

    def __init__(
        self,
        tools: Iterable[ToolLike] = (),
        capabilities: Iterable[MethodCapability] | None = None,
        limits: Limits | None = None,
        max_calls: int | None = None,
        name: str = "corral",
    ) -> None:
        self._options: dict[str, Any] = {
            "tools": [as_definition(tool) for tool in tools],
            "capabilities": None if capabilities is None else list(capabilities),
            "limits": limits or Limits(),
            "max_calls": max_calls,
        }
        self._remote: MCPTools | None = None
        self._stdio: _Session | None = None
        self.sessions: dict[int, Sandbox] = {}
        """The sandbox of every session open now, by the session's id."""
        template = self.new_sandbox()  # checks the options before any client connects
        self._tools = _tool_list(template)
        self._handlers: dict[str, Callable[[Sandbox, dict[str, Any]], Any]] = {
            "run_javascript": lambda sandbox, args: self._run(sandbox, args, "javascript"),
            "run_shell": lambda sandbox, args: self._run(sandbox, args, "shell"),
            "read_file": _read_file,
            "write_file": _write_file,
            "list_files": _list_files,
        }
        self.server: Server[Any] = Server(
            name,
            instructions="Run JavaScript or shell code in a WebAssembly sandbox that keeps its "
            "files for the session; the code reaches the outside world only through the tools "
            "listed in run_javascript's description.",
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        """The SDK's low-level server, to give to ``mcp.Client(..., mode="legacy")`` or to
        mount (its ``streamable_http_app()``)."""

    def new_sandbox(self) -> Sandbox:
        """A sandbox with this server's tools, capabilities, limits and budget."""
        return Sandbox(**self._options)

    # --- handlers ---------------------------------------------------------------------------

    async def _discover(
        self, ctx: ServerRequestContext[Any], params: types.RequestParams | None
    ) -> types.DiscoverResult:
        """Advertise the handshake versions only: a session is where the files live."""
        return types.DiscoverResult(
            supported_versions=list(HANDSHAKE_PROTOCOL_VERSIONS),
            capabilities=self.server.get_capabilities(),
            instructions=self.server.instructions,
        )

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self._tools)

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        handler = self._handlers.get(params.name)
        if handler is None:
            return _error(f"unknown tool {params.name!r} (available: {', '.join(self._handlers)})")
        session = self._session(ctx)
        if session is None:
            return _error(
                "this server keeps a sandbox per session, and a 2026-07-28 connection has no "
                "session: connect with the initialize handshake (mcp.Client(..., mode='legacy'))"
            )
        async with session.lock:
            result: types.CallToolResult = await anyio.to_thread.run_sync(
                _guarded, handler, session.sandbox, params.arguments or {}
            )
        return result

    def _session(self, ctx: ServerRequestContext[Any]) -> _Session | None:
        """The request's session: the process's when serving stdio, else the connection's
        (made on its first call, released when the connection ends); None on a 2026-07-28
        connection, which lasts one request."""
        if self._stdio is not None:
            return self._stdio
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return None
        # The SDK keeps per-session state on the connection; 2.3 reaches it from a low-level
        # handler only through the session (Context.connection is not built for handlers yet).
        connection = ctx.session._connection
        session = connection.state.get(_STATE_KEY)
        if session is None:
            session = connection.state[_STATE_KEY] = self._open(id(connection))
            connection.exit_stack.callback(self._close_session, id(connection))
            connection.exit_stack.callback(connection.state.pop, _STATE_KEY, None)
        assert isinstance(session, _Session)
        return session

    def _open(self, key: int) -> _Session:
        session = _Session(self.new_sandbox(), anyio.Lock())
        self.sessions[key] = session.sandbox
        return session

    def _close_session(self, key: int) -> None:
        sandbox = self.sessions.pop(key, None)
        if sandbox is not None:
            sandbox.close()

    @staticmethod
    def _run(sandbox: Sandbox, args: dict[str, Any], language: str) -> types.CallToolResult:
        code = _string_argument(args, "code")
        result: ExecutionResult = sandbox.execute(code, language)
        return _text(result.text(), is_error=result.exit_code != 0)

    # --- from a config file, and serving ----------------------------------------------------

    @classmethod
    def from_config(cls, config: ServerConfig, tool_modules: Sequence[str] = ()) -> SandboxServer:
        """The server ``corral mcp`` runs: the tools of ``config.tools`` and ``tool_modules``
        (imported with the current directory first on ``sys.path``, so ``mytools`` finds
        ``mytools.py``) and of ``config.mcp_servers`` (connected now, closed by
        :meth:`close`), under the config's capabilities, limits and budget.

        Raises:
            ImportError: when a tool module cannot be imported.
            ValueError: when a module offers no tool, or the tools and capabilities do not fit.
            ConnectionError: when another MCP server cannot be reached.
        """
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())
        tools: list[ToolLike] = []
        for module in [*config.tools, *tool_modules]:
            tools.extend(tools_from_module(module))
        remote = MCPTools(config.mcp_servers) if config.mcp_servers else None
        try:
            server = cls(
                [*tools, *(remote or ())], config.capabilities, config.limits, config.max_calls
            )
        except BaseException:
            if remote is not None:
                remote.close()
            raise
        server._remote = remote
        return server

    def serve(self, http_port: int | None = None) -> None:
        """Serve over stdio, or streamable HTTP on 127.0.0.1 when ``http_port`` is given,
        until the client disconnects (stdio) or the process is interrupted."""
        if http_port is None:
            anyio.run(self.run_stdio)
        else:
            anyio.run(self.run_http, http_port)

    def close(self) -> None:
        """Close the connections to other MCP servers (see :meth:`from_config`)."""
        if self._remote is not None:
            self._remote.close()

    async def run_stdio(self) -> None:
        """Serve one client over this process's standard input and output: the process is
        its session (in either protocol era), with one sandbox."""
        self._stdio = self._open(0)
        try:
            async with stdio_server() as (read, write):
                await self.server.run(read, write, self.server.create_initialization_options())
        finally:
            self._stdio = None
            self._close_session(0)

    async def run_http(self, port: int, host: str = "127.0.0.1") -> None:
        """Serve streamable HTTP at ``http://HOST:PORT/mcp`` until interrupted or cancelled
        (then it shuts down cleanly: open sessions end and release their sandboxes)."""
        import uvicorn

        # Sessions (with mcp-session-id) come from the handshake: answering server/discover
        # with the handshake versions only makes a 2026-07-28 client fall back to it.
        self.server.add_request_handler("server/discover", types.RequestParams, self._discover)
        app = self.server.streamable_http_app(host=host)
        web = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
        serving = asyncio.ensure_future(web.serve())
        try:
            await asyncio.shield(serving)
        except asyncio.CancelledError:
            web.should_exit = True
            await serving
            raise


def _tool_list(template: Sandbox) -> list[types.Tool]:
    javascript = f"{SandboxTool(template, 'javascript').description}\n\n{_PERSIST}"
    shell = (
        "This tool runs the code as a bash script (use run_javascript for JavaScript). "
        f"{SandboxTool(template, 'shell').description}\n\n{_PERSIST}"
    )
    content = {"type": "string", "description": "The text to write (UTF-8)."}
    return [
        types.Tool(name="run_javascript", description=javascript, input_schema=_code_schema()),
        types.Tool(name="run_shell", description=shell, input_schema=_code_schema()),
        types.Tool(
            name="read_file",
            description="Read a text file of the session's sandbox.",
            input_schema=_schema({"path": _PATH}),
        ),
        types.Tool(
            name="write_file",
            description="Create or replace a text file in the session's sandbox (under "
            "/workspace or /tmp). " + _PERSIST,
            input_schema=_schema({"path": _PATH, "content": content}),
        ),
        types.Tool(
            name="list_files",
            description="List a directory of the session's sandbox (default /workspace): "
            "directories end with /, files show their size.",
            input_schema=_schema({"path": _PATH}, optional=("path",)),
        ),
    ]


class _ArgumentError(ValueError):
    pass


def _guarded(
    handler: Callable[[Sandbox, dict[str, Any]], types.CallToolResult],
    sandbox: Sandbox,
    args: dict[str, Any],
) -> types.CallToolResult:
    """Run a handler; a bad argument or a file error becomes an error result for the model."""
    try:
        return handler(sandbox, args)
    except _ArgumentError as error:
        return _error(str(error))
    except OSError as error:
        return _error(str(error.strerror))  # the guest's message names the path


def _string_argument(args: Mapping[str, Any], key: str, default: str | None = None) -> str:
    value = args.get(key, default)
    if value is None:
        raise _ArgumentError(f"the argument {key!r} is missing: pass it as a string")
    if not isinstance(value, str):
        raise _ArgumentError(f"the argument {key!r} must be a string, got {value!r}")
    return value


def _read_file(sandbox: Sandbox, args: dict[str, Any]) -> types.CallToolResult:
    path = _string_argument(args, "path")
    data = sandbox.fs.read(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _error(
            f"{path} is not UTF-8 text ({len(data)} bytes); inspect it with run_shell, "
            f"e.g. od -c {path} | head"
        )
    cap = sandbox.limits.max_output  # the model reads no more of a file than of any output
    if len(data) <= cap:
        return _text(text)
    shown = data[:cap].decode("utf-8", "ignore")  # a character cut at the cap is left out
    return _text(
        f"{shown}\n[file truncated: {len(data)} bytes, more than {cap}; read parts of it with "
        f"run_shell, e.g. sed -n '1,100p' {path}]\n"
    )


def _write_file(sandbox: Sandbox, args: dict[str, Any]) -> types.CallToolResult:
    path = _string_argument(args, "path")
    content = _string_argument(args, "content")
    sandbox.fs.write(path, content)
    return _text(f"wrote {len(content.encode())} bytes to {path}")


def _list_files(sandbox: Sandbox, args: dict[str, Any]) -> types.CallToolResult:
    path = _string_argument(args, "path", "/workspace")
    lines = []
    for entry in sandbox.fs.listdir(path):
        stat = sandbox.fs.stat(f"{path.rstrip('/')}/{entry}")
        lines.append(f"{entry}/" if stat.is_dir else f"{entry} ({stat.size} bytes)")
    return _text("\n".join(lines) if lines else f"{path} is empty")


def _text(text: str, *, is_error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=text)], is_error=is_error)


def _error(text: str) -> types.CallToolResult:
    return _text(text, is_error=True)
