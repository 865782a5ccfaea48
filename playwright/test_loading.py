"""What a visitor sees before the prompt: progress while loading, or what the browser lacks."""

from __future__ import annotations

import json
import urllib.request
import zipfile
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, BrowserContext, Request

from conftest import (
    MEASUREMENTS,
    SITE,
    VIEWPORT,
    Demo,
    OutsideRequests,
    new_demo,
    screenshot,
    watched_page,
)

# A demo restored from the build's snapshot, and the URLs its context fetched (site-relative).
Restored = tuple[Demo, list[str]]


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


def test_typing_is_accepted_while_loading(context: BrowserContext, base_url: str) -> None:
    demo = new_demo(context)
    demo.page.goto(base_url, wait_until="domcontentloaded")
    demo.page.wait_for_function("window.corralDemo && window.corralDemo.promptMs !== null")
    mark = demo.type("echo typed while loading")
    entered = demo.page.evaluate("performance.now()")  # just after Enter
    out = demo.wait_prompt(mark, timeout=90_000)
    assert out.endswith("typed while loading\n")
    # Python takes seconds to start, so the command usually waits for it, and says so; with a
    # warm cache on a quiet machine the sandbox may be ready before Enter.
    if demo.page.evaluate("window.corralDemo.readyMs") > entered:
        assert out.startswith("[the sandbox is still starting: this runs when it is ready]\n")
    assert not demo.errors
    demo.page.close()


def test_every_visit_starts_from_the_pyodide_snapshot_of_the_build(
    browser: Browser, base_url: str, outside: OutsideRequests
) -> None:
    """A first visit restores Python from the snapshot the site was built with (corral and the
    demo imported); its standby worker keeps that snapshot in Cache Storage, which the next
    visit reads instead of the network; a snapshot that does not load (here: garbage under the
    key) is dropped and Python starts afresh."""
    context = browser.new_context(viewport=VIEWPORT)
    context.route("**/*", outside.route)
    try:
        demo = new_demo(context)
        demo.open(base_url)
        timings = demo.page.evaluate("window.corralDemo.timings")
        assert timings["snapshot"] is True and "snapshotFetched" in timings, timings
        assert "corral" not in timings  # nothing imported: the snapshot holds it
        demo.page.wait_for_function("window.corralDemo.standbyReady", timeout=90_000)
        demo.page.close()

        demo = new_demo(context)
        demo.open(base_url)
        timings = demo.page.evaluate("window.corralDemo.timings")
        assert timings["snapshot"] is True and "snapshotStored" in timings, timings
        assert demo.run("x=41; echo $((x + 1)) | tr 4 X") == "X2\n"
        demo.mode("javascript")
        assert demo.run("[1, 2, 3].map((n) => n * 2)") == "[2,4,6]\n"
        assert not demo.errors
        # Garbage under the same key: the worker drops it and starts Python afresh.
        demo.page.evaluate(
            """async () => {
                const cache = await caches.open("corral-demo-pyodide-snapshot");
                const [key] = await cache.keys();
                await cache.put(key, new Response(new Uint8Array(1024)));
            }"""
        )
        demo.page.close()

        demo = new_demo(context)
        demo.open(base_url)
        timings = demo.page.evaluate("window.corralDemo.timings")
        assert timings["snapshot"] is False and "corral" in timings, timings
        assert demo.run("echo still works") == "still works\n"
        demo.page.close()
    finally:
        context.close()


@pytest.fixture
def restored(browser: Browser, base_url: str, outside: OutsideRequests) -> Iterator[Restored]:
    """A demo opened from the build's snapshot in a fresh context (an empty cache), and the
    site-relative URLs that context has fetched so far (the zips not among them yet)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.route("**/*", outside.route)
    fetched: list[str] = []
    context.on("request", lambda request: fetched.append(request.url.removeprefix(base_url)))
    try:
        demo = new_demo(context)
        demo.open(base_url)
        assert demo.page.evaluate("window.corralDemo.timings.snapshot") is True
        assert "app/python_stdlib.zip" not in fetched
        yield demo, fetched
        assert not demo.errors
    finally:
        context.close()


def test_an_import_the_snapshot_lacks_fetches_the_library_synchronously(
    restored: Restored,
) -> None:
    """A misspelled tool parameter makes corral import ``difflib`` for its "did you mean",
    a module the snapshot does not hold: the worker's finder (``corral_demo.FetchLibrary``)
    fetches the two zips with a synchronous request in the middle of that import, and the
    command prints the suggestion. The zips are fetched once, not for the next import; the
    time of that first command is recorded."""
    demo, fetched = restored
    mark = demo.type("tool get_weather --cty Paris")
    started = demo.page.evaluate("performance.now()")
    out = demo.wait_prompt(mark)
    took = demo.page.evaluate("performance.now()") - started
    assert "unknown parameter 'cty'; did you mean 'city'?" in out, out
    assert fetched.count("app/python_stdlib.zip") == 1, fetched
    assert fetched.count("app/corral-app.zip") == 1, fetched
    # The next misspelling imports nothing new: nothing is fetched again.
    assert "did you mean 'region'?" in demo.run("tool sales_records --regoin EU")
    assert fetched.count("app/python_stdlib.zip") == 1, fetched
    MEASUREMENTS["first_import_outside_the_snapshot_ms (zips fetched)"] = round(took)


def test_modules_left_out_of_the_snapshot_still_import(restored: Restored) -> None:
    """The snapshot holds a stand-in for Pyodide's package loader, without the modules only
    the loader imports (``zipfile``, ``shutil``...): restored, the worker finds what it needs in
    the stand-in, and using the loader or one of those modules imports the real ones from the
    zips the worker fetches then (once)."""
    demo, fetched = restored
    worker = demo.page.workers[0]
    held = worker.evaluate(
        """self.pyodide.runPython(`import sys
sorted(name for name in ("zipfile", "shutil", "tempfile", "pyodide._package_loader")
       if "__file__" in vars(sys.modules.get(name, sys)))`).toJs()"""
    )
    assert held == [], held  # the loader is the stand-in, which has no file
    assert "app/python_stdlib.zip" not in fetched
    used = worker.evaluate(
        """self.pyodide.runPython(`import sys, zipfile, shutil
from pyodide import _package_loader as loader
[loader.get_install_dir().endswith("/site-packages"),
 loader.parse_wheel_name("a-1.0-py3-none-any.whl")[0],
 sys.modules[loader.__name__].__file__.endswith(".pyc"), zipfile.is_zipfile("/"),
 shutil.which("nothing-here") is None]`).toJs()"""
    )
    assert used == [True, "a", True, False, True], used
    assert fetched.count("app/python_stdlib.zip") == 1, fetched
    assert fetched.count("app/corral-app.zip") == 1, fetched
    assert demo.run("echo still here") == "still here\n"


def test_the_demo_runs_a_copy_of_pyodide_that_exports_only_what_its_javascript_uses(
    restored: Restored, context: BrowserContext, base_url: str
) -> None:
    """The demo's Pyodide module keeps the exports its JavaScript names (build.py's
    demo_runtime, tools/pyodide_trim.py), so C functions only a package's native code could
    call are gone from it, while the bare page, which can load packages, has Pyodide's own.
    Both run Python (test_bare_pyodide.py, and every demo test)."""
    demo, _ = restored
    probe = "[typeof {0}._module._PyArg_ParseTuple, typeof {0}._module._PyErr_Occurred]"
    worker = demo.page.workers[0]
    assert worker.evaluate(probe.format("self.pyodide")) == ["undefined", "function"]
    bare, errors = watched_page(context)
    bare.goto(f"{base_url}bare.html")
    stock = bare.evaluate(f"(async () => {probe.format('(await window.pyodideReady)')})()")
    assert stock == ["function", "function"]
    assert not errors
    bare.close()


def test_without_the_snapshot_python_starts_afresh(
    browser: Browser, base_url: str, outside: OutsideRequests
) -> None:
    """A host that lost the snapshot (404): the page still works, importing corral itself."""
    context = browser.new_context(viewport=VIEWPORT)
    context.route("**/*", outside.route)
    context.route("**/app/pyodide.snapshot", lambda route: route.fulfill(status=404))
    try:
        demo = new_demo(context)
        demo.open(base_url)
        assert demo.page.evaluate("window.corralDemo.timings.snapshot") is False
        assert demo.run("echo afresh") == "afresh\n"
        assert not demo.errors
        demo.page.close()
    finally:
        context.close()


def test_assets_come_pre_compressed_and_the_cold_transfer_is_measured(
    browser: Browser, base_url: str, outside: OutsideRequests
) -> None:
    """A first visit (an empty cache): the big files come with Content-Encoding br, only what
    the page needs is fetched, and the bytes on the wire are counted (printed, not asserted)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.route("**/*", outside.route)
    sizes: dict[str, int] = {}
    encodings: dict[str, str | None] = {}

    def finished(request: Request) -> None:
        response = request.response()
        if response is None:
            return
        name = request.url.removeprefix(base_url)
        sizes[name] = request.sizes()["responseBodySize"]
        encodings[name] = response.all_headers().get("content-encoding")

    context.on("requestfinished", finished)
    try:
        demo = new_demo(context)
        ready_ms = demo.open(base_url)
        prompt_ms = demo.page.evaluate("window.corralDemo.promptMs")
        demo.page.close()
    finally:
        context.close()
    for name in ("app/pyodide.asm.wasm", "app/pyodide.snapshot", "app/corral.wasm", "app.js"):
        assert encodings.get(name) == "br", (name, encodings)
    # The demo's own copy of Pyodide's module (build.py's demo_runtime), not the stock one.
    assert "pyodide/pyodide.asm.wasm" not in sizes, sizes
    assert "favicon.svg" in sizes  # no 404 for the icon
    # The snapshot holds every module the page imports: the zips are not fetched, nor
    # Pyodide's own standard library and lockfile.
    for name in ("app/python_stdlib.zip", "app/corral-app.zip", "pyodide/python_stdlib.zip"):
        assert name not in sizes, sizes
    assert "pyodide/pyodide-lock.json" not in sizes, sizes
    MEASUREMENTS["cold_transfer_bytes"] = sum(sizes.values())
    MEASUREMENTS["cold_transfer_largest"] = dict(sorted(sizes.items(), key=lambda x: -x[1])[:4])
    MEASUREMENTS["cold_transfer_all"] = dict(sorted(sizes.items(), key=lambda x: -x[1]))
    MEASUREMENTS["cold_prompt_ms (typing accepted)"] = round(prompt_ms)
    MEASUREMENTS["cold_ready_ms (intercepted requests, no cache)"] = round(ready_ms)


def test_the_server_negotiates_the_encoding(base_url: str) -> None:
    """serve.py sends the pre-compressed sibling the client accepts, with the original type."""
    url = f"{base_url}pyodide/pyodide.asm.wasm"
    for accept, encoding in (("gzip, deflate, br", "br"), ("gzip", "gzip"), ("identity", None)):
        with urllib.request.urlopen(
            urllib.request.Request(url, headers={"Accept-Encoding": accept})
        ) as r:
            assert r.headers["Content-Type"] == "application/wasm"
            assert r.headers["Content-Encoding"] == encoding
            assert r.headers["Vary"] == "Accept-Encoding"
            # Cross-origin isolated: Ctrl-C interrupts in place (test_interrupt.py).
            assert r.headers["Cross-Origin-Opener-Policy"] == "same-origin"
            assert r.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
            body = r.read()
    assert body[:4] == b"\0asm"


def test_what_the_page_imports_comes_as_bytecode() -> None:
    """Compiling sources was most of a first visit's start: the modules the page imports, of
    the standard library and of corral, are in the zips it loads as Pyodide's bytecode, the
    rest as sources; the wheel's module is served apart, rewritten to import its memory."""
    demo = json.loads((SITE / "manifest.json").read_text())["demo"]
    with zipfile.ZipFile(SITE / demo["stdlib"]) as stdlib:
        names = set(stdlib.namelist())
    for module in (
        "typing",
        "asyncio/__init__",
        "json/__init__",
        "dataclasses",
        "zipfile/__init__",
    ):
        assert f"{module}.pyc" in names and f"{module}.py" not in names, module
    assert "calendar.py" in names  # not imported: its source
    assert not any(name.startswith(("email/", "unittest/")) for name in names)
    with zipfile.ZipFile(SITE / demo["app"]) as app:
        names = set(app.namelist())
    for module in ("corral/__init__", "corral/sandbox", "corral/runtime/_pyodide", "corral_demo"):
        assert f"{module}.pyc" in names and f"{module}.py" not in names, module
    assert "corral/corral.wasm" not in names
    module = (SITE / demo["module"]).read_bytes()
    assert module[:4] == b"\0asm" and b"\x06corral\x06memory" in module
