"""The LangChain, CodeAct and Deep Agents examples run offline and print what they promise."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = {
    "langgraph_agent.py": (
        "langchain",
        "tool: warmest: Tokyo (25C)\n"
        "tool: CapabilityError: book_trip denied: nights <= 3 failed (nights = 7)\n"
        "tool: booked 3 nights in Tokyo\n"
        "answer: Tokyo is warmest; I booked 3 nights (7 is over the limit).\n"
        "exit codes: [0, 1, 0]\n",
    ),
    "codeact_agent.py": (
        "codeact",
        "output: sum: 465, biggest: C3\n"
        "output: CapabilityError: refund denied: amount <= 100 failed (amount = 300)\n"
        "output: refunded $30 on C3\n"
        "answer: Today's orders total $465; I refunded $30 on C3.\n",
    ),
    "deep_agents.py": (
        "deepagents",
        "write_file: Updated file /workspace/skus.txt\n"
        "execute: B2 is out / [Command succeeded with exit code 0]\n"
        "grep: /workspace/stock.txt\n"
        "write_file: Error writing file '/etc/motd': permission denied: write under /workspace, "
        "/tmp, /state or /cache (everything else is read-only)\n"
        "answer: B2 is out of stock.\n"
        "files: ['skus.txt', 'stock.txt']\n"
        "stock.txt: A1 4 | B2 0 | C3 17\n",
    ),
}
FRAMEWORK = {"langchain": "langchain", "codeact": "langchain", "deepagents": "deepagents"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_example_prints_what_it_promises(name: str) -> None:
    extra, expected = CASES[name]
    pytest.importorskip(FRAMEWORK[extra], reason=f"needs pip install 'corral[{extra}]'")
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout == expected
