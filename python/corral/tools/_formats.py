"""Tool definitions in other libraries' forms: OpenAI, Anthropic and LangChain in, OpenAI,
Anthropic and MCP out.

Ingested tools keep their schema as given (checked, see :mod:`corral.tools._check`) and run
on a handler: one ``handler(name, args)`` for all tools, a dict of functions by tool name
(called with keyword arguments), or, for LangChain, the tool itself. A tool left without
one fails when it is called, not when it is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from ..capabilities import validate_tool_name
from ._check import SchemaError, check_parameters
from ._definition import ToolDefinition
from ._functions import is_async

Handler = Callable[[str, dict[str, Any]], Any] | Mapping[str, Callable[..., Any]]
"""One ``handler(name, args)`` (sync or async) for every tool, or functions by tool name."""

_NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}


def tools_from_openai(
    definitions: Iterable[Mapping[str, Any]], handler: Handler | None = None
) -> list[ToolDefinition]:
    """Tools from OpenAI function definitions, in either form: Chat Completions
    (``{"type": "function", "function": {"name", "description", "parameters"}}``) or the
    Responses API's flat ``{"type": "function", "name", "description", "parameters"}``.

    >>> weather = {"type": "function", "function": {
    ...     "name": "get_weather", "description": "Weather for a city.",
    ...     "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
    ...                    "required": ["city"]}}}
    >>> [tool] = tools_from_openai([weather], handler=lambda name, args: f"{args['city']}: sun")
    >>> call_tool(tool, {"city": "Oslo"})
    'Oslo: sun'

    Raises:
        SchemaError: naming the malformed field, e.g.
            ``tools[2].function.parameters.type must be "object", not "array"``.
        ValueError: for a handler dict naming a tool that is not among the definitions.
    """
    specs = [_openai_spec(item, f"tools[{index}]") for index, item in enumerate(definitions)]
    return _build(specs, handler)


def tools_from_anthropic(
    definitions: Iterable[Mapping[str, Any]], handler: Handler | None = None
) -> list[ToolDefinition]:
    """Tools from Anthropic client tool definitions (``{"name", "description",
    "input_schema"}``). Server tools (``web_search_...``, ``bash_...``) run at Anthropic and
    are refused.

    Raises:
        SchemaError: naming the malformed field (``tools[0].input_schema is missing``).
        ValueError: for a handler dict naming a tool that is not among the definitions.
    """
    specs = [_anthropic_spec(item, f"tools[{index}]") for index, item in enumerate(definitions)]
    return _build(specs, handler)


def tools_from_langchain(
    tools: Iterable[Any], handler: Handler | None = None
) -> list[ToolDefinition]:
    """Tools from LangChain tools (``BaseTool``, ``StructuredTool``, ``@tool`` functions).

    The schema is LangChain's own (its args schema as JSON Schema, without injected
    arguments); a call runs ``tool.invoke(args)``, or ``await tool.ainvoke(args)`` for a tool
    written async, unless ``handler`` takes it over. Needs ``langchain-core``
    (``pip install 'corral[langchain]'``).

    Raises:
        TypeError: for an object that is not a LangChain tool.
        SchemaError: for a tool whose schema is malformed.
    """
    from ..integrations import require

    base = require("langchain_core.tools", "langchain").BaseTool
    convert = require("langchain_core.utils.function_calling", "langchain").convert_to_openai_tool
    specs = []
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, base):
            raise TypeError(f"{where} must be a LangChain BaseTool, not {type(tool).__name__}")
        spec = _openai_spec(convert(tool), where)
        specs.append({**spec, "func": _langchain_call(tool, base)})
    return _build(specs, handler)


# --- amla-sandbox's names -------------------------------------------------------------------

# amla-sandbox's ``(funcs, defs)``: in corral a definition carries its function, so both lists
# hold the same tools.
Ingested = tuple[list[ToolDefinition], list[ToolDefinition]]


def from_openai_tools(
    definitions: Iterable[Mapping[str, Any]], handlers: Handler | None = None
) -> Ingested:
    """amla-sandbox's name for :func:`tools_from_openai`: ``funcs, defs =
    from_openai_tools(tools, handlers={...})``. Either list can be given as ``tools=``.

    >>> weather = {"type": "function", "function": {"name": "get_weather"}}
    >>> funcs, defs = from_openai_tools([weather], handlers={"get_weather": lambda: "sun"})
    >>> [d.name for d in defs], funcs == defs, funcs is defs
    (['get_weather'], True, False)
    """
    return _pair(tools_from_openai(definitions, handlers))


def from_anthropic_tools(
    definitions: Iterable[Mapping[str, Any]], handlers: Handler | None = None
) -> Ingested:
    """amla-sandbox's name for :func:`tools_from_anthropic`, returning ``(funcs, defs)``."""
    return _pair(tools_from_anthropic(definitions, handlers))


def from_langchain(tools: Iterable[Any], handlers: Handler | None = None) -> Ingested:
    """amla-sandbox's name for :func:`tools_from_langchain`, returning ``(funcs, defs)``."""
    return _pair(tools_from_langchain(tools, handlers))


def _pair(tools: list[ToolDefinition]) -> Ingested:
    return tools, list(tools)


# --- export ---------------------------------------------------------------------------------


def to_openai(
    tool: ToolDefinition, *, api: Literal["chat", "responses"] = "chat"
) -> dict[str, Any]:
    """``tool`` as an OpenAI function tool: the Chat Completions form
    (``{"type": "function", "function": {...}}``) or, with ``api="responses"``, the Responses
    API's flat form. :func:`tools_from_openai` reads both back."""
    body = {"name": tool.name, "description": tool.description, "parameters": _copy(tool)}
    if api == "responses":
        return {"type": "function", **body}
    if api != "chat":
        raise ValueError(f"api must be 'chat' or 'responses', not {api!r}")
    return {"type": "function", "function": body}


def to_anthropic(tool: ToolDefinition) -> dict[str, Any]:
    """``tool`` as an Anthropic client tool: ``{"name", "description", "input_schema"}``."""
    return {"name": tool.name, "description": tool.description, "input_schema": _copy(tool)}


def to_mcp(tool: ToolDefinition) -> dict[str, Any]:
    """``tool`` in the shape of an MCP ``Tool`` on the wire: ``{"name", "description",
    "inputSchema"}`` (``mcp.types.Tool.model_validate(to_mcp(tool))`` builds the SDK's
    object)."""
    return {"name": tool.name, "description": tool.description, "inputSchema": _copy(tool)}


def _copy(tool: ToolDefinition) -> dict[str, Any]:
    return tool.to_json()["parameters"]  # type: ignore[no-any-return]


# --- reading the forms ----------------------------------------------------------------------


def _openai_spec(item: object, where: str) -> dict[str, Any]:
    body = _mapping(item, where)
    if body.get("type") != "function":
        raise SchemaError(
            f'{where}.type must be "function" (only function tools run in the sandbox), '
            f"not {_shown(body, 'type')}"
        )
    if "function" in body:
        where, body = f"{where}.function", _mapping(body["function"], f"{where}.function")
    return _spec(body, where, "parameters", required=False)


def _anthropic_spec(item: object, where: str) -> dict[str, Any]:
    body = _mapping(item, where)
    if body.get("type", "custom") != "custom":
        raise SchemaError(
            f"{where}.type is {_shown(body, 'type')}: a server tool runs at Anthropic, not in "
            "the sandbox; give client tools (name, description, input_schema)"
        )
    return _spec(body, where, "input_schema", required=True)


def _spec(body: Mapping[str, Any], where: str, schema_key: str, required: bool) -> dict[str, Any]:
    name = body.get("name")
    if not isinstance(name, str):
        raise SchemaError(f"{where}.name must be a string, not {_shown(body, 'name')}")
    try:
        validate_tool_name(name)
    except ValueError as error:
        raise SchemaError(f"{where}.name: {error}") from None
    description = body.get("description") or ""
    if not isinstance(description, str):
        raise SchemaError(
            f"{where}.description must be a string, not {_shown(body, 'description')}"
        )
    if schema_key not in body and required:
        raise SchemaError(f"{where}.{schema_key} is missing")
    schema = body.get(schema_key, _NO_PARAMETERS)
    parameters = check_parameters(schema, f"{where}.{schema_key}")
    return {"name": name, "description": description, "parameters": parameters, "func": None}


def _mapping(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SchemaError(f"{where} must be an object (a dict), not {type(value).__name__}")
    return value


def _shown(body: Mapping[str, Any], key: str) -> str:
    return "missing" if key not in body else repr(body[key])


# --- handlers -------------------------------------------------------------------------------


def _build(specs: list[dict[str, Any]], handler: Handler | None) -> list[ToolDefinition]:
    names = [spec["name"] for spec in specs]
    if isinstance(handler, Mapping):
        unknown = [name for name in handler if name not in names]
        if unknown:
            raise ValueError(
                f"handler has functions for {', '.join(map(repr, unknown))}, which "
                f"{'is' if len(unknown) == 1 else 'are'} not among the tools "
                f"({', '.join(names) or 'none'}); check the names"
            )
    elif handler is not None and not callable(handler):
        raise TypeError(
            "handler must be handler(name, args), a dict of functions by tool name, or None; "
            f"not {type(handler).__name__}"
        )
    tools = []
    for spec in specs:
        func = _handler_for(spec["name"], handler) or spec["func"]
        tools.append(
            ToolDefinition(
                name=spec["name"],
                description=spec["description"],
                parameters=spec["parameters"],
                func=func,
                is_async=func is not None and is_async(func),
            )
        )
    return tools


def _handler_for(name: str, handler: Handler | None) -> Callable[..., Any] | None:
    if handler is None:
        return None
    if isinstance(handler, Mapping):
        return handler.get(name)
    if is_async(handler):

        async def call_async(**args: Any) -> Any:
            return await handler(name, args)

        return call_async

    def call(**args: Any) -> Any:
        return handler(name, args)

    return call


def _langchain_call(tool: Any, base: Any) -> Callable[..., Any]:
    """``tool.invoke`` with keyword arguments, or ``tool.ainvoke`` for a tool written async."""
    structured = hasattr(tool, "coroutine") and hasattr(tool, "func")
    if structured:
        written_async = tool.func is None and tool.coroutine is not None
    else:
        written_async = type(tool)._arun is not base._arun

    async def ainvoke(**args: Any) -> Any:
        return await tool.ainvoke(args)

    def invoke(**args: Any) -> Any:
        return tool.invoke(args)

    return ainvoke if written_async else invoke
