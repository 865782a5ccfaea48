"""Human approval: calls under a capability with requires_approval wait for approve(request).

Run: python examples/approvals.py
"""

from corral import ApprovalRequest, MethodCapability, Param, Sandbox


def send_email(to: str, subject: str) -> str:
    """Send an email."""
    return f"sent '{subject}' to {to}"


def approve(request: ApprovalRequest) -> bool:
    """A stand-in for a person: external addresses are refused."""
    decision = request.params["to"].endswith("@example.com")
    print(f"  approval asked: {request.method} {request.params} -> {decision}")
    return decision


sandbox = Sandbox(
    tools=[send_email],
    capabilities=[
        # Internal mail needs no one; anything else needs approval.
        MethodCapability("send_email", [Param("to").ends_with("@corp.example")]),
        MethodCapability("send_email", requires_approval=True),
    ],
    approve=approve,
)
result = sandbox.execute("""
    for (const to of ["ops@corp.example", "client@example.com", "x@attacker.test"]) {
        try { console.log(await send_email({to, subject: "report"})) }
        catch (e) { console.log(e.message) }
    }
""")
print(result.stdout, end="")
