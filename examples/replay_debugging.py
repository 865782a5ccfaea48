"""Replay debugging: a failure seen once in production, run again exactly, offline.

Everything that enters the guest (code, tool results, clock, random numbers) is in the trace,
so replay needs neither the tools nor the services behind them.

Run: python examples/replay_debugging.py
"""

import random
import tempfile
from pathlib import Path

from corral import Sandbox, Trace, replay


def fetch_price(sku: str) -> float | None:
    """A flaky upstream: sometimes it has no price."""
    return random.choice([9.5, None])


random.seed(3)
sandbox = Sandbox(tools=[fetch_price])
code = """
    const prices = [];
    for (const sku of ["a", "b", "c", "d"]) prices.push(await fetch_price({sku}));
    const id = Math.floor(Math.random() * 1e6);
    return `run ${id}: total ${prices.reduce((s, p) => s + p.toFixed(2) * 1, 0)}`;
"""
while (result := sandbox.execute(code)).ok:  # run until the bug shows up
    pass
print("production:", result.error)

# Save the trace (JSON lines) for whoever debugs it ...
path = Path(tempfile.mkdtemp()) / "failure.jsonl"
sandbox.trace.save(path)

# ... who replays it without the tool: the same calls, results, clock and random numbers.
again = replay(Trace.load(path))
print("replayed:  ", again.error)
print("same result:", again == result)
print("tool results seen:", [call.result for call in again.tool_calls])
