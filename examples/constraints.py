"""Constraints: which arguments a call may have, checked on the host before your function runs.

Run: python examples/constraints.py
"""

from corral import MethodCapability, Param, Sandbox, create_sandbox_tool


def transfer(amount: float, currency: str, to: str) -> str:
    """Transfer money."""
    return f"sent {amount} {currency} to {to}"


# The compact form: a spec per parameter, a budget per tool.
tool = create_sandbox_tool(
    tools=[transfer],
    constraints={"transfer": {"amount": "<=1000", "currency": ["USD", "EUR"]}},
    max_calls={"transfer": 3},
)
print(tool.run("return await transfer({amount: 500, currency: 'EUR', to: 'acct-1'})"))
print(tool.run("await transfer({amount: 5000, currency: 'EUR', to: 'acct-1'})"), end="")

# The DSL: Param(...) with comparisons, membership, strings, paths; & and | combine.
rules = [
    (Param("amount") > 0) & (Param("amount") <= 1000),
    Param("currency").is_in(["USD", "EUR"]),
    Param("to").starts_with("acct-") | (Param("to") == "treasury"),
]
sandbox = Sandbox(tools=[transfer], capabilities=[MethodCapability("transfer", rules)])
for params in [
    {"amount": 10, "currency": "USD", "to": "treasury"},
    {"amount": 10, "currency": "JPY", "to": "acct-2"},
    {"amount": 10, "currency": "USD", "to": "mallory"},
]:
    decision = sandbox.authorizer.check("transfer", params)
    print("allowed" if decision.allowed else f"denied: {decision.rule}")

# The code can catch a denial and adapt: the message says which rule denied it.
print(
    sandbox.execute("""
    try { await transfer({amount: 2000, currency: "USD", to: "acct-3"}) }
    catch (e) { return `${e.name}: ${e.message}` }
""").return_value
)
