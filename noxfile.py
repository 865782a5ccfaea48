"""Developer sessions: ``nox -s build|tests|lint|docs|pyodide|bench|demo``.

The guest (``guest/``) is built by ``guest/toolchain.py``, which finds or installs a
wasm32-wasip1 toolchain; cargo's target directory lives in the user cache directory, so
rebuilds in a fresh clone are incremental.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path

import nox

ROOT = Path(__file__).parent
WASM = ROOT / "python" / "corral" / "corral.wasm"
DIST = ROOT / "build" / "dist"
HOST_TARGET = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "corral" / "guest-host-target"
)

PY_SOURCES = (
    "python",
    "tests",
    "bench",
    "docs/conf.py",
    "noxfile.py",
    "guest/toolchain.py",
    "guest/hatch_build.py",
    "tools",
)

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True


def _build_guest(session: nox.Session) -> None:
    session.run("python", "guest/toolchain.py", "build", "--out", str(WASM), external=True)


def _cargo(session: nox.Session, *args: str) -> None:
    """Run cargo on the host target (guest unit tests and lints need no wasm toolchain)."""
    session.run("cargo", *args, external=True, env={"CARGO_TARGET_DIR": str(HOST_TARGET)})


@nox.session(venv_backend="none")
def build(session: nox.Session) -> None:
    """Build corral.wasm and the py3-none-any wheel; check the wheel carries the module."""
    _build_guest(session)
    session.run("python", "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(DIST), ".")
    wheel = max(DIST.glob("corral-*-py3-none-any.whl"), key=lambda p: p.stat().st_mtime)
    names = zipfile.ZipFile(wheel).namelist()
    if "corral/corral.wasm" not in names:
        session.error(f"{wheel.name} does not carry corral/corral.wasm")
    session.log(f"built {wheel} ({wheel.stat().st_size} bytes)")


@nox.session
def tests(session: nox.Session) -> None:
    """pytest (host, guest behaviour through the API, README and module doctests) and the
    guest's own cargo tests."""
    _build_guest(session)
    session.install("-e", ".[test]")
    session.run("pytest", "tests", "python/corral", "README.md", *session.posargs)
    with session.chdir("guest"):
        _cargo(session, "test", "--quiet")


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict, cargo clippy and cargo fmt --check."""
    _build_guest(session)
    session.install("-e", ".[lint,test]", "nox")
    session.run("ruff", "check", *PY_SOURCES)
    session.run("ruff", "format", "--check", *PY_SOURCES)
    session.run("mypy", "--strict", "python/corral")
    with session.chdir("guest"):
        _cargo(session, "clippy", "--all-targets", "--quiet", "--", "-D", "warnings")
        _cargo(session, "fmt", "--check")


@nox.session
def docs(session: nox.Session) -> None:
    """Sphinx (warnings are errors) and the docs' doctests."""
    _build_guest(session)
    session.install("-e", ".[docs]")
    session.run(
        "sphinx-build", "-W", "--keep-going", "-q", "-b", "html", "docs", "docs/_build/html"
    )
    session.run("sphinx-build", "-W", "-q", "-b", "doctest", "docs", "docs/_build/doctest")


@nox.session
def pyodide(session: nox.Session) -> None:
    """The test suite inside Pyodide, under Node and in headless Chromium, against the wheel
    that micropip installs (see docs/browser.rst). ``nox -s pyodide -- --runtime node`` runs
    one runtime; arguments after a second ``--`` go to pytest."""
    _build_guest(session)
    session.run(
        "python", "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(DIST), ".",
        env={"CORRAL_WASM": str(WASM)},
    )  # fmt: skip
    wheel = max(DIST.glob("corral-*-py3-none-any.whl"), key=lambda p: p.stat().st_mtime)
    session.install("playwright")
    session.run("python", "tools/pyodide_tests.py", "--wheel", str(wheel), *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Both benchmarks (the JavaScript spine, then the shell suite) against peers installed
    from PyPI in the same run (see bench/README.md)."""
    _build_guest(session)
    session.install("-e", ".[bench]")
    session.run("python", "bench/run.py", *session.posargs)
    session.run("python", "bench/shell.py", *_shell_bench_args(session.posargs))


def _shell_bench_args(args: list[str]) -> list[str]:
    """The spine's arguments for the shell suite: ``--json X.json`` becomes ``X-shell.json``."""
    out = list(args)
    for i, arg in enumerate(out[:-1]):
        if arg == "--json":
            path = Path(out[i + 1])
            out[i + 1] = str(path.with_name(f"{path.stem}-shell{path.suffix}"))
    return out


@nox.session
def demo(session: nox.Session) -> None:
    """A short tour of the sandbox: tools, a denied call, a timeout, recovery."""
    _build_guest(session)
    session.install("-e", ".")
    session.run("corral", "demo")
