"""createWorkerSandbox (corral-web/corral-worker.mjs) in Chromium: a builtin that ignores the
guest's interrupt is stopped by terminating the worker, and the sandbox goes on with its files."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, Route

from conftest import MEASUREMENTS, watched_page

TEST_PAGE = "worker-sandbox-test.html"
# Served by the test itself (the site has no such page): imports the module as a page would.
PAGE_HTML = """<!doctype html>
<html><head><meta charset="utf-8"><title>worker sandbox test</title>
<script type="module">
  import { createWorkerSandbox } from "./corral-web/corral-worker.mjs";
  const manifest = await (await fetch("manifest.json")).json();
  window.openSandbox = (limits) =>
    createWorkerSandbox({ pyodideURL: "pyodide/", wheelURL: manifest.corral, ...limits });
  window.ready = true;
</script></head><body>worker sandbox test</body></html>
"""
TIMEOUT_S = 2
# Array.prototype.sort over 2**32 - 1 elements never polls QuickJS's interrupt handler, nor
# allocates (join, which builds a string, is stopped by the guest's allocator).
STUCK = "return [].sort.call({length: 2 ** 32 - 1}).length"


@pytest.fixture(scope="module")
def page(context: BrowserContext, base_url: str) -> Iterator[Page]:
    """The test page with one worker sandbox (2 s time limit) as ``window.sb``."""
    page, errors = watched_page(context)

    def serve(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html", body=PAGE_HTML)

    page.route(f"{base_url}{TEST_PAGE}", serve)
    page.goto(f"{base_url}{TEST_PAGE}")
    page.wait_for_function("window.ready === true")
    page.evaluate(
        "async (timeout) => { window.sb = await window.openSandbox({timeout}); }", TIMEOUT_S
    )
    yield page
    page.evaluate("() => window.sb.close()")
    assert not errors, f"uncaught errors in the page: {errors}"
    page.close()


def execute(page: Page, code: str, language: str = "javascript") -> dict[str, Any]:
    """``sb.execute(code, {language})`` with the timing field checked, then dropped."""
    result: dict[str, Any] = page.evaluate(
        "([code, language]) => window.sb.execute(code, {language})", [code, language]
    )
    assert isinstance(result.pop("duration_ms"), int | float)
    return result


def ok(stdout: str = "", return_value: Any = None) -> dict[str, Any]:
    return {
        "stdout": stdout,
        "stderr": "",
        "exit_code": 0,
        "return_value": return_value,
        "error": None,
        "error_kind": None,
        "tool_calls": [],
    }


def test_an_execution_answers_with_the_fields_of_execution_result(page: Page) -> None:
    assert execute(page, "console.log('hi'); return 6 * 7") == ok("hi\n42", 42)
    setup = "echo kept > notes.txt; mkdir -p /tmp/work; cd /tmp/work; X=42; f() { echo fn; }"
    assert execute(page, setup, "shell") == ok()
    assert page.evaluate("() => window.sb.timeout") == TIMEOUT_S


def test_fs_reads_writes_and_lists_the_sandbox_files(page: Page) -> None:
    page.evaluate("() => window.sb.fs.write('/workspace/upload.txt', 'from the page')")
    assert execute(page, "cat /workspace/upload.txt", "shell") == ok("from the page")
    text = page.evaluate(
        "async () => new TextDecoder().decode(await window.sb.fs.read('/workspace/upload.txt'))"
    )
    assert text == "from the page"
    assert sorted(page.evaluate("() => window.sb.fs.list('/workspace')")) == [
        "notes.txt",
        "upload.txt",
    ]


def test_a_loop_the_guest_can_stop_ends_in_its_own_timeout_without_a_restart(page: Page) -> None:
    result = execute(page, "while (true) {}")
    error = (
        f"TimeoutError: execution exceeded the {TIMEOUT_S} s time limit and was stopped; do less "
        "work per execution or raise Limits(timeout=...)"
    )
    assert result == {
        "stdout": "",
        "stderr": f"{error}\n",
        "exit_code": 124,
        "return_value": None,
        "error": error,
        "error_kind": "timeout",
        "tool_calls": [],
    }
    assert page.evaluate("() => window.sb.restarts") == 0


def test_an_uninterruptible_builtin_is_stopped_and_the_sandbox_goes_on(page: Page) -> None:
    page.evaluate("() => window.sb.standbyReady()")  # what a restart takes over
    out = page.evaluate(
        """async (code) => {
            const started = performance.now();
            const result = await window.sb.execute(code);
            return {result, elapsed: (performance.now() - started) / 1000,
                    restarts: window.sb.restarts};
        }""",
        STUCK,
    )
    MEASUREMENTS["worker_sandbox_stuck_builtin_resolved_after_s"] = round(out["elapsed"], 2)
    assert out["elapsed"] < TIMEOUT_S + 1.5, out
    result = out["result"]
    assert isinstance(result.pop("duration_ms"), int | float)
    waited = result["error"].split("after ")[1].split(" s;")[0]
    assert TIMEOUT_S + 0.5 <= float(waited) < TIMEOUT_S + 1.5  # the limit and the 0.5 s grace
    error = (
        f"TimeoutError: execution exceeded the {TIMEOUT_S} s time limit and did not stop, so its "
        f"worker was terminated after {waited} s; the sandbox continues with its files as of the "
        "last completed execution; do less work per execution or raise Limits(timeout=...)"
    )
    assert result == {
        "stdout": "",
        "stderr": f"{error}\n",
        "exit_code": 124,
        "return_value": None,
        "error": error,
        "error_kind": "timeout",
        "tool_calls": [],
    }
    assert out["restarts"] == 1
    # The files and the shell session (its working directory) came back; the next one runs.
    started = time.monotonic()
    again = execute(page, "pwd; echo $X; f; cat /workspace/notes.txt", "shell")
    assert again == ok("/tmp/work\n42\nfn\nkept\n")
    MEASUREMENTS["worker_sandbox_next_execution_after_restart_s"] = round(
        time.monotonic() - started, 2
    )
    assert execute(page, "return 1 + 2") == ok("3", 3)


def test_invalid_limits_are_refused_with_corral_s_message(page: Page) -> None:
    message = page.evaluate(
        """async () => {
            try { await window.openSandbox({timeout: -1, standby: false}); return "no error"; }
            catch (error) { return error.message; }
        }"""
    )
    assert message == (
        "ValueError: Limits.timeout must be > 0 and at most 86400 seconds (one day), got -1"
    )


def test_a_refused_execution_rejects_with_corral_s_message_and_keeps_the_worker(
    page: Page,
) -> None:
    message = page.evaluate(
        """async () => {
            try { await window.sb.execute("1", {language: "cobol"}); return "no error"; }
            catch (error) { return error.message; }
        }"""
    )
    assert message == (
        "ValueError: unsupported language 'cobol': use 'javascript', 'shell' (or 'bash'), or 'auto'"
    )
    assert page.evaluate("() => window.sb.restarts") == 1  # the one of the test before
    assert execute(page, "return 1 + 2") == ok("3", 3)


def test_close_stops_a_running_execution_and_every_later_call_says_so(page: Page) -> None:
    out = page.evaluate(
        """async (code) => {
            const sb = window.sb;
            const before = sb.restarts;
            const running = sb.execute(code).then(() => "no error", (error) => error.message);
            await new Promise((resolve) => setTimeout(resolve, 300));
            sb.close();
            const later = await sb.execute("return 1").then(() => "no error", (e) => e.message);
            return {running: await running, later, restarted: sb.restarts - before};
        }""",
        STUCK,
    )
    closed = "the sandbox is closed; create a new one"
    assert out == {"running": closed, "later": closed, "restarted": 0}
