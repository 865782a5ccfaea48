"""What creating sandboxes costs, corral alone (issue 14): time and memory.

    PYTHONPATH=python python bench/creation.py create [--runs N]
    PYTHONPATH=python python bench/creation.py memory [--sandboxes N] [--cycles N]

``create`` times ``Sandbox()`` made from its configuration's init image (the usual case, see
``corral._image``), made from the image in the disk cache (a process's first sandbox), made
without one (the first sandbox of a configuration anywhere), and followed by a first
``return 1+2`` (the first sandbox of a fresh process: ``bench/first_sandbox.py``); then
executions in a live sandbox, back to back and after a little idle time (an agent's sandbox
idles while the model thinks: the caches go cold).
``memory`` keeps N sandboxes alive and prints how the process's memory grew, in total and per
sandbox: VmRSS, and its parts RssAnon (private to the process) and RssFile or RssShmem (pages
of the compiled module's memory image, mapped from the cached file, and of the configuration's
init image, mapped from a memory file on Linux (see ``corral._image``): shared copy-on-write by
every instance but counted once per instance by VmRSS), Pss (which counts those shared pages
once), and the address space
reserved (VmSize); then creates and drops ``--cycles`` sandboxes and prints VmRSS against the
start. ``--reservation BYTES`` bounds each
instance's address-space reservation (``corral.configure_runtime(memory_reservation=...)``;
by default wasmtime reserves 4 GiB per instance so that guest code needs no bounds checks).
Nothing is asserted (see bench/README.md).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from corral import Sandbox, configure_runtime
from corral._image import images_for
from lifecycle import status

IDLE = 0.15
"""Seconds between samples in the rows "after idle time" (untimed): an agent's sandbox is idle
between executions (the model thinks), and its caches go cold meanwhile."""


def median_ms(action: Callable[[], object], runs: int, idle: float = 0.0) -> float:
    samples = []
    for _ in range(runs):
        if idle:
            time.sleep(idle)
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def memory_status() -> dict[str, int]:
    """VmRSS, its parts RssAnon, RssFile and RssShmem, Pss and VmSize of this process in KiB.

    Pss (from ``/proc/self/smaps_rollup``) counts a page shared by n mappings as 1/n: the
    compiled module's image pages, which VmRSS counts once per instance, count once in all."""
    with open("/proc/self/smaps_rollup") as f:
        pss = next(int(line.split()[1]) for line in f if line.startswith("Pss:"))
    rss = status(("VmRSS", "RssAnon", "RssFile", "RssShmem"))
    return {**rss, "Pss": pss, **status(("VmSize",))}


def create(runs: int) -> None:
    warm = Sandbox(record=False)
    warm.execute("return 1")
    images = images_for(warm._driver._module)

    def from_disk() -> None:
        images._by_config.clear()
        Sandbox(record=False).close()

    empty = tempfile.mkdtemp(prefix="corral-bench-")  # a disk cache without images

    def without_image() -> None:
        images._by_config.clear()
        shutil.rmtree(Path(empty) / "images", ignore_errors=True)
        saved, os.environ["CORRAL_CACHE_DIR"] = os.environ.get("CORRAL_CACHE_DIR"), empty
        try:
            Sandbox(record=False).close()
        finally:
            if saved is None:
                del os.environ["CORRAL_CACHE_DIR"]
            else:
                os.environ["CORRAL_CACHE_DIR"] = saved

    def with_first_run() -> None:
        with Sandbox(record=False) as sandbox:
            sandbox.execute("return 1 + 2")

    def tool_call() -> None:
        with_tool.execute("return await echo({x: 1})")

    with_tool = Sandbox(tools=[echo], record=False)
    rows: dict[str, tuple[Callable[[], object], float]] = {
        "Sandbox() from the init image (+ close)": (lambda: Sandbox(record=False).close(), 0),
        "Sandbox() from the image in the disk cache, as a process's first (+ close)": (
            from_disk,
            0,
        ),
        "Sandbox() without an image: initialize, store the image (+ close)": (without_image, 0),
        "Sandbox() + first `return 1+2` (+ close)": (with_first_run, 0),
        "`return 1+2` in a live sandbox, back to back": (lambda: warm.execute("return 1+2"), 0),
        f"`return 1+2` in a live sandbox, after {IDLE * 1000:g} ms idle": (
            lambda: warm.execute("return 1+2"),
            IDLE,
        ),
        "one tool call, back to back": (tool_call, 0),
        f"one tool call, after {IDLE * 1000:g} ms idle": (tool_call, IDLE),
        "`echo hi` in a live sandbox": (lambda: warm.execute("echo hi", language="shell"), 0),
    }
    print("| operation | median |\n|---|---|")
    for name, (action, idle) in rows.items():
        print(f"| {name} | {median_ms(action, runs, idle):.3f} ms |")


def echo(x: int) -> dict[str, int]:
    """Return the argument."""
    return {"x": x}


def memory(count: int, cycles: int, reservation: int | None) -> None:
    configure_runtime(memory_reservation=reservation)
    Sandbox(record=False).execute("return 1")
    gc.collect()
    before = memory_status()
    sandboxes = [Sandbox(record=False) for _ in range(count)]
    idle = memory_status()
    for sandbox in sandboxes:
        sandbox.execute("return 1")
    used = memory_status()

    def grown(now: dict[str, int]) -> str:
        grew = {k: now[k] - before[k] for k in now}
        return ", ".join(
            f"{k} +{kib / 1024:,.0f} MiB ({kib / count:,.0f} KiB each)" for k, kib in grew.items()
        )

    print(f"reservation per instance: {'default' if reservation is None else reservation}")
    print(f"{count} live sandboxes, idle: {grown(idle)}")
    print(f"... after one execution each: {grown(used)}")
    del sandboxes, sandbox
    gc.collect()
    start = memory_status()
    for _ in range(cycles):
        Sandbox(record=False).execute("return 1")
    gc.collect()
    end = memory_status()
    print(
        f"{cycles} sandboxes created, run and dropped: VmRSS {start['VmRSS'] / 1024:.0f} -> "
        f"{end['VmRSS'] / 1024:.0f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("create").add_argument("--runs", type=int, default=500)
    mem = sub.add_parser("memory")
    mem.add_argument("--sandboxes", type=int, default=1000)
    mem.add_argument("--cycles", type=int, default=10000)
    mem.add_argument("--reservation", type=int, default=None)
    args = parser.parse_args()
    if args.what == "create":
        create(args.runs)
    else:
        memory(args.sandboxes, args.cycles, args.reservation)


if __name__ == "__main__":
    main()
