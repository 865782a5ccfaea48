"""Run corral's test suite inside Pyodide, under Node and in headless Chromium.

The suite is the same ``tests/`` as natively; corral comes from its wheel, installed with
``micropip``; tests that cannot run in Pyodide by nature are skipped by their
``needs_native`` marker. Under Node, Pyodide runs in the Node process; in Chromium it runs in a
Web Worker of a page served from a local static server, and every request that does not go to
that server fails the run.

    python tools/pyodide_tests.py                        # both runtimes, default pytest arguments
    python tools/pyodide_tests.py --runtime node -- tests/test_limits.py -x
    python tools/pyodide_tests.py --bench                # load time and execute() medians

Needs ``node`` and npm, Debian's ``chromium`` and the ``playwright`` package (for Chromium).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

sys.path.insert(0, str(Path(__file__).parent))
from pyodide_dist import BASE_WHEELS, TEST_WHEELS, ensure_dist, wheels

ROOT = Path(__file__).resolve().parent.parent
TOOLS = Path(__file__).resolve().parent
DEFAULT_ARGS = ("tests", "-q", "-p", "no:cacheprovider")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
)
# Node flags that turn WebAssembly stack switching (JSPI) on, newest first; none is needed once
# Node has it on by default.
JSPI_FLAGS = ("--experimental-wasm-jspi", "--experimental-wasm-stack-switching")
_HAS_JSPI = "process.exit(WebAssembly.Suspending || WebAssembly.Function ? 0 : 1)"
SUITE_TIMEOUT = 30 * 60  # seconds a whole run may take in the browser
RUNNER_FILES = ("pyodide_suite.mjs", "pyodide_worker.mjs", "pyodide_page.html", "pyodide_main.html")
_SKIP_DIRS = {"__pycache__", ".hypothesis", ".pytest_cache"}


def latest_wheel() -> Path:
    """The newest ``build/dist/corral-*-py3-none-any.whl`` (``nox -s build`` makes it)."""
    found = sorted((ROOT / "build" / "dist").glob("corral-*-py3-none-any.whl"))
    if not found:
        raise SystemExit("no corral wheel in build/dist: run `nox -s build` first")
    return max(found, key=lambda p: p.stat().st_mtime)


def stage(directory: Path, dist: Path, corral_wheel: Path) -> None:
    """Fill ``directory`` with what a runner needs: the wheels, ``suite.tar`` (``tests/`` and
    ``pyproject.toml``), ``manifest.json``, the runner's scripts and the Pyodide dist."""
    base = wheels(BASE_WHEELS)
    test = wheels(TEST_WHEELS)
    for wheel in (*base, *test, corral_wheel):
        shutil.copyfile(wheel, directory / wheel.name)
    with tarfile.open(directory / "suite.tar", "w") as archive:
        archive.add(ROOT / "pyproject.toml", "pyproject.toml")
        archive.add(ROOT / "tests", "tests", filter=_no_caches)
    manifest = {
        "base": [w.name for w in base],
        "test": [w.name for w in test],
        "corral": corral_wheel.name,
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=1))
    for name in (
        "pyodide_suite.mjs",
        "pyodide_worker.mjs",
        "pyodide_page.html",
        "pyodide_main.html",
    ):
        shutil.copyfile(TOOLS / name, directory / name)
    (directory / "pyodide").symlink_to(dist, target_is_directory=True)


def _no_caches(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
    return None if set(Path(info.name).parts) & _SKIP_DIRS else info


def run_node(dist: Path, staging: Path, args: Sequence[str], *, bench: bool = False) -> int:
    """The suite (or the benchmark) under Node; pytest's exit status."""
    command = [
        "node",
        # JSPI lets synchronous Python wait for a promise (asyncio.run in a sync test).
        *jspi_flags(),
        str(TOOLS / "pyodide_node.mjs"),
        str(dist),
        str(staging),
        *(["--bench"] if bench else []),
        *args,
    ]
    return subprocess.run(command, check=False).returncode


def jspi_flags() -> list[str]:
    """The flags this ``node`` needs for JSPI (none if it has it on by default)."""
    for flags in ([], *([flag] for flag in JSPI_FLAGS)):
        probe = subprocess.run(["node", *flags, "-e", _HAS_JSPI], capture_output=True, check=False)
        if probe.returncode == 0:
            return flags
    print("corral-pyodide: this node has no JSPI: tests that need it will fail")
    return []


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 - the base class's API
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".wasm": "application/wasm",
        ".whl": "application/zip",
        ".tar": "application/x-tar",
    }

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: the run's own output is what matters


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """A static server for ``directory`` on localhost; yields its base URL."""
    handler = functools.partial(_Handler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="pyodide-static", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def run_chromium(staging: Path, args: Sequence[str], *, bench: bool = False) -> int:
    """The suite (or the benchmark) in a Web Worker in headless Chromium, then the main-thread
    check; pytest's status, or 1 if anything tried to reach beyond localhost."""
    from playwright.sync_api import Route, sync_playwright

    outside: list[str] = []

    def guard(route: Route) -> None:
        host = urlsplit(route.request.url).hostname
        if host in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    with serve(staging) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=list(CHROMIUM_ARGS))
        try:
            context = browser.new_context(service_workers="block")
            context.route("**/*", guard)
            query = "?args=" + quote(json.dumps(list(args))) + ("&bench=1" if bench else "")
            status = _run_page(context, base + "pyodide_page.html" + query)
            # Then Pyodide on the page's own main thread: corral.load(), then the sync API.
            main_thread = _run_page(context, base + "pyodide_main.html")
            status = status or main_thread
        finally:
            browser.close()
    if outside:
        print(f"corral-pyodide: {len(outside)} request(s) tried to leave localhost:")
        for url in outside:
            print(f"  {url}")
        return 1
    print("corral-pyodide: no request left localhost")
    return status


def _run_page(context: Any, url: str) -> int:
    """Open ``url``, echo its console, and wait for its ``window.corralStatus``."""
    page = context.new_page()
    page.on("console", lambda message: print(message.text, flush=True))
    page.on("pageerror", lambda error: print(f"corral-pyodide: page error: {error}"))
    page.goto(url)
    page.wait_for_function(
        "window.corralStatus !== null", timeout=SUITE_TIMEOUT * 1000, polling=500
    )
    status = int(page.evaluate("window.corralStatus"))
    page.close()
    return status


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runtime", choices=("node", "chromium", "all"), default="all")
    parser.add_argument("--wheel", type=Path, help="the corral wheel (default: build/dist)")
    parser.add_argument("--bench", action="store_true", help="measure instead of testing")
    parser.add_argument("pytest_args", nargs="*", help="after --: arguments for pytest")
    options = parser.parse_args(argv)
    args = options.pytest_args or list(DEFAULT_ARGS)
    wheel = (options.wheel or latest_wheel()).resolve()
    dist = ensure_dist()
    runtimes = ("node", "chromium") if options.runtime == "all" else (options.runtime,)
    failed = []
    with tempfile.TemporaryDirectory(prefix="corral-pyodide-stage-") as tmp:
        staging = Path(tmp)
        stage(staging, dist, wheel)
        for runtime in runtimes:
            print(f"corral-pyodide: === {runtime}: {wheel.name} ===", flush=True)
            started = time.monotonic()
            if runtime == "node":
                status = run_node(dist, staging, args, bench=options.bench)
            else:
                status = run_chromium(staging, args, bench=options.bench)
            elapsed = time.monotonic() - started
            print(f"corral-pyodide: {runtime} finished with status {status} in {elapsed:.0f} s")
            if status != 0:
                failed.append(runtime)
    if failed:
        print(f"corral-pyodide: failed under {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
