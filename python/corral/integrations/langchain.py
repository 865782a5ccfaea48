"""corral as a LangChain tool: ``SandboxTool.as_langchain_tool()`` (extra: ``corral[langchain]``).

The tool works wherever LangChain 1.x takes a ``BaseTool``: ``langchain.agents.create_agent``,
LangGraph's ``ToolNode`` inside a ``StateGraph``, and ``langgraph.prebuilt.create_react_agent``.
It never raises for a guest failure (an exception in the code, a denied tool call, a timeout):
LangChain ends the whole agent run when a tool raises, so the failure is returned as the text
the model reads next, and the exit code and error kind go into the ``ToolMessage``'s artifact.

:class:`CorralMiddleware` is the middleware form for ``create_agent``: it adds the sandbox tool
and keeps one sandbox per conversation (LangGraph ``thread_id``), so files persist per thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Literal

from ..results import ExecutionResult
from ..sandbox_tool import SandboxTool
from . import _code, require
from ._code import NO_OUTPUT

require("langchain", "langchain")

from langchain.agents.middleware import AgentMiddleware  # noqa: E402
from langchain_core.runnables import RunnableConfig  # noqa: E402
from langchain_core.tools import BaseTool  # noqa: E402
from pydantic import BaseModel  # noqa: E402

__all__ = [
    "NO_OUTPUT",
    "CorralMiddleware",
    "CorralTool",
    "as_langchain_tool",
    "content_and_artifact",
]


def content_and_artifact(result: ExecutionResult) -> tuple[str, dict[str, Any]]:
    """What the tool returns for ``result``: the text the model reads, and the artifact
    (``exit_code``, ``error_kind``, ``error``) kept on the ``ToolMessage`` for the program."""
    artifact = {
        "exit_code": result.exit_code,
        "error_kind": result.error_kind,
        "error": result.error,
    }
    return result.text() or NO_OUTPUT, artifact


class CorralTool(BaseTool):
    """A LangChain ``BaseTool`` that runs the model's code in a corral sandbox.

    Build it with :meth:`SandboxTool.as_langchain_tool
    <corral.sandbox_tool.SandboxTool.as_langchain_tool>` (or :func:`as_langchain_tool`). Its
    only argument is ``code``, plus ``language`` when the sandbox tool runs both languages
    (``create_bash_tool``). The sync path runs ``Sandbox.execute``; the async path awaits
    ``Sandbox.aexecute`` on the caller's event loop, so async Python tools run there too.
    ``sandbox_for(config)`` picks the sandbox tool that runs a call (the same one for every
    call, or one per ``thread_id`` with :class:`CorralMiddleware`).
    """

    name: str = "sandbox"
    description: str = "Run code in the corral sandbox."
    args_schema: type[BaseModel]
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    sandbox_for: Callable[[RunnableConfig | None], SandboxTool]

    def _run(
        self, code: str, config: RunnableConfig, language: str | None = None
    ) -> tuple[str, dict[str, Any]]:
        sandbox_tool = self.sandbox_for(config)
        return content_and_artifact(
            sandbox_tool.sandbox.execute(code, language or sandbox_tool.language)
        )

    async def _arun(
        self, code: str, config: RunnableConfig, language: str | None = None
    ) -> tuple[str, dict[str, Any]]:
        sandbox_tool = self.sandbox_for(config)
        result = await sandbox_tool.sandbox.aexecute(code, language or sandbox_tool.language)
        return content_and_artifact(result)


def as_langchain_tool(sandbox_tool: SandboxTool, name: str = "sandbox") -> CorralTool:
    """``sandbox_tool`` as a LangChain :class:`CorralTool` named ``name`` (every call runs in
    the same sandbox, so files persist between calls)."""
    return _tool(sandbox_tool, lambda config: sandbox_tool, name)


def _tool(
    prototype: SandboxTool, sandbox_for: Callable[[RunnableConfig | None], SandboxTool], name: str
) -> CorralTool:
    return CorralTool(
        name=name,
        description=prototype.description,
        args_schema=_code.arguments_model(prototype, "langchain"),
        sandbox_for=sandbox_for,
    )


class CorralMiddleware(AgentMiddleware):
    """``create_agent`` middleware that adds the sandbox tool, one sandbox per thread.

    ``factory()`` makes a new :class:`~corral.sandbox_tool.SandboxTool` (for example
    ``lambda: create_bash_tool(tools=[...])``) the first time a conversation (a
    ``thread_id`` in the run's config) calls the tool; calls without a ``thread_id`` share
    one sandbox. Sandboxes live as long as the middleware.

    >>> from corral import create_bash_tool
    >>> middleware = CorralMiddleware(create_bash_tool)
    >>> [tool.name for tool in middleware.tools]
    ['sandbox']
    """

    def __init__(self, factory: Callable[[], SandboxTool], name: str = "sandbox") -> None:
        super().__init__()
        self._factory = factory
        self._shared = factory()
        self._threads: dict[str, SandboxTool] = {}
        self._lock = threading.Lock()
        self.tools = [_tool(self._shared, self.sandbox_for, name)]

    def sandbox_for(self, config: RunnableConfig | None) -> SandboxTool:
        """The sandbox tool of the conversation that ``config`` belongs to."""
        thread = ((config or {}).get("configurable") or {}).get("thread_id")
        if thread is None:
            return self._shared
        with self._lock:
            if str(thread) not in self._threads:
                self._threads[str(thread)] = self._factory()
            return self._threads[str(thread)]
