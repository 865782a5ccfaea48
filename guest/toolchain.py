"""Find (or install) a wasm32-wasip1 Rust + C toolchain and build ``corral.wasm``.

Two toolchains are supported, tried in this order:

1. **rustup**: a toolchain with the ``wasm32-wasip1`` target installed, plus a WASI SDK
   (``$WASI_SDK``, or ``/opt/wasi-sdk``) for the QuickJS C sources.
2. **Debian**: ``rustc-web``/``cargo-web`` (Rust 1.96 with ``rust-web-src``, the std sources),
   ``clang-16``/``lld-16``/``llvm-16`` and Debian's ``wasi-libc``. The standard library is
   compiled from source with ``-Zbuild-std`` (and ``panic=immediate-abort``). Missing packages
   are installed with ``apt-get`` when running as root (set ``CORRAL_NO_INSTALL=1`` to forbid
   that).

After cargo, binaryen's ``wasm-opt`` shrinks the module (``-Oz`` twice, names and producers
stripped); its output is cached by the input's hash. ``wasm-opt`` comes from the ``binaryen``
package (installed like the others on Debian); ``CORRAL_NO_WASM_OPT=1`` skips the step.

The step is idempotent and silent when everything is present. Usage::

    python guest/toolchain.py check      # report the toolchain that would be used
    python guest/toolchain.py build      # build and print the path of corral.wasm
    python guest/toolchain.py build --out python/corral/corral.wasm
    python guest/toolchain.py ensure gawk jq bc [--optional]

``ensure`` is the one place that installs the other programs the project's commands need
(the GNU tools the differential tests compare with, npm for the web demo, Chromium for the
browser tests): each is found on PATH or installed from Debian's archive under the same rule.

Stdlib only: this runs inside the wheel build backend before anything else is installed.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

GUEST_DIR = Path(__file__).resolve().parent
TARGET = "wasm32-wasip1"
DEBIAN_PACKAGES = (
    "rustc-web",
    "cargo-web",
    "rust-web-src",
    "clang-16",
    "lld-16",
    "llvm-16",
    "wasi-libc",
    "libclang-rt-16-dev-wasm32",
)
# Files whose presence proves each Debian package is installed (package -> path).
DEBIAN_PROBES = {
    "cargo-web": "/usr/bin/cargo",
    "rustc-web": "/usr/bin/rustc",
    "rust-web-src": "/usr/lib/rustlib/src/rust/library/std/Cargo.toml",
    "clang-16": "/usr/bin/clang-16",
    "lld-16": "/usr/bin/wasm-ld-16",
    "llvm-16": "/usr/bin/llvm-ar-16",
    "wasi-libc": "/usr/lib/wasm32-wasi/crt1-reactor.o",
    "libclang-rt-16-dev-wasm32": (
        "/usr/lib/llvm-16/lib/clang/16/lib/wasi/libclang_rt.builtins-wasm32.a"
    ),
}


# WebAssembly SIMD (128-bit vectors, in every engine corral runs on: wasmtime, and browsers and
# Node since 2021): the memchr crate's searches, which grep, cut, sort and the other line-based
# applets spend most of their time in, are 3-8x faster with it than with its scalar fallback.
RUSTFLAGS = ("-C target-feature=+simd128",)

# With the standard library built from source (the Debian toolchain's -Zbuild-std), a panic
# traps at once instead of formatting its message and location first: the formatting code,
# messages, locations and the Debug impls only panics used were 169 KB (64 KB gzipped) of the
# module. A panic is a guest bug either way (the host restarts the instance and reports an
# InternalError); it loses only its diagnostic line. The one such line the host reads, a failed
# allocation's, the guest's allocator writes itself (task/backstop.rs).
IMMEDIATE_ABORT = ("-Zunstable-options", "-Cpanic=immediate-abort")

# Nightly options too (RUSTC_BOOTSTRAP, like the above): no file, line or column behind
# `#[track_caller]` (only panics read them, and they trap without a message), and derived
# `Debug` impls that print the type's or variant's name only (the guest prints `{:?}` only of
# strings and characters, whose impls are not derived): 43 KB raw, 17 KB gzipped less
# (bench/README.md, "Module size").
SMALLER = ("-Zlocation-detail=none", "-Zfmt-debug=shallow")


def with_remapped_paths(env: dict[str, str], rust_src: str) -> dict[str, str]:
    """``env`` with rustc and C flags that write build-machine paths into the module relatively.

    Source locations that survive into the module (a crate's ``file!()``, QuickJS's
    ``__FILE__``) would otherwise name this machine's cargo home, its registry's directory,
    the standard library's sources and the target directory. The prefixes are the same for
    every checkout on a machine, so the flags do not invalidate the shared build cache when a
    different clone builds. Call it after ``cargo fetch``: the registries' directories exist.
    """
    cargo_home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    rust = [f"--remap-path-prefix={cargo_home}=/cargo"]
    registries = cargo_home / "registry" / "src"
    if registries.is_dir():  # later flags win: each registry's directory becomes /crates
        rust += [f"--remap-path-prefix={d}=/crates" for d in sorted(registries.iterdir())]
    rust.append(f"--remap-path-prefix={rust_src}=/rustc")
    c = [f"-ffile-prefix-map={target_dir()}=/target", f"-ffile-prefix-map={cargo_home}=/cargo"]
    flags = {
        "CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS": rust,
        "CFLAGS_wasm32_wasip1": c,
    }
    return env | {
        name: " ".join([env.get(name, ""), *more]).strip() for name, more in flags.items()
    }


# -Oz: the module's size is what users download and compile; the hot paths are in QuickJS (C,
# compiled -O2 by clang) and in Rust code compiled at the profile's opt-level. A second -Oz
# finds 2.5 KB gzipped more for 1.4x the optimiser's time (`--converge` found as much at 20x).
WASM_OPT_FLAGS = ("-Oz", "-Oz", "--strip-debug", "--strip-producers", "--strip-target-features")


class ToolchainError(RuntimeError):
    """No usable toolchain; the message names what is missing and how to get it."""


@dataclass
class Toolchain:
    """How to invoke cargo for the guest: the command, its environment, and a label."""

    kind: str
    cargo: list[str]
    env: dict[str, str] = field(default_factory=dict)
    rust_src: str = ""  # where the standard library's sources are (remapped in the module)


def _run_quiet(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    except OSError:
        return ""
    return out.stdout if out.returncode == 0 else ""


def _find_wasi_sdk() -> Path | None:
    for candidate in (os.environ.get("WASI_SDK"), os.environ.get("WASI_SDK_PATH"), "/opt/wasi-sdk"):
        if candidate and (Path(candidate) / "bin" / "clang").exists():
            return Path(candidate)
    return None


def rustup_toolchain() -> Toolchain | None:
    """A rustup toolchain with the wasm32-wasip1 target and a WASI SDK, if both exist."""
    if shutil.which("rustup") is None:
        return None
    if TARGET not in _run_quiet(["rustup", "target", "list", "--installed"]).split():
        return None
    sdk = _find_wasi_sdk()
    if sdk is None:
        return None
    env = {"WASI_SDK": str(sdk), "CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS": " ".join(RUSTFLAGS)}
    sysroot = _run_quiet(["rustc", "--print", "sysroot"]).strip()
    cargo = ["cargo", "build", "--release", "--target", TARGET]
    return Toolchain("rustup", cargo, env, f"{sysroot}/lib/rustlib/src/rust")


def missing_debian_packages() -> list[str]:
    """The Debian packages of the guest toolchain that are not installed."""
    return [pkg for pkg, probe in DEBIAN_PROBES.items() if not Path(probe).exists()]


def _can_install() -> bool:
    return (
        os.environ.get("CORRAL_NO_INSTALL") != "1"
        and shutil.which("apt-get") is not None
        and hasattr(os, "geteuid")
        and os.geteuid() == 0
    )


def install_debian_packages(packages: list[str]) -> None:
    """Install ``packages`` with apt-get, or raise naming them when that is not possible."""
    if not _can_install():
        raise ToolchainError(
            "no wasm32-wasip1 toolchain found. Either install rustup's wasm32-wasip1 target "
            "(`rustup target add wasm32-wasip1`) and a WASI SDK (set WASI_SDK=/path), or install "
            f"these Debian packages: apt-get install {' '.join(packages)}"
        )
    _apt_install(packages)


def _apt_install(packages: list[str]) -> None:
    print(f"corral: installing Debian packages: {' '.join(packages)}", file=sys.stderr)
    quiet = {"stdout": subprocess.DEVNULL}
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    wait = ["-o", "DPkg::Lock::Timeout=300"]  # another apt-get may be running: wait for it
    subprocess.run(["apt-get", *wait, "update", "-q"], check=True, env=env, **quiet)  # type: ignore[call-overload]
    subprocess.run(  # type: ignore[call-overload]
        ["apt-get", *wait, "install", "-y", "-q", *packages], check=True, env=env, **quiet
    )


# Programs found on PATH or installed by ``ensure``: command -> the Debian package holding it.
DEBIAN_COMMANDS = {
    "gawk": "gawk",
    "jq": "jq",
    "bc": "bc",
    "npm": "npm",
    "chromium": "chromium",
    "wasm-opt": "binaryen",
    "brotli": "brotli",  # the web demo's pre-compressed assets
}


def ensure_commands(commands: list[str]) -> list[str]:
    """Find each command on PATH, installing the missing ones when allowed (root with apt-get,
    ``CORRAL_NO_INSTALL`` unset); return the commands still missing."""
    unknown = [c for c in commands if c not in DEBIAN_COMMANDS]
    if unknown:
        raise ToolchainError(f"no Debian package known for {', '.join(unknown)}")
    missing = [c for c in commands if shutil.which(c) is None]
    if missing and _can_install():
        _apt_install([DEBIAN_COMMANDS[c] for c in missing])
        missing = [c for c in missing if shutil.which(c) is None]
    return missing


def debian_toolchain() -> Toolchain:
    """Debian's rustc-web + clang-16 + wasi-libc, installing missing packages if allowed."""
    missing = missing_debian_packages()
    if missing:
        install_debian_packages(missing)
    builtins = DEBIAN_PROBES["libclang-rt-16-dev-wasm32"]
    rustflags = " ".join(
        [
            *RUSTFLAGS,
            "-C link-self-contained=no",
            "-L /usr/lib/wasm32-wasi",
            "-C link-arg=/usr/lib/wasm32-wasi/crt1-reactor.o",
            f"-C link-arg={builtins}",
            *IMMEDIATE_ABORT,
            *SMALLER,
        ]
    )
    env = {
        "PATH": "/usr/bin:" + os.environ.get("PATH", ""),
        "RUSTC": "/usr/bin/rustc",
        "RUSTC_BOOTSTRAP": "1",
        "CARGO_TARGET_WASM32_WASIP1_LINKER": "wasm-ld-16",
        "CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS": rustflags,
        "RQUICKJS_SYS_NO_WASI_SDK": "1",
        "CC_wasm32_wasip1": "clang-16",
        "AR_wasm32_wasip1": "llvm-ar-16",
        "CFLAGS_wasm32_wasip1": "-isystem /usr/include/wasm32-wasi",
    }
    cargo = ["/usr/bin/cargo", "build", "--release", "--target", TARGET]
    cargo += ["-Zbuild-std=std,panic_abort"]
    return Toolchain("debian", cargo, env, "/usr/lib/rustlib/src/rust")


def find_wasm_opt() -> str | None:
    """The ``wasm-opt`` to shrink the module with (None: skipped by ``CORRAL_NO_WASM_OPT=1``)."""
    if os.environ.get("CORRAL_NO_WASM_OPT") == "1":
        return None
    if ensure_commands(["wasm-opt"]):
        raise ToolchainError(
            "wasm-opt not found: install binaryen (apt-get install binaryen, brew install "
            "binaryen, or npm's binaryen package), or set CORRAL_NO_WASM_OPT=1 to ship the "
            "larger unoptimized module"
        )
    return shutil.which("wasm-opt")


def shrink(built: Path, wasm_opt: str) -> Path:
    """``built`` after ``wasm-opt``, cached in the target directory by content and flags."""
    digest = hashlib.sha256(built.read_bytes())
    digest.update(" ".join(WASM_OPT_FLAGS).encode())
    cached = target_dir() / "wasm-opt" / f"{digest.hexdigest()[:32]}.wasm"
    if not cached.exists():
        cached.parent.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        subprocess.run([wasm_opt, *WASM_OPT_FLAGS, str(built), "-o", str(tmp)], check=True)
        tmp.replace(cached)
    return cached


def _by_content(built: Path) -> Path:
    """A copy of ``built`` named by its hash, which no later build overwrites."""
    digest = hashlib.sha256(built.read_bytes()).hexdigest()[:32]
    copy = target_dir() / "built" / f"{digest}.wasm"
    if not copy.exists():
        copy.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, copy.with_suffix(".tmp"))
        copy.with_suffix(".tmp").replace(copy)
    return copy


@contextlib.contextmanager
def _target_lock() -> Iterator[None]:
    """An exclusive lock on the shared target directory (a no-op where fcntl is missing)."""
    try:
        import fcntl
    except ImportError:  # Windows: builds from two checkouts at once may race
        yield
        return
    target_dir().mkdir(parents=True, exist_ok=True)
    with open(target_dir() / "corral-build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def find_toolchain() -> Toolchain:
    """The toolchain to build with: rustup's when complete, else Debian's."""
    return rustup_toolchain() or debian_toolchain()


def target_dir() -> Path:
    """Cargo's target directory: outside the checkout, so fresh clones reuse the build cache."""
    explicit = os.environ.get("CARGO_TARGET_DIR")
    if explicit:
        return Path(explicit)
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "corral" / "guest-target"


def build(out: Path | None = None) -> Path:
    """Build the guest in release mode; copy it to ``out`` if given; return its path."""
    prebuilt = os.environ.get("CORRAL_WASM")
    if prebuilt:
        built = Path(prebuilt)
    else:
        tc = find_toolchain()
        wasm_opt = find_wasm_opt()
        env = dict(os.environ, **tc.env, CARGO_TARGET_DIR=str(target_dir()))
        # Checkouts share the target directory, and with it the path cargo writes the module
        # to: hold a lock until this checkout's module is copied out under its own hash.
        with _target_lock():
            subprocess.run([tc.cargo[0], "fetch", "--quiet"], cwd=GUEST_DIR, env=env, check=True)
            env = with_remapped_paths(env, tc.rust_src)
            subprocess.run(tc.cargo, cwd=GUEST_DIR, env=env, check=True)
            built = target_dir() / TARGET / "release" / "corral_guest.wasm"
            built = shrink(built, wasm_opt) if wasm_opt is not None else _by_content(built)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".tmp")
        shutil.copyfile(built, tmp)
        tmp.replace(out)
        return out
    return built


def main(argv: list[str] | None = None) -> int:
    """Command line entry point (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    sub.add_parser("check", help="report the toolchain that would be used")
    build_cmd = sub.add_parser("build", help="build corral.wasm")
    build_cmd.add_argument("--out", type=Path, help="copy the module here")
    ensure_cmd = sub.add_parser("ensure", help="find or install programs the project runs")
    ensure_cmd.add_argument("commands", nargs="+", choices=sorted(DEBIAN_COMMANDS))
    ensure_cmd.add_argument(
        "--optional", action="store_true", help="report what is missing instead of failing"
    )
    args = parser.parse_args(argv)
    try:
        if args.cmd == "check":
            tc = find_toolchain()
            print(f"{tc.kind}: {' '.join(tc.cargo)}")
            print(f"wasm-opt: {find_wasm_opt() or 'skipped (CORRAL_NO_WASM_OPT=1)'}")
        elif args.cmd == "ensure":
            return _report_missing(ensure_commands(args.commands), args.optional)
        else:
            print(build(args.out))
    except ToolchainError as exc:
        print(f"corral: {exc}", file=sys.stderr)
        return 2
    return 0


def _report_missing(missing: list[str], optional: bool) -> int:
    if not missing:
        return 0
    packages = " ".join(DEBIAN_COMMANDS[c] for c in missing)
    what = "the tests that need them are skipped" if optional else "they are needed"
    print(
        f"corral: not found: {', '.join(missing)} ({what}; as root: apt-get install {packages})",
        file=sys.stderr,
    )
    return 0 if optional else 2


if __name__ == "__main__":
    sys.exit(main())
