"""A sandbox packaged as one tool for an agent, and the factories agents start from."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from ._calls import ToolHandler
from .capabilities import MethodCapability, capabilities_from_dict
from .limits import Limits
from .sandbox import Sandbox, _language
from .tools import ToolDefinition, ToolLike, to_anthropic, to_mcp, to_openai, tool_table

__all__ = ["SandboxTool", "create_bash_tool", "create_sandbox_tool"]


class SandboxTool:
    """A sandbox packaged as one tool for an agent: the model passes code, gets text back.

    ``run`` returns what a model should read: stdout, then stderr, then the exit code when it
    is non-zero (see :meth:`~corral.results.ExecutionResult.text`).
    """

    name = "sandbox"

    def __init__(self, sandbox: Sandbox, language: str = "javascript") -> None:
        _language(language)  # checked now, not at the first run
        self.sandbox = sandbox
        self.language = language

    def close(self) -> None:
        """Close the sandbox (see :meth:`Sandbox.close <corral.sandbox.Sandbox.close>`);
        ``with create_bash_tool() as tool:`` closes it at the end of the block."""
        self.sandbox.close()

    def __enter__(self) -> SandboxTool:
        """``with``: the tool itself, closed at the end of the block."""
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Close at the end of the ``with`` block (also when it raised)."""
        self.close()

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
        """What the model reads about this tool (how code runs in its language, the limits,
        and the tools the code can call as TypeScript declarations with the capabilities in
        force); see :meth:`~corral.sandbox.Sandbox.prompt`."""
        return self.sandbox.prompt(self.language)

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

    # --- export: this tool in other libraries' forms ------------------------------------

    def to_openai(self, *, api: Literal["chat", "responses"] = "chat") -> dict[str, Any]:
        """This tool as an OpenAI function tool: the Chat Completions form, or the Responses
        API's flat form with ``api="responses"`` (see :func:`corral.tools.to_openai`)."""
        return to_openai(self._definition(), api=api)

    def to_anthropic(self) -> dict[str, Any]:
        """This tool as an Anthropic client tool (``name``, ``description``,
        ``input_schema``)."""
        return to_anthropic(self._definition())

    def to_mcp(self) -> dict[str, Any]:
        """This tool as a dict in the shape of an MCP ``Tool`` (``name``, ``description``,
        ``inputSchema``)."""
        return to_mcp(self._definition())

    def _definition(self) -> ToolDefinition:
        return ToolDefinition(self.name, self.description, self.parameters)


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
    table = tool_table(tools, tool_handler)
    caps = capabilities_from_dict(list(table), constraints, max_calls)
    return SandboxTool(Sandbox(table.values(), caps, tool_handler, limits))


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
    table = tool_table(tools, tool_handler)
    caps = capabilities_from_dict(list(table), constraints, max_calls)
    return SandboxTool(Sandbox(table.values(), caps, tool_handler, limits), language="auto")
