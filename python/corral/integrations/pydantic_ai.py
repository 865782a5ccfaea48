"""corral in pydantic-ai (``pip install 'corral[pydantic-ai]'``).

:func:`as_pydantic_tool` gives a ``pydantic_ai.Tool`` and :func:`as_toolset` a
``FunctionToolset`` holding it, for ``Agent(model, tools=[...])`` or
``Agent(model, toolsets=[...])``. The tool's function is async, so ``agent.run(...)`` awaits the
sandbox's async tools on the agent's event loop, and ``agent.run_sync(...)`` works the same way.
Guest failures, denied tool calls and bad arguments come back as the tool's text result: in
pydantic-ai a tool that raises ends the run.
"""

from __future__ import annotations

from typing import Any

from ..sandbox_tool import SandboxTool
from . import _code, require

__all__ = ["as_pydantic_tool", "as_toolset"]

EXTRA = "pydantic-ai"


def as_pydantic_tool(sandbox_tool: SandboxTool, *, name: str | None = None) -> Any:
    """A ``pydantic_ai.Tool`` that runs the model's code in ``sandbox_tool``'s sandbox.

    Its schema has ``code`` only (plus a ``language`` enum when the sandbox runs both the
    shell and JavaScript); ``name`` defaults to ``sandbox_tool.name``.
    """
    pydantic_ai = require("pydantic_ai", EXTRA)

    async def run_code(**arguments: Any) -> str:
        return await _code.arun(sandbox_tool, arguments)

    return pydantic_ai.Tool.from_schema(
        run_code,
        name=name or sandbox_tool.name,
        description=sandbox_tool.description,
        json_schema=_code.parameters(sandbox_tool),
    )


def as_toolset(sandbox_tool: SandboxTool, *, name: str | None = None) -> Any:
    """A ``pydantic_ai.toolsets.FunctionToolset`` holding :func:`as_pydantic_tool`."""
    toolsets = require("pydantic_ai.toolsets", EXTRA)
    return toolsets.FunctionToolset([as_pydantic_tool(sandbox_tool, name=name)])
