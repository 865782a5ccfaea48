"""corral in LlamaIndex (``pip install 'corral[llamaindex]'``).

- :func:`as_function_tool`: a ``FunctionTool`` with a sync ``fn`` and an async ``async_fn``
  (``FunctionAgent`` awaits the sandbox's async tools on its event loop), for any agent that
  calls tools. Failures come back as the tool's text output.
- :func:`code_execute_fn` and :func:`code_act_prompt`: the two pieces ``CodeActAgent`` needs,
  so the model writes JavaScript (or shell) between ``<execute>`` tags and corral runs it; the
  prompt lists the sandbox's tools as async functions. The default CodeAct prompt asks for
  Python, which corral does not run: always pass :func:`code_act_prompt` with it, or build the
  agent with :func:`create_codeact_agent`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..sandbox_tool import SandboxTool
from . import _code, require

__all__ = ["as_function_tool", "code_act_prompt", "code_execute_fn", "create_codeact_agent"]

EXTRA = "llamaindex"

CODE_ACT_PROMPT = """\
You are a helpful assistant that solves tasks by writing code that a sandbox runs.

Answer with either:
- code between <execute>...</execute> tags: a step towards the solution. The sandbox runs it and
  shows you its output (what it prints, the value it returns, or its error) in the next message;
- or, when you have what you need, the final answer as plain text, without code.

{languages}

The sandbox:
{description}

Example:
<execute>
{example}
</execute>

Files under /workspace persist between steps; variables do not. A tool call that is denied
comes back as an error naming the rule: change the arguments instead of repeating the call.
Reminder: always put code between <execute>...</execute> tags.
"""
LANGUAGE_NOTES = {
    "javascript": "Write JavaScript: the code is the body of an async function, so use `await`, "
    "print with console.log, and `return` a value to show it.",
    "shell": "Write a bash script (GNU-like tools: grep, sed, awk, jq, sort ...).",
    "auto": "Write a bash script (GNU-like tools: grep, sed, awk, jq, sort ...) or JavaScript "
    "(the body of an async function: use `await`, console.log, `return`). A script whose "
    "first word is a shell command runs in the shell, anything else as JavaScript.",
}
EXAMPLES = {
    "javascript": 'const text = "a b c";\nconsole.log(text.split(" ").length);',
    "shell": "echo 'a b c' | wc -w",
    "auto": "echo 'a b c' | wc -w",
}


def as_function_tool(sandbox_tool: SandboxTool, *, name: str | None = None) -> Any:
    """A ``llama_index.core.tools.FunctionTool`` that runs the model's code in
    ``sandbox_tool``'s sandbox (``call`` runs it, ``acall`` awaits it)."""
    tools = require("llama_index.core.tools", EXTRA)

    def run_code(**arguments: Any) -> str:
        return _code.run(sandbox_tool, arguments)

    async def arun_code(**arguments: Any) -> str:
        return await _code.arun(sandbox_tool, arguments)

    return tools.FunctionTool.from_defaults(
        fn=run_code,
        async_fn=arun_code,
        name=name or sandbox_tool.name,
        description=sandbox_tool.description,
        fn_schema=_code.arguments_model(sandbox_tool, EXTRA),
    )


def code_execute_fn(sandbox_tool: SandboxTool) -> Callable[[str], Awaitable[str]]:
    """``CodeActAgent``'s ``code_execute_fn``: ``await fn(code)`` runs the code in the sandbox,
    in the sandbox tool's language, and returns the text the model reads next."""

    async def execute(code: str) -> str:
        """Run the code in the corral sandbox and return its output."""
        return await _code.arun(sandbox_tool, {"code": code})

    return execute


def code_act_prompt(sandbox_tool: SandboxTool) -> str:
    """A CodeAct system prompt for the sandbox's language(s), listing its tools.

    >>> from corral import create_sandbox_tool
    >>> print(code_act_prompt(create_sandbox_tool()).splitlines()[7][:60])
    Write JavaScript: the code is the body of an async function,
    """
    language = sandbox_tool.language if sandbox_tool.language in EXAMPLES else "auto"
    return CODE_ACT_PROMPT.format(
        languages=LANGUAGE_NOTES[language],
        description=sandbox_tool.description,
        example=EXAMPLES[language],
    )


def create_codeact_agent(sandbox_tool: SandboxTool, llm: Any, **options: Any) -> Any:
    """A ``CodeActAgent`` whose code runs in the sandbox, with :func:`code_act_prompt`;
    ``options`` go to ``CodeActAgent`` (``name``, ``system_prompt``, ...). Its own ``tools`` stay
    empty: the code calls the sandbox's tools, each checked against its capabilities."""
    workflow = require("llama_index.core.agent.workflow", EXTRA)
    return workflow.CodeActAgent(
        code_execute_fn=code_execute_fn(sandbox_tool),
        code_act_system_prompt=code_act_prompt(sandbox_tool),
        llm=llm,
        **options,
    )
