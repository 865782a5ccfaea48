"""Where the first sandbox of a fresh Python process spends its time (issue 14's profile).

Usage::

    python bench/first_sandbox.py [--runs N]

Runs N fresh processes (15 by default), each doing, step by step and timed with
``time.perf_counter`` (no profiler, so no profiler overhead): ``import corral`` (its public
names are imported on first use), ``from corral import Sandbox`` (the modules a sandbox
needs), loading wasmtime's library (``ctypes``, see ``corral.runtime._capi``: wasmtime-py
itself is not imported), the backend (engine, WASI linker), the module's cache key (a
``stat`` and the module's hash remembered in the disk cache), loading the compiled module
from the disk cache, ``Sandbox()``, then a first ``return 1+2`` and ``echo hi``. Inside
``Sandbox()``, a few calls are wrapped with timers (the runtime is not changed): the store
and ``instantiate``, reading the init image from the disk cache, mapping it, and the first
message (``corral_reseed``; ``corral_init`` when there is no image yet). Prints each step's
median and minimum over the runs, in ms, and the total that issue 14's target is about:
``import corral`` + ``Sandbox()`` + the first ``return 1+2`` (everything after the
interpreter started; the interpreter's own start-up, ~10 ms, is not in it), in wall-clock
time and in CPU time (``time.process_time``: what a loaded machine inflates least). The
processes run with bytecode caches (``__pycache__``, as an installed package has them: they
are written first), and the compiled module must be in the disk cache already (any earlier
``Sandbox()`` on this machine puts it there).
"""

from __future__ import annotations

import sys
import time

# Only what a child needs before its first step: the modules corral imports itself (typing,
# pathlib, json, re...) must not be loaded before it is timed. The parent's are imported in
# main(); hence ``object`` rather than ``typing.Any`` below.

CHILD = "--child"
TOTAL = "total: import corral + Sandbox() + first execute('return 1+2')"
TOTAL_CPU = "the total in CPU time (process_time)"


def child() -> None:
    """One fresh process's measurements, as JSON on stdout."""
    steps: dict[str, float] = {}
    cpu = time.process_time()
    last = time.perf_counter()

    def step(name: str) -> None:
        nonlocal last
        now = time.perf_counter()
        steps[name] = (now - last) * 1e3
        last = now

    import corral  # noqa: F401 - what this step times

    step("import corral")
    from corral import Sandbox

    step("from corral import Sandbox: the modules a sandbox needs")
    from corral import protocol
    from corral._module import wasm_file
    from corral.runtime import _wasmtime, get_backend

    _wasmtime._library()
    step("wasmtime's library: ctypes, dlopen (functions declared on first use)")
    backend = get_backend()
    step("backend: engine, config, WASI linker")
    wasm = wasm_file()
    backend.cache_key(wasm)
    step("cache key: stat the module, its hash remembered on disk")
    backend.load(wasm)
    step("Module.deserialize_file (compiled module in the disk cache)")
    inside = _time_calls(protocol)
    last = time.perf_counter()
    sandbox = Sandbox()
    step("Sandbox(): store, instantiate, guest init")
    sandbox.execute("return 1+2")
    step("first execute('return 1+2')")
    steps[TOTAL] = sum(steps.values())
    steps[TOTAL_CPU] = (time.process_time() - cpu) * 1e3
    sandbox.execute("echo hi", language="shell")
    step("first execute('echo hi', 'shell'), not in the total")
    import json

    print(json.dumps({**steps, **{f"  in Sandbox(): {k}": v for k, v in inside.items()}}))


def _time_calls(protocol: object) -> dict[str, float]:
    """Wrap the calls that make an instance with timers (first call only, or all: define)."""
    from corral.runtime import _wasmtime

    times: dict[str, float] = {}

    def wrap(owner: object, name: str, label: str, every: bool = False) -> None:
        original = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                if every or label not in times:
                    elapsed = (time.perf_counter() - start) * 1e3
                    times[label] = times.get(label, 0.0) + elapsed

        setattr(owner, name, timed)

    wrap(_wasmtime.WasmtimeInstance, "__init__", "the store, instantiate")
    wrap(_wasmtime.WasmtimeBackend, "stored_image", "the init image from the disk cache")
    wrap(_wasmtime.WasmtimeInstance, "load_image", "the init image mapped (mmap)")
    wrap(protocol.Driver, "_send", "the first message (corral_reseed; corral_init if no image)")
    return times


def main() -> int:
    import argparse
    import compileall
    import json
    import os
    import statistics
    import subprocess
    from pathlib import Path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    import corral

    compileall.compile_dir(Path(corral.__file__).parent, quiet=1)  # as pip install does
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    corral.Sandbox()  # the compiled module into the disk cache, the bytecode caches written
    runs = []
    for _ in range(args.runs):
        done = subprocess.run(
            [sys.executable, __file__, CHILD], capture_output=True, text=True, check=True, env=env
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
