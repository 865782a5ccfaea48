"""The page on a phone (360 px wide) and the small things a visitor notices first: a header
with the pitch, `pip install corral` and links, a favicon, a welcome text broken at spaces,
tool-call entries that stay inside their panel, a Stop button for a keyboard without Ctrl."""

from __future__ import annotations

from playwright.sync_api import Browser, ConsoleMessage

from conftest import Demo, OutsideRequests, new_demo, screenshot, watched_page


def test_the_page_works_360_px_wide(
    browser: Browser, base_url: str, outside: OutsideRequests
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True)
    context.route("**/*", outside.route)
    try:
        demo = new_demo(context)
        demo.open(base_url)
        page = demo.page
        assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scroll
        box = page.locator("#terminal").bounding_box()
        assert box is not None and box["width"] >= 320
        cols = page.evaluate("window.corralDemo.cols")
        assert cols >= 36  # not two columns
        welcome = demo.transcript.split("\n\n")[0].split("\n")
        assert all(len(line) <= cols for line in welcome), welcome
        assert all(not line.endswith("-") for line in welcome)
        assert "on the right" not in demo.transcript  # the panels are below the terminal here
        assert page.inner_text(".install") == "pip install corral"
        assert "WebAssembly sandbox" in page.inner_text(".pitch")
        assert page.locator("link[rel=icon]").get_attribute("href") == "favicon.svg"
        long = "x" * 300
        demo.run(f"tool get_weather --city {long}")
        entry = page.locator("#calls li").last
        assert entry.evaluate("(li) => li.scrollWidth <= li.clientWidth")
        # A phone's keyboard has no Ctrl: the Stop button is Ctrl-C; the message fits.
        assert page.is_disabled("#stop")
        mark = demo.type("while true; do :; done")
        page.wait_for_function("window.corralDemo.busy")
        page.click("#stop")
        stopped = demo.wait_prompt(mark).split("\n")
        assert stopped[0] == "^C" and stopped[1].startswith("[stopped"), stopped
        assert all(len(line) <= cols for line in stopped), stopped
        assert page.is_disabled("#stop")
        assert demo.run("echo phone") == "phone\n"
        screenshot(page, "16-phone-360")
        assert not demo.errors
    finally:
        context.close()


def test_keyboard_only(browser: Browser, base_url: str, outside: OutsideRequests) -> None:
    """Without a mouse: Tab completes inside the terminal, Escape then Tab (or Shift-Tab) leaves
    it, so it is no keyboard trap; a file of the tree opens with Enter, and Enter or Space on
    the upload control opens the file chooser."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route("**/*", outside.route)
    try:
        demo = new_demo(context)
        demo.open(base_url)
        page = demo.page
        demo.run("echo keyed > /workspace/keys.txt")
        focused = "document.activeElement.closest('#terminal') !== null"
        page.locator("#terminal").click()
        mark = len(demo.transcript)
        page.keyboard.type("ech")
        page.keyboard.press("Tab")  # completes: the focus stays
        page.wait_for_function("window.corralDemo.line === 'echo '")
        assert page.evaluate(focused)
        page.keyboard.type("completed")
        page.keyboard.press("Enter")
        assert demo.wait_prompt(mark) == "completed\n"
        page.keyboard.press("Escape")
        page.keyboard.press("Tab")
        assert not page.evaluate(focused)
        page.locator("#terminal").click()
        page.keyboard.press("Shift+Tab")
        assert not page.evaluate(focused)
        for _ in range(40):  # on through the page until the file
            if page.evaluate("document.activeElement.dataset.path") == "/workspace/keys.txt":
                break
            page.keyboard.press("Tab")
        page.keyboard.press("Enter")
        page.wait_for_function("!document.getElementById('viewer').hidden")
        assert page.inner_text("#viewer-text") == "keyed\n"
        page.focus("#upload-label")
        assert page.evaluate("document.activeElement.id") == "upload-label"
        page.evaluate(
            """window.uploadClicks = 0;
            document.getElementById("upload").addEventListener("click", (event) => {
                window.uploadClicks += 1;
                event.preventDefault(); // no file chooser left open
            });"""
        )
        page.keyboard.press("Enter")
        page.keyboard.press(" ")
        page.wait_for_function("window.uploadClicks === 2")
        assert not demo.errors
    finally:
        context.close()


def test_a_visit_logs_nothing_to_the_console(
    browser: Browser, base_url: str, outside: OutsideRequests
) -> None:
    """No warning or error in the console (the page's or its workers') while a visitor loads
    the page, runs shell and JavaScript, replays the agent session and stops a loop with
    Ctrl-C, nor once the new standby has booted."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.route("**/*", outside.route)
    logged: list[str] = []

    def log(message: ConsoleMessage) -> None:
        if message.type in ("warning", "error", "assert"):
            logged.append(f"{message.type}: {message.text}")

    try:
        page, errors = watched_page(context)
        page.on("console", log)
        demo = Demo(page, errors)
        demo.open(base_url)
        assert demo.run("echo quiet | tr a-z A-Z") == "QUIET\n"
        mark = len(demo.transcript)
        page.click("#agent")
        assert "✓ identical to the recording" in demo.wait_prompt(mark)
        demo.mode("javascript")
        assert demo.run("1 + 1") == "2\n"
        demo.mode("shell")
        page.wait_for_function("window.corralDemo.standbyReady", timeout=120_000)
        mark = demo.type("while :; do :; done")
        page.wait_for_function("window.corralDemo.busy")
        page.keyboard.press("Control+c")
        assert demo.wait_prompt(mark).startswith("^C\n[stopped")
        page.wait_for_function("window.corralDemo.standbyReady", timeout=120_000)
        assert demo.run("echo after") == "after\n"
        assert logged == [], logged
        assert not demo.errors
    finally:
        context.close()
