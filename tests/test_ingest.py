"""Tool definitions from OpenAI, Anthropic and LangChain, and the sandbox tool exported to them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from corral import Sandbox, create_bash_tool, create_sandbox_tool
from corral.tools import (
    SchemaError,
    ToolDefinition,
    acall_tool,
    call_tool,
    from_anthropic_tools,
    from_openai_tools,
    to_anthropic,
    to_mcp,
    to_openai,
    tools_from_anthropic,
    tools_from_langchain,
    tools_from_openai,
)

WEATHER_PARAMETERS = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "description": "City name."},
        "units": {"type": "string", "enum": ["metric", "imperial"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}
CHAT = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather for a city.",
        "parameters": WEATHER_PARAMETERS,
    },
}
RESPONSES = {"type": "function", **CHAT["function"]}  # type: ignore[dict-item]
ANTHROPIC = {
    "name": "get_weather",
    "description": "Weather for a city.",
    "input_schema": WEATHER_PARAMETERS,
}


def refused(kind: type[Exception], func: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(kind) as info:
        func(*args, **kwargs)
    return str(info.value)


def weather(name: str, args: dict[str, Any]) -> str:
    return f"{name}: {args['city']} {args.get('units', 'metric')}"


def summary(tool: ToolDefinition) -> tuple[str, str, dict[str, Any]]:
    return tool.name, tool.description, tool.parameters


# --------------------------------------------------------------------------------------------
# OpenAI and Anthropic


@pytest.mark.parametrize("definition", [CHAT, RESPONSES], ids=["chat", "responses"])
def test_openai_both_forms(definition: dict[str, Any]) -> None:
    [tool] = tools_from_openai([definition], handler=weather)
    assert summary(tool) == ("get_weather", "Weather for a city.", WEATHER_PARAMETERS)
    assert call_tool(tool, {"city": "Oslo"}) == "get_weather: Oslo metric"


def test_anthropic() -> None:
    [tool] = tools_from_anthropic([ANTHROPIC], handler=weather)
    assert summary(tool) == ("get_weather", "Weather for a city.", WEATHER_PARAMETERS)
    assert call_tool(tool, {"city": "Rome", "units": "imperial"}) == "get_weather: Rome imperial"


def test_amla_sandbox_names_return_funcs_and_defs() -> None:
    funcs, defs = from_openai_tools([CHAT], handlers=weather)
    assert ([summary(t) for t in funcs], funcs == defs, funcs is defs) == (
        [summary(t) for t in tools_from_openai([CHAT])],
        True,
        False,
    )
    more, _ = from_anthropic_tools([{**ANTHROPIC, "name": "forecast"}], handlers=weather)
    sandbox = create_sandbox_tool(tools=funcs + more)
    code = "return [await get_weather({city: 'Oslo'}), await forecast({city: 'Rome'})]"
    assert sandbox.sandbox.execute(code).return_value == [
        "get_weather: Oslo metric",
        "forecast: Rome metric",
    ]


def test_the_schema_is_copied() -> None:
    parameters = {"type": "object", "properties": {"a": {"type": "string"}}}
    [tool] = tools_from_anthropic([{"name": "t", "input_schema": parameters}])
    parameters["properties"]["a"]["type"] = "number"
    assert tool.parameters == {"type": "object", "properties": {"a": {"type": "string"}}}


def test_handlers_by_name_and_async() -> None:
    def get_weather(city: str, units: str = "metric") -> str:
        return f"{city} in {units}"

    async def lookup(name: str, args: dict[str, Any]) -> Any:
        return [name, args]

    [by_name] = tools_from_openai([CHAT], handler={"get_weather": get_weather})
    assert call_tool(by_name, {"city": "Oslo"}) == "Oslo in metric"
    [async_tool] = tools_from_anthropic([ANTHROPIC], handler=lookup)
    assert async_tool.is_async
    assert asyncio.run(acall_tool(async_tool, {"city": "Oslo"})) == [
        "get_weather",
        {"city": "Oslo"},
    ]
    assert refused(ValueError, tools_from_openai, [CHAT], handler={"get_wether": get_weather}) == (
        "handler has functions for 'get_wether', which is not among the tools (get_weather); "
        "check the names"
    )
    assert refused(TypeError, tools_from_openai, [CHAT], handler=42) == (
        "handler must be handler(name, args), a dict of functions by tool name, or None; not int"
    )


def test_parameters_may_be_left_out_in_openai() -> None:
    [tool] = tools_from_openai([{"type": "function", "name": "ping"}])
    assert summary(tool) == ("ping", "", {"type": "object", "properties": {}})


def test_ingested_tools_run_in_a_sandbox_under_capabilities() -> None:
    tools = tools_from_openai([CHAT], handler=weather)
    sandbox = create_sandbox_tool(tools, constraints={"get_weather": {"city": ["Oslo"]}})
    assert sandbox.run("return await get_weather({city: 'Oslo'})") == "get_weather: Oslo metric"
    assert sandbox.run("return await get_weather({city: 'Rome'})") == (
        "CapabilityError: get_weather denied: city in ['Oslo'] failed (city = 'Rome')\n"
    )


def test_a_tool_without_handler_fails_when_called_not_when_built() -> None:
    sandbox = Sandbox(tools_from_openai([CHAT]))
    result = sandbox.execute("await get_weather({city: 'Oslo'})")
    assert result.error == (
        "ToolError: get_weather failed: RuntimeError: tool 'get_weather' has nothing to run it "
        "on the host: give it a function (handler=... when you build the tools) or pass "
        "tool_handler=... to the Sandbox"
    )
    with_handler = Sandbox(tools_from_openai([CHAT]), tool_handler=weather)
    assert with_handler.execute("return await get_weather({city: 'Oslo'})").return_value == (
        "get_weather: Oslo metric"
    )


def with_parameters(parameters: Any) -> dict[str, Any]:
    return {"type": "function", "function": {"name": "t", "parameters": parameters}}


OPENAI_ERRORS = [
    (
        [CHAT, CHAT, with_parameters({"type": "array"})],
        'tools[2].function.parameters.type must be "object", not "array"',
    ),
    (
        [with_parameters({"properties": {}})],
        'tools[0].function.parameters.type must be "object", not missing',
    ),
    (
        [with_parameters([])],
        "tools[0].function.parameters must be a JSON Schema object, not a list",
    ),
    (
        [with_parameters({"type": "object", "properties": {"a": {"type": "str"}}})],
        "tools[0].function.parameters.properties.a.type must be one of string, number, "
        'integer, boolean, null, array, object (or a list of them), not "str"',
    ),
    (
        [with_parameters({"type": "object", "properties": {"a": {"type": "array", "items": 3}}})],
        "tools[0].function.parameters.properties.a.items must be a JSON Schema (an object), "
        "not an int",
    ),
    (
        [with_parameters({"type": "object", "properties": {"a": {}}, "required": ["b"]})],
        "tools[0].function.parameters.required[0] names 'b', which is not among "
        "tools[0].function.parameters.properties",
    ),
    (
        [with_parameters({"type": "object", "properties": {"a": {"enum": []}}})],
        "tools[0].function.parameters.properties.a.enum must list at least one value",
    ),
    (
        [with_parameters({"type": "object", "properties": {"a": {"anyOf": {"type": "string"}}}})],
        "tools[0].function.parameters.properties.a.anyOf must be a list, not a dict",
    ),
    (
        [with_parameters({"type": "object", "properties": {"my key": {"type": 3}}})],
        'tools[0].function.parameters.properties."my key".type must be one of string, number, '
        "integer, boolean, null, array, object (or a list of them), not an int",
    ),
    (
        [{"type": "web_search", "name": "w"}],
        'tools[0].type must be "function" (only function tools run in the sandbox), '
        "not 'web_search'",
    ),
    (
        [{"function": {"name": "x"}}],
        'tools[0].type must be "function" (only function tools run in the sandbox), not missing',
    ),
    (
        [{"type": "function", "function": "x"}],
        "tools[0].function must be an object (a dict), not str",
    ),
    (
        [{"type": "function", "function": {}}],
        "tools[0].function.name must be a string, not missing",
    ),
    (
        [{"type": "function", "name": "get weather"}],
        "tools[0].name: invalid tool name 'get weather': whitespace ' ' at index 3; "
        "only ASCII letters, digits and _ - . : / are allowed",
    ),
    (
        [{"type": "function", "name": "x", "description": 3}],
        "tools[0].description must be a string, not 3",
    ),
    (["x"], "tools[0] must be an object (a dict), not str"),
]


@pytest.mark.parametrize(("definitions", "error"), OPENAI_ERRORS)
def test_malformed_openai_definitions_name_the_field(definitions: list[Any], error: str) -> None:
    assert refused(SchemaError, tools_from_openai, definitions) == error


@pytest.mark.parametrize(
    ("definition", "error"),
    [
        ({"name": "t"}, "tools[0].input_schema is missing"),
        (
            {"name": "t", "input_schema": {"type": "object", "properties": []}},
            "tools[0].input_schema.properties must be an object, not a list",
        ),
        (
            {"type": "bash_20250124", "name": "bash"},
            "tools[0].type is 'bash_20250124': a server tool runs at Anthropic, not in the "
            "sandbox; give client tools (name, description, input_schema)",
        ),
    ],
)
def test_malformed_anthropic_definitions_name_the_field(definition: Any, error: str) -> None:
    assert refused(SchemaError, tools_from_anthropic, [definition]) == error


# --------------------------------------------------------------------------------------------
# Export and round trips


def test_sandbox_tool_exports() -> None:
    tool = create_bash_tool()
    chat, responses = tool.to_openai(), tool.to_openai(api="responses")
    assert chat == {
        "type": "function",
        "function": {
            "name": "sandbox",
            "description": tool.description,
            "parameters": tool.parameters,
        },
    }
    assert responses == {"type": "function", **chat["function"]}
    assert tool.to_anthropic() == {
        "name": "sandbox",
        "description": tool.description,
        "input_schema": tool.parameters,
    }
    assert tool.to_mcp() == {
        "name": "sandbox",
        "description": tool.description,
        "inputSchema": tool.parameters,
    }
    assert refused(ValueError, tool.to_openai, api="completions") == (
        "api must be 'chat' or 'responses', not 'completions'"
    )


def test_round_trips() -> None:
    tool = create_sandbox_tool()
    expected = ("sandbox", tool.description, tool.parameters)
    assert summary(tools_from_openai([tool.to_openai()])[0]) == expected
    assert summary(tools_from_openai([tool.to_openai(api="responses")])[0]) == expected
    assert summary(tools_from_anthropic([tool.to_anthropic()])[0]) == expected
    [ingested] = tools_from_openai([CHAT])
    assert to_openai(ingested) == CHAT
    assert to_openai(ingested, api="responses") == RESPONSES
    assert to_anthropic(tools_from_anthropic([ANTHROPIC])[0]) == ANTHROPIC
    mcp = to_mcp(ingested)
    assert mcp == {
        "name": "get_weather",
        "description": "Weather for a city.",
        "inputSchema": WEATHER_PARAMETERS,
    }


def test_export_to_the_mcp_sdk_when_installed() -> None:
    types = pytest.importorskip("mcp.types")
    tool = create_sandbox_tool()
    sdk_tool = types.Tool.model_validate(tool.to_mcp())
    wire = sdk_tool.model_dump(by_alias=True, exclude_none=True)
    assert wire == tool.to_mcp()  # the MCP wire form, camelCase (attributes are snake_case)


# --------------------------------------------------------------------------------------------
# LangChain


def test_langchain_tools() -> None:
    lc_tools = pytest.importorskip("langchain_core.tools")

    @lc_tools.tool
    def multiply(a: int, b: int = 2) -> int:
        """Multiply two numbers."""
        return a * b

    async def download(url: str) -> str:
        return f"downloaded {url}"

    fetcher = lc_tools.StructuredTool.from_function(
        coroutine=download, name="download", description="Download a URL."
    )
    tools = tools_from_langchain([multiply, fetcher])
    assert [summary(tool) for tool in tools] == [
        (
            "multiply",
            "Multiply two numbers.",
            {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"default": 2, "type": "integer"}},
                "required": ["a"],
            },
        ),
        (
            "download",
            "Download a URL.",
            {"type": "object", "properties": {"url": {"type": "string"}}, "required": ["url"]},
        ),
    ]
    assert [tool.is_async for tool in tools] == [False, True]
    sandbox = Sandbox(tools)
    code = "return [await multiply({a: 21}), await download({url: 'x'})]"
    assert sandbox.execute(code).return_value == [42, "downloaded x"]
    assert asyncio.run(sandbox.aexecute(code)).return_value == [42, "downloaded x"]
    [taken_over] = tools_from_langchain([multiply], handler=lambda name, args: "handled")
    assert call_tool(taken_over, {"a": 1}) == "handled"
    assert refused(TypeError, tools_from_langchain, [multiply, print]) == (
        "tools[1] must be a LangChain BaseTool, not builtin_function_or_method"
    )


def test_langchain_round_trip() -> None:
    lc_tools = pytest.importorskip("langchain_core.tools")
    tool = create_sandbox_tool()
    lc = lc_tools.StructuredTool.from_function(
        func=tool.run, name=tool.name, description=tool.description, args_schema=tool.parameters
    )
    [back] = tools_from_langchain([lc])
    assert summary(back) == ("sandbox", tool.description, tool.parameters)
