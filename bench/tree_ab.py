"""Before/after of the spine's execution rows: two checkouts of corral in one process.

    python bench/tree_ab.py BEFORE/python AFTER/python [--rows simple,tool,batch,abatch,echo]

Imports each tree's ``corral`` package under its own name and runs each row's samples
interleaved, one of each tree in turn, so that both see the same load: on a shared machine
that is the fairest comparison. Reports the median thread CPU time (and wall time) per
execution, per call for the ``Promise.all`` rows. Nothing is asserted (see bench/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

BATCH = 1000
"""Tool calls issued by one ``Promise.all``."""


def _all(tool: str) -> str:
    calls = f"Array.from({{length: {BATCH}}}, (_, x) => {tool}({{x}}))"
    return f"return (await Promise.all({calls})).length"


ROWS: dict[str, tuple[str, str, int, int]] = {
    # row: (code, language, calls per execution, samples per tree)
    "simple": ("return 1+2", "javascript", 1, 400),
    "tool": ("return await echo({x: 1})", "javascript", 1, 300),
    "batch": (_all("echo"), "javascript", BATCH, 12),
    "abatch": (_all("aecho"), "javascript", BATCH, 8),
    "echo": ("echo hi", "shell", 1, 400),
}


def echo(x: int) -> dict[str, int]:
    """Return the argument."""
    return {"x": x}


async def aecho(x: int) -> dict[str, int]:
    """Return the argument."""
    return {"x": x}


def _load(name: str, package: str) -> ModuleType:
    """The ``corral`` package at ``package`` (a directory), imported as ``name``."""
    spec = importlib.util.spec_from_file_location(
        name, f"{package}/__init__.py", submodule_search_locations=[package]
    )
    if spec is None or spec.loader is None:
        raise SystemExit(f"no corral package at {package}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _runner(sandbox: Any, row: str) -> Callable[[], object]:
    code, language, _, _ = ROWS[row]
    if row == "abatch":
        # One loop for every sample, as run.py has: asyncio.run would also time its own
        # set-up and its SIGINT handler's restore, which formats the finished task's repr,
        # and so the result's thousand ToolCall reprs (~5 µs per call).
        loop = asyncio.new_event_loop()
        return lambda: loop.run_until_complete(sandbox.aexecute(code))
    return lambda: sandbox.execute(code, language)


def _row(row: str, sandboxes: dict[str, Any]) -> str:
    _, _, per, samples = ROWS[row]
    runs = {tree: _runner(sandbox, row) for tree, sandbox in sandboxes.items()}
    for run in runs.values():
        for _ in range(3 if per > 1 else 30):
            run()
    cpu: dict[str, list[float]] = {tree: [] for tree in runs}
    wall: dict[str, list[float]] = {tree: [] for tree in runs}
    gc.collect()
    gc.disable()
    try:
        for index in range(samples):
            for tree in sorted(runs, reverse=index % 2 == 1):
                started, cpu_started = time.perf_counter_ns(), time.thread_time_ns()
                runs[tree]()
                cpu[tree].append((time.thread_time_ns() - cpu_started) / per / 1000)
                wall[tree].append((time.perf_counter_ns() - started) / per / 1000)
            if per > 1:
                gc.collect()
    finally:
        gc.enable()
    before, after = (statistics.median(cpu[tree]) for tree in ("1-before", "2-after"))
    walls = " → ".join(f"{statistics.median(wall[tree]):.1f}" for tree in ("1-before", "2-after"))
    unit = "µs per call" if per > 1 else "µs"
    return (
        f"| {row} | {before:.1f} → {after:.1f} {unit} ({after / before - 1:+.0%}) "
        f"| {walls} {unit} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="the python/ directory of the tree before")
    parser.add_argument("after", help="the python/ directory of the tree after")
    parser.add_argument("--rows", default=",".join(ROWS))
    args = parser.parse_args()
    # The packages import a few names as ``corral.…``: let those come from the tree after.
    sys.path.insert(0, args.after)
    trees = {"1-before": args.before, "2-after": args.after}
    sandboxes = {
        tree: _load(f"corral_{tree[2:]}", f"{path}/corral").Sandbox(tools=[echo, aecho])
        for tree, path in trees.items()
    }
    print("| row | thread CPU, median: before → after | wall, median |\n|---|---|---|")
    for row in args.rows.split(","):
        print(_row(row, sandboxes), flush=True)


if __name__ == "__main__":
    main()
