"""Timing primitives: run an operation many times and keep every sample, in nanoseconds; and
the facts about the machine and the subjects that every report prints beside them.

Nothing here asserts a speed. :func:`measure` returns the samples; the report turns them into
medians, p90s and ratios.
"""

from __future__ import annotations

import gc
import math
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

__all__ = [
    "Failed",
    "NotAvailable",
    "Outcome",
    "Scalar",
    "Stats",
    "Timed",
    "UnavailableError",
    "cpu_model",
    "installed_version",
    "load_average",
    "measure",
]


class UnavailableError(Exception):
    """Raised by a subject that cannot do a measurement; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Timed:
    """One operation to time.

    Attributes:
        fn: The timed call. Its return value is handed to ``after``.
        before: Untimed set-up run before every sample (e.g. an empty cache directory).
        after: Untimed clean-up run after every sample, with ``fn``'s return value.
        max_runs: Cap on samples, for operations that can only be cold once per process.
        warmup: Whether warm-up calls are allowed (never for cold-start operations).
        note: How the subject performs this operation, shown as a footnote.
        reported: ``fn`` returns the sample itself (nanoseconds, timed elsewhere: in a child
            process), which replaces the wall time of the call.
    """

    fn: Callable[[], object]
    before: Callable[[], None] | None = None
    after: Callable[[object], None] | None = None
    max_runs: int | None = None
    warmup: bool = True
    note: str = ""
    reported: bool = False


@dataclass(frozen=True)
class Stats:
    """Timing samples of one operation, in nanoseconds."""

    samples_ns: tuple[int, ...]
    note: str = ""

    @property
    def n(self) -> int:
        """Number of samples."""
        return len(self.samples_ns)

    @property
    def median(self) -> float:
        """Median sample (ns)."""
        return float(statistics.median(self.samples_ns))

    @property
    def p90(self) -> float:
        """90th percentile sample (ns), nearest-rank."""
        ordered = sorted(self.samples_ns)
        return float(ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)])

    @property
    def min(self) -> float:
        """Fastest sample (ns)."""
        return float(min(self.samples_ns))


@dataclass(frozen=True)
class Scalar:
    """A measured quantity that is not a timing (e.g. a size in bytes)."""

    value: float
    note: str = ""


@dataclass(frozen=True)
class NotAvailable:
    """The subject cannot do this measurement (printed as "n/a" with ``reason``)."""

    reason: str


@dataclass(frozen=True)
class Failed:
    """The measurement raised; the benchmark keeps going and reports the error."""

    error: str


Outcome = Stats | Scalar | NotAvailable | Failed

_COLLECT_EVERY_NS = 50_000_000


def _sample(timed: Timed) -> int:
    """Time one call of ``timed.fn`` (set-up and clean-up excluded)."""
    if timed.before is not None:
        timed.before()
    start = time.perf_counter_ns()
    result = timed.fn()
    elapsed = time.perf_counter_ns() - start
    if timed.after is not None:
        timed.after(result)
    return int(result) if timed.reported else elapsed  # type: ignore[call-overload]


def measure(timed: Timed, runs: int, warmup: int = 0) -> Stats:
    """Run ``timed`` ``warmup`` times untimed, then ``runs`` times timed, GC paused while timing.

    Like ``timeit``, the cyclic garbage collector does not run inside a sample; a full
    collection runs, untimed, before the first sample and after every ~50 ms of timed work,
    so that garbage is neither charged to a sample nor allowed to pile up.
    """
    count = runs if timed.max_runs is None else min(runs, timed.max_runs)
    for _ in range(warmup if timed.warmup else 0):
        _sample(timed)
    samples: list[int] = []
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        since_collect = 0
        for _ in range(max(1, count)):
            samples.append(_sample(timed))
            since_collect += samples[-1]
            if since_collect >= _COLLECT_EVERY_NS:
                gc.collect()
                since_collect = 0
    finally:
        if enabled:
            gc.enable()
    return Stats(tuple(samples), note=timed.note)


def cpu_model() -> str:
    """The CPU's model name (from ``/proc/cpuinfo`` where there is one)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the platform has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def installed_version(dist: str) -> str:
    """The installed version of distribution ``dist``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "(not installed as a distribution)"
