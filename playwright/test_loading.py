"""What a visitor sees before the prompt: progress while loading, or what the browser lacks."""

from __future__ import annotations

from playwright.sync_api import BrowserContext

from conftest import new_demo, screenshot


def test_a_progress_indicator_shows_until_the_prompt(
    context: BrowserContext, base_url: str
) -> None:
    demo = new_demo(context)
    demo.page.goto(base_url, wait_until="domcontentloaded")
    demo.page.wait_for_function("document.getElementById('overlay-text').textContent.endsWith('…')")
    assert demo.page.is_visible("#overlay")
    assert demo.page.evaluate("document.body.dataset.state") == "loading"
    screenshot(demo.page, "00-loading")
    demo.page.wait_for_function("window.corralDemo.ready", timeout=90_000)
    assert demo.page.is_hidden("#overlay")
    assert not demo.errors
    demo.page.close()


def test_a_browser_without_module_workers_gets_a_clear_message(
    context: BrowserContext, base_url: str
) -> None:
    page = context.new_page()
    page.add_init_script("delete window.Worker")
    page.goto(base_url)
    page.wait_for_function("document.body.dataset.state === 'error'")
    assert page.inner_text("#overlay-text") == (
        "This browser lacks Web Workers, which the sandbox needs. "
        "Use a recent Chrome, Edge, Firefox or Safari."
    )
    screenshot(page, "11-unsupported")
    page.close()
