"""corral.integrations.llamaindex against the real package, driven by MockFunctionCallingLLM."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("llama_index.core", reason="needs pip install 'corral[llamaindex]'")
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from weather import DENIED, Script, weather_tool

from corral import create_bash_tool, create_sandbox_tool
from corral.integrations.llamaindex import (
    as_function_tool,
    code_act_prompt,
    code_execute_fn,
    create_codeact_agent,
)


def calling(*calls: dict[str, Any]) -> MockFunctionCallingLLM:
    """An LLM that follows a :class:`~weather.Script` of ``calls``."""
    script = Script(*calls)

    def respond(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        if messages[-1].role == MessageRole.TOOL:
            script.read(str(messages[-1].content))
        call = script.next_call()
        if call is not None:
            block = ToolCallBlock(
                tool_call_id=f"c{script.step}", tool_name="sandbox", tool_kwargs=call
            )
            return ChatMessage(role=MessageRole.ASSISTANT, blocks=[block])
        return ChatMessage(role=MessageRole.ASSISTANT, content="answer: " + script.answer())

    return MockFunctionCallingLLM(response_generator=respond, is_chat_model=True)


def run(agent: Any) -> str:
    async def main() -> str:  # the workflow needs a running loop
        return str(await agent.run(user_msg="go"))

    return asyncio.run(main())


def test_schema_has_only_code() -> None:
    tool = as_function_tool(weather_tool())
    assert tool.metadata.name == "sandbox"
    assert tool.metadata.description == weather_tool().description
    assert tool.metadata.get_parameters_dict() == {
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "title": "Code",
                "description": "The JavaScript to run (the body of an async function).",
            }
        },
        "required": ["code"],
    }


def test_mixed_languages_add_a_language_enum() -> None:
    schema = as_function_tool(create_bash_tool()).metadata.get_parameters_dict()
    assert schema["properties"]["language"]["enum"] == ["auto", "javascript", "shell"]
    assert schema["required"] == ["code"]


def test_call_and_acall_return_text() -> None:
    tool = as_function_tool(weather_tool())
    assert tool.call(code="return (await get_weather({city: 'SF'})).temp").content == "64"
    output = asyncio.run(tool.acall(code="return await get_weather({city: 'Tokyo'})"))
    assert (output.content, output.is_error) == (DENIED, False)


def test_function_agent_runs_code_that_calls_a_checked_tool() -> None:
    sandbox_tool = weather_tool()
    llm = calling(
        {"code": "return (await get_weather({city: 'Paris'})).temp"},
        {"code": "return await get_weather({city: 'Tokyo'})"},
    )
    agent = FunctionAgent(tools=[as_function_tool(sandbox_tool)], llm=llm)
    assert run(agent) == f"answer: 71 | {DENIED}"
    assert [e.decision for e in sandbox_tool.sandbox.audit(kind="tool_call")] == [
        "allowed",
        "denied",
    ]


def test_async_agent_awaits_async_tools_on_its_loop() -> None:
    loops = []

    async def lookup(key: str) -> str:
        """Look a key up."""
        loops.append(asyncio.get_running_loop())
        return key.upper()

    async def main() -> str:
        llm = calling({"code": "return await lookup({key: 'ok'})"})
        agent = FunctionAgent(tools=[as_function_tool(create_sandbox_tool([lookup]))], llm=llm)
        answer = str(await agent.run(user_msg="go"))
        assert loops == [asyncio.get_running_loop()]
        return answer

    assert asyncio.run(main()) == "answer: OK"


def writing(*replies: str) -> tuple[MockFunctionCallingLLM, list[list[ChatMessage]]]:
    """An LLM that answers with each of ``replies`` in turn, recording what it was sent."""
    sent: list[list[ChatMessage]] = []

    def respond(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
        sent.append(list(messages))
        reply = replies[len(sent) - 1]
        return ChatMessage(
            role=MessageRole.ASSISTANT, content=reply.replace("{last}", str(messages[-1].content))
        )

    return MockFunctionCallingLLM(response_generator=respond, is_chat_model=True), sent


def test_codeact_agent_runs_javascript_between_execute_tags() -> None:
    llm, sent = writing(
        "Let me look.\n<execute>\nconst w = await get_weather({city: 'SF'});\n"
        "console.log(`${w.city}: ${w.temp}F`);\n</execute>",
        "<execute>\nawait get_weather({city: 'Tokyo'})\n</execute>",
        "Done. {last}",
    )
    sandbox_tool = weather_tool()
    answer = run(create_codeact_agent(sandbox_tool, llm))
    assert answer == "Done. Result of executing the code given:\n\n" + DENIED
    assert sent[0][0].content == code_act_prompt(sandbox_tool)
    assert sent[1][-1].content == "Result of executing the code given:\n\nSF: 64F\n"


def test_codeact_prompt_for_the_shell() -> None:
    bash = create_bash_tool()
    prompt = code_act_prompt(bash)
    assert prompt == (
        "You are a helpful assistant that solves tasks by writing code that a sandbox runs.\n\n"
        "Answer with either:\n"
        "- code between <execute>...</execute> tags: a step towards the solution. The sandbox "
        "runs it and\n"
        "  shows you its output (what it prints, the value it returns, or its error) in the next "
        "message;\n"
        "- or, when you have what you need, the final answer as plain text, without code.\n\n"
        "Write a bash script (GNU-like tools: grep, sed, awk, jq, sort ...) or JavaScript (the "
        "body of an async function: use `await`, console.log, `return`). A script whose first "
        "word is a shell command runs in the shell, anything else as JavaScript.\n\n"
        f"The sandbox:\n{bash.description}\n\n"
        "Example:\n<execute>\necho 'a b c' | wc -w\n</execute>\n\n"
        "Files under /workspace persist between steps; variables do not. A tool call that is "
        "denied\ncomes back as an error naming the rule: change the arguments instead of "
        "repeating the call.\nReminder: always put code between <execute>...</execute> tags.\n"
    )
    assert asyncio.run(code_execute_fn(bash)("echo 'a b c' | wc -w")) == "3\n"
