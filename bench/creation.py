"""What creating sandboxes costs, corral alone (issue 14): time and memory.

    PYTHONPATH=python python bench/creation.py create [--runs N]
    PYTHONPATH=python python bench/creation.py memory [--sandboxes N] [--cycles N]
    PYTHONPATH=python python bench/creation.py pages [--executions N] [--code JS] [--idle]

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
Then it waits until the idle sandboxes gave their unused pages back (``corral._idle``) and
prints the growth again. ``pages`` shows where one sandbox's memory is mapped after
``--executions`` runs of ``--code`` (``--idle``: and once they were given back)
(Linux: ``/proc/self/pagemap``): for each region of the guest's linear memory (the stack, the
module's data segments, the heap up to the init image's end, what grew beyond), its pages
private to the instance (written since it mapped the image) and its pages of the image file
mapped (read: the kernel maps up to 16 around each read fault), then a map of every 64 KiB
window. VmRSS counts both kinds for each instance; Pss counts a shared page once.
Nothing is asserted (see bench/README.md).
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import struct
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from corral import Sandbox, _idle, configure_runtime
from corral._image import images_for
from corral._module import wasm_path
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
    hold_releases()
    Sandbox(record=False).execute("return 1")
    gc.collect()
    before = memory_status()
    sandboxes = [Sandbox(record=False) for _ in range(count)]
    idle = memory_status()
    for sandbox in sandboxes:
        sandbox.execute("return 1")
    used = memory_status()
    waited = released_when_idle()
    rested = memory_status()

    def grown(now: dict[str, int]) -> str:
        grew = {k: now[k] - before[k] for k in now}
        return ", ".join(
            f"{k} +{kib / 1024:,.0f} MiB ({kib / count:,.0f} KiB each)" for k, kib in grew.items()
        )

    print(f"reservation per instance: {'default' if reservation is None else reservation}")
    print(f"{count} live sandboxes, idle: {grown(idle)}")
    print(f"... after one execution each: {grown(used)}")
    print(f"... then idle ({waited:.1f} s: unused pages given back): {grown(rested)}")
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


RELEASE_AFTER = _idle.IDLE_AFTER


def hold_releases() -> None:
    """No idle release until :func:`released_when_idle` (call before the first sandbox)."""
    _idle.IDLE_AFTER = 3600


def released_when_idle() -> float:
    """Let the idle sandboxes give their unused pages back (``corral._idle``, Linux), as they
    do after ``IDLE_AFTER`` seconds without use; the seconds waited. The release thread still
    sleeps out the hour :func:`hold_releases` set, so this thread releases them, with the
    thread's own call."""
    started = time.monotonic()
    time.sleep(RELEASE_AFTER)
    _idle.release_owners(time.monotonic() - RELEASE_AFTER)
    return time.monotonic() - started


PAGE = 4096
WINDOW = 16  # pages the kernel maps around a read fault (fault-around, 64 KiB)


def data_segments(module: bytes) -> list[tuple[int, int]]:
    """The active data segments of a wasm module as ``(address, length)``."""

    def leb(at: int) -> tuple[int, int]:
        value = shift = 0
        while True:
            byte = module[at]
            value, shift, at = value | (byte & 0x7F) << shift, shift + 7, at + 1
            if byte < 0x80:
                return value, at

    segments, at = [], 8
    while at < len(module):
        section, (size, at) = module[at], leb(at + 1)
        if section == 11:
            count, i = leb(at)
            for _ in range(count):
                _flags, i = leb(i)  # 0: active, memory 0, then `i32.const address; end`
                address, i = leb(i + 1)
                length, i = leb(i + 1)
                segments.append((address, length))
                i += length
        at += size
    return segments


def pages(executions: int, code: str, idle: bool) -> None:
    configure_runtime(memory_reservation=0)
    hold_releases()
    Sandbox(record=False).execute(code)  # the configuration's image, then one mapped from it
    sandbox = Sandbox(record=False)
    for _ in range(executions):
        sandbox.execute(code)
    title = f"{executions} runs of {code!r}"
    if idle:
        title += f", then idle ({released_when_idle():.1f} s: unused pages given back)"
    instance = sandbox._driver.instance
    size = instance.memory_size()
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(instance._base(0, size) // PAGE * 8)  # type: ignore[attr-defined]
        entries = [e for (e,) in struct.iter_unpack("<Q", f.read(size // PAGE * 8))]
    # Present (bit 63): a private copy, or a page of the image file (bit 61).
    kinds = ["." if not e >> 63 & 1 else "F" if e >> 61 & 1 else "P" for e in entries]
    segments = data_segments(wasm_path().read_bytes())
    data, data_end = segments[0][0] // PAGE, -(-max(a + n for a, n in segments) // PAGE)
    image = next(iter(images_for(sandbox._driver._module)._by_config.values())).size // PAGE
    print(f"{title}: P private pages, F the image file's pages mapped")
    for name, start, end in (
        ("stack", 0, data),
        ("data segments", data, data_end),
        ("heap (in the image)", data_end, image),
        ("heap (grown since)", image, len(kinds)),
    ):
        part = kinds[start:end]
        windows = {(start + i) // WINDOW for i, kind in enumerate(part) if kind != "."}
        print(
            f"  {name:20} {len(part):4} pages: P {part.count('P'):4}, F {part.count('F'):4} "
            f"in {len(windows)} windows of 64 KiB"
        )
    for at in range(0, len(kinds), WINDOW):
        window = "".join(kinds[at : at + WINDOW])
        if window.strip("."):
            print(f"  {at * PAGE:#09x} {window}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("create").add_argument("--runs", type=int, default=500)
    mem = sub.add_parser("memory")
    mem.add_argument("--sandboxes", type=int, default=1000)
    mem.add_argument("--cycles", type=int, default=10000)
    mem.add_argument("--reservation", type=int, default=None)
    mapped = sub.add_parser("pages")
    mapped.add_argument("--executions", type=int, default=2)
    mapped.add_argument("--code", default="return 1")
    mapped.add_argument("--idle", action="store_true", help="after the idle release")
    args = parser.parse_args()
    if args.what == "create":
        create(args.runs)
    elif args.what == "pages":
        pages(args.executions, args.code, args.idle)
    else:
        memory(args.sandboxes, args.cycles, args.reservation)


if __name__ == "__main__":
    main()
