"""A static host that sends no cross-origin isolation headers (``serve.py --no-isolation``):
the page's own service worker (``static/isolate.js``) isolates it, so Ctrl-C still stops a
command in place; where service workers are unavailable the page works without isolation, and
Ctrl-C replaces the worker instead."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import pytest
from playwright.sync_api import Browser, BrowserContext
from serve import serve, url_of

from conftest import SITE, VIEWPORT, Demo, OutsideRequests, new_demo


@pytest.fixture(scope="module")
def static_url() -> Iterator[str]:
    """The built site served without the COOP/COEP headers."""
    server = serve(SITE, isolation=False)
    yield url_of(server)
    server.shutdown()


def static_context(
    browser: Browser, outside: OutsideRequests, workers: Literal["allow", "block"]
) -> BrowserContext:
    context = browser.new_context(viewport=VIEWPORT, service_workers=workers)
    context.route("**/*", outside.route)
    return context


def stop_a_loop(demo: Demo) -> str:
    demo.run("x=kept")
    return demo.interrupt("while true; do :; done")


def test_the_service_worker_isolates_the_page(
    browser: Browser, outside: OutsideRequests, static_url: str
) -> None:
    context = static_context(browser, outside, "allow")
    try:
        demo = new_demo(context)
        demo.open(static_url)  # registers isolate.js, reloads once under it
        assert demo.page.evaluate(
            "[self.crossOriginIsolated, Boolean(navigator.serviceWorker.controller)]"
        ) == [True, True]
        assert stop_a_loop(demo).startswith("^C\n[stopped")
        stops = demo.page.evaluate("[window.corralDemo.stoppedInPlace, window.corralDemo.restarts]")
        assert stops == [1, 0]  # in place
        assert demo.run("echo $x") == "kept\n"
        demo.open(static_url)  # a later visit: isolated at once, by the service worker
        assert demo.page.evaluate("self.crossOriginIsolated")
        assert not demo.errors
    finally:
        context.close()


def test_without_service_workers_the_page_works_unisolated(
    browser: Browser, outside: OutsideRequests, static_url: str
) -> None:
    context = static_context(browser, outside, "block")
    try:
        demo = new_demo(context)
        demo.open(static_url)
        assert demo.page.evaluate("self.crossOriginIsolated") is False
        demo.page.wait_for_function("window.corralDemo.standbyReady", timeout=60_000)
        assert stop_a_loop(demo).startswith("^C\n[stopped")
        stops = demo.page.evaluate("[window.corralDemo.stoppedInPlace, window.corralDemo.restarts]")
        assert stops == [0, 1]  # the standby took over
        assert demo.run("echo $x") == "kept\n"
        assert not demo.errors
    finally:
        context.close()
