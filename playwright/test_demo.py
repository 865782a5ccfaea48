"""The live shell demo in Chromium: the terminal, the panels, Ctrl-C, replay, the CSV example.

The tests of this module share one page (one sandbox), in order.
"""

from __future__ import annotations

from playwright.sync_api import FilePayload

from conftest import Demo, screenshot


def test_the_page_becomes_ready(demo: Demo) -> None:
    assert demo.page.evaluate("document.body.dataset.state") == "ready"
    assert demo.page.is_hidden("#overlay")
    assert demo.transcript.endswith("corral$ ")
    assert "get_weather" in demo.page.inner_text("#caps")
    screenshot(demo.page, "01-ready")


def test_commands_and_pipelines_print_their_output(demo: Demo) -> None:
    assert demo.run("echo hi") == "hi\n"
    assert demo.run("echo hello world | tr a-z A-Z") == "HELLO WORLD\n"
    assert demo.run("seq 1 100 | awk '{ s += $1 } END { print s }'") == "5050\n"
    assert demo.run("printf 'b\\na\\nb\\n' | sort | uniq -c") == "      1 a\n      2 b\n"
    assert demo.run("X=7; echo $((X * 6))") == "42\n"
    assert demo.run("false") == "[exit 1]\n"
    screenshot(demo.page, "02-pipelines")


def test_line_editing_and_history(demo: Demo) -> None:
    keys = demo.page.keyboard
    assert demo.run("echo abc") == "abc\n"
    mark = len(demo.transcript)
    keys.press("ArrowUp")  # echo abc
    for _ in range(3):
        keys.press("ArrowLeft")
    keys.type("X")
    keys.press("Enter")
    assert demo.wait_prompt(mark) == "Xabc\n"
    mark = len(demo.transcript)
    keys.press("ArrowUp")  # echo Xabc
    keys.press("ArrowUp")  # echo abc
    keys.press("Backspace")
    keys.press("Home")
    keys.press("Delete")  # "cho ab"
    keys.type("e")
    keys.press("Enter")
    assert demo.wait_prompt(mark) == "ab\n"
    mark = len(demo.transcript)
    keys.type("echo never run")
    keys.press("Control+c")  # at the prompt: drop the line
    demo.page.wait_for_function(
        "(mark) => window.corralDemo.transcript.slice(mark).endsWith('^C\\ncorral$ ')", arg=mark
    )


def test_a_javascript_tool_call_shows_in_the_tool_panel(demo: Demo) -> None:
    demo.mode("javascript")
    out = demo.run("const w = await get_weather({city: 'Paris'}); return w.temp_c + 1")
    assert out == "19\n"
    call = demo.page.locator("#calls li.allowed").last
    assert "get_weather" in call.inner_text()
    assert '"city":"Paris"' in call.inner_text()
    screenshot(demo.page, "03-js-tool-call")
    demo.mode("shell")


def test_a_call_outside_the_constraints_is_denied_in_terminal_and_panel(demo: Demo) -> None:
    out = demo.run("tool get_weather --city Mars")
    assert out == (
        "tool: get_weather denied: city in ['London', 'Paris', 'Tokyo'] failed (city = 'Mars')\n"
        "[exit 1]\n"
    )
    denied = demo.page.locator("#calls li.denied").last
    assert "Mars" in denied.inner_text()
    assert "DENIED" in denied.inner_text().upper()
    demo.mode("javascript")
    out = demo.run(
        "try { await sales_records({region: 'US', limit: 50}) } catch (e) { return e.message }"
    )
    assert out == "sales_records denied: limit <= 20 failed (limit = 50)\n"
    demo.mode("shell")
    assert demo.page.locator("#calls li.denied").count() == 2
    screenshot(demo.page, "04-denied")


def test_files_written_by_a_command_appear_in_the_file_tree(demo: Demo) -> None:
    demo.run("mkdir -p notes && echo 'hello from the sandbox' > notes/hello.txt")
    item = demo.page.locator('#tree li[data-path="/workspace/notes/hello.txt"]')
    item.wait_for()
    item.click()
    demo.page.wait_for_function(
        "document.getElementById('viewer-text').textContent.includes('hello from the sandbox')"
    )
    assert "/workspace/notes/hello.txt" in demo.page.inner_text("#viewer-path")
    screenshot(demo.page, "05-files")


def test_upload_then_download_a_file(demo: Demo) -> None:
    upload: FilePayload = {"name": "up.csv", "mimeType": "text/csv", "buffer": b"a,b\n1,2\n"}
    demo.page.set_input_files("#upload", files=[upload])
    demo.page.locator('#tree li[data-path="/workspace/up.csv"]').wait_for()
    assert demo.run("cut -d, -f2 up.csv") == "b\n2\n"
    demo.page.locator('#tree li[data-path="/workspace/up.csv"]').click()
    demo.page.wait_for_function(
        "document.getElementById('viewer-text').textContent === 'a,b\\n1,2\\n'"
    )
    with demo.page.expect_download() as download:
        demo.page.click("#download")
    assert download.value.suggested_filename == "up.csv"
    assert download.value.path().read_bytes() == b"a,b\n1,2\n"


def test_an_example_button_runs_its_command(demo: Demo) -> None:
    mark = len(demo.transcript)
    denied = demo.page.locator("#calls li.denied").count()
    demo.page.locator("#examples button", has_text="--region APAC").click()
    out = demo.wait_prompt(mark)
    assert out.startswith("tool: sales_records denied: region in ['EU', 'US'] failed")
    demo.page.wait_for_function(f"document.querySelectorAll('#calls li.denied').length > {denied}")


def test_ctrl_c_stops_a_loop_and_the_terminal_keeps_working(demo: Demo) -> None:
    """The page is cross-origin isolated (serve.py), so Ctrl-C interrupts the loop in its own
    worker: no restart, and the sandbox is as the last completed command left it."""
    demo.run("cd notes; KEPT=yes")
    restarts = demo.page.evaluate("window.corralDemo.restarts")
    out = demo.interrupt("KEPT=no; cd /; while true; do :; done", after_ms=1000)
    assert out.startswith("^C\n[stopped")
    assert demo.page.evaluate("window.corralDemo.restarts") == restarts
    screenshot(demo.page, "06-ctrl-c")
    assert (
        demo.run("echo $KEPT; pwd; cat hello.txt")
        == "yes\n/workspace/notes\nhello from the sandbox\n"
    )
    demo.run("cd /workspace")


def test_ctrl_c_on_what_cannot_stop_in_place_restarts_from_the_snapshot(demo: Demo) -> None:
    """A builtin the guest cannot interrupt ignores the interrupt buffer too: the page replaces
    the worker with the standby, restored from the snapshot of the last completed command."""
    demo.run("cd notes; KEPT=yes")
    demo.mode("javascript")
    restarts = demo.page.evaluate("window.corralDemo.restarts")
    out = demo.interrupt("[].sort.call({length: 2 ** 32 - 1})", after_ms=500)
    assert out.startswith("^C\n[stopped")
    assert demo.page.evaluate("window.corralDemo.restarts") == restarts + 1
    demo.mode("shell")
    assert (
        demo.run("echo $KEPT; pwd; cat hello.txt")
        == "yes\n/workspace/notes\nhello from the sandbox\n"
    )
    demo.run("cd /workspace")


def test_replay_after_ctrl_c_replays_the_last_completed_command(demo: Demo) -> None:
    """The sandbox that ran it is gone; the page kept its trace, and the new worker replays it."""
    out = demo.run("echo replay-me $RANDOM; tool get_weather --city London | jq -r .sky")
    assert out.startswith("replay-me ") and out.endswith("rain\n")
    demo.mode("javascript")  # a builtin no interrupt reaches: the worker is replaced
    demo.interrupt("[].sort.call({length: 2 ** 32 - 1})", after_ms=500)
    demo.mode("shell")
    assert demo.page.is_enabled("#replay")
    mark = len(demo.transcript)
    demo.page.click("#replay")
    replayed = demo.wait_prompt(mark)
    assert "echo replay-me" in replayed
    assert "the trace of the sandbox before the restart" in replayed
    assert out in replayed
    assert "✓ output identical to the original run" in replayed


def test_replay_reproduces_the_last_output(demo: Demo) -> None:
    demo.mode("javascript")
    out = demo.run("const w = await get_weather({city: 'Tokyo'}); return [w.temp_c, Math.random()]")
    demo.mode("shell")
    mark = len(demo.transcript)
    demo.page.click("#replay")
    replayed = demo.wait_prompt(mark)
    assert out.strip() in replayed
    assert "✓ output identical to the original run" in replayed
    screenshot(demo.page, "07-replay")


def test_the_csv_example_summarises_50_mb_and_returns_a_few_bytes(demo: Demo) -> None:
    mark = len(demo.transcript)
    demo.page.click("#csv-example")
    demo.page.wait_for_function(
        "(mark) => window.corralDemo.transcript.slice(mark).includes('returned')"
        " && !window.corralDemo.busy",
        arg=mark,
        timeout=120_000,
    )
    text = demo.transcript[mark:]
    assert "50864032" in text  # ls -l of the generated file
    assert "US      10400000 units   531440000.00" in text
    assert "50.9 MB read inside the sandbox → 152 bytes returned" in text
    demo.page.locator('#tree li[data-path="/workspace/sales.csv"]').wait_for()
    screenshot(demo.page, "08-csv")
