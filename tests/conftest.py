"""Shared fixtures: sandboxes are cheap (the compiled module is cached per process)."""

from __future__ import annotations

import pytest

from corral import Limits, Sandbox


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
