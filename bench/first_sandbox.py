"""Where the first sandbox of a fresh Python process spends its time (issue 14's profile).

Usage::

    python bench/first_sandbox.py [--runs N]

Runs N fresh processes (7 by default), each doing, step by step and timed with
``time.perf_counter`` (no profiler, so no profiler overhead): ``import corral``, ``import
wasmtime``, ``importlib.metadata``'s ``version()``, reading ``corral.wasm``, the backend (engine),
the module's cache key (sha256), loading the compiled module from the disk cache,
``Sandbox()``, then a first ``return 1+2`` and ``echo hi``. Inside ``Sandbox()``, a few calls
are wrapped with timers (the runtime is not changed): the WASI imports' ``define_func``,
``instantiate``, the guest's ``_initialize`` and the first message (``corral_init``). Prints
each step's median and minimum over the runs, in ms. The compiled module must be in the disk
cache already (any earlier ``Sandbox()`` on this machine puts it there).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from typing import Any

CHILD = "--child"


def child() -> None:
    """One fresh process's measurements, as JSON on stdout."""
    steps: dict[str, float] = {}
    last = time.perf_counter()

    def step(name: str) -> None:
        nonlocal last
        now = time.perf_counter()
        steps[name] = (now - last) * 1e3
        last = now

    import corral

    step("import corral")
    import wasmtime

    step("import wasmtime (ctypes bindings, libwasmtime)")
    from importlib.metadata import version

    version("wasmtime")
    step("importlib.metadata + version('wasmtime') (cache key)")
    from corral import protocol
    from corral._module import wasm_bytes
    from corral.runtime import get_backend

    wasm = wasm_bytes()
    step("read corral.wasm")
    backend = get_backend()
    step("backend: wasmtime Engine and config")
    backend.cache_key(wasm)
    step("cache key: sha256 of the module")
    backend.load(wasm)
    step("Module.deserialize_file (compiled module in the disk cache)")
    inside = _time_calls(wasmtime, protocol)
    last = time.perf_counter()
    sandbox = corral.Sandbox()
    step("Sandbox(): store, WASI imports, instantiate, guest init")
    sandbox.execute("return 1+2")
    step("first execute('return 1+2')")
    sandbox.execute("echo hi", language="shell")
    step("first execute('echo hi', 'shell')")
    print(json.dumps({**steps, **{f"  in Sandbox(): {k}": v for k, v in inside.items()}}))


def _time_calls(wasmtime: Any, protocol: Any) -> dict[str, float]:
    """Wrap the calls that make an instance with timers (first call only, or all: define)."""
    from corral.runtime import _wasmtime

    times: dict[str, float] = {}

    def wrap(owner: Any, name: str, label: str, every: bool = False) -> None:
        original = getattr(owner, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                if every or label not in times:
                    elapsed = (time.perf_counter() - start) * 1e3
                    times[label] = times.get(label, 0.0) + elapsed

        setattr(owner, name, timed)

    wrap(wasmtime.Linker, "define_func", "Linker.define_func, every WASI import", every=True)
    wrap(wasmtime.Linker, "instantiate", "Linker.instantiate")
    wrap(_wasmtime.WasmtimeInstance, "call", "the guest's _initialize (first export call)")
    wrap(protocol.Driver, "_send", "corral_init (the first message: guest set-up)")
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    runs = []
    for _ in range(args.runs):
        done = subprocess.run(
            [sys.executable, __file__, CHILD], capture_output=True, text=True, check=True
        )
        runs.append(json.loads(done.stdout))
    print(f"{'step':68} {'median':>8} {'min':>8}  (ms, {args.runs} fresh processes)")
    for name in runs[0]:
        values = [run[name] for run in runs]
        print(f"{name:68} {statistics.median(values):8.2f} {min(values):8.2f}")
    return 0


if __name__ == "__main__":
    if CHILD in sys.argv:
        child()
    else:
        sys.exit(main())
