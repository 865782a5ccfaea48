"""A bare page that only loads Pyodide installs the corral wheel with micropip and runs it."""

from __future__ import annotations

from playwright.sync_api import BrowserContext

from conftest import screenshot, watched_page

INSTALL_AND_RUN = """
import micropip
await micropip.install(CORRAL_WHEEL, deps=False)
import corral
await corral.load()  # the main thread may only compile the module asynchronously
from corral import create_bash_tool
create_bash_tool().run("echo hi")
"""


def test_micropip_install_then_create_bash_tool_runs_echo(
    context: BrowserContext, base_url: str
) -> None:
    page, errors = watched_page(context)
    page.goto(f"{base_url}bare.html")
    out = page.evaluate(
        "async (code) => (await window.pyodideReady).runPythonAsync(code)", INSTALL_AND_RUN
    )
    assert out == "hi\n"
    assert "Pyodide" in page.inner_text("body")
    screenshot(page, "10-bare-pyodide")
    assert not errors
    page.close()
