"""corral in smolagents (``pip install 'corral[smolagents]'``).

:func:`as_smolagents_tool` gives a ``smolagents.Tool`` for ``ToolCallingAgent`` (or any agent):
the model passes ``code`` (and ``language`` when the sandbox runs both the shell and
JavaScript), and reads the output, the guest's error or the denial as the observation.
smolagents tools are synchronous, so the tool runs ``SandboxTool.run``.

``CodeAgent`` is not offered: it asks the model for Python (its prompts, its examples, its
``final_answer(...)`` protocol and its executor's state between steps are Python), and corral
runs JavaScript and a shell, not Python. Passing JavaScript through a Python agent's prompt
would have the model write one language against instructions for another; use the
``ToolCallingAgent`` with this tool, whose one call can still run a whole script of tool calls.
"""

from __future__ import annotations

import functools
from typing import Any

from ..sandbox_tool import SandboxTool
from . import _code, require

__all__ = ["as_smolagents_tool"]

EXTRA = "smolagents"


def as_smolagents_tool(sandbox_tool: SandboxTool, *, name: str | None = None) -> Any:
    """A ``smolagents.Tool`` (an instance of a subclass, ``CorralTool``) that runs the model's
    code in ``sandbox_tool``'s sandbox; ``name`` defaults to ``sandbox_tool.name``."""
    return _tool_class()(sandbox_tool, name or sandbox_tool.name)


@functools.cache
def _tool_class() -> type[Any]:
    """The ``smolagents.Tool`` subclass, defined once smolagents is importable."""
    smolagents = require("smolagents", EXTRA)

    class CorralTool(smolagents.Tool):  # type: ignore[misc, name-defined]
        """Runs code in a corral sandbox; its inputs follow the sandbox's languages."""

        output_type = "string"
        # forward takes **arguments so that one class serves both argument shapes.
        skip_forward_signature_validation = True

        def __init__(self, sandbox_tool: SandboxTool, name: str) -> None:
            self.sandbox_tool = sandbox_tool
            self.name = name
            self.description = sandbox_tool.description
            self.inputs = _inputs(sandbox_tool)
            super().__init__()

        def forward(self, **arguments: Any) -> str:
            """Run the code; failures are the returned text."""
            present = {key: value for key, value in arguments.items() if value is not None}
            return _code.run(self.sandbox_tool, present)

    return CorralTool


def _inputs(sandbox_tool: SandboxTool) -> dict[str, dict[str, Any]]:
    """smolagents' form of the schema: ``{name: {type, description[, nullable]}}``."""
    schema = _code.parameters(sandbox_tool)
    inputs: dict[str, dict[str, Any]] = {}
    for key, spec in schema["properties"].items():
        description = spec["description"]
        if "enum" in spec:
            description += " One of: " + ", ".join(spec["enum"]) + "."
        inputs[key] = {"type": spec["type"], "description": description}
        if key not in schema["required"]:
            inputs[key]["nullable"] = True
    return inputs
