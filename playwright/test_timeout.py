"""The sandbox's own time limit stops a runaway command in the browser too."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext

from conftest import MEASUREMENTS, Demo, new_demo, screenshot


def last_round_trip(demo: Demo) -> int:
    """How long the last command took, Enter to the next prompt (ms)."""
    return round(float(demo.page.evaluate("window.corralDemo.roundTrips.at(-1)")))


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
    MEASUREMENTS["shell_loop_stopped_after_ms (limit 2000)"] = last_round_trip(quick)
    screenshot(quick.page, "09-timeout")
    assert quick.run("echo after") == "after\n"
    quick.mode("javascript")
    out = quick.run("while (true) {}", timeout=30_000)
    assert out.startswith("TimeoutError: execution exceeded the 2 s time limit")
    assert quick.page.evaluate("window.corralDemo.restarts") == 0
    MEASUREMENTS["js_loop_stopped_after_ms (limit 2000)"] = last_round_trip(quick)
    assert quick.run("return 6 * 7") == "42\n"


def test_code_the_guest_cannot_interrupt_is_stopped_by_the_page_within_a_second(
    quick: Demo,
) -> None:
    """``sort`` on a huge array-like is not polled by QuickJS's interrupt handler: the page
    terminates the worker half a second past the limit and goes on in the standby, so the
    command ends within a second of its limit (the figure is recorded: under heavy load the
    switch alone can take longer)."""
    quick.page.wait_for_function("window.corralDemo.standbyReady", timeout=120_000)
    restarts = quick.page.evaluate("window.corralDemo.restarts")
    quick.mode("javascript")
    quick.run("let kept = 42")
    out = quick.run("[].sort.call({length: 2 ** 32 - 1})", timeout=60_000)
    assert out.startswith("TimeoutError: the command ran past the 2 s time limit and did not stop")
    assert out.endswith("[exit 124]\n")
    assert quick.page.evaluate("window.corralDemo.restarts") == restarts + 1
    stopped = last_round_trip(quick)
    MEASUREMENTS["uninterruptible_js_stopped_after_ms (limit 2000)"] = stopped
    assert stopped >= 2500  # not before the page's grace
    assert quick.run("kept") == "42\n"  # the REPL's bindings came back with the page
    quick.mode("shell")


def test_a_fork_bomb_shape_is_stopped_by_the_time_limit(quick: Demo) -> None:
    """Its "fork: Resource temporarily unavailable" messages go to /dev/null: printed, they
    can fill the 1 MiB output cap before the limit, a second way to end (exit 0, truncated)."""
    quick.page.wait_for_function("window.corralDemo.standbyReady", timeout=120_000)
    out = quick.run("f() { f | f & }; f 2>/dev/null", timeout=60_000)
    error, status = out.splitlines()
    assert error.startswith("TimeoutError: ") and "2 s time limit" in error, out
    assert status == "[exit 124]"
    MEASUREMENTS["fork_bomb_stopped_after_ms (limit 2000)"] = last_round_trip(quick)
    assert quick.run("echo after") == "after\n"


def test_the_output_cap_stops_the_command_before_the_time_limit(quick: Demo) -> None:
    """``yes`` ends when its output passes the sandbox's 1 MiB cap (its write fails, as with
    a closed pipe: exit 141), well before the 2 s limit, not at it."""
    out = quick.run("yes", timeout=60_000)
    assert out.endswith(
        "y\n\n[output truncated: more than 1048576 bytes; print less or return a summary]\n"
        "[exit 141]\n"
    ), out[-200:]
    stopped = last_round_trip(quick)
    MEASUREMENTS["yes_stopped_by_the_output_cap_after_ms (limit 2000)"] = stopped
    assert stopped < 2000
    assert quick.run("echo after") == "after\n"
