"""Shared fixtures: sandboxes are cheap (the compiled module is cached per process).

The same suite runs natively and inside Pyodide (``nox -s pyodide``). A test that cannot run in
Pyodide by its nature says why with ``@pytest.mark.needs_native("reason")``; under Pyodide it
is skipped with that reason, natively it runs.
"""

from __future__ import annotations

import sys

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
