"""What the framework adapters share: the arguments a model passes and how they are run.

A :class:`~corral.sandbox_tool.SandboxTool` of one language takes only ``code``; one that
picks the language per script (``create_bash_tool``, ``language="auto"``) also takes
``language``, an enum. Bad arguments and guest failures come back as text the model can act on:
a framework tool that raises would abort the agent's run (or hide the message).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

from ..sandbox_tool import SandboxTool
from . import require

__all__ = [
    "LANGUAGES",
    "NO_OUTPUT",
    "arguments_model",
    "arguments_problem",
    "arun",
    "code_description",
    "is_mixed",
    "parameters",
    "run",
]

NO_OUTPUT = "(no output)"
"""What the model reads when the code succeeded and printed nothing (an empty tool result
reads as a failure to some models)."""

Language = Literal["auto", "javascript", "shell"]
LANGUAGES: tuple[str, ...] = get_args(Language)
CODE_DESCRIPTION = {
    "javascript": "The JavaScript to run (the body of an async function).",
    "shell": "The shell script to run.",
    "auto": "The script to run: a shell script or JavaScript.",
}
CODE_SHAPE = '{"code": "<script>"}'
MIXED_SHAPE = '{"code": "<script>", "language": "auto"}'
LANGUAGE_DESCRIPTION = (
    "The script's language: 'shell', 'javascript', or 'auto' to pick it from the script "
    "(a shell command first is the shell)."
)


def is_mixed(sandbox_tool: SandboxTool) -> bool:
    """Whether the tool runs more than one language, so the model may pass ``language``."""
    return sandbox_tool.language == "auto"


def code_description(sandbox_tool: SandboxTool) -> str:
    """What the ``code`` argument holds, for the tool's schema."""
    return CODE_DESCRIPTION.get(sandbox_tool.language, CODE_DESCRIPTION["auto"])


def parameters(sandbox_tool: SandboxTool, *, strict: bool = False) -> dict[str, Any]:
    """The JSON Schema of the tool's arguments: ``code``, and ``language`` when mixed.

    ``strict`` lists every property in ``required`` (OpenAI's strict mode); otherwise
    ``language`` is optional and defaults to ``auto``.

    >>> from corral import create_bash_tool, create_sandbox_tool
    >>> parameters(create_sandbox_tool())["properties"].keys()
    dict_keys(['code'])
    >>> parameters(create_bash_tool(), strict=True)["required"]
    ['code', 'language']
    """
    properties: dict[str, Any] = {
        "code": {"type": "string", "description": code_description(sandbox_tool)}
    }
    required = ["code"]
    if is_mixed(sandbox_tool):
        properties["language"] = {
            "type": "string",
            "enum": list(LANGUAGES),
            "description": LANGUAGE_DESCRIPTION,
        }
        if strict:
            required.append("language")
        else:
            properties["language"]["default"] = "auto"
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def arguments_problem(sandbox_tool: SandboxTool, arguments: Mapping[str, Any]) -> str | None:
    """Why ``arguments`` cannot be run, as text for the model, or None when they can.

    >>> from corral import create_sandbox_tool
    >>> print(arguments_problem(create_sandbox_tool(), {"script": "1"}))
    Error: the sandbox tool takes {"code": "<script>"}; unexpected argument 'script'
    """
    expected = parameters(sandbox_tool)["properties"]
    shape = MIXED_SHAPE if is_mixed(sandbox_tool) else CODE_SHAPE
    takes = f"Error: the {sandbox_tool.name} tool takes {shape}"
    unexpected = [name for name in arguments if name not in expected]
    if unexpected:
        return f"{takes}; unexpected argument {unexpected[0]!r}"
    code = arguments.get("code")
    if not isinstance(code, str):
        got = "nothing" if code is None else f"a {type(code).__name__}"
        return f"{takes}; 'code' must be a string, got {got}"
    language = arguments.get("language")
    if language is not None and language not in LANGUAGES:
        choices = ", ".join(repr(name) for name in LANGUAGES)
        return f"Error: 'language' must be one of {choices}, got {language!r}"
    return None


def run(sandbox_tool: SandboxTool, arguments: Mapping[str, Any]) -> str:
    """Run the model's ``arguments`` (``code``, maybe ``language``) and return the text it
    should read: the output (:data:`NO_OUTPUT` when there is none), the guest's error, or what
    is wrong with the arguments."""
    problem = arguments_problem(sandbox_tool, arguments)
    if problem is not None:
        return problem
    return sandbox_tool.run(arguments["code"], arguments.get("language")) or NO_OUTPUT


async def arun(sandbox_tool: SandboxTool, arguments: Mapping[str, Any]) -> str:
    """Async :func:`run`: async tools run on the caller's event loop."""
    problem = arguments_problem(sandbox_tool, arguments)
    if problem is not None:
        return problem
    output = await sandbox_tool.arun(arguments["code"], arguments.get("language"))
    return output or NO_OUTPUT


def arguments_model(sandbox_tool: SandboxTool, extra: str) -> type[Any]:
    """The arguments as a pydantic model (``code``, and ``language`` when mixed), for the
    frameworks that take their schema as a model class; ``extra`` names the pip extra that
    brings pydantic with its framework."""
    pydantic = require("pydantic", extra)
    fields: dict[str, Any] = {
        "code": (str, pydantic.Field(description=code_description(sandbox_tool))),
    }
    if is_mixed(sandbox_tool):
        fields["language"] = (Language, pydantic.Field("auto", description=LANGUAGE_DESCRIPTION))
    model: type[Any] = pydantic.create_model("SandboxArguments", **fields)
    return model
