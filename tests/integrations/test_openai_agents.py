"""corral.integrations.openai_agents against the real SDK, driven by its ScriptedModel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

agents = pytest.importorskip("agents", reason="needs pip install 'corral[openai-agents]'")
from agents.testing import ModelStep, ScriptedModel, assistant_message, function_call  # noqa: E402
from openai.types.responses import ResponseFunctionShellToolCall  # noqa: E402
from weather import DENIED, get_weather, weather_tool  # noqa: E402

from corral import Limits, create_bash_tool, create_sandbox_tool  # noqa: E402
from corral.integrations.openai_agents import as_function_tool, shell_tool  # noqa: E402

agents.set_tracing_disabled(True)


def code_call(code: str, call_id: str = "c1") -> Any:
    return function_call("sandbox", {"code": code}, call_id=call_id)


def tool_outputs(model: ScriptedModel) -> list[str]:
    """What the model read back from its tool calls, in order."""
    last = model.calls[-1].input
    return [item["output"] for item in last if item.get("type") == "function_call_output"]


def run(model: ScriptedModel, tool: Any) -> str:
    result = agents.Runner.run_sync(agents.Agent(name="a", tools=[tool], model=model), "go")
    model.assert_complete()
    return str(result.final_output)


def test_schema_is_strict_with_only_code() -> None:
    tool = as_function_tool(weather_tool())
    assert tool.name == "sandbox"
    assert tool.strict_json_schema
    assert tool.params_json_schema == {
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
    assert tool.description == weather_tool().description


def test_options_reach_the_function_tool() -> None:
    tool = as_function_tool(weather_tool(), name="run_code", needs_approval=True)
    assert (tool.name, tool.needs_approval) == ("run_code", True)


def test_mixed_languages_add_a_required_language_enum() -> None:
    schema = as_function_tool(create_bash_tool()).params_json_schema
    assert list(schema["properties"]) == ["code", "language"]
    assert schema["properties"]["language"]["enum"] == ["auto", "javascript", "shell"]
    assert schema["required"] == ["code", "language"]


def test_agent_loop_runs_code_that_calls_a_checked_tool() -> None:
    code = "const r = await Promise.all(['SF', 'Paris'].map((city) => get_weather({city})));\n"
    code += "return r.map((x) => `${x.city} ${x.temp}`).join(', ')"
    model = ScriptedModel(
        [
            [code_call(code)],
            ModelStep.respond(lambda call: [assistant_message(f"It is {tool_text(call)}")]),
        ]
    )
    sandbox_tool = weather_tool()
    assert run(model, as_function_tool(sandbox_tool)) == "It is SF 64, Paris 71"
    assert [call.method for call in sandbox_tool.sandbox.audit(kind="tool_call")] == [
        "get_weather",
        "get_weather",
    ]


def tool_text(call: Any) -> str:
    """The last tool output in the input a scripted step receives."""
    outputs = [item for item in call.input if item.get("type") == "function_call_output"]
    return str(outputs[-1]["output"])


def test_denied_call_and_guest_errors_reach_the_model_as_text() -> None:
    model = ScriptedModel(
        [
            [code_call("return await get_weather({city: 'Tokyo'})", "c1")],
            [code_call("null.x", "c2")],
            [function_call("sandbox", '{"script": "1"}', call_id="c3")],
            [function_call("sandbox", "{code: 1", call_id="c4")],
            [assistant_message("gave up")],
        ]
    )
    assert run(model, as_function_tool(weather_tool())) == "gave up"
    assert tool_outputs(model) == [
        DENIED,
        "TypeError: cannot read property 'x' of null\n    at <anonymous> (code.js:1:1)\n",
        'Error: the sandbox tool takes {"code": "<script>"}; unexpected argument \'script\'',
        "Error: the arguments are not valid JSON (Expecting property name enclosed in double "
        'quotes: line 1 column 2 (char 1)); pass {"code": "..."}',
    ]


def test_async_run_awaits_async_tools_on_the_agents_loop() -> None:
    loops = []

    async def lookup(key: str) -> str:
        """Look a key up."""
        loops.append(asyncio.get_running_loop())
        return key.upper()

    async def main() -> str:
        model = ScriptedModel(
            [[code_call("return await lookup({key: 'ok'})")], [assistant_message("done")]]
        )
        agent = agents.Agent(
            name="a", tools=[as_function_tool(create_sandbox_tool([lookup]))], model=model
        )
        result = await agents.Runner.run(agent, "go")
        assert loops == [asyncio.get_running_loop()]
        return f"{result.final_output}: {tool_outputs(model)}"

    assert asyncio.run(main()) == "done: ['OK']"


def shell_call(*commands: str) -> ResponseFunctionShellToolCall:
    return ResponseFunctionShellToolCall(
        id="s1",
        call_id="s1",
        type="shell_call",
        status="completed",
        action={"commands": list(commands)},
    )


def shell_outputs(model: ScriptedModel) -> list[dict[str, Any]]:
    last = model.calls[-1].input
    return next(item for item in last if item.get("type") == "shell_call_output")["output"]


def test_shell_tool_runs_each_command_in_one_shell_session() -> None:
    model = ScriptedModel(
        [
            [
                shell_call(
                    "cd /tmp && echo hi > f && pwd",
                    "cat f; ls nope",
                    "tool get_weather --city SF | jq .temp",
                    "tool get_weather --city Tokyo",
                )
            ],
            [assistant_message("done")],
        ]
    )
    bash = create_bash_tool([get_weather], constraints={"get_weather": {"city": ["SF", "Paris"]}})
    assert run(model, shell_tool(bash)) == "done"
    assert shell_outputs(model) == [
        {"stdout": "/tmp\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {
            "stdout": "hi\n",
            "stderr": "ls: cannot access 'nope': No such file or directory\n",
            "outcome": {"type": "exit", "exit_code": 2},
        },
        {"stdout": "64\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
        {
            "stdout": "",
            "stderr": "tool: " + DENIED.removeprefix("CapabilityError: "),
            "outcome": {"type": "exit", "exit_code": 1},
        },
    ]


def test_shell_tool_reports_a_timeout_and_the_session_goes_on() -> None:
    model = ScriptedModel(
        [
            [shell_call("echo start; while true; do :; done", "echo after")],
            [assistant_message("done")],
        ]
    )
    assert run(model, shell_tool(create_bash_tool(limits=Limits(timeout=0.5)))) == "done"
    timeout = (
        "TimeoutError: execution exceeded the 0.5 s time limit and was stopped; do less work "
        "per execution or raise Limits(timeout=...)\n"
    )
    assert shell_outputs(model) == [
        {"stdout": "start\n", "stderr": timeout, "outcome": {"type": "timeout"}},
        {"stdout": "after\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}},
    ]
