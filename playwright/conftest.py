"""Fixtures for the end-to-end tests: the built site served on localhost, Debian's Chromium
driven by Playwright, every request outside localhost blocked and counted as a failure, and a
:class:`Demo` helper that types into the page's terminal and reads what it printed.

The site must be built first (``nox -s e2e`` does it): ``$CORRAL_WEB_DIR`` or ``build/web``.
Screenshots and measurements go to ``$CORRAL_E2E_ARTIFACTS`` or ``build/e2e-artifacts``.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    Request,
    Route,
    ViewportSize,
    sync_playwright,
)

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "web"))
from serve import serve, url_of  # noqa: E402 - the server lives with the site

SITE = Path(os.environ.get("CORRAL_WEB_DIR", ROOT / "build" / "web"))
ARTIFACTS = Path(os.environ.get("CORRAL_E2E_ARTIFACTS", ROOT / "build" / "e2e-artifacts"))
CHROMIUM = os.environ.get("CORRAL_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
# Where requests cannot be intercepted (interception turns the HTTP cache off), outside hosts
# do not resolve instead: a request can still not leave, and OutsideRequests.saw counts it.
RESOLVE_ONLY_LOCALHOST = (
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"
)
VIEWPORT: ViewportSize = {"width": 1400, "height": 860}
LOCAL_HOSTS = {"127.0.0.1", "localhost", "[::1]", "::1"}
READY_TIMEOUT_MS = 90_000  # a cold start on a slow CI machine
COMMAND_TIMEOUT_MS = 60_000
MEASUREMENTS: dict[str, Any] = {}


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print what the measurement tests recorded (no assertions on time)."""
    if not MEASUREMENTS:
        return
    terminalreporter.section("web demo measurements (this machine)")
    for name, value in MEASUREMENTS.items():
        terminalreporter.write_line(f"{name}: {value}")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "measurements.json").write_text(json.dumps(MEASUREMENTS, indent=2) + "\n")


@pytest.fixture(scope="session")
def base_url() -> Iterator[str]:
    """The built site, served on a free localhost port for the whole session."""
    if not (SITE / "index.html").is_file():
        pytest.fail(f"no built site in {SITE}: run `nox -s web` (or `nox -s e2e`) first")
    server = serve(SITE)
    yield url_of(server)
    server.shutdown()


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not Path(CHROMIUM).is_file():
        pytest.fail(
            f"no Chromium at {CHROMIUM}: `apt-get install -y chromium` (or set CORRAL_CHROMIUM)"
        )
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


class OutsideRequests:
    """Every request the pages tried to send outside localhost (each one is aborted)."""

    def __init__(self) -> None:
        self.urls: list[str] = []

    @staticmethod
    def local(url: str) -> bool:
        parts = urlsplit(url)
        return parts.hostname in LOCAL_HOSTS or parts.scheme in ("data", "blob")

    def route(self, route: Route) -> None:
        """Continue local requests, abort and count the others."""
        if self.local(route.request.url):
            route.continue_()
        else:
            self.urls.append(route.request.url)
            route.abort("blockedbyclient")

    def saw(self, request: Request) -> None:
        """Count a request seen without intercepting it (see :data:`RESOLVE_ONLY_LOCALHOST`)."""
        if not self.local(request.url):
            self.urls.append(request.url)


@pytest.fixture(scope="session")
def outside() -> OutsideRequests:
    return OutsideRequests()


@pytest.fixture(scope="session")
def context(browser: Browser, outside: OutsideRequests) -> Iterator[BrowserContext]:
    """One browser context (one HTTP cache) for the session, with outside requests blocked."""
    context = browser.new_context(viewport=VIEWPORT)
    context.route("**/*", outside.route)
    yield context
    context.close()


@pytest.fixture(autouse=True)
def no_outside_requests(outside: OutsideRequests) -> Iterator[None]:
    """Fail the test during which any request tried to leave localhost."""
    before = len(outside.urls)
    yield
    tried = outside.urls[before:]
    assert not tried, f"requests outside localhost (blocked): {tried}"


def screenshot(page: Page, name: str) -> Path:
    """Save a screenshot of ``page`` as a test artifact."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


class Demo:
    """The demo page: type commands into its terminal, read their output and its panels."""

    def __init__(self, page: Page, errors: list[str]) -> None:
        self.page = page
        self.errors = errors

    def open(self, url: str) -> float:
        """Load the page and wait for the prompt; the ready time (ms since navigation)."""
        self.page.goto(url)
        self.page.wait_for_function(
            "window.corralDemo && (window.corralDemo.ready"
            " || document.body.dataset.state === 'error')",
            timeout=READY_TIMEOUT_MS,
        )
        state = self.page.evaluate("document.body.dataset.state")
        assert state == "ready", self.page.inner_text("#overlay-text")
        return float(self.page.evaluate("window.corralDemo.readyMs"))

    @property
    def transcript(self) -> str:
        return str(self.page.evaluate("window.corralDemo.transcript"))

    def prompt(self) -> str:
        mode = self.page.evaluate("document.getElementById('mode-js').classList.contains('active')")
        return "js> " if mode else "corral$ "

    def type(self, text: str) -> int:
        """Type ``text`` and Enter at the prompt without waiting; the transcript mark."""
        mark = len(self.transcript)
        self.page.locator("#terminal").click()
        self.page.keyboard.type(text)
        self.page.keyboard.press("Enter")
        return mark

    def wait_prompt(self, mark: int, timeout: float = COMMAND_TIMEOUT_MS) -> str:
        """Wait until a prompt follows ``mark`` and the page is idle; the text in between."""
        prompt = self.prompt()
        self.page.wait_for_function(
            """([mark, prompt]) => {
                const demo = window.corralDemo;
                const text = demo.transcript.slice(mark);
                return !demo.busy && document.body.dataset.state === "ready"
                    && text.includes("\\n") && text.endsWith(prompt);
            }""",
            arg=[mark, prompt],
            timeout=timeout,
        )
        text = self.transcript[mark:]
        return text[text.index("\n") + 1 : -len(prompt)]

    def interrupt(self, command: str, after_ms: float = 0) -> str:
        """Run ``command``, press Ctrl-C once it has been busy for ``after_ms``, and wait for
        the prompt; what it printed."""
        mark = self.type(command)
        self.page.wait_for_function("window.corralDemo.busy")
        if after_ms:
            self.page.wait_for_timeout(after_ms)
        self.page.keyboard.press("Control+c")
        return self.wait_prompt(mark)

    def run(self, command: str, timeout: float = COMMAND_TIMEOUT_MS) -> str:
        """Run ``command`` at the prompt; what it printed."""
        return self.wait_prompt(self.type(command), timeout)

    def mode(self, name: str) -> None:
        """Switch to ``shell`` or ``javascript`` mode."""
        self.page.click("#mode-js" if name == "javascript" else "#mode-shell")
        self.page.wait_for_function(
            "(prompt) => window.corralDemo.transcript.endsWith(prompt)", arg=self.prompt()
        )


def watched_page(context: BrowserContext) -> tuple[Page, list[str]]:
    """A new page in ``context``, and the list that its uncaught errors go to."""
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page, errors


def new_demo(context: BrowserContext) -> Demo:
    """The demo in a new :func:`watched_page` (not loaded yet)."""
    return Demo(*watched_page(context))


@pytest.fixture(scope="module")
def demo(context: BrowserContext, base_url: str) -> Iterator[Demo]:
    """The demo page (20 s time limit), shared by a module's tests."""
    demo = new_demo(context)
    ready_ms = demo.open(base_url)
    MEASUREMENTS.setdefault("ready_ms_first_load_in_session", round(ready_ms))
    yield demo
    assert not demo.errors, f"uncaught errors in the page: {demo.errors}"
    demo.page.close()
