"""The OpenAI Agents, pydantic-ai, smolagents, LlamaIndex and CrewAI examples run offline and
print exactly what their docstrings promise (the block after ``Prints::``). The CrewAI one
runs in the ``crewai`` nox session (its test name carries the word)."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def promised(path: Path) -> str:
    """The output an example's docstring promises: the indented block after ``Prints::``."""
    docstring = ast.get_docstring(ast.parse(path.read_text()), clean=False) or ""
    block = docstring.split("Prints::\n", 1)[1]
    return textwrap.dedent(block).strip("\n") + "\n"


def check(name: str, module: str, extra: str) -> None:
    pytest.importorskip(module, reason=f"needs pip install 'corral[{extra}]'")
    path = EXAMPLES / name
    run = subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == promised(path)


def test_openai_agents_example() -> None:
    check("openai_agents.py", "agents", "openai-agents")


def test_pydantic_ai_example() -> None:
    check("pydantic_ai_agent.py", "pydantic_ai", "pydantic-ai")


def test_smolagents_example() -> None:
    check("smolagents_agent.py", "smolagents", "smolagents")


def test_llamaindex_example() -> None:
    check("llamaindex_agent.py", "llama_index.core", "llamaindex")


def test_crewai_example() -> None:
    check("crewai_agent.py", "crewai", "crewai")
