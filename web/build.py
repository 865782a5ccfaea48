"""Build the live shell demo into a static directory (``nox -s web``).

Everything the page loads is copied into the output at build time, so the site works from any
static host and no request ever leaves its origin:

- Pyodide's runtime from the npm package ``pyodide`` and the ``micropip`` and ``packaging``
  wheels from PyPI, at the versions Pyodide's lockfile names (both through
  ``tools/pyodide_dist.py``, shared with the Pyodide test runner),
- the terminal from the npm packages ``@xterm/xterm`` and ``@xterm/addon-fit`` (``npm pack``),
- the corral wheel (built from this checkout, or given with ``--wheel``),
- the page's own files from ``web/static``, the worker-side app ``web/corral_demo.py`` and the
  recorded agent session ``web/agent_session.json`` (``web/record_agent_session.py``),
- corral's worker-sandbox module (``python/corral/web/*.mjs``, also shipped in the wheel) in
  ``corral-web/``.

To load fast, the two zip archives the page fetches (Python's standard library and the corral
wheel) are rewritten uncompressed (same files, same names; the standard library without the
modules listed in :data:`STDLIB_UNUSED`), and every text or WebAssembly file gets a brotli
(``.br``) and a gzip (``.gz``) sibling, which ``serve.py`` (or nginx's ``gzip_static``/
``brotli_static``, Caddy's ``precompressed``...) sends with ``Content-Encoding``: brotli over a
whole uncompressed archive beats deflate file by file.

Downloads are cached in ``$XDG_CACHE_HOME/corral`` so a rebuild works offline. Usage::

    python web/build.py [--out build/web] [--wheel build/dist/corral-...whl]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
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

# Modules of Python's standard library that nothing in the page imports (interactive tools, the
# test framework, GUI toolkits): left out of the python_stdlib.zip the page fetches.
STDLIB_UNUSED = (
    "unittest/",
    "_pyrepl/",
    "idlelib/",
    "tkinter/",
    "turtledemo/",
    "ensurepip/",
    "venv/",
    "lib2to3/",
    "pydoc_data/",
    "multiprocessing/",
    "xmlrpc/",
    "wsgiref/",
    "sqlite3/",
    "__phello__/",
    "pydoc.py",
    "pdb.py",
    "bdb.py",
    "doctest.py",
    "turtle.py",
    "mailbox.py",
    "imaplib.py",
    "smtplib.py",
    "poplib.py",
    "ftplib.py",
    "cProfile.py",
    "profile.py",
    "pstats.py",
    "tabnanny.py",
    "pyclbr.py",
    "zipapp.py",
    "webbrowser.py",
    "antigravity.py",
    "this.py",
    "__hello__.py",
)
# What the demo page itself never imports though Pyodide's installer (micropip, on the bare page)
# needs it: left out of the demo's own standard library (see demo_files), besides STDLIB_UNUSED.
DEMO_STDLIB_UNUSED = (
    "email/",
    "xml/",
    "http/",
    "html/",
    "urllib/",
    "ctypes/",
    "tarfile.py",
    "argparse.py",
    "optparse.py",
    "configparser.py",
    "pickle.py",
    "pickletools.py",
    "ipaddress.py",
    "statistics.py",
    "fractions.py",
    "platform.py",
    "_pyio.py",
    "_pydatetime.py",
    "_pydecimal.py",
    "_ast_unparse.py",
)
# The codecs the demo keeps (the standard library has a hundred; it decodes UTF-8).
DEMO_CODECS = (
    "__init__",
    "aliases",
    "ascii",
    "latin_1",
    "utf_8",
    "utf_8_sig",
    "utf_16",
    "utf_16_le",
    "utf_16_be",
    "utf_32",
    "utf_32_le",
    "utf_32_be",
    "idna",
    "punycode",
    "charmap",
    "unicode_escape",
    "raw_unicode_escape",
    "base64_codec",
    "hex_codec",
    "cp437",
    "cp1252",
)
# What of the wheel Pyodide cannot use (the native runtime, the command line, the adapters of
# agent frameworks, the browser-side JavaScript): left out of what the demo's worker unpacks.
DEMO_WHEEL_UNUSED = (
    "corral/corral.wasm",  # served rewritten, see demo_files
    "corral/runtime/_wasmtime.py",
    "corral/cli.py",
    "corral/__main__.py",
    "corral/integrations/",
    "corral/web/",
)
# The demo's worker loads these from DEMO_DIR (see demo_files and static/worker.js).
DEMO_DIR = "app"
# What runs in the demo's worker besides Pyodide's own JavaScript, or is run on its copy of
# Pyodide at build time: the exports these name (with those Pyodide's JavaScript names) are
# all that copy keeps (demo_runtime). Python files count too (corral's hold JavaScript).
RUNTIME_USERS = (
    "web/static/*.js",
    "web/static/*.mjs",
    "web/corral_demo.py",
    "python/corral/web/*.mjs",
    "tools/pyodide_snapshot.mjs",
    "tools/pyodide_bytecode.mjs",
)
# Pyodide's memory with corral and the demo imported, made at build time (pyodide_snapshot).
SNAPSHOT = "pyodide.snapshot"
# Files that get .br and .gz siblings: everything but images (already compressed).
COMPRESSED = (
    *(".wasm", ".mjs", ".js", ".json", ".zip", ".whl", ".css", ".html", ".py", ".svg"),
    ".snapshot",
)
COMPRESS_MIN_BYTES = 512


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


def _tool(name: str) -> ModuleType:
    """The module ``tools/NAME.py``."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pyodide_dist() -> ModuleType:
    """``tools/pyodide_dist.py``: the one place that fetches Pyodide and its wheels."""
    return _tool("pyodide_dist")


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


def repack_stored(source: Path, target: Path, drop: tuple[str, ...] = ()) -> None:
    """Write the zip ``source`` as ``target`` with its members stored, not deflated, leaving
    out the members whose names start with one of ``drop``. The names, contents and order are
    kept (a wheel's RECORD stays valid)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            if not info.filename.startswith(drop):
                data = zin.read(info)
                info.compress_type = zipfile.ZIP_STORED
                zout.writestr(info, data)


def _command(name: str) -> str | None:
    """The program ``name``, found on PATH or installed by the project's one installer."""
    if shutil.which(name) is None:
        toolchain = ROOT / "guest" / "toolchain.py"
        subprocess.run([sys.executable, str(toolchain), "ensure", name], check=False)
    return shutil.which(name)


def _compressed(data: bytes, encoding: str, brotli: str | None) -> bytes | None:
    """``data`` compressed with ``encoding`` (``br`` or ``gzip``), from the cache when it was
    compressed before (brotli at its best level takes tens of seconds on Pyodide's module)."""
    cached = cache_dir() / "compressed" / f"{hashlib.sha256(data).hexdigest()}.{encoding}"
    if cached.is_file():
        return cached.read_bytes()
    if encoding == "gzip":
        packed = gzip.compress(data, compresslevel=9, mtime=0)
    elif brotli is None:
        return None
    else:
        packed = subprocess.run(
            [brotli, "--best", "--stdout", "-"], input=data, capture_output=True, check=True
        ).stdout
    cached.parent.mkdir(parents=True, exist_ok=True)
    cached.write_bytes(packed)
    return packed


def precompress(out: Path) -> None:
    """Give every compressible file under ``out`` a ``.br`` and a ``.gz`` sibling (only where
    that is smaller). Without the ``brotli`` program only gzip is written, and a note says so."""
    brotli = _command("brotli")
    if brotli is None:
        print(
            "web/build.py: no brotli program (apt-get install brotli): gzip only", file=sys.stderr
        )
    for path in sorted(out.rglob("*")):
        if path.suffix not in COMPRESSED or path.stat().st_size < COMPRESS_MIN_BYTES:
            continue
        data = path.read_bytes()
        for encoding, suffix in (("br", ".br"), ("gzip", ".gz")):
            packed = _compressed(data, encoding, brotli)
            if packed is not None and len(packed) < len(data) * 0.95:
                path.with_name(path.name + suffix).write_bytes(packed)


def repository_url(explicit: str | None) -> str | None:
    """The repository the page links to (and its docs/ under it): ``explicit``, or in a GitHub
    Actions build the repository being built; None leaves the links out."""
    if explicit:
        return explicit.rstrip("/")
    server, name = os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY")
    return f"{server}/{name}" if server and name else None


def _runtime_users(wheel: Path, stdlib: Path) -> list[str]:
    """The texts of RUNTIME_USERS, of the wheel's Python files and of Pyodide's own Python
    packages (``pyodide``, ``_pyodide``), in a stable order."""
    paths = sorted(path for pattern in RUNTIME_USERS for path in ROOT.glob(pattern))
    texts = [path.read_text() for path in paths]
    for archive, prefixes in ((wheel, ("corral/",)), (stdlib, ("pyodide/", "_pyodide/"))):
        with zipfile.ZipFile(archive) as files:
            for name in sorted(files.namelist()):
                if name.startswith(prefixes) and name.endswith((".py", ".mjs", ".js")):
                    texts.append(files.read(name).decode())
    return texts


def demo_runtime(dist: Path, wheel: Path) -> Path:
    """The Pyodide distribution the demo's worker runs (and its snapshot is made with):
    ``tools/pyodide_trim.py``'s copy of ``dist``, whose module keeps only the exports some
    JavaScript of the page names (0.3 MB less to transfer), cached by its inputs; ``dist``
    itself if there is no ``wasm-opt`` (a note says so). Cached by the exports it keeps, so
    a change of the page that names no new export does not redo it (minutes of wasm-opt)."""
    trimmer = _tool("pyodide_trim")
    try:
        kept = trimmer.kept_exports(dist, _runtime_users(wheel, dist / "python_stdlib.zip"))
    except trimmer.TrimError as e:
        raise BuildError(f"trimming Pyodide's module for the demo failed: {e}") from e
    digest = hashlib.sha256(" ".join([*trimmer.WASM_OPT_FLAGS, *sorted(kept)]).encode())
    files = ("pyodide.asm.wasm", "pyodide.asm.mjs", "pyodide.mjs", "pyodide-lock.json")
    for path in (ROOT / "tools" / "pyodide_trim.py", *(dist / name for name in files)):
        digest.update(path.read_bytes())
    target = cache_dir() / "runtime" / digest.hexdigest()[:24]
    if (target / "pyodide.asm.wasm").is_file():
        return target
    wasm_opt = _command("wasm-opt")
    if wasm_opt is None:
        print(
            "web/build.py: no wasm-opt (apt-get install binaryen): the demo runs Pyodide's "
            "module untrimmed",
            file=sys.stderr,
        )
        return dist
    partial = target.with_suffix(".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        trimmer.trim(dist, partial, kept, wasm_opt)
    except (trimmer.TrimError, subprocess.CalledProcessError) as e:
        raise BuildError(f"trimming Pyodide's module for the demo failed: {e}") from e
    partial.rename(target)
    return target


def build_key(pyodide_version: str, *files: Path) -> str:
    """What a Pyodide memory snapshot of the page depends on: Pyodide's version, the zips the
    page imports from (the demo's Python files and standard library), the snapshot itself
    (its form can change with the same zips) and the module it was made with (the demo's
    copy of Pyodide's, whose table it assumes: demo_runtime). The worker keeps one snapshot
    per key in the browser's Cache Storage, so a new build never restores an old one."""
    digest = hashlib.sha256(pyodide_version.encode())
    for path in files:
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _demo_stdlib_member(name: str) -> bool:
    if name.startswith("encodings/"):
        return name.removeprefix("encodings/").removesuffix(".py") in DEMO_CODECS
    return not name.startswith(DEMO_STDLIB_UNUSED)


def demo_files(wheel: Path, pyodide: Path, stdlib: Path, out: Path) -> dict[str, object]:
    """What the demo's worker loads besides Pyodide's runtime, written to ``out`` (the site's
    DEMO_DIR); returns their names for the manifest:

    - ``corral.wasm``: the wheel's guest module rewritten to import its memory
      (``corral.runtime._pyodide.import_memory``, as Pyodide's backend does at run time), so
      the worker compiles it with ``WebAssembly.compileStreaming`` while Pyodide starts and
      hands it to the backend (``PyodideBackend.adopt``): no Python work on the module;
    - ``corral-app.zip``: the wheel's files but :data:`DEMO_WHEEL_UNUSED`, and
      ``corral_demo.py``;
    - ``python_stdlib.zip``: the standard library without :data:`DEMO_STDLIB_UNUSED` and the
      codecs outside :data:`DEMO_CODECS`;
    - ``pyodide.snapshot`` (pyodide_snapshot), and ``pyodide.asm.wasm``: ``pyodide``'s module
      with the code of the frozen modules the snapshot imported zeroed, as in the snapshot.

    In both zips each module the page imports is stored as bytecode for Pyodide's Python
    (``name.pyc`` instead of ``name.py``), so importing it compiles nothing: compiling them
    was most of Pyodide's start on a first visit. ``tools/pyodide_bytecode.mjs`` (Pyodide
    under Node) compiles them, after doing what the page does to learn which modules it
    imports; its output is cached by its inputs.
    """
    sys.path.insert(0, str(ROOT / "python"))
    try:
        from corral.runtime._pyodide import import_memory
    finally:
        sys.path.pop(0)
    out.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as whl:
        module, min_pages = import_memory(whl.read("corral/corral.wasm"))
        (out / "corral.wasm").write_bytes(module)
        with zipfile.ZipFile(out / "app-sources.zip", "w") as app:
            for info in whl.infolist():
                if not info.filename.startswith(DEMO_WHEEL_UNUSED):
                    app.writestr(info, whl.read(info))
            app.write(WEB / "corral_demo.py", "corral_demo.py")
    with zipfile.ZipFile(stdlib) as full, zipfile.ZipFile(out / "stdlib-sources.zip", "w") as kept:
        for info in full.infolist():
            if _demo_stdlib_member(info.filename):
                kept.writestr(info, full.read(info))
    tool = ROOT / "tools" / "pyodide_bytecode.mjs"
    inputs = [tool, out / "stdlib-sources.zip", out / "app-sources.zip", out / "corral.wasm"]
    digest = hashlib.sha256(str(pyodide).encode())
    for path in inputs:
        digest.update(path.read_bytes())
    cached = cache_dir() / "bytecode" / digest.hexdigest()[:24]
    outputs = [cached / "python_stdlib.zip", cached / "corral-app.zip", cached / "imports.json"]
    if not outputs[-1].is_file():
        cached.mkdir(parents=True, exist_ok=True)
        _run(["node", str(tool), str(pyodide), *map(str, inputs[1:] + outputs)])
    for name in ("python_stdlib.zip", "corral-app.zip"):
        shutil.copyfile(cached / name, out / name)
    (out / "stdlib-sources.zip").unlink()
    (out / "app-sources.zip").unlink()
    imports = outputs[-1]
    base_bytes, zeroed = pyodide_snapshot(
        pyodide, out / "python_stdlib.zip", out / "corral-app.zip", imports, out / SNAPSHOT
    )
    module = _tool("pyodide_trim").zero_data((pyodide / "pyodide.asm.wasm").read_bytes(), zeroed)
    (out / "pyodide.asm.wasm").write_bytes(module)
    return {
        "stdlib": f"{DEMO_DIR}/python_stdlib.zip",
        "app": f"{DEMO_DIR}/corral-app.zip",
        "module": f"{DEMO_DIR}/corral.wasm",
        "min_pages": min_pages,
        "snapshot": f"{DEMO_DIR}/{SNAPSHOT}",
        "snapshot_size": (out / SNAPSHOT).stat().st_size,
        "snapshot_base_bytes": base_bytes,
        "imports": json.loads(imports.read_text()),
    }


def pyodide_snapshot(
    pyodide: Path, stdlib: Path, app: Path, imports: Path, target: Path
) -> tuple[int, list[tuple[int, int]]]:
    """Write to ``target`` Pyodide's memory once Python has started from ``stdlib`` and
    imported the modules listed in ``imports`` from ``app`` and ``stdlib``
    (``tools/pyodide_snapshot.mjs``, Pyodide under Node; cached by its inputs), and return how
    many of its first bytes are stored XORed with the memory Pyodide's module starts with
    (``static/snapshot-delta.mjs``), and the memory ranges it zeroed: the code of the frozen
    modules Python imported, which the page's copy of Pyodide's module has zeroed too
    (demo_files: 0.13 MB less with brotli). The worker starts from it (``_loadSnapshot``):
    restoring memory replaces Python's start-up and those imports, on a first visit too, and
    the zips are fetched only if the page imports something else. It is ~31 MB raw, ~1.9 MB
    with brotli: the price of a first visit without Python's start."""
    tool = ROOT / "tools" / "pyodide_snapshot.mjs"
    digest = hashlib.sha256(str(pyodide).encode())
    for path in (tool, WEB / "static" / "snapshot-delta.mjs", pyodide / "pyodide.asm.wasm"):
        digest.update(path.read_bytes())
    for path in (stdlib, app, imports):
        digest.update(path.read_bytes())
    cached = cache_dir() / "snapshot" / f"{digest.hexdigest()[:24]}.bin"
    sidecar = cached.with_name(cached.name + ".json")
    if not sidecar.is_file():
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(".partial")
        _run(["node", str(tool), *map(str, (pyodide, stdlib, app, imports, partial))])
        partial.rename(cached)
        partial.with_name(partial.name + ".json").rename(sidecar)
    shutil.copyfile(cached, target)
    made = json.loads(sidecar.read_text())
    return made["base_bytes"], [(start, end) for start, end in made["zeroed"]]


def build(out: Path, wheel: Path | None = None, repository: str | None = None) -> Path:
    """Assemble the site in ``out`` (replaced) and return it."""
    wheel = corral_wheel(wheel)
    dist_tool = pyodide_dist()
    pyodide, extra_wheels = pyodide_files(dist_tool)
    lock = json.loads((pyodide / "pyodide-lock.json").read_text())

    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(WEB / "static", out)
    _copy(WEB / "corral_demo.py", out / "corral_demo.py")
    _copy(WEB / "agent_session.json", out / "agent_session.json")
    for module in WORKER_SANDBOX.glob("*.mjs"):
        _copy(module, out / "corral-web" / module.name)
    for name in PYODIDE_FILES:
        if name != "python_stdlib.zip":
            _copy(pyodide / name, out / "pyodide" / name)
    repack_stored(
        pyodide / "python_stdlib.zip", out / "pyodide" / "python_stdlib.zip", STDLIB_UNUSED
    )
    for package, files in XTERM_FILES.items():
        version = XTERM_VERSION if package == "@xterm/xterm" else XTERM_FIT_VERSION
        source = npm_package(package, version)
        for inside, name in files.items():
            _copy(source / inside, out / "vendor" / "xterm" / name)
    for path in extra_wheels:
        _copy(path, out / "wheels" / path.name)
    repack_stored(wheel, out / "wheels" / wheel.name)
    runtime = demo_runtime(pyodide, wheel)
    demo = demo_files(wheel, runtime, out / "pyodide" / "python_stdlib.zip", out / DEMO_DIR)
    # Where the worker finds pyodide.asm.mjs and .wasm (the rest of Pyodide from pyodide/):
    # the module is written by demo_files, the frozen modules' code zeroed.
    demo["runtime"] = f"{DEMO_DIR}/"
    _copy(runtime / "pyodide.asm.mjs", out / DEMO_DIR / "pyodide.asm.mjs")
    manifest = {
        "build": build_key(
            dist_tool.PYODIDE_VERSION,
            out / DEMO_DIR / "corral-app.zip",
            out / DEMO_DIR / "python_stdlib.zip",
            out / DEMO_DIR / SNAPSHOT,
            runtime / "pyodide.asm.wasm",
        ),
        "pyodide": dist_tool.PYODIDE_VERSION,
        "python": lock["info"]["python"],
        "wheels": [f"wheels/{p.name}" for p in extra_wheels],
        "corral": f"wheels/{wheel.name}",
        "demo": demo,
        # What Pyodide checks in its lockfile: the page loads no package, so it needs no more.
        "lockfile": {"info": lock["info"], "packages": {}},
        "repository": repository_url(repository),
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    precompress(out)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "web")
    parser.add_argument("--wheel", type=Path, help="the corral wheel (default: build one)")
    parser.add_argument(
        "--repository", help="the repository URL the page links to (default: GitHub Actions')"
    )
    args = parser.parse_args(argv)
    try:
        out = build(args.out, args.wheel, args.repository)
    except BuildError as e:
        print(f"web/build.py: {e}", file=sys.stderr)
        return 1
    files = [p for p in out.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files if p.suffix not in (".br", ".gz"))
    print(f"built the demo site in {out} ({size / 1e6:.1f} MB, and .br/.gz siblings)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
