"""A LangChain/LangGraph agent whose one tool is a corral sandbox (runs offline).

    pip install 'corral[langchain]'
    python examples/langgraph_agent.py

The model writes one JavaScript program that calls two Python tools; corral runs it, checks
every call against the capabilities, and the model reads only the program's output. A call
that breaks a constraint comes back to the model as text, and the run goes on.

A scripted chat model stands in for a real one, so this runs with no API key. With a real
model, replace ``ScriptedModel([...])`` by e.g. ``init_chat_model("anthropic:claude-sonnet-4-5")``
(from ``langchain.chat_models``); the rest is unchanged.
"""

from __future__ import annotations

from typing import Any

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from corral import create_sandbox_tool


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    temps = {"Tokyo": 25, "Paris": 18, "London": 12}
    return {"city": city, "temp": temps.get(city, 20)}


def book_trip(city: str, nights: int) -> str:
    """Book a hotel."""
    return f"booked {nights} nights in {city}"


class ScriptedModel(GenericFakeChatModel):
    """Replies with the given messages in order (LangChain's fake model, plus bind_tools)."""

    def __init__(self, replies: list[AIMessage]) -> None:
        super().__init__(messages=iter(replies))

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def code(program: str, n: int) -> AIMessage:
    """What a model sends to run ``program`` in the sandbox tool."""
    call = {"name": "sandbox", "args": {"code": program}, "id": f"call_{n}", "type": "tool_call"}
    return AIMessage(content="", tool_calls=[call])


COMPARE = """
const cities = ["Tokyo", "Paris", "London"];
const reports = await Promise.all(cities.map((city) => get_weather({city})));
const warmest = reports.reduce((a, b) => (a.temp > b.temp ? a : b));
return `warmest: ${warmest.city} (${warmest.temp}C)`;
"""

# At most 3 nights per booking, and 10 tool calls in all: enforced on the host, per call.
sandbox = create_sandbox_tool(
    tools=[get_weather, book_trip],
    constraints={"book_trip": {"nights": "<=3"}},
    max_calls=10,
)
model = ScriptedModel(
    [
        code(COMPARE, 1),
        code("return await book_trip({city: 'Tokyo', nights: 7})", 2),
        code("return await book_trip({city: 'Tokyo', nights: 3})", 3),
        AIMessage(content="Tokyo is warmest; I booked 3 nights (7 is over the limit)."),
    ]
)
agent = create_agent(model, [sandbox.as_langchain_tool()])
# The same tool works with LangGraph's older form too (deprecated in LangGraph 1.x):
#   from langgraph.prebuilt import create_react_agent
#   agent = create_react_agent(model, [sandbox.as_langchain_tool()])

state = agent.invoke({"messages": [("user", "Find the warmest city and book a week there.")]})

# Prints each tool result the model read, then its answer:
#   tool: warmest: Tokyo (25C)
#   tool: CapabilityError: book_trip denied: nights <= 3 failed (nights = 7)
#   tool: booked 3 nights in Tokyo
#   answer: Tokyo is warmest; I booked 3 nights (7 is over the limit).
#   exit codes: [0, 1, 0]
for message in state["messages"]:
    if message.type == "tool":
        print(f"tool: {message.content.strip()}")
print(f"answer: {state['messages'][-1].content}")
# Each ToolMessage's artifact holds the exit code (and error kind) for your program.
print("exit codes:", [m.artifact["exit_code"] for m in state["messages"] if m.type == "tool"])
