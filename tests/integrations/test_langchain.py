"""corral's LangChain tool inside LangChain's and LangGraph's own agent loops, offline."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import warnings

import pytest

pytest.importorskip("langchain", reason="needs pip install 'corral[langchain]'")
pytest.importorskip("langgraph", reason="needs pip install 'corral[langchain]'")

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langchain_fakes import ScriptedChatModel, answer_from_last, code_call, transcript
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode

from corral import create_bash_tool, create_sandbox_tool
from corral.integrations.langchain import CorralMiddleware, CorralTool


def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city."""
    return {"city": city, "temp": {"Tokyo": 25, "Paris": 18}[city]}


def transfer(amount: int) -> str:
    """Move money."""
    return f"moved {amount}"


async def lookup(order_id: str) -> dict[str, str]:
    """Look up an order (an async tool: awaited on the agent's own event loop)."""
    await asyncio.sleep(0)
    return {"order_id": order_id, "status": "shipped"}


WEATHER_JS = "const w = await get_weather({city: 'Tokyo'}); return `${w.city}: ${w.temp}C`"


def test_the_tool_shows_only_code_unless_languages_mix() -> None:
    js = create_sandbox_tool(tools=[get_weather]).as_langchain_tool()
    mixed = create_bash_tool(tools=[get_weather]).as_langchain_tool()
    assert isinstance(js, CorralTool)
    assert js.name == "sandbox"
    assert list(js.tool_call_schema.model_json_schema()["properties"]) == ["code"]
    language = mixed.tool_call_schema.model_json_schema()["properties"]["language"]
    assert language["enum"] == ["auto", "javascript", "shell"]
    assert js.description == create_sandbox_tool(tools=[get_weather]).description


def test_create_agent_runs_the_code_and_the_model_reads_the_result() -> None:
    model = ScriptedChatModel([code_call(WEATHER_JS), answer_from_last("It is {} now.")])
    agent = create_agent(model, [create_sandbox_tool(tools=[get_weather]).as_langchain_tool()])
    state = agent.invoke({"messages": [("user", "Weather in Tokyo?")]})
    assert transcript(state["messages"]) == [
        ("human", "Weather in Tokyo?"),
        ("ai", ""),
        ("tool", "Tokyo: 25C"),
        ("ai", "It is Tokyo: 25C now."),
    ]
    assert state["messages"][2].artifact == {"exit_code": 0, "error_kind": None, "error": None}
    assert transcript(model.seen[1][-1:]) == [("tool", "Tokyo: 25C")]


def test_a_denied_call_reaches_the_model_as_text_and_the_run_goes_on() -> None:
    sandbox = create_sandbox_tool(tools=[transfer], constraints={"transfer": {"amount": "<=100"}})
    model = ScriptedChatModel(
        [
            code_call("return await transfer({amount: 5000})"),
            code_call("return await transfer({amount: 50})", call_id="call_2"),
            answer_from_last("Not 5000: {}."),
        ]
    )
    agent = create_agent(model, [sandbox.as_langchain_tool()])
    state = agent.invoke({"messages": [("user", "Move 5000")]})
    denial = "CapabilityError: transfer denied: amount <= 100 failed (amount = 5000)\n"
    assert transcript(state["messages"]) == [
        ("human", "Move 5000"),
        ("ai", ""),
        ("tool", denial),
        ("ai", ""),
        ("tool", "moved 50"),
        ("ai", "Not 5000: moved 50."),
    ]
    assert state["messages"][2].artifact == {
        "exit_code": 1,
        "error_kind": "exception",
        "error": denial.strip(),
    }
    assert state["messages"][2].status == "success"


def test_guest_failures_are_text_never_exceptions() -> None:
    tool = create_bash_tool().as_langchain_tool()
    call = {"type": "tool_call", "id": "c", "name": "sandbox"}
    thrown = tool.invoke({**call, "args": {"code": "throw new Error('boom')"}})
    missing = tool.invoke({**call, "args": {"code": "cat /nope", "language": "shell"}})
    silent = tool.invoke({**call, "args": {"code": "true", "language": "shell"}})
    trace = "Error: boom\n    at <anonymous> (code.js:1:11)\n"
    assert (thrown.content, thrown.artifact["exit_code"]) == (trace, 1)
    assert (missing.content, missing.artifact["exit_code"]) == (
        "cat: /nope: No such file or directory\n",
        1,
    )
    assert (silent.content, silent.artifact["exit_code"]) == ("(no output)", 0)


def test_ainvoke_awaits_async_tools_through_aexecute() -> None:
    code = "const o = await lookup({order_id: 'A1'}); return `${o.order_id} ${o.status}`"
    model = ScriptedChatModel([code_call(code), answer_from_last("Order {}.")])
    agent = create_agent(model, [create_sandbox_tool(tools=[lookup]).as_langchain_tool()])
    state = asyncio.run(agent.ainvoke({"messages": [("user", "Where is A1?")]}))
    assert transcript(state["messages"])[2:] == [
        ("tool", "A1 shipped"),
        ("ai", "Order A1 shipped."),
    ]


def test_tool_node_in_a_state_graph_runs_parallel_calls() -> None:
    sandbox = create_bash_tool(tools=[get_weather])
    graph = StateGraph(MessagesState)
    graph.add_node("tools", ToolNode([sandbox.as_langchain_tool()]))
    graph.add_edge(START, "tools")
    calls = AIMessage(
        content="",
        tool_calls=[
            {"name": "sandbox", "args": {"code": "echo one > /workspace/a"}, "id": "i1"},
            {
                "name": "sandbox",
                "args": {"code": "tool get_weather --city Paris | jq .temp"},
                "id": "i2",
            },
        ],
    )
    state = graph.compile().invoke({"messages": [calls]})
    results = [(m.tool_call_id, m.content) for m in state["messages"][1:]]
    assert results == [("i1", "(no output)"), ("i2", "18\n")]
    assert sandbox.sandbox.fs.read_text("/workspace/a") == "one\n"


def test_amla_documented_create_react_agent_form() -> None:
    from langgraph.prebuilt import create_react_agent

    bash = create_bash_tool(tools=[get_weather])
    model = ScriptedChatModel(
        [code_call("tool get_weather --city Tokyo | jq .temp"), AIMessage(content="25")]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated in LangGraph 1.x
        agent = create_react_agent(model, [bash.as_langchain_tool()])
    state = agent.invoke({"messages": [("user", "Tokyo?")]})
    assert transcript(state["messages"])[2:] == [("tool", "25\n"), ("ai", "25")]


def test_middleware_keeps_one_sandbox_per_thread() -> None:
    middleware = CorralMiddleware(create_bash_tool)
    model = ScriptedChatModel(
        [
            code_call("echo mine > /workspace/note; cat /workspace/note"),
            AIMessage(content="written"),
            code_call("cat /workspace/note"),
            AIMessage(content="read"),
        ]
    )
    agent = create_agent(model, middleware=[middleware], checkpointer=InMemorySaver())
    first = agent.invoke({"messages": [("user", "w")]}, {"configurable": {"thread_id": "a"}})
    other = agent.invoke({"messages": [("user", "r")]}, {"configurable": {"thread_id": "b"}})
    tool_messages = [m for m in first["messages"] + other["messages"] if isinstance(m, ToolMessage)]
    assert [m.content for m in tool_messages] == [
        "mine\n",
        "cat: /workspace/note: No such file or directory\n",
    ]
    note = middleware.sandbox_for({"configurable": {"thread_id": "a"}}).sandbox.fs
    assert note.read_text("/workspace/note") == "mine\n"


def test_import_corral_does_not_import_langchain() -> None:
    code = "import corral, sys; print(sorted(m for m in sys.modules if m.startswith('lang')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "[]\n"
