"""corral as an MCP server: ``corral mcp`` (needs ``pip install 'corral[mcp]'``).

A client gets five tools: ``run_javascript`` and ``run_shell`` (each taking ``code``),
``read_file``, ``write_file`` and ``list_files``. Each client session has a sandbox of its own,
created on its first call and released when the session ends: its files persist from call to
call and no other session sees them. The code calls the tools of a Python module
(:func:`tools_from_module`) and of other MCP servers, under the capabilities, limits and budgets
of a config file (:func:`load_config`). A guest failure (an exception, a denied call, a
timeout, a non-zero exit) comes back as a result with ``is_error`` set and the guest's text,
verbatim.

Sessions need the initialize handshake: the server answers ``server/discover`` with the
handshake protocol versions only, so a 2026-07-28 client falls back to them (the stateless
2026-07-28 protocol has no session to keep files in).
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from ..capabilities import MethodCapability, capabilities_from_dict, constraint_from_spec
from ..limits import Limits
from ..results import ExecutionResult
from ..sandbox import Sandbox, ToolLike, _definition
from ..sandbox_tool import SandboxTool
from ..tools import ToolDefinition
from . import require

require("mcp", "mcp")

import anyio  # noqa: E402 - after the check that names the extra
from mcp import types  # noqa: E402
from mcp.server import Server  # noqa: E402
from mcp.server.context import ServerRequestContext  # noqa: E402
from mcp.server.stdio import stdio_server  # noqa: E402
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS  # noqa: E402

from .mcp_client import MCPServerLike, MCPTools  # noqa: E402

__all__ = [
    "ConfigError",
    "SandboxServer",
    "ServerConfig",
    "load_config",
    "parse_config",
    "tools_from_module",
]

_STATE_KEY = "corral.sandbox"
_LIMIT_KEYS = tuple(f.name for f in fields(Limits))
_SECTIONS = (
    "tools",
    "limits",
    "session",
    "capabilities",
    "constraints",
    "max_calls",
    "mcp_servers",
)
_CAPABILITY_KEYS = ("method", "constraints", "max_calls")
_STDIO_KEYS = ("command", "args", "env", "cwd")


# --- configuration ----------------------------------------------------------------------------


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file and the key.

    Attributes:
        key: The dotted key at fault, e.g. ``limits.timeout`` or ``capabilities[1].method``.
    """

    def __init__(self, source: str, key: str, problem: str) -> None:
        """Build the error for ``key`` of ``source``."""
        super().__init__(f"{source}: {key}: {problem}")
        self.key = key


@dataclass(frozen=True)
class ServerConfig:
    """What ``corral.toml`` says (see :func:`parse_config` for the schema).

    Attributes:
        tools: Python modules whose tools the code may call.
        limits: The limits of every execution.
        capabilities: What the code may call (None: every tool, unconstrained).
        max_calls: Tool calls allowed per session, all tools together (None: no budget).
        mcp_servers: Other MCP servers whose tools the code may call, by prefix.
    """

    tools: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)
    capabilities: tuple[MethodCapability, ...] | None = None
    max_calls: int | None = None
    mcp_servers: Mapping[str, MCPServerLike] = field(default_factory=dict)


def load_config(path: str | Path) -> ServerConfig:
    """Read and check a TOML config file (see :func:`parse_config`).

    Raises:
        ConfigError: naming the file and the key at fault (or the TOML syntax error).
    """
    source = str(path)
    try:
        with open(path, "rb") as file:
            data = tomllib.load(file)
    except OSError as error:
        raise ConfigError(source, "(file)", f"cannot be read: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(source, "(syntax)", f"not valid TOML: {error}") from None
    return parse_config(data, source)


def parse_config(data: Mapping[str, Any], source: str = "config") -> ServerConfig:
    """Check a parsed config and build a :class:`ServerConfig`.

    The schema (every part optional)::

        tools = ["myapp.tools"]          # modules, as for --tools
        [limits]                         # any field of corral.Limits
        timeout = 10.0                   # seconds per execution
        memory = 67108864                # bytes of JavaScript heap
        max_output = 65536               # bytes of stdout and of stderr
        max_tool_calls = 20              # tool calls per execution
        [session]
        max_calls = 100                  # tool calls per client session, all tools together
        [[capabilities]]                 # what the code may call; anything else is denied
        method = "payments/*"            # a method pattern (* one segment, ** any number)
        constraints = { amount = "<=1000", currency = ["USD", "EUR"] }
        max_calls = 3                    # calls per session under this capability
        [constraints.get_weather]        # or the compact form: one capability per tool,
        city = ["Paris", "Tokyo"]        #   with these constraints
        [max_calls]                      #   and these budgets (or max_calls = N for each)
        get_weather = 10
        [mcp_servers.github]             # tools of another MCP server, as github/TOOL
        command = "github-mcp"           # launched over stdio (also args, env, cwd)
        [mcp_servers.search]
        url = "http://127.0.0.1:9000/mcp"   # or reached over streamable HTTP

    Constraint specs are those of :func:`~corral.capabilities.constraint_from_spec`.
    ``[[capabilities]]`` and the compact form exclude each other. Without either, every tool
    may be called without constraints.

    Raises:
        ConfigError: naming the key at fault and what to write instead.
    """
    _known(source, "", data, _SECTIONS)
    tools = _strings(source, "tools", data.get("tools", []))
    limits = _limits(source, _table(source, "limits", data.get("limits", {})))
    session = _table(source, "session", data.get("session", {}))
    _known(source, "session", session, ("max_calls",))
    max_calls = _count(source, "session.max_calls", session.get("max_calls"))
    return ServerConfig(
        tools=tuple(tools),
        limits=limits,
        capabilities=_capabilities(source, data),
        max_calls=max_calls,
        mcp_servers=_mcp_servers(
            source, _table(source, "mcp_servers", data.get("mcp_servers", {}))
        ),
    )


def _known(source: str, where: str, table: Mapping[str, Any], known: Sequence[str]) -> None:
    for key in table:
        if key not in known:
            dotted = f"{where}.{key}" if where else key
            raise ConfigError(source, dotted, f"unknown key (known here: {', '.join(known)})")


def _table(source: str, key: str, value: object) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ConfigError(source, key, f"must be a table, not {_kind(value)}")
    return value


def _strings(source: str, key: str, value: object) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(
            source, key, f'must be a list of strings, e.g. ["pkg.module"], not {_kind(value)}'
        )
    return list(value)


def _count(source: str, key: str, value: object) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise ConfigError(source, key, f"must be an integer >= 0, not {value!r}")
    return value


def _kind(value: object) -> str:
    names = {
        str: "a string",
        int: "an integer",
        float: "a number",
        bool: "a boolean",
        list: "an array",
    }
    return names.get(type(value), "a table" if isinstance(value, Mapping) else repr(value))


def _limits(source: str, table: Mapping[str, Any]) -> Limits:
    _known(source, "limits", table, _LIMIT_KEYS)
    for key, value in table.items():  # one at a time, so the error names its key
        try:
            Limits(**{key: value})
        except ValueError as error:
            problem = str(error).replace(f"Limits.{key} ", "")
            raise ConfigError(source, f"limits.{key}", problem) from None
        except TypeError:
            raise ConfigError(
                source, f"limits.{key}", f"must be a number, not {_kind(value)}"
            ) from None
    return Limits(**table)


def _capabilities(source: str, data: Mapping[str, Any]) -> tuple[MethodCapability, ...] | None:
    explicit = data.get("capabilities")
    compact = [key for key in ("constraints", "max_calls") if key in data]
    if explicit is not None and compact:
        raise ConfigError(
            source,
            compact[0],
            "cannot be used together with [[capabilities]]: write the constraints and budget "
            "inside each [[capabilities]] entry instead",
        )
    if explicit is not None:
        if not isinstance(explicit, list):
            raise ConfigError(
                source, "capabilities", "must be an array of tables: [[capabilities]]"
            )
        return tuple(
            _capability(source, f"capabilities[{i}]", item) for i, item in enumerate(explicit)
        )
    if compact:
        return tuple(_compact(source, data))
    return None


def _capability(source: str, where: str, item: object) -> MethodCapability:
    entry = _table(source, where, item)
    _known(source, where, entry, _CAPABILITY_KEYS)
    if not isinstance(entry.get("method"), str):
        raise ConfigError(
            source, f"{where}.method", 'is required: a method pattern such as "payments/*"'
        )
    specs = _table(source, f"{where}.constraints", entry.get("constraints", {}))
    constraints = []
    for param, spec in specs.items():
        try:
            constraints.append(constraint_from_spec(param, spec))
        except ValueError as error:
            raise ConfigError(source, f"{where}.constraints.{param}", str(error)) from None
    budget = _count(source, f"{where}.max_calls", entry.get("max_calls"))
    try:
        return MethodCapability(entry["method"], constraints, budget)
    except ValueError as error:
        raise ConfigError(source, f"{where}.method", str(error)) from None


def _compact(source: str, data: Mapping[str, Any]) -> list[MethodCapability]:
    constraints = _table(source, "constraints", data.get("constraints", {}))
    budgets = data.get("max_calls")
    if budgets is not None and not isinstance(budgets, (int, Mapping)):
        raise ConfigError(
            source, "max_calls", "must be a table {tool = N} or one integer for every tool"
        )
    names = list(dict.fromkeys([*constraints, *(budgets if isinstance(budgets, Mapping) else {})]))
    try:
        return capabilities_from_dict(names, constraints, budgets)
    except (ValueError, TypeError) as error:
        raise ConfigError(
            source, "constraints" if constraints else "max_calls", str(error)
        ) from None


def _mcp_servers(source: str, table: Mapping[str, Any]) -> dict[str, MCPServerLike]:
    from mcp import StdioServerParameters

    servers: dict[str, MCPServerLike] = {}
    for prefix, entry in table.items():
        where = f"mcp_servers.{prefix}"
        spec = _table(source, where, entry)
        if "url" in spec:
            _known(source, where, spec, ("url",))
            if not isinstance(spec["url"], str):
                raise ConfigError(source, f"{where}.url", "must be a string")
            servers[prefix] = spec["url"]
            continue
        _known(source, where, spec, _STDIO_KEYS)
        if not isinstance(spec.get("command"), str):
            raise ConfigError(
                source, f"{where}.command", "is required (or url = ...): the program to launch"
            )
        args = _strings(source, f"{where}.args", spec.get("args", []))
        env = _table(source, f"{where}.env", spec.get("env", {}))
        servers[prefix] = StdioServerParameters(
            command=spec["command"], args=args, env=dict(env) or None, cwd=spec.get("cwd")
        )
    return servers


# --- tools from a module ----------------------------------------------------------------------


def tools_from_module(name: str) -> list[ToolDefinition]:
    """The tools a module offers: its ``TOOLS`` list if it has one (functions,
    :class:`~corral.tools.ToolDefinition` objects or dicts), else every public function it
    defines (not those it imports; names starting with ``_`` are private), in source order.

    Raises:
        ImportError: when the module cannot be imported.
        ValueError: when it offers no tool.
    """
    module = importlib.import_module(name)
    listed = getattr(module, "TOOLS", None)
    if listed is not None:
        if not isinstance(listed, (list, tuple)):
            raise ValueError(f"{name}.TOOLS must be a list of functions or ToolDefinitions")
        return [_definition(tool) for tool in listed]
    functions = [
        value
        for key, value in vars(module).items()
        if inspect.isfunction(value)
        and value.__module__ == module.__name__
        and not key.startswith("_")
    ]
    if not functions:
        raise ValueError(f"module {name!r} defines no public function and no TOOLS list")
    return [_definition(function) for function in functions]


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
_PERSIST = " Files in /workspace and /tmp persist from call to call within this session."


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
            "tools": [_definition(tool) for tool in tools],
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
        self.sessions.pop(key, None)

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
        """Serve streamable HTTP at ``http://HOST:PORT/mcp`` until cancelled."""
        import uvicorn

        # Sessions (with mcp-session-id) come from the handshake: answering server/discover
        # with the handshake versions only makes a 2026-07-28 client fall back to it.
        self.server.add_request_handler("server/discover", types.RequestParams, self._discover)
        app = self.server.streamable_http_app(host=host)
        config = uvicorn.Config(app, host=host, port=port, log_level="warning")
        await uvicorn.Server(config).serve()


def _tool_list(template: Sandbox) -> list[types.Tool]:
    javascript = SandboxTool(template, "javascript").description + _PERSIST
    shell = (
        "Runs the code as a bash script (use run_javascript for JavaScript). "
        + SandboxTool(template, "shell").description
        + _PERSIST
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
            "/workspace or /tmp)." + _PERSIST,
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
        return _text(data.decode("utf-8"))
    except UnicodeDecodeError:
        return _error(
            f"{path} is not UTF-8 text ({len(data)} bytes); inspect it with run_shell, "
            f"e.g. od -c {path} | head"
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
