"""corral.integrations.smolagents against the real package, driven by a scripted Model."""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("smolagents", reason="needs pip install 'corral[smolagents]'")
from smolagents import ToolCallingAgent
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)
from weather import DENIED, Script, get_weather, weather_tool

from corral import create_bash_tool, create_sandbox_tool
from corral.integrations.smolagents import (
    as_smolagents_tool,
    code_executor,
    create_code_agent,
)


class ScriptedModel(Model):  # type: ignore[misc]
    """Follows a :class:`~weather.Script` of ``calls``, answering through ``final_answer``."""

    def __init__(self, *calls: dict[str, Any]) -> None:
        super().__init__(model_id="scripted")
        self.script = Script(*calls)

    def generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> ChatMessage:
        if messages[-1].role == MessageRole.TOOL_RESPONSE:
            text = messages[-1].content[0]["text"]
            self.script.read(text.removeprefix("Observation:\n"))
        call = self.script.next_call()
        if call is not None:
            return tool_call("sandbox", call, self.script.step)
        return tool_call("final_answer", {"answer": self.script.answer()}, self.script.step)


def tool_call(name: str, arguments: dict[str, Any], step: int) -> ChatMessage:
    function = ChatMessageToolCallFunction(name=name, arguments=arguments)
    call = ChatMessageToolCall(id=f"c{step}", type="function", function=function)
    return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])


def run(model: ScriptedModel, sandbox_tool: Any) -> str:
    agent = ToolCallingAgent(tools=[as_smolagents_tool(sandbox_tool)], model=model)
    agent.logger.level = -1  # silent
    return str(agent.run("go"))


def test_inputs_have_only_code() -> None:
    tool = as_smolagents_tool(weather_tool())
    assert (tool.name, tool.output_type) == ("sandbox", "string")
    assert tool.description == weather_tool().description
    assert tool.inputs == {
        "code": {
            "type": "string",
            "description": "The JavaScript to run (the body of an async function).",
        }
    }


def test_mixed_languages_add_a_nullable_language() -> None:
    inputs = as_smolagents_tool(create_bash_tool()).inputs
    assert inputs["language"] == {
        "type": "string",
        "description": "The script's language: 'shell', 'javascript', or 'auto' to pick it from "
        "the script (a shell command first is the shell). One of: auto, javascript, shell.",
        "nullable": True,
    }


def test_agent_loop_runs_code_that_calls_a_checked_tool() -> None:
    sandbox_tool = weather_tool()
    model = ScriptedModel({"code": "return (await get_weather({city: 'SF'})).temp"})
    assert run(model, sandbox_tool) == "64"
    assert [call.decision for call in sandbox_tool.sandbox.audit(kind="tool_call")] == ["allowed"]


def test_denied_call_and_guest_errors_reach_the_model_as_text() -> None:
    model = ScriptedModel(
        {"code": "return await get_weather({city: 'Tokyo'})"},
        {"code": "throw new Error('boom')"},
    )
    assert run(model, weather_tool()) == (
        DENIED.strip() + " | Error: boom\n    at <anonymous> (code.js:1:11)"
    )


def test_mixed_tool_runs_shell_and_javascript() -> None:
    model = ScriptedModel(
        {"code": "tool get_weather --city Paris | jq -r .city"},
        {"code": "return 'js'", "language": "javascript"},
    )
    assert run(model, create_bash_tool([get_weather])) == "Paris | js"


def test_tool_called_directly_returns_text() -> None:
    tool = as_smolagents_tool(weather_tool())
    assert tool(code="return 1 + 1") == "2"
    assert tool(code="return await get_weather({city: 'Tokyo'})") == DENIED


def test_async_tools_run_from_the_synchronous_agent() -> None:
    # smolagents' tools are synchronous: an async corral tool still runs (corral drives it).
    async def lookup(key: str) -> str:
        """Look a key up."""
        return key.upper()

    model = ScriptedModel({"code": "return await lookup({key: 'ok'})"})
    assert run(model, create_sandbox_tool([lookup])) == "OK"


class WritingModel(Model):  # type: ignore[misc]
    """Answers each turn with the next of ``replies`` (text holding a code block)."""

    def __init__(self, *replies: str) -> None:
        super().__init__(model_id="writing")
        self.replies = list(replies)
        self.sent: list[list[Any]] = []

    def generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> ChatMessage:
        self.sent.append(list(messages))
        return ChatMessage(role=MessageRole.ASSISTANT, content=self.replies[len(self.sent) - 1])


def test_code_agent_runs_javascript_blocks_and_returns_the_final_answer() -> None:
    model = WritingModel(
        "Thought: try Tokyo.\n<script>\nconsole.log(await get_weather({city: 'Tokyo'}))\n</script>",
        "Thought: SF then.\n<script>\nconst w = await get_weather({city: 'SF'});\n"
        "console.log(w.temp)\n</script>",
        "Thought: done.\n<script>\nreturn 'SF is 64F'\n</script>",
    )
    sandbox_tool = weather_tool()
    agent = create_code_agent(sandbox_tool, model, verbosity_level=-1)
    assert agent.run("weather?") == "SF is 64F"
    system = model.sent[0][0].content[0]["text"]
    assert system == (
        "You are an expert assistant who solves tasks by writing JavaScript that a sandbox runs.\n"
        "Work in steps. In each step, write 'Thought:' with your reasoning, then JavaScript "
        "between <script> and </script>. The code is the body of an async function: use `await`. "
        "Print what you need for the next step with console.log; it comes back to you as the "
        "'Observation:'. Variables do not persist between steps; files under /workspace do.\n"
        "When you have the answer, end the task with a step whose code returns it: "
        "`return answer;`. Return nothing in the other steps.\n\n"
        "Example:\n"
        "Thought: I will count the words, then give the count as the answer.\n"
        '<script>\nconst words = "a b c".split(" ");\n'
        "return `${words.length} words`;\n</script>\n\n"
        f"The sandbox:\n{sandbox_tool.description}\n"
        "A tool call that is denied comes back as an error naming the rule: change the "
        "arguments instead of repeating the call."
    )
    observations = [sent[-1].content[0]["text"] for sent in model.sent[1:]]
    assert observations == [
        f"Observation:\nExecution logs:\n{DENIED}Last output from code snippet:\nNone",
        "Observation:\nExecution logs:\n64\nLast output from code snippet:\nNone",
    ]


def test_code_executor_reports_errors_as_logs() -> None:
    executor = code_executor(weather_tool())
    output = executor("null.x")
    assert (output.output, output.is_final_answer) == (None, False)
    assert output.logs == (
        "TypeError: cannot read property 'x' of null\n    at <anonymous> (code.js:1:1)\n"
    )
    final = executor("console.log('hi'); return {n: 1}")
    assert (final.output, final.logs, final.is_final_answer) == ({"n": 1}, 'hi\n{"n":1}', True)


def test_code_executor_refuses_python_tools_and_variables() -> None:
    executor = code_executor(weather_tool())
    executor.send_tools({"final_answer": object()})
    with pytest.raises(ValueError, match=r"tools \['search'\] cannot run inside corral"):
        executor.send_tools({"final_answer": object(), "search": object()})
    executor.send_variables({})
    with pytest.raises(ValueError, match=r"variables \['df'\] cannot enter corral's JavaScript"):
        executor.send_variables({"df": 1})
