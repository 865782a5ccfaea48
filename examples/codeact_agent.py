"""A CodeAct agent: the model answers in JavaScript, corral runs it (runs offline).

    pip install 'corral[codeact]'
    python examples/codeact_agent.py

In CodeAct the model does not call tools one at a time: it writes a program in a fenced code
block, the program calls the tools, and what it prints is the next message the model reads.
A reply without a code block is the answer. corral runs the program in its sandbox, and every
tool call is checked against the constraints and budgets given here.

A scripted chat model stands in for a real one, so this runs with no API key; any LangChain
chat model (or a "provider:model" string) works in its place.
"""

from __future__ import annotations

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from corral.integrations.codeact import create_codeact_agent

ORDERS = {"A1": 120, "B2": 45, "C3": 300}


def list_orders() -> list[str]:
    """Ids of today's orders."""
    return list(ORDERS)


def order_total(order_id: str) -> int:
    """The total of an order, in dollars."""
    return ORDERS[order_id]


def refund(order_id: str, amount: int) -> str:
    """Refund part of an order."""
    return f"refunded ${amount} on {order_id}"


FIRST = """I'll total the orders and refund 10% of the biggest one.
```javascript
const ids = await list_orders();
const totals = await Promise.all(ids.map((order_id) => order_total({order_id})));
const i = totals.indexOf(Math.max(...totals));
console.log(`sum: ${totals.reduce((a, b) => a + b, 0)}, biggest: ${ids[i]}`);
console.log(await refund({order_id: ids[i], amount: 300}));
```"""
SECOND = """The full amount is over my limit; refunding 10%.
```javascript
return await refund({order_id: "C3", amount: 30});
```"""

model = GenericFakeChatModel(
    messages=iter(
        [
            AIMessage(content=FIRST),
            AIMessage(content=SECOND),
            AIMessage(content="Today's orders total $465; I refunded $30 on C3."),
        ]
    )
)
agent = create_codeact_agent(
    model,
    [list_orders, order_total, refund],
    constraints={"refund": {"amount": "<=100"}},  # checked on the host for every call
    max_calls=20,
)
state = agent.invoke({"messages": [("user", "Sum today's orders; refund 10% of the biggest.")]})

# Prints what each program printed (the messages the model read), then the answer:
#   output: sum: 465, biggest: C3
#   output: CapabilityError: refund denied: amount <= 100 failed (amount = 300)
#   output: refunded $30 on C3
#   answer: Today's orders total $465; I refunded $30 on C3.
for message in state["messages"][1:-1]:
    if message.type == "human":
        for line in message.content.splitlines():
            print(f"output: {line}")
print(f"answer: {state['messages'][-1].content}")
