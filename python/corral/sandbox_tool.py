"""A sandbox packaged as one tool for an agent, and the factories agents start from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ._calls import ToolHandler
from .capabilities import MethodCapability, capabilities_from_dict
from .limits import Limits
from .sandbox import Sandbox, ToolLike, _definition

__all__ = ["SandboxTool", "create_bash_tool", "create_sandbox_tool"]


class SandboxTool:
    """A sandbox packaged as one tool for an agent: the model passes code, gets text back.

    ``run`` returns what a model should read: stdout, then stderr, then the exit code when it
    is non-zero (see :meth:`~corral.results.ExecutionResult.text`).
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

    def as_langchain_tool(self, name: str = "sandbox") -> Any:
        """This tool as a LangChain ``BaseTool`` (needs ``pip install 'corral[langchain]'``);
        see :class:`corral.integrations.langchain.CorralTool`."""
        from .integrations.langchain import as_langchain_tool

        return as_langchain_tool(self, name)

    @property
    def description(self) -> str:
        """The tool's description for the model (its languages and the tools it can call)."""
        if self.language == "javascript":
            lines = [
                "Run JavaScript in an isolated sandbox. The code is the body of an async "
                "function: use await, print with console.log, and `return` a value to output "
                "it. No network, no require(); files via the global fs (Node-like) under "
                "/workspace. Call these async functions (one object argument each):",
            ]
        else:
            lines = [
                "Run a bash script (GNU tools: grep, sed, awk, jq, sort, find, ...) or "
                "JavaScript in an isolated sandbox with a persistent /workspace. Shell: call a "
                "tool with `tool NAME --key value` (prints JSON; pipe it to jq). JavaScript: "
                "the code is the body of an async function; tools are async functions taking "
                "one object:",
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
                "code": {"type": "string", "description": "The script to run."},
                "language": {"type": "string", "enum": ["auto", "javascript", "shell"]},
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
    """The code-mode tool agents get by default: bash and JavaScript in one sandbox.

    Same arguments as :func:`create_sandbox_tool`. ``run(code)`` without a language picks the
    shell or JavaScript by the rule of :func:`corral.language.detect_language` (``echo hi``
    is the shell, ``return 1`` is JavaScript); ``language=`` always overrides it.
    """
    definitions = [_definition(t) for t in tools or ()]
    caps = capabilities_from_dict([t.name for t in definitions], constraints, max_calls)
    return SandboxTool(Sandbox(definitions, caps, tool_handler, limits), language="auto")
