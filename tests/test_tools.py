"""Tests for corral.tools: schemas from functions, docstrings, names, calls and validation."""

from __future__ import annotations

import asyncio
import collections.abc
import functools
import typing
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, Optional, Required, TypedDict

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corral.tools import (
    ToolArgumentError,
    ToolDefinition,
    acall_tool,
    call_tool,
    js_name,
    js_namespace_path,
    tool_from_function,
    tool_table,
    tools_from,
    validate_arguments,
)
from corral.tools._validate import quick_check


def schema_of(annotation: Any) -> dict[str, Any]:
    """The property schema tool_from_function derives for one annotated parameter."""

    def tool(x):  # type: ignore[no-untyped-def]  # annotations are set below
        return x

    tool.__annotations__ = {"x": annotation}
    properties: dict[str, Any] = tool_from_function(tool).parameters["properties"]
    return properties["x"]  # type: ignore[no-any-return]


def raised(kind: type[Exception], func: Any, *args: Any, **kwargs: Any) -> str:
    """The message of the ``kind`` error that ``func(*args, **kwargs)`` raises."""
    with pytest.raises(kind) as info:
        func(*args, **kwargs)
    return str(info.value)


def argument_error(tool: ToolDefinition, args: object) -> str:
    return raised(ToolArgumentError, call_tool, tool, args)


def definition_error(func: Any, **kwargs: Any) -> str:
    return raised(ValueError, tool_from_function, func, **kwargs)


class Address(TypedDict):
    street: str
    zip: NotRequired[int]


class Options(TypedDict, total=False):
    verbose: bool
    level: Required[int]


class Node(TypedDict):
    child: Node


# --------------------------------------------------------------------------------------------
# Names


@pytest.mark.parametrize(
    ("name", "flat", "path"),
    [
        ("get_weather", "get_weather", ["get_weather"]),
        ("stripe/charges/create", "stripe_charges_create", ["stripe", "charges", "create"]),
        ("mcp:fs.read", "mcp_fs_read", ["mcp", "fs", "read"]),
        ("my-tool/run", "my_tool_run", ["my_tool", "run"]),
    ],
)
def test_js_names(name: str, flat: str, path: list[str]) -> None:
    assert (js_name(name), js_namespace_path(name)) == (flat, path)


@given(st.from_regex(r"[A-Za-z0-9_.:/-]{1,30}", fullmatch=True))
def test_js_name_leaves_only_word_characters(name: str) -> None:
    assert all(char.isalnum() or char == "_" for char in js_name(name))
    assert len(js_name(name)) == len(name)


# --------------------------------------------------------------------------------------------
# Schemas


@pytest.mark.parametrize(
    ("annotation", "schema"),
    [
        (str, {"type": "string"}),
        (int, {"type": "integer"}),
        (float, {"type": "number"}),
        (bool, {"type": "boolean"}),
        (Any, {}),
        (object, {}),
        (list, {"type": "array"}),
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (list[Any], {"type": "array"}),
        (typing.List[str], {"type": "array", "items": {"type": "string"}}),  # noqa: UP006
        (collections.abc.Sequence[float], {"type": "array", "items": {"type": "number"}}),
        (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
        (
            tuple[int, str],
            {
                "type": "array",
                "prefixItems": [{"type": "integer"}, {"type": "string"}],
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (dict, {"type": "object"}),
        (dict[str, Any], {"type": "object"}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Mapping[str, str], {"type": "object", "additionalProperties": {"type": "string"}}),
        (Literal["a", "b"], {"enum": ["a", "b"], "type": "string"}),
        (Literal[1, 2], {"enum": [1, 2], "type": "integer"}),
        (Literal["a", 1], {"enum": ["a", 1]}),
        (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (
            list[int | None],
            {"type": "array", "items": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
        ),
        (int | None, {"type": "integer", "default": None}),
        (Optional[str], {"type": "string", "default": None}),  # noqa: UP045
        (int | str | None, {"anyOf": [{"type": "integer"}, {"type": "string"}], "default": None}),
        (Annotated[int, "How many."], {"type": "integer", "description": "How many."}),
        (
            Annotated[int | None, "Maybe."],
            {"type": "integer", "description": "Maybe.", "default": None},
        ),
        (
            Address,
            {
                "type": "object",
                "properties": {"street": {"type": "string"}, "zip": {"type": "integer"}},
                "required": ["street"],
                "additionalProperties": False,
            },
        ),
        (
            Options,
            {
                "type": "object",
                "properties": {"verbose": {"type": "boolean"}, "level": {"type": "integer"}},
                "required": ["level"],
                "additionalProperties": False,
            },
        ),
    ],
)
def test_schema_from_annotation(annotation: Any, schema: dict[str, Any]) -> None:
    assert schema_of(annotation) == schema


@pytest.mark.parametrize(
    ("annotation", "error"),
    [
        (set[int], "tool 'tool', parameter 'x': unsupported annotation set[int]"),
        (
            dict[int, str],
            "tool 'tool', parameter 'x': object keys must be str in JSON, not <class 'int'>",
        ),
        (list[bytes], "tool 'tool', parameter 'x': unsupported annotation <class 'bytes'>"),
        (
            Literal[b"x"],
            "tool 'tool', parameter 'x': Literal values must be str, int, float, bool or None",
        ),
        (
            Node,
            "tool 'tool', parameter 'x'"
            + ", key 'child'" * 17
            + ": the type is nested too deeply (recursive?)",
        ),
    ],
)
def test_unsupported_annotations(annotation: Any, error: str) -> None:
    assert raised(ValueError, schema_of, annotation).split("; use ")[0] == error


def test_unsupported_annotation_message_lists_supported_types() -> None:
    assert raised(ValueError, schema_of, set[int]) == (
        "tool 'tool', parameter 'x': unsupported annotation set[int]; use str, int, float, bool, "
        "None, Any, list[X], tuple[X, ...], dict[str, X], Literal[...], X | Y, X | None, "
        "Annotated[X, 'description'] or a TypedDict"
    )


def get_weather(
    city: str, units: Literal["metric", "imperial"] = "metric", days: int | None = None
) -> str:
    """Get the weather forecast for a city.

    Uses a made-up service.

    Args:
        city (str): The city name,
            e.g. "Paris".
        units: Unit system.
        days: How many days ahead; today if left out.

    Returns:
        The forecast.
    """
    return f"{city}/{units}/{days}"


WEATHER_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": 'The city name, e.g. "Paris".'},
        "units": {
            "enum": ["metric", "imperial"],
            "type": "string",
            "description": "Unit system.",
            "default": "metric",
        },
        "days": {
            "type": "integer",
            "description": "How many days ahead; today if left out.",
            "default": None,
        },
    },
    "required": ["city"],
    "additionalProperties": False,
}


def test_tool_from_function() -> None:
    tool = tool_from_function(get_weather)
    assert tool == ToolDefinition(
        name="get_weather",
        description="Get the weather forecast for a city.",
        parameters=WEATHER_SCHEMA,
        func=get_weather,
        is_async=False,
        returns={"type": "string"},
    )
    assert tool.to_json() == {
        "name": "get_weather",
        "description": "Get the weather forecast for a city.",
        "parameters": WEATHER_SCHEMA,
    }


def test_to_json_is_a_copy() -> None:
    tool = tool_from_function(get_weather)
    tool.to_json()["parameters"]["properties"].clear()
    assert tool.parameters == WEATHER_SCHEMA


def test_name_and_description_overrides() -> None:
    tool = tool_from_function(get_weather, name="weather/get", description="Weather.")
    assert (tool.name, tool.description, tool.js_name) == ("weather/get", "Weather.", "weather_get")


def numpy_style(a, b=2, c=None):  # type: ignore[no-untyped-def]
    """Add numbers.

    Parameters
    ----------
    a : int
        The first
        number.
    b : int, optional
        The second.
    c
        Unused.

    Returns
    -------
    int
        The sum.
    """
    return a + b


def rest_style(a: int, b: float = 0.5) -> float:
    """Scale a number.

    :param a: The number,
        continued.
    :param float b: The factor.
    :returns: The product.
    """
    return a * b


def no_doc(flag: bool, *, limit: int = 10) -> None:
    pass


def starts_with_section(x: str) -> None:
    """Args:
    x: The x.
    """


@pytest.mark.parametrize(
    ("func", "description", "properties", "required"),
    [
        (
            numpy_style,
            "Add numbers.",
            {
                "a": {"description": "The first number."},
                "b": {"description": "The second.", "default": 2},
                "c": {"description": "Unused.", "default": None},
            },
            ["a"],
        ),
        (
            rest_style,
            "Scale a number.",
            {
                "a": {"type": "integer", "description": "The number, continued."},
                "b": {"type": "number", "description": "The factor.", "default": 0.5},
            },
            ["a"],
        ),
        (
            no_doc,
            "",
            {"flag": {"type": "boolean"}, "limit": {"type": "integer", "default": 10}},
            ["flag"],
        ),
        (starts_with_section, "", {"x": {"type": "string", "description": "The x."}}, ["x"]),
    ],
)
def test_docstring_styles(
    func: Any, description: str, properties: dict[str, Any], required: list[str]
) -> None:
    tool = tool_from_function(func)
    assert tool.description == description
    assert tool.parameters == {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    ("doc", "description"),
    [
        ("Returns the weather:\n    a dict.", "Returns the weather: a dict."),
        ("Parameters\n----------\nx : int\n    The x.", ""),
        (":param x: The x.", ""),
        ("Summary.\nArgs:\n    x: The x.", "Summary."),
        ("  \n\n  Late summary.\n\n  More.", "Late summary."),
    ],
)
def test_description_is_the_first_paragraph(doc: str, description: str) -> None:
    def f(x: int) -> None:
        pass

    f.__doc__ = doc
    assert tool_from_function(f).description == description


def test_no_parameters() -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    tool = tool_from_function(ping)
    assert tool.parameters == {"type": "object", "properties": {}, "additionalProperties": False}
    assert call_tool(tool, {}) == "pong"
    assert argument_error(tool, {"x": 1}) == "ping: unknown parameter 'x' (it takes no parameters)"


def test_defaults_are_copied_and_non_json_defaults_are_left_out() -> None:
    marker = object()

    def f(items: list[int] = [1], tag: tuple[str, str] = ("a", "b"), other: Any = marker) -> None:  # noqa: B006
        pass

    properties = tool_from_function(f).parameters["properties"]
    assert properties == {
        "items": {"type": "array", "items": {"type": "integer"}, "default": [1]},
        "tag": {
            "type": "array",
            "prefixItems": [{"type": "string"}, {"type": "string"}],
            "minItems": 2,
            "maxItems": 2,
            "default": ["a", "b"],
        },
        "other": {},
    }
    assert properties["items"]["default"] is not f.__defaults__[0]  # type: ignore[index]


def test_string_annotations_are_resolved() -> None:
    # This module uses `from __future__ import annotations`, so every hint is a string.
    assert tool_from_function(get_weather).parameters["properties"]["city"]["type"] == "string"


def test_bound_methods_and_callable_objects() -> None:
    class Greeter:
        def greet(self, name: str) -> str:
            """Greet someone."""
            return f"hi {name}"

        async def __call__(self, name: str) -> str:
            return f"hello {name}"

    method = tool_from_function(Greeter().greet)
    assert (method.name, list(method.parameters["properties"])) == ("greet", ["name"])
    assert call_tool(method, {"name": "Ann"}) == "hi Ann"
    obj = tool_from_function(Greeter(), name="greeter")
    assert obj.is_async
    assert asyncio.run(acall_tool(obj, {"name": "Bo"})) == "hello Bo"


def undefined_hint(x: Undefined) -> None:  # type: ignore[name-defined]  # noqa: F821
    pass


@pytest.mark.parametrize(
    ("func", "kwargs", "error"),
    [
        (
            lambda *args: 1,
            {"name": "f"},
            "tool 'f': *args is not supported; declare each parameter explicitly",
        ),
        (
            divmod,
            {},
            "tool 'divmod': positional-only parameter 'x' is not supported; tools are called with "
            "keyword arguments",
        ),
        (
            lambda: 1,
            {},
            "invalid tool name '<lambda>': character '<' at index 0; only ASCII letters, digits "
            "and _ - . : / are allowed; pass name=... to tool_from_function",
        ),
        (
            get_weather,
            {"name": "a b"},
            "invalid tool name 'a b': whitespace ' ' at index 1; only ASCII letters, digits and "
            "_ - . : / are allowed; pass name=... to tool_from_function",
        ),
        (
            undefined_hint,
            {},
            "tool 'undefined_hint': cannot resolve its type hints (name 'Undefined' is not "
            "defined)",
        ),
    ],
)
def test_definition_errors(func: Any, kwargs: dict[str, Any], error: str) -> None:
    assert definition_error(func, **kwargs) == error


def test_partial_needs_a_name() -> None:
    partial = functools.partial(get_weather, units="metric")
    assert definition_error(partial).endswith(
        "has no __name__; pass name=... to tool_from_function"
    )
    tool = tool_from_function(partial, name="weather")
    assert tool.description == "Get the weather forecast for a city."
    assert call_tool(tool, {"city": "Oslo"}) == "Oslo/metric/None"


def test_definition_checks() -> None:
    assert raised(ValueError, ToolDefinition, "x", "", {"type": "array"}) == (
        "tool 'x': parameters must be a JSON Schema of type object"
    )
    assert raised(ValueError, ToolDefinition, "a//b", "", {"type": "object"}) == (
        "invalid tool name 'a//b': it has an empty segment (a leading, trailing or doubled '/')"
    )


# --------------------------------------------------------------------------------------------
# tools_from


def test_tools_from() -> None:
    ready = ToolDefinition("stripe/charges/create", "Charge.", {"type": "object"})
    tools = tools_from([get_weather, ready])
    assert [tool.name for tool in tools] == ["get_weather", "stripe/charges/create"]
    assert tools[1] is ready


@pytest.mark.parametrize(
    ("objects", "error"),
    [
        ([get_weather, get_weather], "duplicate tool name 'get_weather'"),
        (
            [
                ToolDefinition("a/b", "", {"type": "object"}),
                ToolDefinition("a_b", "", {"type": "object"}),
            ],
            "tools 'a/b' and 'a_b' both map to the JavaScript name 'a_b'; rename one of them",
        ),
        (
            [
                ToolDefinition("fs.read", "", {"type": "object"}),
                ToolDefinition("fs:read", "", {"type": "object"}),
            ],
            "tools 'fs.read' and 'fs:read' both map to the JavaScript name 'fs_read'; rename one "
            "of them",
        ),
    ],
)
def test_tools_from_rejects_duplicates(objects: list[Any], error: str) -> None:
    assert raised(ValueError, tools_from, objects) == error


def definition(name: str) -> ToolDefinition:
    return ToolDefinition(name, "", {"type": "object"})


COLLISIONS = [
    (
        ["a/b", "a_b"],
        "tools 'a/b' and 'a_b' both map to the JavaScript name 'a_b'; rename one of them",
    ),
    (
        ["a-b", "a_b"],
        "tools 'a-b' and 'a_b' both map to the JavaScript name 'a_b'; rename one of them",
    ),
    (["a/b", "a/b"], "duplicate tool name 'a/b'"),
    (["a::b", "a/b"], "tools 'a::b' and 'a/b' both map to a.b() in JavaScript; rename one of them"),
    (
        ["a/b", "a/b/c"],
        "tools 'a/b' and 'a/b/c' collide in JavaScript: a.b cannot be both a function and a "
        "namespace; rename one of them",
    ),
    (
        ["x/y/z", "x.y"],
        "tools 'x/y/z' and 'x.y' collide in JavaScript: x.y cannot be both a function and a "
        "namespace; rename one of them",
    ),
]


@pytest.mark.parametrize(("names", "error"), COLLISIONS)
def test_one_tool_table_refuses_collisions(names: list[str], error: str) -> None:
    """Sandbox, the factories and tools_from build their tools in one place (Sandbox used to
    accept 'a/b' and 'a_b' and show both as a_b)."""
    from corral import Sandbox, create_bash_tool, create_sandbox_tool

    tools = [definition(name) for name in names]
    assert raised(ValueError, tools_from, tools) == error
    assert raised(ValueError, tool_table, tools) == error
    assert raised(ValueError, Sandbox, tools, tool_handler=lambda name, args: None) == error
    assert raised(ValueError, create_sandbox_tool, tools) == error
    assert raised(ValueError, create_bash_tool, tools) == error


def test_js_globals_cover_the_guest() -> None:
    from corral import Sandbox
    from corral.tools._names import JS_GLOBALS

    code = "return Object.getOwnPropertyNames(globalThis)"
    missing = set(Sandbox().execute(code).return_value) - JS_GLOBALS
    assert missing == set(), "add these to corral.tools._names.JS_GLOBALS"


def test_tool_table_keeps_distinct_names() -> None:
    table = tool_table([definition("a/b"), definition("a/c"), definition("ab"), get_weather])
    assert list(table) == ["a/b", "a/c", "ab", "get_weather"]
    assert table["get_weather"].func is get_weather


def test_a_tool_without_a_function_fails_when_called() -> None:
    table = tool_table([definition("db/query")])
    func = table["db/query"].func
    assert func is not None
    assert raised(RuntimeError, func) == (
        "tool 'db/query' has nothing to run it on the host: give it a function (handler=... "
        "when you build the tools) or pass tool_handler=... to the Sandbox"
    )
    assert tool_table([definition("db/query")], handler=print)["db/query"].func is None


def test_tools_from_rejects_other_objects() -> None:
    with pytest.raises(TypeError) as info:
        tools_from([42])
    assert str(info.value) == "a tool must be a function, a ToolDefinition or a dict, not int"


# --------------------------------------------------------------------------------------------
# Calling and validation

WEATHER = tool_from_function(get_weather)


def test_call_tool() -> None:
    assert call_tool(WEATHER, {"city": "Paris"}) == "Paris/metric/None"
    assert call_tool(WEATHER, {"city": "Rome", "units": "imperial", "days": 3}) == "Rome/imperial/3"
    assert call_tool(WEATHER, {"city": "Rome", "days": None}) == "Rome/metric/None"


def test_optional_without_default_gets_none() -> None:
    def f(a: int | None) -> str:
        return repr(a)

    tool = tool_from_function(f)
    assert tool.parameters["properties"] == {"a": {"type": "integer", "default": None}}
    assert "required" not in tool.parameters
    assert call_tool(tool, {}) == "None"


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ({}, "get_weather: missing required parameter 'city' (call as get_weather({city: ...}))"),
        (
            {"units": "metric"},
            "get_weather: missing required parameter 'city' (call as get_weather({city: ...}))",
        ),
        (
            {"cty": "Paris"},
            "get_weather: unknown parameter 'cty'; did you mean 'city'? (parameters: city, "
            "units, days)",
        ),
        (
            {"city": "P", "zzz": 1},
            "get_weather: unknown parameter 'zzz' (parameters: city, units, days)",
        ),
        ({"city": 3}, "get_weather: parameter 'city' must be a string, got an integer (3)"),
        ({"city": None}, "get_weather: parameter 'city' must be a string, got null"),
        (
            {"city": "P", "days": "3"},
            "get_weather: parameter 'days' must be an integer, got a string (\"3\")",
        ),
        (
            {"city": "P", "days": True},
            "get_weather: parameter 'days' must be an integer, got a boolean (true)",
        ),
        (
            {"city": "P", "days": 1.5},
            "get_weather: parameter 'days' must be an integer, got a number (1.5)",
        ),
        (
            {"city": "P", "units": "kelvin"},
            'get_weather: parameter \'units\' must be one of "metric", "imperial", got "kelvin"',
        ),
        (["Paris"], 'get_weather: arguments must be an object, got an array (["Paris"])'),
        ({1: "x"}, 'get_weather: arguments must be an object, got an object ({"1": "x"})'),
    ],
)
def test_argument_errors(args: object, error: str) -> None:
    assert argument_error(WEATHER, args) == error


def test_argument_error_attributes() -> None:
    with pytest.raises(ToolArgumentError) as info:
        validate_arguments(WEATHER, {})
    assert isinstance(info.value, ValueError)
    assert (info.value.tool, info.value.problem) == (
        "get_weather",
        "missing required parameter 'city' (call as get_weather({city: ...}))",
    )


def nested(
    address: Address,
    tags: list[str] | None = None,
    scores: dict[str, float] | None = None,
    pair: tuple[int, str] = (1, "a"),
    key: int | str = 0,
    flag: Literal[True, 1] = 1,
) -> str:
    return "ok"


NESTED = tool_from_function(nested, name="crm/contacts.add")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            {},
            "crm/contacts.add: missing required parameter 'address' (call as "
            "crm_contacts_add({address: ...}))",
        ),
        ({"address": {}}, "crm/contacts.add: parameter 'address' is missing required key 'street'"),
        (
            {"address": {"street": 1}},
            "crm/contacts.add: parameter 'address/street' must be a string, got an integer (1)",
        ),
        (
            {"address": {"street": "s", "zip": "1"}},
            "crm/contacts.add: parameter 'address/zip' must be an integer, got a string (\"1\")",
        ),
        (
            {"address": {"street": "s", "zap": 1}},
            "crm/contacts.add: parameter 'address' has an unknown key 'zap'; did you mean 'zip'? "
            "(keys: street, zip)",
        ),
        (
            {"address": {"street": "s"}, "tags": ["a", 2]},
            "crm/contacts.add: parameter 'tags/1' must be a string, got an integer (2)",
        ),
        (
            {"address": {"street": "s"}, "scores": {"a": "x"}},
            "crm/contacts.add: parameter 'scores/a' must be a number, got a string (\"x\")",
        ),
        (
            {"address": {"street": "s"}, "pair": [1]},
            "crm/contacts.add: parameter 'pair' must have 2 items, got 1",
        ),
        (
            {"address": {"street": "s"}, "pair": ["1", "a"]},
            "crm/contacts.add: parameter 'pair/0' must be an integer, got a string (\"1\")",
        ),
        (
            {"address": {"street": "s"}, "key": [1]},
            "crm/contacts.add: parameter 'key' must be an integer or a string, got an array ([1])",
        ),
        ({"address": {"street": "s"}, "flag": True}, None),
        (
            {"address": {"street": "s"}, "flag": 2},
            "crm/contacts.add: parameter 'flag' must be one of true, 1, got 2",
        ),
        (
            {
                "address": {"street": "s"},
                "tags": None,
                "scores": {"a": 1},
                "pair": [2, "b"],
                "key": "k",
            },
            None,
        ),
    ],
)
def test_nested_argument_errors(args: dict[str, Any], error: str | None) -> None:
    if error is None:
        assert call_tool(NESTED, args) == "ok"
    else:
        assert argument_error(NESTED, args) == error


def test_enum_keeps_bool_and_number_apart() -> None:
    def f(flag: Literal[1]) -> None:
        pass

    assert argument_error(tool_from_function(f), {"flag": True}) == (
        "f: parameter 'flag' must be an integer, got a boolean (true)"
    )


def test_required_names_that_are_not_identifiers_are_quoted() -> None:
    tool = ToolDefinition(
        "h",
        "",
        {"type": "object", "properties": {"content-type": {}}, "required": ["content-type"]},
        func=lambda **kw: kw,
    )
    assert argument_error(tool, {}) == (
        "h: missing required parameter 'content-type' (call as h({\"content-type\": ...}))"
    )


def test_long_values_are_shortened() -> None:
    text = "x" * 1000
    assert argument_error(WEATHER, {"city": "P", "days": text}) == (
        f"get_weather: parameter 'days' must be an integer, got a string (\"{'x' * 56}...)"
    )


async def search(query: str, limit: int = 3) -> list[str]:
    """Search the web."""
    await asyncio.sleep(0)
    return [query] * limit


def test_acall_tool() -> None:
    tool = tool_from_function(search)
    assert tool.is_async
    assert asyncio.run(acall_tool(tool, {"query": "q", "limit": 2})) == ["q", "q"]
    assert asyncio.run(acall_tool(WEATHER, {"city": "Oslo"})) == "Oslo/metric/None"
    with pytest.raises(ToolArgumentError) as info:
        asyncio.run(acall_tool(tool, {"limit": 2}))
    assert (
        str(info.value)
        == "search: missing required parameter 'query' (call as search({query: ...}))"
    )


def test_call_tool_refuses_async_tools() -> None:
    with pytest.raises(TypeError) as info:
        call_tool(tool_from_function(search), {"query": "q"})
    assert str(info.value) == "tool 'search' is async; call it with acall_tool"


def test_call_tool_refuses_awaitables_from_sync_definitions() -> None:
    tool = ToolDefinition("s", "", {"type": "object"}, func=search, is_async=False)
    with pytest.raises(TypeError) as info:
        call_tool(tool, {"query": "q"})
    assert str(info.value) == "tool 's' returned an awaitable; call it with acall_tool"


def test_call_tool_without_function() -> None:
    with pytest.raises(TypeError) as info:
        call_tool(ToolDefinition("remote", "", {"type": "object"}), {})
    assert str(info.value) == "tool 'remote' has no Python function to call"


@given(st.integers())
def test_any_int_is_an_integer(value: int) -> None:
    assert call_tool(WEATHER, {"city": "c", "days": value}) == f"c/metric/{value}"


@given(st.booleans() | st.floats() | st.text() | st.lists(st.integers(), max_size=2))
def test_non_integers_are_rejected(value: object) -> None:
    with pytest.raises(ToolArgumentError):
        validate_arguments(WEATHER, {"city": "c", "days": value})


QUICK_SCHEMAS = [
    WEATHER_SCHEMA,
    {
        "type": "object",
        "properties": {
            "n": {"type": "number", "title": "N"},
            "flag": {"type": "boolean", "default": None},
            "nothing": {"type": "null"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "either": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "many": {"type": ["string", "integer"]},
        },
        "required": ["n"],
    },
]
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.text(max_size=2), inner),
    max_leaves=4,
)
_keys = st.sampled_from(["city", "units", "days", "n", "flag", "nothing", "tags", "either", "x"])


@pytest.mark.parametrize("schema", QUICK_SCHEMAS)
@settings(deadline=None)  # a loaded machine: the first example pays for warming up
@given(args=st.dictionaries(_keys, _json_values, max_size=4))
def test_the_quick_check_accepts_only_what_validation_accepts(
    schema: dict[str, Any], args: dict[str, Any]
) -> None:
    tool = ToolDefinition("t", "", schema)
    if quick_check(tool)(args):
        validate_arguments(tool, args)  # raises if the quick check was wrong


@pytest.mark.parametrize(
    ("args", "quick"),
    [
        ({"city": "Paris"}, True),
        ({"city": "Rome", "days": 3}, True),
        ({"city": "Rome", "days": None}, True),  # its default is None
        ({"city": "Rome", "units": "metric"}, False),  # an enum: validation decides
        ({"city": "Rome", "days": True}, False),
        ({"city": "Rome", "days": 1.0}, False),
        ({"days": 3}, False),
        ({"city": "Rome", "town": "x"}, False),
        (["Paris"], False),
    ],
)
def test_the_quick_check_takes_plain_arguments(args: object, quick: bool) -> None:
    assert quick_check(WEATHER)(args) is quick


# --- what is remembered between sandboxes (issue 14: Sandbox(tools=[...]) made it all again) ---


class _Meters:
    pass


def _priced(amount: int, unit: str = "m") -> _Meters:
    """Price an amount."""
    return _Meters()


def test_a_function_definition_is_made_again_when_the_function_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from corral.tools import _functions

    first = tool_from_function(_priced)
    again = tool_from_function(_priced)
    assert again == first and again.parameters is not first.parameters
    again.parameters["properties"]["amount"]["type"] = "string"  # each has its own schemas
    assert tool_from_function(_priced) == first
    monkeypatch.setattr(_priced, "__doc__", "Price it.")
    assert tool_from_function(_priced).description == "Price it."
    monkeypatch.setattr(_priced, "__defaults__", ("cm",))
    assert tool_from_function(_priced).parameters["properties"]["unit"]["default"] == "cm"
    monkeypatch.setattr(_priced, "__defaults__", (1,))
    assert tool_from_function(_priced).parameters["properties"]["unit"]["default"] == 1
    monkeypatch.setattr(_priced, "__defaults__", (True,))  # == 1, yet another default
    assert tool_from_function(_priced).parameters["properties"]["unit"]["default"] is True
    # A name in a string annotation is resolved anew when the global it names changes.
    monkeypatch.setitem(globals(), "_Meters", int)
    assert tool_from_function(_priced).returns == {"type": "integer"}
    assert tool_from_function(_priced, name="price").name == "price"
    assert _functions._MADE[_priced][1].func is None  # the entry does not keep it alive


def test_a_remembered_definition_does_not_keep_its_function_alive() -> None:
    import gc

    from corral.tools import _functions

    def short_lived(x: int) -> int:
        """Live briefly."""
        return x

    tool_from_function(short_lived)
    assert short_lived in _functions._MADE
    del short_lived
    gc.collect()
    assert all(f.__name__ != "short_lived" for f in _functions._MADE)


def test_declarations_are_remembered_by_everything_they_are_made_from() -> None:
    from corral.tools import _typescript
    from corral.tools._typescript import ts_declaration

    class Text(str):
        pass

    def tool(default: object) -> ToolDefinition:
        schema = {"type": "integer", "default": default}
        return ToolDefinition("pick", "Pick one.", {"type": "object", "properties": {"n": schema}})

    one, true = ts_declaration(tool(1)), ts_declaration(tool(True))
    assert (one, true) == (
        _typescript._declaration(tool(1), ()),
        _typescript._declaration(tool(True), ()),
    )
    assert "Default: 1." in one and "Default: true." in true  # 1 == True, yet they differ
    assert ts_declaration(tool(1)) is one
    assert ts_declaration(tool(1), ["Or not."]) != one
    deep: dict[str, Any] = {"type": "object", "properties": {}}
    inner = deep
    for _ in range(60):  # 120 levels: too deep to remember (a fresh declaration each time)
        inner["properties"]["a"] = inner = {"type": "object", "properties": {}}
    deep_tool = ToolDefinition("deep", "Deep.", deep)
    assert ts_declaration(deep_tool) == _typescript._declaration(deep_tool, ())
    assert ts_declaration(deep_tool) is not ts_declaration(deep_tool)
    text = ts_declaration(tool(Text("x")))  # not built-in JSON data: made every time
    assert ts_declaration(tool(Text("x"))) == text and ts_declaration(tool(Text("x"))) is not text
