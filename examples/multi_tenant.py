"""Multi-tenant delegation: one root authority, a narrowed signed token per tenant.

A token only narrows (a tenant cannot widen its own), travels as a string (to a worker, a
queue, another process), and works only with the key that signed the root.

Run: python examples/multi_tenant.py
"""

import secrets

from corral import MethodCapability, Param, Sandbox, TokenError

DOCS = {("acme", "plan"): "Q3 plan", ("beta", "plan"): "beta's secret plan"}


def read_document(tenant: str, name: str) -> str:
    """Read a tenant's document."""
    return DOCS[(tenant, name)]


def delete_document(tenant: str, name: str) -> str:
    """Delete a tenant's document."""
    return f"deleted {tenant}/{name}"


key = secrets.token_bytes(32)  # the service's root key; never given to the sandbox
root = Sandbox(
    tools=[read_document, delete_document],
    capabilities=[MethodCapability("read_document"), MethodCapability("delete_document")],
    key=key,
)

# Acme may read its own documents, at most 5 times; nothing else.
acme = root.delegate([MethodCapability("read_document", [Param("tenant") == "acme"], max_calls=5)])
print(acme.execute("return await read_document({tenant: 'acme', name: 'plan'})").return_value)
print(acme.execute("await read_document({tenant: 'beta', name: 'plan'})").error)
print(acme.execute("await delete_document({tenant: 'acme', name: 'plan'})").error)

# The token is a string: another process rebuilds the tenant's sandbox from it and the key.
wire = acme.token.serialize() if acme.token else ""
again = Sandbox(tools=[read_document, delete_document], token=wire, key=key, sandbox_id=acme.id)
print("calls left:", again.remaining_calls())

# Widening is refused, whether by the tenant's sandbox or by a forged token.
try:
    acme.delegate([MethodCapability("read_document")])
except TokenError as error:
    print("widening refused:", str(error).split(": ", 1)[1])
try:
    Sandbox(tools=[read_document], token=wire, key=secrets.token_bytes(32), sandbox_id=acme.id)
except TokenError as error:
    print("other key refused:", error)
