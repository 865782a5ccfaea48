"""The MCP examples run offline and print what their docstrings promise."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="needs the mcp extra: pip install 'corral[mcp]'")
if int(importlib.metadata.version("mcp").split(".")[0]) < 2:  # crewai's environment has mcp 1
    pytest.skip("needs mcp 2: pip install 'corral[mcp]'", allow_module_level=True)

pytestmark = pytest.mark.needs_native("the examples launch processes")

EXAMPLES = Path(__file__).parents[2] / "examples"


def run_example(name: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    return done.stdout


def test_mcp_server_example() -> None:
    assert run_example("mcp_server.py") == (
        "tools: run_javascript, run_shell, read_file, write_file, list_files\n"
        "\n"
        "run_javascript (error):\n"
        "refunded 50 of 250\n"
        "CapabilityError: orders/refund denied: amount <= 100 failed (amount = 500)\n"
        "\n"
        "write_file (ok):\n"
        "wrote 15 bytes to notes.txt\n"
        "\n"
        "run_shell (ok):\n"
        "refund A-2: 50\n"
        "80.0\n"
        "\n"
        "list_files (ok):\n"
        "notes.txt (15 bytes)\n"
    )


def test_mcp_client_example() -> None:
    assert run_example("mcp_client.py") == (
        "tools: github/create_issue, github/list_issues, github/delete_repo\n"
        "created #1 #2\n"
        "CapabilityError: github/delete_repo denied: no capability matches "
        "'github/delete_repo'\n"
        "2\n"
        "bug: login fails\n"
        "bug: typo on the home page\n"
        "replayed without the server: True\n"
    )
