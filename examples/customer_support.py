"""A customer-support agent, scripted: each turn is the code a model would write.

Level-1 support may look things up and refund up to $50; a refund above that is denied, the
denial goes back to the "model" as text, and it escalates instead. No model is needed to run it.

Run: python examples/customer_support.py
"""

from corral import MethodCapability, Param, Sandbox, SandboxTool

CUSTOMERS = {"c1": {"name": "Alice", "tier": "gold", "last_order": {"id": "o7", "total": 149.99}}}
refunds: list[tuple[str, float]] = []


def get_customer(customer_id: str) -> dict:
    """A customer's profile and last order."""
    return CUSTOMERS[customer_id]


def refund(order_id: str, amount: float) -> dict:
    """Refund part of an order."""
    refunds.append((order_id, amount))
    return {"order_id": order_id, "refunded": amount}


def escalate(customer_id: str, reason: str) -> str:
    """Hand the ticket to level-2 support."""
    return f"ticket for {customer_id} escalated: {reason}"


level_1 = [
    MethodCapability("get_customer"),
    MethodCapability("refund", [Param("amount") <= 50], max_calls=2),
    MethodCapability("escalate", max_calls=1),
]
agent = SandboxTool(Sandbox(tools=[get_customer, refund, escalate], capabilities=level_1))

# The turns a model would take; each sees the previous tool output.
turns = [
    # 1. Look the customer up.
    """const c = await get_customer({customer_id: "c1"});
       return `${c.name} (${c.tier}): order ${c.last_order.id}, $${c.last_order.total}`;""",
    # 2. Try a full refund: denied, and the message says why.
    'return await refund({order_id: "o7", amount: 149.99})',
    # 3. Adapt: refund what level 1 may, escalate the rest.
    """const partial = await refund({order_id: "o7", amount: 50});
       const note = await escalate({customer_id: "c1", reason: "refund the remaining $99.99"});
       return `refunded $${partial.refunded}; ${note}`;""",
]
for number, code in enumerate(turns, 1):
    print(f"turn {number}: {agent.run(code).strip()}")

print("refunds made:", refunds)
