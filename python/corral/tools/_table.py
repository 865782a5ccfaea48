"""The tool table: the one place where the tools of a sandbox are built and checked.

:class:`~corral.sandbox.Sandbox`, :class:`~corral.sandbox_tool.SandboxTool` and the factories
all build their tools here, so that no two tools can reach the guest under one JavaScript
name or one namespace path.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ._definition import ToolDefinition
from ._functions import tool_from_function
from ._names import js_namespace_path


def as_definition(tool: Any) -> ToolDefinition:
    """One tool (see :data:`~corral.tools.ToolLike`) as a :class:`ToolDefinition`.

    Raises:
        TypeError: for an object that is none of the accepted forms.
    """
    if isinstance(tool, ToolDefinition):
        return tool
    if isinstance(tool, Mapping):
        return ToolDefinition(
            name=tool["name"],
            description=tool.get("description", ""),
            parameters=dict(tool.get("parameters") or {"type": "object", "properties": {}}),
        )
    if callable(tool):
        return tool_from_function(tool)
    raise TypeError(
        f"a tool must be a function, a ToolDefinition or a dict, not {type(tool).__name__}"
    )


def tools_from(objects: Iterable[Any]) -> list[ToolDefinition]:
    """Tool definitions for functions, ready definitions and dicts, in order, checked
    against each other as :func:`tool_table` does (a definition without a function is
    returned as it is).

    Raises:
        ValueError: if two tools collide (see :func:`tool_table`).
        TypeError: for an object that is not a tool.
    """
    tools: list[ToolDefinition] = []
    for tool in map(as_definition, objects):
        _check_joins(tools, tool)
        tools.append(tool)
    return tools


def tool_table(
    tools: Iterable[Any] | None, handler: Callable[..., Any] | None = None
) -> dict[str, ToolDefinition]:
    """The tools by canonical name, in order, each checked against the others.

    A tool without a function, when there is no ``handler`` either, is kept: calling it
    fails with an error that says how to give it one.

    Raises:
        ValueError: if two tools share a canonical name, a JavaScript name
            (``a/b`` and ``a_b``) or a namespace path, or if one tool's namespace path is
            inside another's (``a/b`` and ``a/b/c``: ``a.b`` cannot be both).
        TypeError: for an object that is not a tool.
    """
    table: dict[str, ToolDefinition] = {}
    for given in map(as_definition, tools or ()):
        _check_joins(table.values(), given)
        unhandled = given.func is None and handler is None
        table[given.name] = (
            dataclasses.replace(given, func=_unhandled(given.name)) if unhandled else given
        )
    return table


def _check_joins(others: Iterable[ToolDefinition], tool: ToolDefinition) -> None:
    for other in others:
        problem = _collision(other, tool)
        if problem is not None:
            raise ValueError(problem)


def _collision(other: ToolDefinition, tool: ToolDefinition) -> str | None:
    """Why ``tool`` cannot join a table that holds ``other``, or None."""
    if other.name == tool.name:
        return f"duplicate tool name {tool.name!r}"
    if other.js_name == tool.js_name:
        return (
            f"tools {other.name!r} and {tool.name!r} both map to the JavaScript name "
            f"{tool.js_name!r}; rename one of them"
        )
    mine, theirs = js_namespace_path(tool.name), js_namespace_path(other.name)
    if len(mine) > 1 and mine == theirs:
        return (
            f"tools {other.name!r} and {tool.name!r} both map to {'.'.join(mine)}() in "
            "JavaScript; rename one of them"
        )
    shorter, longer = sorted((mine, theirs), key=len)
    if len(shorter) > 1 and longer[: len(shorter)] == shorter:
        return (
            f"tools {other.name!r} and {tool.name!r} collide in JavaScript: "
            f"{'.'.join(shorter)} cannot be both a function and a namespace; rename one of them"
        )
    return None


def _unhandled(name: str) -> Callable[..., Any]:
    def unhandled(**_: Any) -> Any:
        raise RuntimeError(
            f"tool {name!r} has nothing to run it on the host: give it a function (handler=... "
            "when you build the tools) or pass tool_handler=... to the Sandbox"
        )

    return unhandled
