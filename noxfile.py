"""Developer sessions: ``nox -s build|tests|lint|docs|pyodide|bench|web|demo|e2e|fuzz``.

The guest (``guest/``) is built by ``guest/toolchain.py``, which finds or installs a
wasm32-wasip1 toolchain; cargo's target directory lives in the user cache directory, so
rebuilds in a fresh clone are incremental.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
import zipfile
from pathlib import Path

import nox

ROOT = Path(__file__).parent
WASM = ROOT / "python" / "corral" / "corral.wasm"
DIST = ROOT / "build" / "dist"
WEB_OUT = ROOT / "build" / "web"
CHROMIUM = "/usr/bin/chromium"
ORACLES = ("gawk", "jq", "bc")  # the differential tests compare with these, bash and coreutils
E2E_DEPS = ("pytest>=8", "playwright>=1.50")  # Playwright drives Debian's Chromium: no download
HOST_TARGET = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "corral" / "guest-host-target"
)

PY_SOURCES = (
    "python",
    "tests",
    "bench",
    "docs/conf.py",
    "noxfile.py",
    "web",
    "playwright",
    "guest/toolchain.py",
    "guest/hatch_build.py",
    "tools",
    "examples",
    "conftest.py",
)

nox.options.sessions = ["tests"]
nox.options.reuse_existing_virtualenvs = True


def _build_guest(session: nox.Session) -> None:
    session.run("python", "guest/toolchain.py", "build", "--out", str(WASM), external=True)


def _ensure(session: nox.Session, *commands: str, optional: bool = False) -> None:
    """Find or install (as root, from Debian's archive) the programs a session runs."""
    flags = ["--optional"] if optional else []
    session.run("python", "guest/toolchain.py", "ensure", *commands, *flags, external=True)


def _build_wheel(session: nox.Session) -> Path:
    """The guest, then the py3-none-any wheel carrying it (in build/dist)."""
    _build_guest(session)
    session.run(
        "python", "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(DIST), ".",
        external=True, env={"CORRAL_WASM": str(WASM)},
    )  # fmt: skip
    return max(DIST.glob("corral-*-py3-none-any.whl"), key=lambda p: p.stat().st_mtime)


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
    guest's own cargo tests. The differential tests compare with GNU awk, jq and bc: found or
    installed here; where one cannot be had, its cases are skipped with the reason."""
    _build_guest(session)
    _ensure(session, *ORACLES, optional=True)
    session.install("-e", ".[test]")
    session.run("pytest", "tests", "python/corral", "README.md", *session.posargs)
    with session.chdir("guest"):
        _cargo(session, "test", "--quiet")
        # The CRC-32 crate patched in for crc32fast is its own workspace (see guest/Cargo.toml).
        _cargo(session, "test", "--quiet", "--manifest-path", "patches/crc32fast/Cargo.toml")


FUZZ = ROOT / "guest" / "fuzz"
FUZZ_TARGETS = ("shell", "arith", "awk", "sed", "bc", "jq", "jq-json", "protocol", "vfs")


@nox.session
def fuzz(session: nox.Session) -> None:
    """Fuzz each guest target (``guest/fuzz``) and each host target (``tests/test_fuzz_host.py``)
    for ``-- --budget SECONDS`` (60 by default) each, ``--seed N`` to repeat a run. A crashing
    input is saved where the normal tests replay it: ``guest/fuzz/regressions/<target>/`` (the
    guest's cargo tests) and ``tests/fuzz_regressions/<target>/`` (pytest)."""
    args = dict(zip(session.posargs[::2], session.posargs[1::2], strict=False))
    budget, seed = args.get("--budget", "60"), args.get("--seed", str(int(time.time())))
    session.log(f"budget {budget} s per target, seed {seed}")
    target_dir = HOST_TARGET.with_name("guest-fuzz-target")
    with session.chdir(FUZZ):
        session.run("cargo", "build", "--release", "--quiet", external=True,
                    env={"CARGO_TARGET_DIR": str(target_dir)})  # fmt: skip
    for target in FUZZ_TARGETS:
        _fuzz_guest(session, target_dir / "release" / "corral-fuzz", target, budget, seed)
    session.install("-e", ".[test]")
    session.run("pytest", "tests/test_fuzz_host.py", "-k", "test_fuzz", "-s", "-q",
                env={"CORRAL_FUZZ_BUDGET": budget}, success_codes=[0, 1])  # fmt: skip


def _fuzz_guest(session: nox.Session, driver: Path, target: str, budget: str, seed: str) -> None:
    """Run one guest target; keep the input of a stack overflow or a hang as a regression
    (the driver saves panicking inputs itself)."""
    last = driver.with_name(f"last-input-{target}")
    regressions = FUZZ / "regressions"
    command = [str(driver), target, "--budget", budget, "--seed", seed]
    command += ["--regressions", str(regressions), "--last", str(last)]
    status = subprocess.run(command, check=False).returncode
    if status in (0, 1):
        return
    framed = last.read_bytes()
    data = framed[4 : 4 + int.from_bytes(framed[:4], "little")]
    kind = "hang" if status == 3 else "crash"
    saved = regressions / target / f"{kind}-{hashlib.sha256(data).hexdigest()[:16]}"
    saved.parent.mkdir(exist_ok=True)
    saved.write_bytes(data)
    session.warn(f"{target}: {kind} (exit status {status}); input saved as {saved}")


@nox.session
def integrations(session: nox.Session) -> None:
    """The framework adapters against the real frameworks (``corral[all]``), offline: fake
    models drive each framework's own agent loop; then the examples."""
    _build_guest(session)
    session.install("-e", ".[test,all]")
    session.run("pytest", "tests/integrations", "python/corral/integrations", *session.posargs)


@nox.session
def crewai(session: nox.Session) -> None:
    """The CrewAI adapter in its own environment (crewai pins mcp<2, so it cannot join [all])."""
    _build_guest(session)
    session.install("-e", ".[test,crewai]")
    session.run("pytest", "tests/integrations", "-k", "crewai", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff, mypy --strict, cargo clippy and cargo fmt --check."""
    _build_guest(session)
    # mypy reads the frameworks (the integrations subclass their classes).
    session.install("-e", ".[lint,test,all]", "nox", *E2E_DEPS)
    session.run("ruff", "check", *PY_SOURCES)
    session.run("ruff", "format", "--check", *PY_SOURCES)
    session.run("mypy", "--strict", "python/corral")
    web = [*ROOT.glob("web/*.py"), *ROOT.glob("playwright/*.py")]
    session.run("mypy", "--strict", *sorted(str(p.relative_to(ROOT)) for p in web))
    with session.chdir("guest"):
        _cargo(session, "clippy", "--all-targets", "--quiet", "--", "-D", "warnings")
        _cargo(session, "fmt", "--check")


@nox.session
def docs(session: nox.Session) -> None:
    """Sphinx (warnings are errors), every public name on a page, and the docs' doctests (the
    integration pages' too, so their frameworks are installed)."""
    _build_guest(session)
    session.install("-e", ".[docs,mcp,langchain,deepagents]")
    session.run(
        "sphinx-build", "-W", "--keep-going", "-q", "-b", "html", "docs", "docs/_build/html"
    )
    session.run("python", "tools/check_api_docs.py", "docs/_build/html/objects.inv")
    session.run("sphinx-build", "-W", "-q", "-b", "doctest", "docs", "docs/_build/doctest")


@nox.session
def pyodide(session: nox.Session) -> None:
    """The test suite inside Pyodide, under Node and in headless Chromium, against the wheel
    that micropip installs (see docs/browser.rst). ``nox -s pyodide -- --runtime node`` runs
    one runtime; arguments after a second ``--`` go to pytest."""
    wheel = _build_wheel(session)
    _ensure(session, "npm", "chromium")  # node comes with Debian's npm
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


def _build_web(session: nox.Session) -> None:
    """The guest, the wheel (carrying that module) and the static site in build/web."""
    wheel = _build_wheel(session)
    session.run(
        "python", "web/build.py", "--wheel", str(wheel), "--out", str(WEB_OUT), external=True
    )


@nox.session(venv_backend="none")
def web(session: nox.Session) -> None:
    """The live shell demo as a static site in build/web (everything vendored at build time)."""
    _build_web(session)


@nox.session(venv_backend="none")
def demo(session: nox.Session) -> None:
    """Build the live shell demo and serve it on localhost (``-- --port N`` to choose the port).
    The terminal tour of the sandbox is ``corral demo``."""
    _build_web(session)
    session.run("python", "web/serve.py", str(WEB_OUT), *session.posargs, external=True)


@nox.session
def e2e(session: nox.Session) -> None:
    """Build the demo, then the Playwright tests in Debian's Chromium (see playwright/README.md)."""
    _build_web(session)
    if not Path(CHROMIUM).is_file():
        _ensure(session, "chromium")
    session.install(*E2E_DEPS)
    session.run("pytest", "playwright", *session.posargs)
