"""Where the time of one operation goes, step by step (issue 14): corral alone.

    PYTHONPATH=python python bench/steps.py create|return|tool|batch|echo [--runs N] [--idle S]

Times the operation ``--runs`` times (after a warm-up), each time also timing its steps: every
call into the guest by export name (``corral_submit``, ``corral_resume``...), every call the
guest makes out to the host's Python (a WASI import: a clock reading, random bytes), and the
host steps around them (instantiating, copying the init image). ``batch`` is a
``Promise.all`` of ``BATCH`` tool calls, reported per call.
Prints each step's median per operation and how many times it ran; what is left of the total
is the host's Python.
``--idle S`` sleeps S seconds (untimed) before each sample, as an agent's sandbox idles while
the model thinks. ``--perfmap`` lets ``perf record -e cpu-clock`` attribute the time spent in
guest code, by function name if the module kept its names (``wasm-opt -Oz -g`` on cargo's
output, given as ``CORRAL_WASM``). Nothing is asserted (see bench/README.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import corral.runtime._wasmtime as native
from corral import Sandbox
from corral._image import InitImage

BATCH = 1000
"""Tool calls issued by the ``batch`` operation's ``Promise.all``."""
_samples: defaultdict[str, list[float]] = defaultdict(list)
_current: defaultdict[str, float] = defaultdict(float)
_counts: defaultdict[str, int] = defaultdict(int)


def _add(step: str, seconds: float) -> None:
    _current[step] += seconds
    _counts[step] += 1


def _timed(owner: Any, name: str, label: Callable[..., str]) -> None:
    """Replace ``owner.name`` by a wrapper that adds its duration to the step ``label(...)``."""
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _add(label(*args), time.perf_counter() - started)

    setattr(owner, name, wrapper)


def _timed_import(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    def run(*args: int) -> Any:
        started = time.perf_counter()
        try:
            return func(*args)
        finally:
            _add(f"… of which WASI import {name}", time.perf_counter() - started)

    return run


def _instrument(live: Sandbox) -> None:
    _timed(native.WasmtimeInstance, "call", lambda _self, export, *_: f"guest call {export}")
    _timed(native.WasmtimeBackend, "instantiate", lambda *_: "instantiate (store, instance)")
    _timed(InitImage, "apply", lambda *_: "load the init image (natively: map it)")
    # The live sandbox's WASI imports (timed inside its guest calls): each is a call out of the
    # guest into Python through wasmtime-py.
    imports = live._driver.instance._shim.functions()  # type: ignore[attr-defined]
    for name, function in imports.items():
        imports[name] = dataclasses.replace(function, func=_timed_import(name, function.func))


def _perfmap() -> None:
    """Every wasmtime engine made from now on writes a perf map of the code it compiles (a
    different engine configuration: the first run compiles the module, and caches it apart)."""
    import wasmtime

    original = wasmtime.Config.__init__

    def init(self: wasmtime.Config) -> None:
        original(self)
        self.profiler = "perfmap"

    wasmtime.Config.__init__ = init  # type: ignore[method-assign]


def echo(x: int) -> dict[str, int]:
    """Return the argument."""
    return {"x": x}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("operation", choices=["create", "return", "tool", "batch", "echo"])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--idle", type=float, default=0.0)
    parser.add_argument(
        "--perfmap",
        action="store_true",
        help="have wasmtime write /tmp/perf-PID.map, so that `perf record` names guest code",
    )
    args = parser.parse_args()
    if args.perfmap:
        _perfmap()
    live = Sandbox(tools=[echo], record=False)
    live.execute("return 1")
    operations: dict[str, Callable[[], object]] = {
        "create": lambda: Sandbox(tools=[echo], record=False),
        "return": lambda: live.execute("return 1+2"),
        "tool": lambda: live.execute("return await echo({x: 1})"),
        "batch": lambda: live.execute(
            f"return (await Promise.all(Array.from({{length: {BATCH}}}, (_, x) => echo({{x}}))))"
            ".length"
        ),
        "echo": lambda: live.execute("echo hi", language="shell"),
    }
    operation = operations[args.operation]
    per = BATCH if args.operation == "batch" else 1
    for _ in range(20 if per == 1 else 2):
        operation()
    _instrument(live)
    for _ in range(args.runs):
        if args.idle:
            time.sleep(args.idle)
        _current.clear()
        started = time.perf_counter()
        operation()
        _current["total"] = time.perf_counter() - started
        for step, seconds in _current.items():
            _samples[step].append(seconds)
    unit = " per call" if per > 1 else ""
    print(
        f"| step of `{args.operation}`{unit} (idle {args.idle:g} s) | median | share | times |\n"
        "|---|---|---|---|"
    )
    total = statistics.median(_samples["total"])
    for step, values in sorted(_samples.items(), key=lambda item: -statistics.median(item[1])):
        # A step that not every sample has (e.g. a realm wait) counts as 0 in the others.
        median = statistics.median(values + [0.0] * (args.runs - len(values)))
        times = "" if step == "total" else f"{_counts[step] / args.runs:g}"
        print(f"| {step} | {median / per * 1e6:.1f} µs | {median / total:.0%} | {times} |")


if __name__ == "__main__":
    main()
