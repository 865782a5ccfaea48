"""corral in smolagents (``pip install 'corral[smolagents]'``).

:func:`as_smolagents_tool` gives a ``smolagents.Tool`` for ``ToolCallingAgent`` (or any agent):
the model passes ``code`` (and ``language`` when the sandbox runs both the shell and
JavaScript), and reads the output, the guest's error or the denial as the observation.
smolagents tools are synchronous, so the tool runs ``SandboxTool.run``.

:func:`create_code_agent` gives smolagents' ``CodeAgent`` loop with JavaScript instead of
Python: corral's system prompt (the model writes JavaScript in ``<script>...</script>`` blocks,
prints what it needs to see next with ``console.log``, and ends the task with ``return
answer``), those tags as ``code_block_tags``, and :func:`code_executor`, an executor that runs
each block in the sandbox. The agent's own tools stay empty: the code calls the sandbox's tools,
each checked against its capabilities. Python state and ``final_answer(...)`` do not exist
there; variables do not persist between steps, files under ``/workspace`` do.
"""

from __future__ import annotations

import functools
import importlib.resources
from typing import Any

from ..sandbox_tool import SandboxTool
from . import _code, require

__all__ = ["as_smolagents_tool", "code_agent_prompt", "code_executor", "create_code_agent"]

EXTRA = "smolagents"
CODE_BLOCK_TAGS = ("<script>", "</script>")
CODE_AGENT_PROMPT = """\
You are an expert assistant who solves tasks by writing JavaScript that a sandbox runs.
Work in steps. In each step, write 'Thought:' with your reasoning, then JavaScript between \
{{code_block_opening_tag}} and {{code_block_closing_tag}}. The code is the body of an async \
function: use `await`. Print what you need for the next step with console.log; it comes back \
to you as the 'Observation:'. Variables do not persist between steps; files under /workspace do.
When you have the answer, end the task with a step whose code returns it: `return answer;`. \
Return nothing in the other steps.

Example:
Thought: I will count the words, then give the count as the answer.
{{code_block_opening_tag}}
const words = "a b c".split(" ");
return `${words.length} words`;
{{code_block_closing_tag}}

The sandbox:
{% raw %}{description}{% endraw %}
A tool call that is denied comes back as an error naming the rule: change the arguments \
instead of repeating the call.
{%- if custom_instructions %}
{{custom_instructions}}
{%- endif %}
"""


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


def code_agent_prompt(sandbox_tool: SandboxTool) -> str:
    """The ``CodeAgent`` system prompt template (Jinja, as smolagents renders it) for
    JavaScript in the sandbox, listing its tools."""
    return CODE_AGENT_PROMPT.replace("{description}", sandbox_tool.description)


def code_executor(sandbox_tool: SandboxTool) -> Any:
    """A ``CodeAgent`` executor (a ``smolagents.PythonExecutor``) that runs each code block as
    JavaScript in the sandbox. The code's output (or its error, or a denial) is the step's
    observation; a value it returns is the final answer."""
    return _executor_class()(sandbox_tool)


def create_code_agent(sandbox_tool: SandboxTool, model: Any, **options: Any) -> Any:
    """A ``smolagents.CodeAgent`` whose code is JavaScript run by :func:`code_executor`, with
    :func:`code_agent_prompt` and ``<script>`` code block tags; ``options`` go to ``CodeAgent``
    (``max_steps``, ``instructions``, ...)."""
    smolagents = require("smolagents", EXTRA)
    defaults = importlib.resources.files("smolagents.prompts").joinpath("code_agent.yaml")
    templates = require("yaml", EXTRA).safe_load(defaults.read_text())
    templates["system_prompt"] = code_agent_prompt(sandbox_tool)
    return smolagents.CodeAgent(
        tools=[],
        model=model,
        executor=code_executor(sandbox_tool),
        prompt_templates=templates,
        code_block_tags=CODE_BLOCK_TAGS,
        **options,
    )


@functools.cache
def _executor_class() -> type[Any]:
    """The ``PythonExecutor`` subclass that runs JavaScript, defined once smolagents is
    importable."""
    executor = require("smolagents.local_python_executor", EXTRA)

    class CorralExecutor(executor.PythonExecutor):  # type: ignore[misc, name-defined]
        """Runs a CodeAgent's code blocks as JavaScript in a corral sandbox."""

        def __init__(self, sandbox_tool: SandboxTool) -> None:
            self.sandbox_tool = sandbox_tool

        def send_tools(self, tools: dict[str, Any]) -> None:
            """Accept only smolagents' own ``final_answer``: other tools belong to the sandbox."""
            foreign = sorted(name for name in tools if name != "final_answer")
            if foreign:
                raise ValueError(
                    f"the CodeAgent's tools {foreign} cannot run inside corral's JavaScript: "
                    "give them to create_sandbox_tool(tools=[...]) instead"
                )

        def send_variables(self, variables: dict[str, Any]) -> None:
            """Refuse Python variables: pass data in files (``sandbox.fs.write``) or tools."""
            if variables:
                raise ValueError(
                    f"Python variables {sorted(variables)} cannot enter corral's JavaScript: "
                    "write the data to a file with sandbox.fs.write(...) or serve it from a tool"
                )

        def __call__(self, code_action: str) -> Any:
            result = self.sandbox_tool.sandbox.execute(code_action, "javascript")
            final = result.ok and result.return_value is not None
            return executor.CodeOutput(
                output=result.return_value if final else None,
                logs=result.text(),
                is_final_answer=final,
            )

    return CorralExecutor
