"""corral.integrations.pydantic_ai against the real package, driven by its FunctionModel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("pydantic_ai", reason="needs pip install 'corral[pydantic-ai]'")
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from weather import DENIED, Script, get_weather, weather_tool

from corral import create_bash_tool, create_sandbox_tool
from corral.integrations.pydantic_ai import as_pydantic_tool, as_toolset


def scripted(*calls: dict[str, Any]) -> FunctionModel:
    """A model that follows a :class:`~weather.Script` of ``calls``."""
    script = Script(*calls)

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, ToolReturnPart):
                    script.read(str(part.content))
        call = script.next_call()
        if call is not None:
            return ModelResponse(
                parts=[ToolCallPart("sandbox", call, tool_call_id=f"c{script.step}")]
            )
        return ModelResponse(parts=[TextPart("answer: " + script.answer())])

    return FunctionModel(respond)


def test_tool_schema_has_only_code() -> None:
    definition = as_pydantic_tool(weather_tool()).tool_def
    assert definition.name == "sandbox"
    assert definition.description == weather_tool().description
    assert definition.parameters_json_schema == {
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "The JavaScript to run (the body of an async function).",
            }
        },
        "required": ["code"],
        "additionalProperties": False,
    }


def test_mixed_languages_add_an_optional_language_enum() -> None:
    schema = as_pydantic_tool(create_bash_tool()).tool_def.parameters_json_schema
    assert schema["properties"]["language"]["enum"] == ["auto", "javascript", "shell"]
    assert schema["properties"]["language"]["default"] == "auto"
    assert schema["required"] == ["code"]


def test_agent_loop_runs_code_that_calls_a_checked_tool() -> None:
    sandbox_tool = weather_tool()
    model = scripted({"code": "return (await get_weather({city: 'Paris'})).temp"})
    result = Agent(model, tools=[as_pydantic_tool(sandbox_tool)]).run_sync("weather?")
    assert result.output == "answer: 71"
    assert [call.params for call in sandbox_tool.sandbox.audit(kind="tool_call")] == [
        {"city": "Paris"}
    ]


def test_denied_call_and_bad_arguments_reach_the_model_as_text() -> None:
    model = scripted(
        {"code": "return await get_weather({city: 'Tokyo'})"},
        {"code": 42},
    )
    result = Agent(model, toolsets=[as_toolset(weather_tool())]).run_sync("weather?")
    assert result.output == (
        f"answer: {DENIED} | "
        'Error: the sandbox tool takes {"code": "<script>"}; \'code\' must be a string, got a int'
    )


def test_mixed_tool_runs_the_language_the_model_names() -> None:
    model = scripted(
        {"code": "tool get_weather --city SF | jq .temp"},
        {"code": "return 6 * 7", "language": "javascript"},
        {"code": "echo hi", "language": "python"},
    )
    bash = create_bash_tool([get_weather])
    result = Agent(model, tools=[as_pydantic_tool(bash)]).run_sync("go")
    assert result.output == (
        "answer: 64\n | 42 | Error: 'language' must be one of 'auto', 'javascript', 'shell', "
        "got 'python'"
    )


def test_async_run_awaits_async_tools_on_the_agents_loop() -> None:
    loops = []

    async def lookup(key: str) -> str:
        """Look a key up."""
        loops.append(asyncio.get_running_loop())
        return key.upper()

    async def main() -> str:
        model = scripted({"code": "return await lookup({key: 'ok'})"})
        agent = Agent(model, toolsets=[as_toolset(create_sandbox_tool([lookup]))])
        result = await agent.run("go")
        assert loops == [asyncio.get_running_loop()]
        return str(result.output)

    assert asyncio.run(main()) == "answer: OK"


def test_silent_code_reads_as_no_output() -> None:
    model = scripted({"code": "const x = 1"}, {"code": "true", "language": "shell"})
    result = Agent(model, tools=[as_pydantic_tool(create_bash_tool())]).run_sync("go")
    assert result.output == "answer: (no output) | (no output)"
