"""The tools of MCP servers, callable from the sandbox: ``Sandbox(mcp_servers=...)`` and
:func:`tools_from_mcp` (needs ``pip install 'corral[mcp]'``).

Each tool a server lists becomes a corral tool named ``PREFIX/TOOL``: JavaScript calls it as
``await PREFIX.TOOL({...})``, the shell as ``tool PREFIX/TOOL --key value``, and capabilities
match it like any other name (``github/*``, or ``mcp:github/**`` with ``prefix="mcp:github"``).
Its parameters are the input schema the server lists. Every call goes through the sandbox's
capabilities and is recorded in its trace, so a run replays without the server.

The connections live on one background thread: an event loop there runs one owner task that
opens every :class:`mcp.Client` and, on :meth:`MCPTools.close`, closes them in the same task
(anyio refuses to exit a client's context in another task). Tool calls reach that loop from
any thread or event loop.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.metadata
import json
import re
import threading
from collections.abc import Coroutine, Iterable, Iterator, Mapping
from contextlib import AsyncExitStack
from typing import Any

from ..tools import ToolDefinition
from . import require

_PIP_INSTALL = "pip install 'corral[mcp]'"
require("mcp", "mcp")
if int((found := importlib.metadata.version("mcp")).split(".")[0]) < 2:
    raise ImportError(f"corral's MCP integration needs mcp 2 or later, not {found}: {_PIP_INSTALL}")

import mcp  # noqa: E402 - after the checks that name the extra
import mcp.types  # noqa: E402

__all__ = ["MCPServerLike", "MCPToolError", "MCPTools", "tools_from_mcp"]

MCPServerLike = Any
"""What names an MCP server: an :class:`mcp.StdioServerParameters` (a command to launch), a URL
(streamable HTTP), an in-process ``MCPServer`` or low-level ``Server``, or an :class:`mcp.Client`
not yet entered (to choose its options)."""

CONNECT_TIMEOUT = 30.0  # seconds to connect to every server and list its tools
CLOSE_TIMEOUT = 10.0  # seconds to close the connections
_SEGMENT = re.compile(r"[^A-Za-z0-9_.:-]+")


class MCPToolError(Exception):
    """An MCP tool answered with ``is_error``; the message is the server's text, verbatim."""


class MCPTools:
    """Live connections to MCP servers and their tools as :class:`~corral.tools.ToolDefinition`
    objects (iterate it, or pass it as ``tools=``).

    Args:
        servers: The servers, each named by its own name (what it reports when connected), or a
            mapping ``{prefix: server}`` to choose the prefixes (``""``: no prefix).
        connect_timeout: Seconds to connect to every server and list its tools.

    Raises:
        ConnectionError: when a server cannot be reached or listed (the cause is chained).
        ValueError: when two tools end up with one name, or a server gives no name to use as
            its prefix.

    Close it (or use it as a context manager) to end the sessions and stop stdio servers.
    """

    def __init__(
        self,
        servers: Iterable[MCPServerLike] | Mapping[str, MCPServerLike],
        *,
        connect_timeout: float = CONNECT_TIMEOUT,
    ) -> None:
        named: list[tuple[str | None, MCPServerLike]] = (
            list(servers.items())
            if isinstance(servers, Mapping)
            else [(None, server) for server in servers]
        )
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="corral-mcp", daemon=True
        )
        self._thread.start()
        self._stop: asyncio.Event | None = None
        self._owner: concurrent.futures.Future[None] | None = None
        self._connected = False
        self._finished = threading.Event()
        self.tools: list[ToolDefinition] = []
        """The tools of every server, in the order listed."""
        ready: concurrent.futures.Future[list[ToolDefinition]] = concurrent.futures.Future()
        self._owner = asyncio.run_coroutine_threadsafe(self._own(named, ready), self._loop)
        try:
            self.tools = ready.result(timeout=connect_timeout)
            self._connected = True
        except concurrent.futures.TimeoutError:
            self.close()
            raise ConnectionError(
                f"the MCP servers did not connect and list their tools within "
                f"{connect_timeout} s; check each server, or raise connect_timeout"
            ) from None
        except BaseException:
            self.close()
            raise

    # --- the owner task -------------------------------------------------------------------

    async def _own(
        self,
        servers: list[tuple[str | None, MCPServerLike]],
        ready: concurrent.futures.Future[list[ToolDefinition]],
    ) -> None:
        """Open every client, list the tools, then hold the sessions until :meth:`close`."""
        self._stop = asyncio.Event()
        try:
            async with AsyncExitStack() as stack:
                try:
                    tools: list[ToolDefinition] = []
                    for prefix, server in servers:
                        client = await _connect(stack, server)
                        name = _prefix(prefix, client, server)
                        tools.extend(await self._tools_of(name, client))
                    _check_unique(tools)
                except Exception as error:  # noqa: BLE001 - raised by __init__
                    ready.set_exception(_leaf(error))
                    return
                ready.set_result(tools)
                await self._stop.wait()
        finally:
            self._finished.set()

    async def _tools_of(self, prefix: str, client: mcp.Client) -> list[ToolDefinition]:
        listed: list[mcp.types.Tool] = []
        cursor: str | None = None
        while True:
            page = await client.list_tools(cursor=cursor)
            listed.extend(page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        return [self._definition(prefix, client, tool) for tool in listed]

    def _definition(self, prefix: str, client: mcp.Client, tool: mcp.types.Tool) -> ToolDefinition:
        name = f"{prefix}/{tool.name}" if prefix else tool.name
        unwrap = _wraps_result(tool.output_schema)

        async def call(**params: Any) -> Any:
            result = await self._on_loop(client.call_tool(tool.name, params))
            return _value(result, unwrap)

        try:
            return ToolDefinition(
                name=name,
                description=tool.description or tool.title or "",
                parameters=dict(tool.input_schema),
                func=call,
                is_async=True,
            )
        except ValueError as error:
            raise ValueError(
                f"the MCP tool {tool.name!r} cannot be a corral tool: {error}; choose another "
                "prefix"
            ) from None

    async def _on_loop(self, call: Coroutine[Any, Any, mcp.types.CallToolResult]) -> Any:
        """Await ``call`` on the owner's loop from any other loop (cancelled with the caller)."""
        if self._stop is None or self._stop.is_set():
            call.close()
            raise RuntimeError(
                "the MCP session is closed (its sandbox was closed): use a new sandbox"
            )
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call, self._loop))

    # --- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """End every session (stopping stdio servers) and the background thread; idempotent."""
        if not self._thread.is_alive():
            return
        if self._owner is not None and self._connected:
            assert self._stop is not None
            self._loop.call_soon_threadsafe(self._stop.set)
        elif self._owner is not None:
            self._owner.cancel()  # still connecting: unwinds what it opened, in its own task
        # The owner's future says "cancelled" at once; its task is done when it has closed
        # the sessions (stopping stdio servers).
        self._finished.wait(timeout=CLOSE_TIMEOUT)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=CLOSE_TIMEOUT)
        if not self._thread.is_alive():
            self._loop.close()

    def __enter__(self) -> MCPTools:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[ToolDefinition]:
        return iter(self.tools)

    def __len__(self) -> int:
        return len(self.tools)

    def __repr__(self) -> str:
        return f"MCPTools({[tool.name for tool in self.tools]!r})"


def tools_from_mcp(
    server: MCPServerLike, prefix: str | None = None, *, connect_timeout: float = CONNECT_TIMEOUT
) -> MCPTools:
    """Connect to one MCP server and return its tools, named ``PREFIX/TOOL``.

    ``prefix`` defaults to the server's own name; ``""`` keeps the tools' bare names. Close
    the result (or use ``with``) when done: it holds the session.
    """
    return MCPTools(
        {prefix: server} if prefix is not None else [server], connect_timeout=connect_timeout
    )


async def _connect(stack: AsyncExitStack, server: MCPServerLike) -> mcp.Client:
    client = server if isinstance(server, mcp.Client) else mcp.Client(server)
    try:
        return await stack.enter_async_context(client)
    except Exception as error:  # noqa: BLE001 - any failure to connect, with its cause
        cause = _leaf(error)
        raise ConnectionError(
            f"cannot connect to the MCP server {_describe(server)}: {type(cause).__name__}: {cause}"
        ) from cause


def _leaf(error: BaseException) -> BaseException:
    """The one error inside nested exception groups (anyio's task groups wrap what they
    raise), or ``error`` itself."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _describe(server: MCPServerLike) -> str:
    if isinstance(server, mcp.StdioServerParameters):
        return repr(" ".join([server.command, *server.args]))
    if isinstance(server, str):
        return repr(server)
    return f"{type(server).__name__} {getattr(server, 'name', '')!r}"


def _prefix(prefix: str | None, client: mcp.Client, server: MCPServerLike) -> str:
    if prefix is not None:
        return prefix
    info = client.server_info
    if info is None or not info.name:
        raise ValueError(
            f"the MCP server {server!r} does not say its name: give it a prefix with "
            "mcp_servers={'name': server} or tools_from_mcp(server, prefix='name')"
        )
    return _SEGMENT.sub("_", info.name).strip("_") or "mcp"


def _check_unique(tools: list[ToolDefinition]) -> None:
    seen: set[str] = set()
    for tool in tools:
        if tool.name in seen:
            raise ValueError(
                f"two MCP tools are named {tool.name!r}: give the servers different prefixes "
                "with mcp_servers={'prefix': server, ...}"
            )
        seen.add(tool.name)


def _wraps_result(output_schema: Mapping[str, Any] | None) -> bool:
    """Whether the output schema is the ``{"result": ...}`` wrapper servers put around a value
    that is not an object (so the value is unwrapped)."""
    if not output_schema:
        return False
    return set(output_schema.get("properties", {})) == {"result"}


def _value(result: mcp.types.CallToolResult, unwrap: bool) -> Any:
    """What the guest receives: the structured content, or the text (a JSON object or array
    in a single text block is decoded); an error result raises :class:`MCPToolError`."""
    texts = [block.text for block in result.content if isinstance(block, mcp.types.TextContent)]
    if result.is_error:
        raise MCPToolError("\n".join(texts) or "the MCP tool failed without a message")
    structured = result.structured_content
    if structured is not None:
        return structured["result"] if unwrap and "result" in structured else structured
    if len(texts) != len(result.content):
        return [
            block.model_dump(mode="json", by_alias=True, exclude_none=True)
            for block in result.content
        ]
    if len(texts) == 1:
        return _maybe_json(texts[0])
    return "\n".join(texts)


def _maybe_json(text: str) -> Any:
    if text.lstrip()[:1] not in ("{", "["):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text
