"""Shared fixtures: sandboxes are cheap (the compiled module is cached per process).

The same suite runs natively and inside Pyodide (``nox -s pyodide``). A test that cannot run in
Pyodide by its nature says why with ``@pytest.mark.needs_native("reason")``; under Pyodide it
is skipped with that reason, natively it runs.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from corral import Limits, Sandbox

IN_PYODIDE = sys.platform == "emscripten"
# How much slower pure-Python host code runs: CPython compiled to WebAssembly takes about twice
# as long as natively. Time bounds on host-side work scale with it.
SLOWER = 2.0 if IN_PYODIDE else 1.0
# How far past its time limit a runaway execution may end. Under Pyodide the guest's interrupt
# checks run slower and further apart on a busy machine (seen: 0.35-0.6 s late with the load
# average at 4x the cores), and there is no epoch backstop.
TIMEOUT_SLACK = 0.6 if IN_PYODIDE else 0.1
if IN_PYODIDE:
    # A first call that compiles its code lazily takes far longer than the rest: per-example
    # deadlines only measure the engine's warm-up there.
    settings.register_profile("pyodide", deadline=None)
    settings.load_profile("pyodide")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "needs_native(reason): cannot run inside Pyodide, for the reason given"
    )


ROOT = Path(__file__).resolve().parent.parent
UNTRACKED = pytest.StashKey[set[str]]()


def _untracked_files() -> set[str] | None:
    """Files in the checkout that git neither tracks nor ignores (None without git)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        return None
    out = subprocess.run(
        ["git", "ls-files", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    return set(out.stdout.splitlines()) if out.returncode == 0 else None


def pytest_sessionstart(session: pytest.Session) -> None:
    before = _untracked_files()
    if before is not None:
        session.config.stash[UNTRACKED] = before


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Tests write only inside temporary directories: a file left in the checkout fails the run
    (a differential case once left its ``sorted.txt`` at the repository root)."""
    before = session.config.stash.get(UNTRACKED, None)
    after = _untracked_files()
    if before is None or after is None or not (after - before):
        return
    stray = ", ".join(sorted(after - before))
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.ensure_newline()
        reporter.write_line(f"ERROR: the tests left files in the checkout: {stray}", red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if not IN_PYODIDE:
        return
    for item in items:
        marker = item.get_closest_marker("needs_native")
        if marker is not None:
            reason = marker.args[0] if marker.args else "needs a native host"
            item.add_marker(pytest.mark.skip(reason=f"needs a native host: {reason}"))


def get_weather(city: str) -> dict[str, object]:
    """Get weather for a city.

    Args:
        city: City name.
    """
    return {"city": city, "temp": 72}


@pytest.fixture
def sandbox() -> Sandbox:
    """A sandbox with one tool and a short timeout."""
    return Sandbox(tools=[get_weather], limits=Limits(timeout=2.0))
