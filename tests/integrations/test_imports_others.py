"""The OpenAI Agents, pydantic-ai, smolagents, LlamaIndex and CrewAI adapters import without
their frameworks, and calling one whose framework is missing names the pip command."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

ADAPTERS = {
    # module: (the adapter function, the framework's top module, the extra)
    "openai_agents": ("as_function_tool", "agents", "openai-agents"),
    "pydantic_ai": ("as_pydantic_tool", "pydantic_ai", "pydantic-ai"),
    "smolagents": ("as_smolagents_tool", "smolagents", "smolagents"),
    "llamaindex": ("as_function_tool", "llama_index", "llamaindex"),
    "crewai": ("as_crewai_tool", "crewai", "crewai"),
}


def run_python(code: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    return run.stdout


@pytest.mark.needs_native("runs a Python subprocess")
def test_importing_the_adapters_imports_no_framework() -> None:
    frameworks = sorted({top for _, top, _ in ADAPTERS.values()})
    out = run_python(
        f"""
        import sys
        import corral
        {"; ".join(f"import corral.integrations.{name}" for name in ADAPTERS)}
        print(sorted(name for name in {frameworks!r} if name in sys.modules))
        """
    )
    assert out == "[]\n"


@pytest.mark.needs_native("runs a Python subprocess")
def test_a_missing_framework_raises_importerror_with_the_pip_command() -> None:
    # Each framework is hidden (sys.modules[name] = None makes its import fail), whether or not
    # it is installed here.
    lines = []
    for name, (function, top, _) in ADAPTERS.items():
        lines.append(
            f"""
            sys.modules[{top!r}] = None
            from corral.integrations.{name} import {function}
            try:
                {function}(create_sandbox_tool())
            except ImportError as error:
                print(error)
            """
        )
    out = run_python(
        "import sys\nfrom corral import create_sandbox_tool\n"
        + "".join(textwrap.dedent(block) for block in lines)
    )
    assert out == "".join(
        f"this corral integration needs {module!r}: pip install 'corral[{extra}]'\n"
        for module, extra in [
            ("agents", "openai-agents"),
            ("pydantic_ai", "pydantic-ai"),
            ("smolagents", "smolagents"),
            ("llama_index.core.tools", "llamaindex"),
            ("crewai.tools", "crewai"),
        ]
    )
