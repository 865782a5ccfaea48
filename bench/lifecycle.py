"""Lifecycle figures for corral alone (issue 11): time-to-kill and a leak soak.

    PYTHONPATH=python python bench/lifecycle.py kill [--runs N] [--timeout S]
    PYTHONPATH=python python bench/lifecycle.py soak [--cycles N] [--traps N]

``kill`` runs code that the guest's own deadline check stops (``while (true) {}``) and code that
only the native epoch backstop stops (builtins that ignore QuickJS's interrupt handler), and
prints how long after the time limit ``execute()`` returned: p50, p90, p99 and max. ``soak``
creates, runs and drops sandboxes, then traps one sandbox repeatedly, and prints the process's
resident memory (VmRSS) and address space (VmSize) before and after. Nothing is asserted here;
``tests/test_lifecycle.py`` holds the assertions (on a smaller soak).
"""

from __future__ import annotations

import argparse
import gc
import time

from corral import Limits, Sandbox

RUNAWAYS = {
    "guest check (while (true) {})": "while (true) {}",
    "backstop ([].sort on 2**32-1)": "Array.prototype.sort.call({length: 2 ** 32 - 1})",
    "backstop ([].reverse on 2**32-1)": "Array.prototype.reverse.call({length: 2 ** 32 - 1})",
    "either ([].join on 2**32-1)": "Array.prototype.join.call({length: 2 ** 32 - 1}, ',')",
}


def status(keys: tuple[str, ...] = ("VmSize", "VmRSS")) -> dict[str, int]:
    """Fields of /proc/self/status, in KiB (Linux): by default VmSize and VmRSS."""
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return {key: int(fields[key].split()[0]) for key in keys}


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def kill(runs: int, timeout: float) -> None:
    sandbox = Sandbox(limits=Limits(timeout=timeout))
    for name, code in RUNAWAYS.items():
        late = []
        for _ in range(runs):
            started = time.monotonic()
            result = sandbox.execute(code)
            late.append(time.monotonic() - started - timeout)
            assert result.error_kind == "timeout", result.error
        ms = {p: percentile(late, p) * 1000 for p in (50, 90, 99)}
        print(
            f"{name}: +{ms[50]:.0f} ms p50, +{ms[90]:.0f} ms p90, +{ms[99]:.0f} ms p99, "
            f"+{max(late) * 1000:.0f} ms max over {runs} runs (timeout {timeout:g} s)"
        )


def soak(cycles: int, traps: int) -> None:
    Sandbox().execute("return 1")  # load the module, warm the caches
    gc.collect()
    before = status()
    started = time.monotonic()
    for _ in range(cycles):
        sandbox = Sandbox()
        assert sandbox.execute("return 1 + 1").return_value == 2
        del sandbox
    sandbox = Sandbox()
    sandbox.fs.write("/workspace/kept.txt", b"kept")
    for _ in range(traps):
        assert sandbox.execute("function f() { return f() + 1 } f()").error_kind == "stack_overflow"
    assert sandbox.fs.read("/workspace/kept.txt") == b"kept"
    del sandbox
    gc.collect()
    after = status()
    took = time.monotonic() - started
    print(f"{cycles} create/execute/drop cycles and {traps} traps in {took:.1f} s")
    for key in ("VmRSS", "VmSize"):
        grew = (after[key] - before[key]) / 1024
        print(f"{key}: {before[key] / 1024:.1f} MiB -> {after[key] / 1024:.1f} MiB ({grew:+.1f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    k = sub.add_parser("kill", help="time-to-kill after the time limit")
    k.add_argument("--runs", type=int, default=25)
    k.add_argument("--timeout", type=float, default=2.0)
    s = sub.add_parser("soak", help="memory and address space over many sandboxes and traps")
    s.add_argument("--cycles", type=int, default=1000)
    s.add_argument("--traps", type=int, default=200)
    args = parser.parse_args()
    if args.command == "kill":
        kill(args.runs, args.timeout)
    else:
        soak(args.cycles, args.traps)


if __name__ == "__main__":
    main()
