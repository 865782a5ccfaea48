"""The terminal as a visitor uses it: Tab completion, a continued entry, a multi-line paste run
as one execution, history across reloads, the JavaScript REPL, the agent-at-work replay, and
Ctrl-C on the standby worker with the page's ledger keeping an exhausted budget exhausted.

The tests of this module share one page (one sandbox), in order.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterator

import pytest
from playwright.sync_api import BrowserContext

from conftest import MEASUREMENTS, Demo, new_demo, screenshot


@pytest.fixture(scope="module")
def demo(context: BrowserContext, base_url: str) -> Iterator[Demo]:
    """The demo page, the agent replay typing at once."""
    demo = new_demo(context)
    demo.open(f"{base_url}?typing=0")
    yield demo
    assert not demo.errors, f"uncaught errors in the page: {demo.errors}"
    demo.page.close()


def line(demo: Demo) -> str:
    """What is being edited at the prompt."""
    return str(demo.page.evaluate("window.corralDemo.line"))


def test_tab_completes_commands_tools_flags_and_paths(demo: Demo) -> None:
    demo.run("mkdir -p notes && echo hello > notes/hello.txt")
    keys = demo.page.keyboard
    demo.page.locator("#terminal").click()
    for typed, completed in [
        ("ec", "echo "),
        ("tool sal", "tool sales_records "),
        ("tool sales_records --re", "tool sales_records --region "),
        ("cat no", "cat notes/"),
        ("cat notes/h", "cat notes/hello.txt "),
    ]:
        keys.press("Control+u")
        keys.type(typed)
        keys.press("Tab")
        demo.page.wait_for_function("(want) => window.corralDemo.line === want", arg=completed)
    mark = len(demo.transcript)
    keys.press("Enter")
    assert demo.wait_prompt(mark) == "hello\n"
    keys.type("s")  # several candidates: they are listed under the line
    keys.press("Tab")
    demo.page.wait_for_function("window.corralDemo.transcript.includes('sha256sum')")
    keys.press("Control+u")


def test_an_incomplete_entry_continues_on_the_next_line(demo: Demo) -> None:
    keys = demo.page.keyboard
    mark = len(demo.transcript)
    keys.type("for i in 1 2 3; do")
    keys.press("Enter")
    demo.page.wait_for_function(
        "(mark) => window.corralDemo.transcript.slice(mark).endsWith('do\\n> ')", arg=mark
    )
    assert not demo.page.evaluate("window.corralDemo.busy")  # not run yet
    keys.type("echo $i")
    keys.press("Enter")
    keys.type("done")
    keys.press("Enter")
    assert demo.wait_prompt(mark) == "> echo $i\n> done\n1\n2\n3\n"
    screenshot(demo.page, "12-continuation")


def test_a_multi_line_paste_runs_as_one_execution(demo: Demo) -> None:
    trips = demo.page.evaluate("window.corralDemo.roundTrips.length")
    mark = len(demo.transcript)
    script = "cat <<EOF > notes/pasted.txt\none\ntwo\nEOF\nwc -l notes/pasted.txt\n"
    demo.page.evaluate("(text) => window.corralDemo.paste(text)", script)
    out = demo.wait_prompt(mark)
    assert out.endswith("2 notes/pasted.txt\n")
    assert demo.page.evaluate("window.corralDemo.roundTrips.length") == trips + 1


def test_the_javascript_mode_is_a_repl(demo: Demo) -> None:
    demo.mode("javascript")
    assert demo.run("1 + 1") == "2\n"
    assert demo.run("let x = 5") == ""
    assert demo.run("x * 2") == "10\n"
    assert demo.run("function sq(v) { return v * v }") == ""
    assert demo.run("const w = await get_weather({city: 'Tokyo'}); sq(x) + w.temp_c") == "49\n"
    assert demo.run("'text'") == '"text"\n'
    screenshot(demo.page, "13-repl")
    demo.mode("shell")


def test_agent_at_work_replays_a_recorded_session(demo: Demo) -> None:
    calls = demo.page.locator("#calls li.replayed").count()
    mark = len(demo.transcript)
    demo.page.click("#agent")
    out = demo.wait_prompt(mark)
    assert out.startswith("Task (to the model): Which region sold more units")
    assert "await Promise.all([" in out
    assert "Answer: US sold more: EU 176 units, US 203 units." in out
    assert "✓ identical to the recording" in out
    replayed = demo.page.locator("#calls li.replayed")
    assert replayed.count() == calls + 4
    assert "APAC" in replayed.last.inner_text()
    assert "denied" in replayed.last.get_attribute("class")  # type: ignore[operator]
    screenshot(demo.page, "14-agent")


def test_ctrl_c_is_quick_and_an_exhausted_budget_stays_exhausted(demo: Demo) -> None:
    demo.mode("javascript")
    left = demo.page.evaluate(
        "20 - (window.corralDemo.used.get_weather ?? 0)"
    )  # get_weather: max_calls=20
    demo.run(f"for (let i = 0; i < {left}; i++) await get_weather({{city: 'Paris'}})")
    out = demo.run("try { await get_weather({city: 'Paris'}) } catch (e) { return e.message }")
    assert "exhausted" in out
    demo.mode("shell")
    audited = demo.page.evaluate("window.corralDemo.audit.length")
    opened = demo.page.evaluate("window.corralDemo.openedAtSwitch")
    assert isinstance(opened, int)
    times = []
    demo.mode("javascript")  # a builtin no interrupt reaches: the standby takes over
    for _ in range(3):
        demo.page.wait_for_function("window.corralDemo.standbyReady", timeout=120_000)
        out = demo.interrupt("[].sort.call({length: 2 ** 32 - 1})", after_ms=300)
        assert out.startswith("^C\n[stopped")
        times.append(demo.page.evaluate("window.corralDemo.interrupts.at(-1)"))
    # The standby's sandbox was opened while the command ran: the switch had nothing to open.
    assert demo.page.evaluate("window.corralDemo.openedAtSwitch") == opened
    MEASUREMENTS["ctrl_c_to_prompt_ms_with_standby"] = [round(t) for t in times]
    MEASUREMENTS["ctrl_c_to_prompt_ms_median"] = round(statistics.median(times))
    demo.mode("shell")
    # The new worker's sandbox was charged with the page's ledger: still exhausted.
    out = demo.run("tool get_weather --city Paris")
    assert "denied" in out and "exhausted" in out, out
    # The audit the page keeps lost nothing and gained the denied call.
    assert demo.page.evaluate("window.corralDemo.audit.length") == audited + 1
    remaining = demo.page.locator("#caps li", has_text="get_weather").inner_text()
    assert "0 calls left" in remaining
    screenshot(demo.page, "15-budget-after-ctrl-c")


def test_a_call_made_by_the_command_ctrl_c_stopped_stays_charged(demo: Demo) -> None:
    """The standby's sandbox is opened ahead once a command has run for 50 ms; a tool call the
    command makes after that changes the page's ledger, so the switch opens it again, charged
    with the call: Ctrl-C refunds nothing."""
    demo.page.wait_for_function("window.corralDemo.standbyReady", timeout=120_000)
    opened = demo.page.evaluate("window.corralDemo.openedAtSwitch")
    left = 50 - demo.page.evaluate("window.corralDemo.used.sales_records ?? 0")
    demo.mode("javascript")
    command = (
        "await new Promise((resolve) => setTimeout(resolve, 500));"
        " await sales_records({region: 'EU', limit: 1}); [].sort.call({length: 2 ** 32 - 1})"
    )
    assert demo.interrupt(command, after_ms=1200).startswith("^C\n[stopped")
    assert demo.page.evaluate("window.corralDemo.openedAtSwitch") == opened + 1
    demo.mode("shell")
    # The panel shows the new sandbox's budget once the restart has refreshed it.
    demo.page.wait_for_function(
        "(left) => [...document.querySelectorAll('#caps li')].some((item) =>"
        " item.innerText.includes('sales_records') && item.innerText.includes(left))",
        arg=f"{left - 1} calls left",
    )


def test_the_history_survives_a_reload(demo: Demo, base_url: str) -> None:
    demo.run("echo remembered")
    demo.page.reload()
    demo.page.wait_for_function("window.corralDemo && window.corralDemo.ready", timeout=90_000)
    demo.page.locator("#terminal").click()
    demo.page.keyboard.press("ArrowUp")
    demo.page.wait_for_function("window.corralDemo.line === 'echo remembered'")
