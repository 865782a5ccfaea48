"""What corral ships and builds from (threat class T-SUP in docs/threat-model.rst)."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path

import pytest

from corral import _wasi
from corral._module import wasm_bytes

ROOT = Path(__file__).resolve().parents[2]
# The module's whole reach outside its memory: nothing that opens files or sockets.
IMPORTS = {
    "clock_time_get",
    "environ_get",
    "environ_sizes_get",
    "fd_close",
    "fd_fdstat_get",
    "fd_seek",
    "fd_write",
    "proc_exit",
    "random_get",
}


@pytest.mark.needs_native("reads the module's imports with wasmtime")
def test_sup_1_the_module_imports_only_these_wasi_calls() -> None:
    import wasmtime

    module = wasmtime.Module(wasmtime.Engine(), wasm_bytes())
    imports = {(i.module, i.name) for i in module.imports}
    # At most these: a guest whose standard library panics with immediate-abort (the Debian
    # build, guest/toolchain.py) reads no environment and never exits, so it imports neither
    # environ_* nor proc_exit; a rustup build does.
    assert imports <= {("wasi_snapshot_preview1", name) for name in IMPORTS}
    assert ("wasi_snapshot_preview1", "fd_write") in imports


def test_sup_1_the_shim_defines_no_filesystem_or_socket_call() -> None:
    names = {name for name in dir(_wasi.WasiShim) if not name.startswith("_")}
    assert not {n for n in names if n.startswith(("path_", "sock_", "fd_read", "poll_"))}


@pytest.mark.needs_native("reads pyproject.toml from the checkout")
def test_sup_2_the_only_runtime_dependency_is_wasmtime() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["dependencies"] == ['wasmtime>=50,<51; sys_platform != "emscripten"']


def test_sup_2_the_wasmtime_dependency_is_the_releases_whose_c_api_corral_binds() -> None:
    from corral.runtime._capi import SUPPORTED

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = f"wasmtime>={SUPPORTED[0]},<{SUPPORTED[-1] + 1};"
    assert project["dependencies"][0].startswith(wanted)


@pytest.mark.needs_native("lists the checkout's files with git")
def test_sup_2_the_package_holds_python_and_typed_data_only() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "python/corral"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    if not listed:
        pytest.skip("not a git checkout")
    allowed = {".py", ".typed", ".mjs", ".js"}  # the browser worker module ships as JavaScript
    assert [p for p in listed if Path(p).suffix not in allowed] == []


@pytest.mark.needs_native("reads guest/Cargo.lock from the checkout")
def test_sup_3_every_crate_is_pinned_from_the_registry() -> None:
    lock = tomllib.loads((ROOT / "guest" / "Cargo.lock").read_text())
    external = [p for p in lock["package"] if "source" in p]
    assert external, "the lock file lists no crates"
    unpinned = [p["name"] for p in external if not p.get("checksum")]
    elsewhere = [p["name"] for p in external if not p["source"].startswith("registry+")]
    assert (unpinned, elsewhere) == ([], [])
