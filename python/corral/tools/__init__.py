"""Tool definitions from Python functions, and the names the guest calls them by.

A tool has a canonical name (``stripe/charges/create``, ``get_weather``), a description, and a
JSON Schema for its parameters, built from the function's signature and docstring::

    >>> def get_weather(city: str, days: int = 1) -> str:
    ...     '''Forecast for a city.
    ...
    ...     Args:
    ...         city: City name, e.g. "Paris".
    ...         days: How many days ahead.
    ...     '''
    ...     return f"{city}: sunny for {days} day(s)"
    >>> tool = tool_from_function(get_weather)
    >>> tool.parameters["required"]
    ['city']
    >>> call_tool(tool, {"city": "Paris"})
    'Paris: sunny for 1 day(s)'

In JavaScript a tool is reachable as a flat function (:func:`js_name`, ``stripe_charges_create``)
and through namespaces (:func:`js_namespace_path`, ``stripe.charges.create``).

Inside, one module per concept: ``_names`` (the names the guest uses), ``_definition``
(:class:`ToolDefinition`), ``_schema`` (annotations to JSON Schema), ``_docstrings``
(summaries and parameter descriptions), ``_functions`` (:func:`tool_from_function`),
``_table`` (the tools of one sandbox, :func:`tool_table`), ``_validate``
(:func:`validate_arguments`), ``_call`` (:func:`call_tool`), ``_check`` and ``_formats``
(other libraries' tool definitions in and out: :func:`tools_from_openai`, :func:`to_openai`...,
and amla-sandbox's names for them, :func:`from_openai_tools`...),
``_typescript`` and ``_prompt`` (the code-mode prompt: :func:`code_mode_prompt`).
"""

from __future__ import annotations

from typing import Any

from ._call import acall_tool, call_tool
from ._check import SchemaError
from ._definition import ToolDefinition
from ._formats import (
    Handler,
    from_anthropic_tools,
    from_langchain,
    from_openai_tools,
    to_anthropic,
    to_mcp,
    to_openai,
    tools_from_anthropic,
    tools_from_langchain,
    tools_from_openai,
)
from ._functions import tool_from_function
from ._names import js_name, js_namespace_path
from ._prompt import DECLARATIONS_PATH, code_mode_prompt, declarations_file
from ._table import as_definition, tool_table, tools_from
from ._typescript import ts_declaration, ts_type
from ._validate import ToolArgumentError, validate_arguments

__all__ = [
    "DECLARATIONS_PATH",
    "Handler",
    "SchemaError",
    "ToolArgumentError",
    "ToolDefinition",
    "ToolLike",
    "acall_tool",
    "as_definition",
    "call_tool",
    "code_mode_prompt",
    "declarations_file",
    "from_anthropic_tools",
    "from_langchain",
    "from_openai_tools",
    "js_name",
    "js_namespace_path",
    "to_anthropic",
    "to_mcp",
    "to_openai",
    "tool_from_function",
    "tool_table",
    "tools_from",
    "tools_from_anthropic",
    "tools_from_langchain",
    "tools_from_openai",
    "ts_declaration",
    "ts_type",
    "validate_arguments",
]

ToolLike = Any
"""A function (sync or async), a :class:`~corral.tools.ToolDefinition`, or a dict with
``name``, ``description`` and ``parameters`` (served by ``tool_handler``)."""

# Each public name is documented, pickled and shown in tracebacks as ``corral.tools.X``,
# where users import it from; the private modules are the package's layout only.
for _name in __all__:
    if _name not in ("ToolLike", "Handler", "DECLARATIONS_PATH"):  # not classes or functions
        globals()[_name].__module__ = __name__
del _name
