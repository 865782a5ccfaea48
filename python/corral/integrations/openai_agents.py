"""corral in the OpenAI Agents SDK (``pip install 'corral[openai-agents]'``).

Two forms, each backed by a :class:`~corral.sandbox_tool.SandboxTool`:

- :func:`as_function_tool`: a ``FunctionTool`` with a strict schema (``code``, plus a
  ``language`` enum when the sandbox runs both languages), run through ``aexecute`` on the
  agent's event loop; every failure (a guest exception, a denied tool call, bad arguments)
  comes back as text, since a raising ``FunctionTool`` ends the run.
- :func:`shell_tool` / :func:`shell_executor`: the SDK's ``ShellTool`` (the ``shell`` tool
  OpenAI models are trained on) with corral's shell as its executor: each command of a request
  runs in the sandbox's shell session and gets its own stdout, stderr and exit code, or the
  ``timeout`` outcome when it ran past ``Limits.timeout``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from ..results import ErrorKind
from ..sandbox_tool import SandboxTool
from . import _code, require

__all__ = ["as_function_tool", "shell_executor", "shell_tool"]

EXTRA = "openai-agents"


def as_function_tool(sandbox_tool: SandboxTool, *, name: str | None = None, **options: Any) -> Any:
    """An ``agents.FunctionTool`` that runs the model's code in ``sandbox_tool``'s sandbox.

    Args:
        sandbox_tool: The sandbox and its tools (from ``create_sandbox_tool`` or
            ``create_bash_tool``).
        name: The tool's name for the model (default ``sandbox_tool.name``).
        options: Other ``FunctionTool`` fields (``needs_approval``, ``timeout_seconds``,
            ``is_enabled``, ...).
    """
    agents = require("agents", EXTRA)

    async def on_invoke_tool(context: Any, arguments_json: str) -> str:
        try:
            arguments = json.loads(arguments_json or "{}")
        except json.JSONDecodeError as error:
            return f'Error: the arguments are not valid JSON ({error}); pass {{"code": "..."}}'
        if not isinstance(arguments, dict):
            return 'Error: the arguments must be a JSON object: {"code": "..."}'
        return await _code.arun(sandbox_tool, arguments)

    return agents.FunctionTool(
        name=name or sandbox_tool.name,
        description=sandbox_tool.description,
        params_json_schema=_code.parameters(sandbox_tool, strict=True),
        on_invoke_tool=on_invoke_tool,
        strict_json_schema=True,
        **options,
    )


def shell_executor(sandbox_tool: SandboxTool) -> Callable[[Any], Awaitable[Any]]:
    """A ``ShellTool`` executor: ``await executor(request)`` runs each of
    ``request.data.action.commands`` in corral's shell, one after the other in one shell
    session (``cd`` and variables carry over), and returns a ``ShellResult``.

    The timeout is the sandbox's ``Limits.timeout`` for each command (the request's
    ``timeout_ms`` is not applied: corral's limits belong to the sandbox); the SDK cuts the
    output to the request's ``max_output_length``.
    """
    agents = require("agents", EXTRA)
    sandbox = sandbox_tool.sandbox

    async def executor(request: Any) -> Any:
        outputs = []
        for command in request.data.action.commands:
            result = await sandbox.aexecute(command, "shell")
            timed_out = result.error_kind == ErrorKind.TIMEOUT
            outcome = agents.ShellCallOutcome(
                type="timeout" if timed_out else "exit",
                exit_code=None if timed_out else result.exit_code,
            )
            outputs.append(
                agents.ShellCommandOutput(
                    stdout=result.stdout, stderr=result.stderr, outcome=outcome, command=command
                )
            )
        return agents.ShellResult(output=outputs)

    return executor


def shell_tool(sandbox_tool: SandboxTool, **options: Any) -> Any:
    """An ``agents.ShellTool`` whose executor is :func:`shell_executor`; ``options`` go to
    ``ShellTool`` (``needs_approval``, ``on_approval``, ...)."""
    agents = require("agents", EXTRA)
    return agents.ShellTool(executor=shell_executor(sandbox_tool), **options)
