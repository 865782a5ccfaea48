"""Where the time of one operation goes, step by step (issue 14): corral alone.

    PYTHONPATH=python python bench/steps.py create|return|tool|echo [--runs N] [--idle S]

Times the operation ``--runs`` times (after a warm-up), each time also timing its steps: every
call into the guest by export name (``corral_submit``, ``corral_resume``...), and the host
steps around them (instantiating, copying the init image).
Prints each step's median per operation; what is left of the total is the host's Python.
``--idle S`` sleeps S seconds (untimed) before each sample, as an agent's sandbox idles while
the model thinks. Nothing is asserted (see bench/README.md).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import corral.runtime._wasmtime as native
from corral import Sandbox
from corral._image import InitImage

_samples: defaultdict[str, list[float]] = defaultdict(list)
_current: defaultdict[str, float] = defaultdict(float)


def _timed(owner: Any, name: str, label: Callable[..., str]) -> None:
    """Replace ``owner.name`` by a wrapper that adds its duration to the step ``label(...)``."""
    original = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            _current[label(*args)] += time.perf_counter() - started

    setattr(owner, name, wrapper)


def _instrument() -> None:
    _timed(native.WasmtimeInstance, "call", lambda _self, export, *_: f"guest call {export}")
    _timed(native.WasmtimeBackend, "instantiate", lambda *_: "instantiate (store, instance)")
    _timed(InitImage, "apply", lambda *_: "load the init image (natively: map it)")


def echo(x: int) -> dict[str, int]:
    """Return the argument."""
    return {"x": x}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("operation", choices=["create", "return", "tool", "echo"])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--idle", type=float, default=0.0)
    args = parser.parse_args()
    live = Sandbox(tools=[echo], record=False)
    live.execute("return 1")
    operations: dict[str, Callable[[], object]] = {
        "create": lambda: Sandbox(tools=[echo], record=False),
        "return": lambda: live.execute("return 1+2"),
        "tool": lambda: live.execute("return await echo({x: 1})"),
        "echo": lambda: live.execute("echo hi", language="shell"),
    }
    operation = operations[args.operation]
    for _ in range(20):
        operation()
    _instrument()
    for _ in range(args.runs):
        if args.idle:
            time.sleep(args.idle)
        _current.clear()
        started = time.perf_counter()
        operation()
        _current["total"] = time.perf_counter() - started
        for step, seconds in _current.items():
            _samples[step].append(seconds)
    print(f"| step of `{args.operation}` (idle {args.idle:g} s) | median | share |\n|---|---|---|")
    total = statistics.median(_samples["total"])
    for step, values in sorted(_samples.items(), key=lambda item: -statistics.median(item[1])):
        # A step that not every sample has (e.g. a realm wait) counts as 0 in the others.
        median = statistics.median(values + [0.0] * (args.runs - len(values)))
        print(f"| {step} | {median * 1e6:.0f} µs | {median / total:.0%} |")


if __name__ == "__main__":
    main()
