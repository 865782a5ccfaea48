"""corral in CrewAI (``pip install 'corral[crewai]'``).

:func:`as_crewai_tool` gives a ``crewai.tools.BaseTool`` (an instance of a subclass,
``CorralTool``) for ``Agent(tools=[...])``: ``run`` executes the code with ``SandboxTool.run``,
``arun`` awaits ``SandboxTool.arun`` on the caller's event loop. Its argument schema has
``code`` only, plus a ``language`` enum when the sandbox runs both the shell and JavaScript.
Guest failures and denied tool calls are the tool's text result.

CrewAI pins ``mcp<2``, so it has its own extra and is not part of ``corral[all]``.
"""

from __future__ import annotations

import functools
from typing import Any

from ..sandbox_tool import SandboxTool
from . import _code, require

__all__ = ["as_crewai_tool"]

EXTRA = "crewai"


def as_crewai_tool(sandbox_tool: SandboxTool, *, name: str | None = None) -> Any:
    """A CrewAI tool that runs the model's code in ``sandbox_tool``'s sandbox; ``name``
    defaults to ``sandbox_tool.name``."""
    tool_class = _tool_class()
    return tool_class(
        sandbox_tool,
        name=name or sandbox_tool.name,
        description=sandbox_tool.description,
        args_schema=_code.arguments_model(sandbox_tool, EXTRA),
    )


@functools.cache
def _tool_class() -> type[Any]:
    """The ``crewai.tools.BaseTool`` subclass, defined once crewai is importable."""
    tools = require("crewai.tools", EXTRA)
    pydantic = require("pydantic", EXTRA)

    class CorralTool(tools.BaseTool):  # type: ignore[misc, name-defined]
        """Runs code in a corral sandbox; failures are the returned text."""

        _sandbox_tool: Any = pydantic.PrivateAttr()

        def __init__(self, sandbox_tool: SandboxTool, **fields: Any) -> None:
            super().__init__(**fields)
            self._sandbox_tool = sandbox_tool

        def _run(self, **arguments: Any) -> str:
            return _code.run(self._sandbox_tool, arguments)

        async def _arun(self, **arguments: Any) -> str:
            return await _code.arun(self._sandbox_tool, arguments)

    return CorralTool
