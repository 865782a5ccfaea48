"""The sandbox's own time limit stops a runaway command in the browser too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext

from conftest import Demo, new_demo, screenshot


@pytest.fixture(scope="module")
def quick(context: BrowserContext, base_url: str) -> Iterator[Demo]:
    """The demo page with a 2 s time limit."""
    demo = new_demo(context)
    demo.open(f"{base_url}?timeout=2")
    yield demo
    assert not demo.errors, f"uncaught errors in the page: {demo.errors}"
    demo.page.close()


def test_the_time_limit_stops_a_loop_and_the_terminal_keeps_working(quick: Demo) -> None:
    out = quick.run("while true; do :; done", timeout=30_000)
    assert out == (
        "TimeoutError: execution exceeded the 2 s time limit and was stopped; do less work per "
        "execution or raise Limits(timeout=...)\n[exit 124]\n"
    )
    assert quick.page.evaluate("window.corralDemo.restarts") == 0  # no restart was needed
    screenshot(quick.page, "09-timeout")
    assert quick.run("echo after") == "after\n"
    quick.mode("javascript")
    out = quick.run("while (true) {}", timeout=30_000)
    assert out.startswith("TimeoutError: execution exceeded the 2 s time limit")
    assert quick.run("return 6 * 7") == "42\n"
