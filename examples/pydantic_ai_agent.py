"""corral in pydantic-ai: a toolset whose one tool runs the model's code.

The agent gets corral as a ``FunctionToolset``. The model's JavaScript reads an order from an
async Python tool (awaited on the agent's own event loop) and totals it; a second script asks
for a customer outside the allowed set, and the model reads the denial as the tool's result
instead of the run ending with an exception.

Needs ``pip install 'corral[pydantic-ai]'``. It runs offline: pydantic-ai's ``FunctionModel``
stands in for the LLM (pass ``"openai:gpt-..."`` or another model name to use a real one).

Prints::

    read: 3 items, total 42.5
    read: CapabilityError: get_order denied: customer in ['acme'] failed (customer = 'globex')
    answer: Order total is 42.5; globex is not a customer I may read.
"""

from __future__ import annotations

import asyncio

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from corral import create_sandbox_tool
from corral.integrations.pydantic_ai import as_toolset

SCRIPTS = [
    """
const order = await get_order({customer: "acme", order_id: 7});
const total = order.items.reduce((sum, item) => sum + item.price * item.qty, 0);
return `${order.items.length} items, total ${total}`;
""",
    'return await get_order({customer: "globex", order_id: 1})',
]


async def get_order(customer: str, order_id: int) -> dict[str, object]:
    """Fetch an order (an async tool: it runs on the agent's event loop)."""
    await asyncio.sleep(0)
    items = [{"price": 10.0, "qty": 2}, {"price": 7.5, "qty": 1}, {"price": 15.0, "qty": 1}]
    return {"customer": customer, "id": order_id, "items": items}


def scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Writes one script per turn, then answers from what the tool returned."""
    returned = [
        str(part.content)
        for message in messages
        for part in getattr(message, "parts", [])
        if isinstance(part, ToolReturnPart)
    ]
    if len(returned) < len(SCRIPTS):
        code = SCRIPTS[len(returned)]
        return ModelResponse(parts=[ToolCallPart("sandbox", {"code": code}, tool_call_id="c")])
    total = returned[0].rsplit(" ", 1)[-1]
    return ModelResponse(
        parts=[TextPart(f"Order total is {total}; globex is not a customer I may read.")]
    )


async def main() -> None:
    sandbox = create_sandbox_tool(
        tools=[get_order], constraints={"get_order": {"customer": ["acme"]}}
    )
    agent = Agent(FunctionModel(scripted_model), toolsets=[as_toolset(sandbox)])
    result = await agent.run("What is in acme's order 7, and globex's order 1?")
    for message in result.all_messages():
        for part in getattr(message, "parts", []):
            if isinstance(part, ToolReturnPart):
                print("read:", str(part.content).strip())
    print("answer:", result.output)


if __name__ == "__main__":
    asyncio.run(main())
