"""Ctrl-C in place: the page is cross-origin isolated (serve.py), so Ctrl-C signals Python in
the running worker (Pyodide's interrupt buffer) instead of replacing the worker, and needs no
standby: it is as quick right after the page is ready, while the standby still boots."""

from __future__ import annotations

from playwright.sync_api import BrowserContext

from conftest import MEASUREMENTS, new_demo

# Commands that run until stopped, each pressed Ctrl-C on after PRESS_AFTER_MS: loops in the
# guest's shell and JavaScript, a pipeline, and sleeps (the host waits for them).
RUNAWAYS = (
    ("shell", "while true; do :; done"),
    ("shell", "sleep 30"),
    ("shell", "yes | cat > /dev/null"),
    ("javascript", "while (true) {}"),
    ("javascript", "await new Promise((resolve) => setTimeout(resolve, 30000))"),
)
PRESS_AFTER_MS = (0, 300, 0, 300, 0)
# Keeps a worker busy for `ms` from now (its next task).
BUSY_MS = "(ms) => setTimeout(() => { const end = Date.now() + ms; while (Date.now() < end); })"


def test_ctrl_c_stops_in_place_from_the_first_moment(
    context: BrowserContext, base_url: str
) -> None:
    demo = new_demo(context)
    demo.open(base_url)
    assert demo.page.evaluate("self.crossOriginIsolated")
    # Right after ready: the standby has not booted (it starts a second later).
    assert demo.page.evaluate("window.corralDemo.standbyReady") is False
    demo.run("x=kept; cd /tmp")
    times, restarted = [], []
    for (mode, command), wait in zip(RUNAWAYS, PRESS_AFTER_MS, strict=True):
        demo.mode(mode)
        out = demo.interrupt(command, after_ms=wait)
        assert out.startswith("^C\n[stopped"), (command, out)
        times.append(demo.page.evaluate("window.corralDemo.interrupts.at(-1)"))
        if demo.page.evaluate("window.corralDemo.restarts"):
            restarted.append(command)
    assert restarted == [], times  # each stopped in place: no worker was replaced
    assert demo.page.evaluate("window.corralDemo.stoppedInPlace") == len(RUNAWAYS)
    demo.mode("shell")
    assert demo.run("echo $x; pwd") == "kept\n/tmp\n"
    assert not demo.errors
    MEASUREMENTS["ctrl_c_in_place_ms (from ready on)"] = [round(t) for t in times]
    MEASUREMENTS["ctrl_c_in_place_worst_ms"] = round(max(times))
    demo.page.close()


def test_ctrl_c_pressed_while_the_command_waits_for_its_worker(
    context: BrowserContext, base_url: str
) -> None:
    """A Ctrl-C that reaches the worker before the command it stops does (the worker still
    busy with earlier work) stops it in place, as soon as it starts."""
    demo = new_demo(context)
    demo.open(base_url)
    mark = len(demo.transcript)
    demo.page.locator("#terminal").click()
    demo.page.keyboard.type("while true; do :; done")
    for worker in demo.page.workers:  # the active one (and a standby, if one booted): busy
        worker.evaluate(BUSY_MS, 1000)
    demo.page.keyboard.press("Enter")
    demo.page.keyboard.press("Control+c")
    assert demo.wait_prompt(mark).startswith("^C\n[stopped")
    stops = demo.page.evaluate("[window.corralDemo.stoppedInPlace, window.corralDemo.restarts]")
    assert stops == [1, 0]  # in place, no worker replaced
    assert demo.run("echo on") == "on\n"
    demo.page.close()
