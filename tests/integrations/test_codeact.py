"""corral's CodeAct agents (LangGraph graphs) driven by scripted models, offline."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("langchain", reason="needs pip install 'corral[codeact]'")

from langchain_core.messages import AIMessage
from langchain_fakes import ScriptedChatModel, answer_from_last, transcript
from langgraph.checkpoint.memory import InMemorySaver

from corral import create_bash_tool, create_sandbox_tool
from corral.integrations.codeact import (
    codeact_prompt,
    create_codeact_agent,
    create_sandbox_codeact,
    make_eval_fn,
)


def get_weather(city: str) -> dict[str, object]:
    """Current weather for a city."""
    return {"city": city, "temp": {"Tokyo": 25, "Paris": 18}[city]}


def refund(order_id: str, amount: int) -> str:
    """Refund an order."""
    return f"refunded {amount} on {order_id}"


async def lookup(order_id: str) -> dict[str, str]:
    """Look up an order."""
    await asyncio.sleep(0)
    return {"order_id": order_id, "status": "shipped"}


def reply(text: str) -> AIMessage:
    return AIMessage(content=text)


HOTTEST = """I'll compare both cities.
```javascript
const all = await Promise.all(["Tokyo", "Paris"].map((city) => get_weather({city})));
const best = all.reduce((a, b) => (a.temp > b.temp ? a : b));
console.log(`${best.city} ${best.temp}`);
```"""


def test_the_model_writes_javascript_that_calls_the_tools() -> None:
    model = ScriptedChatModel([reply(HOTTEST), answer_from_last("Hotter: {}C.")])
    agent = create_codeact_agent(model, [get_weather], max_calls=5)
    state = agent.invoke({"messages": [("user", "Which is hotter, Tokyo or Paris?")]})
    assert transcript(state["messages"]) == [
        ("human", "Which is hotter, Tokyo or Paris?"),
        ("ai", HOTTEST),
        ("human", "Tokyo 25\n"),
        ("ai", "Hotter: Tokyo 25C."),
    ]
    system = model.seen[0][0]
    assert system.type == "system"
    assert system.content.startswith("You solve the user's task by writing JavaScript.")
    budgeted = create_sandbox_tool(tools=[get_weather], max_calls=5)
    assert system.content.endswith(budgeted.description)


def test_a_denied_call_comes_back_as_text_and_the_model_retries() -> None:
    too_much = "```js\nreturn await refund({order_id: 'A1', amount: 900})\n```"
    ok = "```js\nreturn await refund({order_id: 'A1', amount: 90})\n```"
    model = ScriptedChatModel([reply(too_much), reply(ok), reply("Refunded 90.")])
    agent = create_codeact_agent(model, [refund], constraints={"refund": {"amount": "<=100"}})
    state = agent.invoke({"messages": [("user", "Refund 900 on A1")]})
    assert transcript(state["messages"])[2:] == [
        ("human", "CapabilityError: refund denied: amount <= 100 failed (amount = 900)\n"),
        ("ai", ok),
        ("human", "refunded 90 on A1"),
        ("ai", "Refunded 90."),
    ]


def test_budgets_are_forwarded() -> None:
    twice = (
        "```js\nawait refund({order_id: 'A', amount: 1});\n"
        "return await refund({order_id: 'B', amount: 1})\n```"
    )
    model = ScriptedChatModel([reply(twice), reply("done")])
    agent = create_codeact_agent(model, [refund], max_calls=1)
    out = agent.invoke({"messages": [("user", "refund both")]})["messages"][2].content
    assert (
        out == "CapabilityError: refund denied: max_calls=1 for 'refund' exhausted (1 call made)\n"
    )


def test_ainvoke_awaits_async_tools() -> None:
    code = "```javascript\nconst o = await lookup({order_id: 'A1'}); return o.status\n```"
    model = ScriptedChatModel([reply(code), answer_from_last("It has {}.")])
    agent = create_codeact_agent(model, [lookup])
    state = asyncio.run(agent.ainvoke({"messages": [("user", "Where is A1?")]}))
    assert transcript(state["messages"])[2:] == [("human", "shipped"), ("ai", "It has shipped.")]


def test_shell_blocks_and_files_persist_across_turns() -> None:
    sandbox = create_bash_tool(tools=[get_weather])
    first = "```bash\ntool get_weather --city Paris | jq .temp > /workspace/paris\n```"
    second = "```\ncat /workspace/paris\n```\n```python\nprint(1)\n```"
    model = ScriptedChatModel([reply(first), reply(second), reply("18")])
    agent = create_sandbox_codeact(model, sandbox, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    state = agent.invoke({"messages": [("user", "Paris?")]}, config)
    assert [m.content for m in state["messages"] if m.type == "human"][1:] == [
        "(no output)",
        "18\n`python` cannot run here: write JavaScript in a ```javascript block (or a shell "
        "script in a ```bash block)\n",
    ]
    assert "```bash block" in model.seen[0][0].content


def test_the_prompt_lists_the_tools() -> None:
    prompt = codeact_prompt(create_sandbox_tool(tools=[get_weather]), "You are a weather bot.")
    assert prompt.startswith("You are a weather bot.\n\nYou solve the user's task")
    assert "```bash" not in prompt
    assert prompt.endswith("\n\n" + create_sandbox_tool(tools=[get_weather]).description)


def test_langgraph_codeact_with_corral_as_eval_fn() -> None:
    codeact = pytest.importorskip(
        "langgraph_codeact", reason="needs pip install --no-deps langgraph-codeact"
    )
    sandbox = create_sandbox_tool(tools=[get_weather])
    model = ScriptedChatModel([reply(HOTTEST), reply("Tokyo.")])
    graph = codeact.create_codeact(
        model, [get_weather], make_eval_fn(sandbox), prompt=codeact_prompt(sandbox)
    )
    state = graph.compile().invoke({"messages": [("user", "Hotter?")]})
    assert transcript(state["messages"])[2:] == [("human", "Tokyo 25\n"), ("ai", "Tokyo.")]
