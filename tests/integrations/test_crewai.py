"""corral.integrations.crewai against the real package (its own nox session, ``-k crewai``),
driven by a scripted BaseLLM that answers in CrewAI's ReAct text format."""

from __future__ import annotations

import asyncio
import copy
import json
import os
from typing import Any

import pytest

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")
pytest.importorskip("crewai", reason="needs pip install 'corral[crewai]'")
from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM
from weather import DENIED, weather_tool

from corral import create_bash_tool, create_sandbox_tool
from corral.integrations.crewai import as_crewai_tool


class ScriptedLLM(BaseLLM):  # type: ignore[misc]
    """Calls ``sandbox`` with each of ``calls`` (ReAct text), then gives every observation it
    read as the final answer."""

    def __init__(self, *calls: dict[str, Any]) -> None:
        super().__init__(model="scripted")
        self._calls = list(calls)
        self._sent: list[Any] = []

    def call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        self._sent.append(copy.deepcopy(messages))
        step = len(self._sent) - 1
        if step < len(self._calls):
            arguments = json.dumps(self._calls[step])
            return f"Thought: run it\nAction: sandbox\nAction Input: {arguments}"
        return "Thought: I now know the final answer\nFinal Answer: " + " | ".join(
            self.observations()
        )

    async def acall(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        return self.call(messages)

    def observations(self) -> list[str]:
        """The observations in the last conversation the LLM was sent."""
        texts = [str(m["content"]) for m in self._sent[-1] if m["role"] == "assistant"]
        return [text.split("\nObservation: ", 1)[1].strip() for text in texts]

    def supports_function_calling(self) -> bool:
        return False


def crew(llm: ScriptedLLM, sandbox_tool: Any) -> Crew:
    agent = Agent(
        role="analyst",
        goal="answer with data",
        backstory="careful",
        tools=[as_crewai_tool(sandbox_tool)],
        llm=llm,
        verbose=False,
    )
    task = Task(description="What is the weather?", expected_output="a number", agent=agent)
    return Crew(agents=[agent], tasks=[task], verbose=False)


def test_crewai_tool_schema_has_only_code() -> None:
    tool = as_crewai_tool(weather_tool())
    assert (tool.name, tool.description) == ("sandbox", weather_tool().description)
    schema = tool.args_schema.model_json_schema()
    assert schema["properties"] == {
        "code": {
            "type": "string",
            "title": "Code",
            "description": "The JavaScript to run (the body of an async function).",
        }
    }
    bash_schema = as_crewai_tool(create_bash_tool()).args_schema.model_json_schema()
    assert bash_schema["properties"]["language"]["enum"] == ["auto", "javascript", "shell"]


def test_crewai_tool_run_and_arun_return_text() -> None:
    tool = as_crewai_tool(weather_tool())
    assert tool.run(code="return (await get_weather({city: 'SF'})).temp") == "64"
    denied = asyncio.run(tool.arun(code="return await get_weather({city: 'Tokyo'})"))
    assert denied == DENIED


def test_crewai_tool_arun_awaits_async_tools_on_the_callers_loop() -> None:
    loops = []

    async def lookup(key: str) -> str:
        """Look a key up."""
        loops.append(asyncio.get_running_loop())
        return key.upper()

    async def main() -> str:
        tool = as_crewai_tool(create_sandbox_tool([lookup]))
        text = await tool.arun(code="return await lookup({key: 'ok'})")
        assert loops == [asyncio.get_running_loop()]
        return str(text)

    assert asyncio.run(main()) == "OK"


def test_crewai_agent_loop_runs_code_and_reads_denials() -> None:
    sandbox_tool = weather_tool()
    llm = ScriptedLLM(
        {"code": "return (await get_weather({city: 'Paris'})).temp"},
        {"code": "return await get_weather({city: 'Tokyo'})"},
    )
    assert str(crew(llm, sandbox_tool).kickoff()) == f"71 | {DENIED.strip()}"
    assert [e.decision for e in sandbox_tool.sandbox.audit(kind="tool_call")] == [
        "allowed",
        "denied",
    ]


def test_crewai_async_kickoff() -> None:
    # CrewAI's agents call a tool's synchronous _run, in a worker thread under akickoff, so
    # corral drives the async tool there; BaseTool.arun (tested above) awaits on the caller's
    # loop.
    async def lookup(key: str) -> str:
        """Look a key up."""
        return key.upper()

    llm = ScriptedLLM({"code": "return await lookup({key: 'ok'})"})
    output = asyncio.run(crew(llm, create_sandbox_tool([lookup])).akickoff())
    assert str(output) == "OK"
