"""Tools: Python functions (sync or async), schemas from signatures, namespaces, handlers.

Run: python examples/tools.py
"""

import asyncio
from typing import Literal

from corral import Sandbox, ToolDefinition, tool_from_function


def search_orders(customer: str, status: Literal["open", "shipped"] = "open", limit: int = 5):
    """Search a customer's orders.

    Args:
        customer: The customer's id.
        status: Which orders to return.
        limit: At most this many.
    """
    return [{"id": f"{customer}-{i}", "status": status} for i in range(min(limit, 2))]


async def fetch_rate(currency: str) -> float:
    """Exchange rate to USD (async: awaited on the host's event loop)."""
    await asyncio.sleep(0.01)
    return {"EUR": 1.1, "GBP": 1.3}[currency]


def log_event(name: str, **fields: object) -> str:
    """Record an event with any fields (**kwargs: a free-form object)."""
    return f"{name} {sorted(fields)}"


# The JSON Schema the model sees comes from the signature and the docstring.
schema = tool_from_function(search_orders).parameters
print({name: prop.get("enum", prop["type"]) for name, prop in schema["properties"].items()})

# A tool defined by its schema alone is served by tool_handler; "crm/notes/add" is both
# crm_notes_add(...) and crm.notes.add(...) in JavaScript.
notes = ToolDefinition(
    name="crm/notes/add",
    description="Add a note to a customer.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}},
)


def handler(name: str, params: dict) -> dict:
    return {"tool": name, "saved": params["text"]}


sandbox = Sandbox(tools=[search_orders, fetch_rate, log_event, notes], tool_handler=handler)
result = sandbox.execute("""
    const orders = await search_orders({customer: "c42", status: "shipped"});
    const rate = await fetch_rate({currency: "EUR"});
    const note = await crm.notes.add({text: `${orders.length} shipped`});
    console.log(orders.map((o) => o.id).join(","), rate, note.saved);
    console.log(await log_event({name: "viewed", page: "orders", user: 7}));
""")
print(result.stdout, end="")
print([call.method for call in result.tool_calls])

# A wrong argument reaches the code as a TypeError it can read and fix.
print(sandbox.execute("await search_orders({customer: 'c1', status: 'lost'})").error)
