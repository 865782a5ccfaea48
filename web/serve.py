"""Serve the built demo on localhost (``nox -s demo``; the end-to-end tests use :func:`serve`).

Any static host works; this one sets the types the page needs (``.mjs``, ``.wasm``), sends the
pre-compressed sibling a file has (``X.br``, ``X.gz``, written by ``build.py``) to a browser that
accepts its encoding, with ``Content-Encoding`` and ``Vary: Accept-Encoding``, lets the
browser cache the vendored files (Pyodide, xterm) while revalidating the page's own, and makes
the page cross-origin isolated (:data:`ISOLATION`), so that Ctrl-C can interrupt a command in
its worker instead of replacing the worker. ``--no-isolation`` serves the site as a static host
that cannot send those headers does: the page's own service worker (``static/isolate.js``)
isolates it then.
Usage::

    python web/serve.py [build/web] [--port 8000] [--no-isolation]
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TYPES = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".py": "text/x-python",
    ".json": "application/json",
}
# Long-lived: pinned versions vendored at build time. The corral wheel keeps its name across
# rebuilds, so wheels/ is revalidated like the page's own files.
CACHED = ("/pyodide/", "/vendor/")
# Cross-origin isolation: the page may share memory with its workers (SharedArrayBuffer), which
# Pyodide's interrupt buffer needs (static/app.js: Ctrl-C in place). Every file is same-origin.
ISOLATION = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
}
# Pre-compressed siblings, in order of preference: Content-Encoding -> file suffix.
ENCODINGS = {"br": ".br", "gzip": ".gz"}


class DemoHandler(SimpleHTTPRequestHandler):
    """Static files with the right types and cache headers, and quiet logs."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **TYPES}  # noqa: RUF012 - as the base
    encoding: str | None = None  # the Content-Encoding of the file being sent
    isolation = True  # send ISOLATION
    varies = False  # the file has pre-compressed siblings

    def translate_path(self, path: str) -> str:
        """The file to send: the pre-compressed sibling the client accepts, if there is one."""
        plain = super().translate_path(path)
        self.encoding = None
        self.varies = any(os.path.isfile(plain + suffix) for suffix in ENCODINGS.values())
        if not self.varies or not os.path.isfile(plain):
            return plain
        header = self.headers.get("Accept-Encoding", "")
        accepted = {part.split(";")[0].strip().lower() for part in header.split(",")}
        for encoding, suffix in ENCODINGS.items():
            if encoding in accepted and os.path.isfile(plain + suffix):
                self.encoding = encoding
                return plain + suffix
        return plain

    def guess_type(self, path: str | os.PathLike[str]) -> str:
        """The type of the file itself, not of its compressed sibling."""
        name = os.fspath(path)
        if self.encoding is not None:
            name = name.removesuffix(ENCODINGS[self.encoding])
        return super().guess_type(name)

    def end_headers(self) -> None:
        if self.encoding is not None:
            self.send_header("Content-Encoding", self.encoding)
        if self.varies:
            self.send_header("Vary", "Accept-Encoding")
        if self.path.startswith(CACHED):
            self.send_header("Cache-Control", "public, max-age=86400")
        else:
            self.send_header("Cache-Control", "no-cache")
        for name, value in ISOLATION.items() if self.isolation else ():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


class DemoServer(ThreadingHTTPServer):
    """A threading server that does not print a traceback when a browser hangs up."""

    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)  # type: ignore[arg-type]


def serve(
    directory: Path, port: int = 0, host: str = "127.0.0.1", isolation: bool = True
) -> ThreadingHTTPServer:
    """Start serving ``directory`` in a background thread; ``port=0`` picks a free port;
    ``isolation=False`` leaves out the cross-origin isolation headers, as many static hosts do.

    Stop it with ``server.shutdown()``.
    """
    if not (directory / "index.html").is_file():
        raise FileNotFoundError(f"no built site in {directory}: run `nox -s web` first")
    kind = type("Handler", (DemoHandler,), {"isolation": isolation})
    handler = functools.partial(kind, directory=str(directory))
    server = DemoServer((host, port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def url_of(server: ThreadingHTTPServer) -> str:
    """The server's base URL."""
    host, port = server.server_address[:2]
    return f"http://{host!s}:{port}/"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the built corral demo on localhost.")
    parser.add_argument("directory", nargs="?", type=Path, default=ROOT / "build" / "web")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument(
        "--no-isolation",
        dest="isolation",
        action="store_false",
        help="no COOP/COEP headers, as a plain static host (the page's service worker adds them)",
    )
    args = parser.parse_args(argv)
    try:
        server = serve(args.directory, args.port, isolation=args.isolation)
    except (FileNotFoundError, OSError) as e:
        print(f"web/serve.py: {e}", file=sys.stderr)
        return 1
    print(f"corral demo: {url_of(server)}  (Ctrl-C to stop)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
