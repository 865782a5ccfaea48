"""Audit logging: every execution and every call decision, as JSON lines, with redaction.

Run: python examples/audit_logging.py
"""

import json
import tempfile
from pathlib import Path

from corral import MethodCapability, Param, Sandbox


def charge(card: str, amount: int) -> str:
    """Charge a card."""
    return f"charged {amount}"


def redact(method: str, params: dict) -> dict:
    """Never write card numbers to the audit trail."""
    return {**params, "card": "****" + params["card"][-4:]} if "card" in params else params


log = Path(tempfile.mkdtemp()) / "audit.jsonl"
sandbox = Sandbox(
    tools=[charge],
    capabilities=[MethodCapability("charge", [Param("amount") <= 100])],
    audit_sink=log,
    redact=redact,
)
sandbox.execute("""
    await charge({card: "4242424242424242", amount: 30});
    try { await charge({card: "4242424242424242", amount: 500}) } catch {}
""")

# In memory: filter by kind (or by time with since=...).
for entry in sandbox.audit(kind="tool_call"):
    print(entry.method, entry.params, entry.decision, "-", entry.rule)

# On disk: one JSON object per line, ready for a log pipeline.
kinds = [json.loads(line)["kind"] for line in log.read_text().splitlines()]
print(kinds)
