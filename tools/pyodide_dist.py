"""A local Pyodide distribution, and the wheels Pyodide needs, in the user cache directory.

Pyodide comes from the npm package ``pyodide`` (it holds the runtime, the standard library and
the lockfile, but no wheels); the wheels come from PyPI through ``pip download`` for Pyodide's
Python version. Nothing is fetched at test or page time: a page or a test runner serves these
files from disk. Both steps are idempotent and quiet when everything is present.

Command line::

    python tools/pyodide_dist.py               # the dist and micropip/packaging; print the dist
    python tools/pyodide_dist.py --tests       # ... and pytest, hypothesis and their dependencies
    python tools/pyodide_dist.py --wheels-dir  # print the wheels directory instead

From Python (the web demo and the parity runner use this)::

    from pyodide_dist import ensure_dist, wheels, BASE_WHEELS
    dist = ensure_dist()        # .../corral/pyodide/<version>/dist (pyodide.mjs, ...)
    paths = wheels(BASE_WHEELS)  # [.../micropip-....whl, .../packaging-....whl]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = [
    "BASE_WHEELS",
    "PINNED",
    "PYODIDE_VERSION",
    "TEST_WHEELS",
    "cache_root",
    "ensure_dist",
    "lock_versions",
    "python_version",
    "wheels",
    "wheels_dir",
]

PYODIDE_VERSION = "314.0.7"
# What a page needs to install the corral wheel: micropip and its one dependency.
BASE_WHEELS = ("micropip", "packaging")
# What the parity suite needs inside Pyodide besides the base wheels.
TEST_WHEELS = ("pytest", "pluggy", "iniconfig", "pygments", "hypothesis", "sortedcontainers")
# Versions of packages the lockfile does not carry. hypothesis 6.155.7 is the last release
# published as a pure-Python wheel (later ones ship a native extension).
PINNED = {"hypothesis": "6.155.7"}
_MARKER = ".complete"


def cache_root(version: str = PYODIDE_VERSION) -> Path:
    """``$XDG_CACHE_HOME`` (or ``~/.cache``) ``/corral/pyodide/<version>``."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "corral" / "pyodide" / version


def ensure_dist(version: str = PYODIDE_VERSION) -> Path:
    """The directory holding ``pyodide.mjs``, ``pyodide.asm.wasm``, ``python_stdlib.zip`` and
    ``pyodide-lock.json`` of Pyodide ``version``, unpacked from ``npm pack pyodide@version``
    the first time."""
    dist = cache_root(version) / "dist"
    if (dist / _MARKER).exists():
        return dist
    _log(f"fetching pyodide@{version} with npm")
    with tempfile.TemporaryDirectory(prefix="corral-pyodide-") as tmp:
        subprocess.run(
            ["npm", "pack", f"pyodide@{version}", "--silent", "--pack-destination", tmp],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (tarball,) = Path(tmp).glob("pyodide-*.tgz")
        with tarfile.open(tarball) as archive:
            archive.extractall(tmp, filter="data")
        if dist.exists():
            shutil.rmtree(dist)  # an interrupted earlier attempt
        dist.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(Path(tmp) / "package"), dist)
    (dist / _MARKER).write_text(version + "\n")
    return dist


def lock_versions(dist: Path) -> dict[str, str]:
    """The package versions Pyodide's lockfile pins, by normalised name."""
    lock = json.loads((dist / "pyodide-lock.json").read_text())
    return {name: str(entry["version"]) for name, entry in lock["packages"].items()}


def python_version(dist: Path) -> str:
    """Pyodide's Python as ``major.minor`` (e.g. ``3.14``)."""
    lock = json.loads((dist / "pyodide-lock.json").read_text())
    major, minor, *_ = str(lock["info"]["python"]).split(".")
    return f"{major}.{minor}"


def wheels_dir(version: str = PYODIDE_VERSION) -> Path:
    """Where :func:`wheels` keeps the downloaded wheels."""
    return cache_root(version) / "wheels"


def wheels(names: Iterable[str], version: str = PYODIDE_VERSION) -> list[Path]:
    """Pure-Python wheels of ``names`` for Pyodide ``version``, downloaded once from PyPI.

    Each is pinned to the version in Pyodide's lockfile (or in :data:`PINNED`), downloaded with
    ``pip download --no-deps --only-binary=:all:`` for Pyodide's Python version.
    """
    names = list(names)
    dist = ensure_dist(version)
    pins = {**lock_versions(dist), **PINNED}
    target = wheels_dir(version)
    target.mkdir(parents=True, exist_ok=True)
    found: list[Path] = []
    missing: list[str] = []
    for name in names:
        if name not in pins:
            raise ValueError(f"no version known for {name!r}: add it to PINNED")
        wheel = _find_wheel(target, name, pins[name])
        if wheel is None:
            missing.append(f"{name}=={pins[name]}")
    if missing:
        _log(f"downloading {' '.join(missing)}")
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--disable-pip-version-check",
                "--no-deps",
                "--only-binary=:all:",
                "--python-version",
                python_version(dist),
                "--dest",
                str(target),
                *missing,
            ],
            check=True,
        )
    for name in names:
        wheel = _find_wheel(target, name, pins[name])
        if wheel is None:
            raise FileNotFoundError(f"pip did not download a wheel of {name}=={pins[name]}")
        if not wheel.name.endswith("-none-any.whl"):
            raise ValueError(f"{wheel.name} is not a pure-Python wheel: Pyodide cannot use it")
        found.append(wheel)
    return found


def _find_wheel(directory: Path, name: str, version: str) -> Path | None:
    stem = name.replace("-", "_")
    matches = sorted(directory.glob(f"{stem}-{version}-*.whl"))
    return matches[0] if matches else None


def _log(message: str) -> None:
    """Said only when something is fetched: a run with everything present prints nothing."""
    print(f"pyodide_dist: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=PYODIDE_VERSION, help="Pyodide's npm version")
    parser.add_argument("--tests", action="store_true", help="also the test-suite wheels")
    parser.add_argument(
        "--wheels-dir", action="store_true", help="print the wheels directory, not the dist"
    )
    args = parser.parse_args(argv)
    dist = ensure_dist(args.version)
    wheels(BASE_WHEELS + (TEST_WHEELS if args.tests else ()), args.version)
    print(wheels_dir(args.version) if args.wheels_dir else dist)
    return 0


if __name__ == "__main__":
    sys.exit(main())
