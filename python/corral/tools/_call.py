"""Calling a tool's Python function with validated arguments."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ._definition import ToolDefinition
from ._validate import validate_arguments

_PLAIN = frozenset({dict, list, str, int, float, bool, type(None)})
"""What most tools return: never awaitable (``isawaitable`` asks an ABC, ~0.3 µs)."""


def call_tool(tool: ToolDefinition, args: Mapping[str, Any], *, validated: bool = False) -> Any:
    """Validate ``args`` against the tool's schema and call its (sync) function with them.

    Pass ``validated=True`` when :func:`validate_arguments` already accepted ``args``.

    Raises:
        ToolArgumentError: if the arguments do not fit the schema.
        TypeError: if the tool is async (use :func:`acall_tool`) or has no function.
    """
    func = _callable(tool)
    if tool.is_async:
        raise TypeError(f"tool {tool.name!r} is async; call it with acall_tool")
    result = func(**_call_kwargs(tool, args, validated))
    if type(result) not in _PLAIN and inspect.isawaitable(result):
        _close(result)
        raise TypeError(f"tool {tool.name!r} returned an awaitable; call it with acall_tool")
    return result


async def acall_tool(
    tool: ToolDefinition, args: Mapping[str, Any], *, validated: bool = False
) -> Any:
    """Validate ``args`` and call the tool's function, awaiting the result if it is awaitable.

    Pass ``validated=True`` when :func:`validate_arguments` already accepted ``args``.

    Raises:
        ToolArgumentError: if the arguments do not fit the schema.
        TypeError: if the tool has no function.
    """
    func = _callable(tool)
    result = func(**_call_kwargs(tool, args, validated))
    if inspect.isawaitable(result):
        return await result
    return result


def _callable(tool: ToolDefinition) -> Callable[..., Any]:
    if tool.func is None:
        raise TypeError(f"tool {tool.name!r} has no Python function to call")
    return tool.func


def _close(awaitable: Awaitable[Any]) -> None:
    # Closing an un-awaited coroutine avoids a "never awaited" warning.
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()


def _call_kwargs(tool: ToolDefinition, args: Mapping[str, Any], validated: bool) -> dict[str, Any]:
    """Validated keyword arguments, with None for left-out parameters whose default is None."""
    if not validated:
        validate_arguments(tool, args)
    kwargs = dict(args)
    for name, schema in tool.parameters.get("properties", {}).items():
        if name not in kwargs and "default" in schema and schema["default"] is None:
            kwargs[name] = None
    return kwargs
