"""Build the live shell demo into a static directory (``nox -s web``).

Everything the page loads is copied into the output at build time, so the site works from any
static host and no request ever leaves its origin:

- Pyodide's runtime from the npm package ``pyodide`` and the ``micropip`` and ``packaging``
  wheels from PyPI, at the versions Pyodide's lockfile names (both through
  ``tools/pyodide_dist.py``, shared with the Pyodide test runner),
- the terminal from the npm packages ``@xterm/xterm`` and ``@xterm/addon-fit`` (``npm pack``),
- the corral wheel (built from this checkout, or given with ``--wheel``),
- the page's own files from ``web/static`` and the worker-side app ``web/corral_demo.py``,
- corral's worker-sandbox module (``python/corral/web/*.mjs``, also shipped in the wheel) in
  ``corral-web/``.

Downloads are cached in ``$XDG_CACHE_HOME/corral`` so a rebuild works offline. Usage::

    python web/build.py [--out build/web] [--wheel build/dist/corral-...whl]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "web"
WORKER_SANDBOX = ROOT / "python" / "corral" / "web"  # createWorkerSandbox and its worker
XTERM_VERSION = "6.0.0"
XTERM_FIT_VERSION = "0.11.0"
# What the page needs from each npm package: path in the package -> path in the site.
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
    "package.json",  # names the licence (MPL-2.0); the package ships no LICENSE file
)
XTERM_FILES = {
    "@xterm/xterm": {
        "lib/xterm.mjs": "xterm.mjs",
        "css/xterm.css": "xterm.css",
        "LICENSE": "LICENSE",
    },
    "@xterm/addon-fit": {"lib/addon-fit.mjs": "addon-fit.mjs"},
}


class BuildError(RuntimeError):
    """A build step failed; the message says what is missing and how to get it."""


def cache_dir() -> Path:
    """Where downloaded packages are kept between builds."""
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    path = base / "corral" / "web"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    try:
        subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    except FileNotFoundError as e:
        raise BuildError(f"{cmd[0]} is not installed; it is needed to run {' '.join(cmd)}") from e
    except subprocess.CalledProcessError as e:
        raise BuildError(f"{' '.join(cmd)} failed with status {e.returncode}") from e


def ensure_npm() -> None:
    """npm, found on PATH or installed by the project's one installer (guest/toolchain.py
    ensure: from Debian's archive when running as root, unless ``CORRAL_NO_INSTALL=1``)."""
    if shutil.which("npm"):
        return
    toolchain = Path(__file__).resolve().parent.parent / "guest" / "toolchain.py"
    if subprocess.run([sys.executable, str(toolchain), "ensure", "npm"], check=False).returncode:
        raise BuildError("npm is needed to fetch Pyodide and xterm: apt-get install npm")


def npm_package(name: str, version: str) -> Path:
    """The unpacked npm package ``name@version`` (fetched with ``npm pack`` once)."""
    target = cache_dir() / "npm" / f"{name.replace('/', '__')}-{version}"
    if (target / "package" / "package.json").is_file():
        return target / "package"
    ensure_npm()
    with tempfile.TemporaryDirectory(dir=cache_dir()) as tmp:
        _run(["npm", "pack", "--silent", f"{name}@{version}", "--pack-destination", tmp])
        (tarball,) = Path(tmp).glob("*.tgz")
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(tarball) as archive:
            archive.extractall(unpacked, filter="data")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(target, ignore_errors=True)
        unpacked.rename(target)
    return target / "package"


def pyodide_dist() -> ModuleType:
    """``tools/pyodide_dist.py``: the one place that fetches Pyodide and its wheels."""
    spec = importlib.util.spec_from_file_location(
        "pyodide_dist", ROOT / "tools" / "pyodide_dist.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pyodide_files(dist_tool: ModuleType) -> tuple[Path, list[Path]]:
    """Pyodide's directory and the micropip and packaging wheels (fetched once)."""
    try:
        dist: Path = dist_tool.ensure_dist()
    except FileNotFoundError:  # no npm to fetch it with
        ensure_npm()
        dist = dist_tool.ensure_dist()
    extra: list[Path] = dist_tool.wheels(dist_tool.BASE_WHEELS)
    return dist, extra


def corral_wheel(explicit: Path | None) -> Path:
    """The corral wheel: ``explicit``, or one built from this checkout into build/dist."""
    if explicit is not None:
        if not explicit.is_file():
            raise BuildError(f"no wheel at {explicit}")
        return explicit
    dist = ROOT / "build" / "dist"
    _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)])
    return max(dist.glob("corral-*-py3-none-any.whl"), key=lambda p: p.stat().st_mtime)


def _copy(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)


def build(out: Path, wheel: Path | None = None) -> Path:
    """Assemble the site in ``out`` (replaced) and return it."""
    wheel = corral_wheel(wheel)
    dist_tool = pyodide_dist()
    pyodide, extra_wheels = pyodide_files(dist_tool)
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())

    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(WEB / "static", out)
    _copy(WEB / "corral_demo.py", out / "corral_demo.py")
    for module in WORKER_SANDBOX.glob("*.mjs"):
        _copy(module, out / "corral-web" / module.name)
    for name in PYODIDE_FILES:
        _copy(pyodide / name, out / "pyodide" / name)
    for package, files in XTERM_FILES.items():
        version = XTERM_VERSION if package == "@xterm/xterm" else XTERM_FIT_VERSION
        source = npm_package(package, version)
        for inside, name in files.items():
            _copy(source / inside, out / "vendor" / "xterm" / name)
    for path in [*extra_wheels, wheel]:
        _copy(path, out / "wheels" / path.name)
    manifest = {
        "pyodide": dist_tool.PYODIDE_VERSION,
        "python": lock["info"]["python"],
        "wheels": [f"wheels/{p.name}" for p in extra_wheels],
        "corral": f"wheels/{wheel.name}",
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "web")
    parser.add_argument("--wheel", type=Path, help="the corral wheel (default: build one)")
    args = parser.parse_args(argv)
    try:
        out = build(args.out, args.wheel)
    except BuildError as e:
        print(f"web/build.py: {e}", file=sys.stderr)
        return 1
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"built the demo site in {out} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
