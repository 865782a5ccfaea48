"""Benchmark the spine (JavaScript + tool calls): corral and its peers, side by side, one process.

Usage::

    PYTHONPATH=python python bench/run.py [--quick] [--json PATH] [--note TEXT] [--peers ...]

Prints a markdown table on stdout (progress goes to stderr): one row per measurement, one
column per subject, then each peer's ratio to corral (peer / corral: above 1 means corral is
faster or smaller), then corral's target. Nothing is asserted: a missed target is shown, not
raised, except the module's ceilings (``ceilings.py``): a run that finds one crossed says so
and exits 1. Peers that are not installed are skipped with a note. The results (with the machine,
date and versions) replace ``bench/results.json``, the file the README's figures are checked
against, unless ``--json`` names another file.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib.util
import os
import platform
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def _ensure_corral_importable() -> None:
    """Fall back to this checkout's ``python/`` when corral is not on the path."""
    if importlib.util.find_spec("corral") is None:
        sys.path.insert(0, str(REPO / "python"))


_ensure_corral_importable()

import ceilings  # noqa: E402
from harness import (  # noqa: E402
    Failed,
    NotAvailable,
    Outcome,
    Scalar,
    Stats,
    Timed,
    UnavailableError,
    cpu_model,
    load_average,
    measure,
)
from peers import ADAPTERS, Adapter, RawWasm, Session  # noqa: E402
from report import (  # noqa: E402
    Row,
    add_results_options,
    format_quantity,
    markdown,
    row_value,
    save_results,
    to_json,
)

BATCH = 1000
"""Tool calls issued by one ``Promise.all``."""

RUNS: dict[str, tuple[int, int, int]] = {
    # measurement: (samples with --quick, samples by default, warm-up calls)
    "compile_raw": (1, 3, 0),
    "load_cold": (1, 3, 0),
    "deser_raw": (5, 30, 0),
    "load_disk": (10, 30, 1),
    "load_memory": (50, 500, 5),
    "create": (10, 50, 2),
    "first": (3, 15, 1),
    "simple": (200, 2000, 20),
    "tool": (100, 1000, 10),
    "batch": (3, 15, 1),
    "abatch": (3, 15, 1),
}

ROUNDS = 5
"""Samples of one measurement are taken in this many rounds, alternating between subjects, so
that a burst of background load is shared instead of landing on one subject."""


def _p90(stats: Stats) -> float:
    return stats.p90


def _per_call(stats: Stats) -> float:
    return stats.median / BATCH


MS = 1e6  # ns
ROWS: tuple[Row, ...] = (
    Row(
        "size",
        "module size (the .wasm that runs JS)",
        "size",
        target=ceilings.RAW_MAX,
        stat="bytes",
    ),
    Row("size_gz", "module size, gzip -9", "size", target=ceilings.GZIP_MAX, stat="bytes"),
    Row("size_all", "all .wasm shipped in the package", "size", stat="bytes"),
    Row(
        "compile_raw",
        "compile from bytes: raw wasmtime, fresh default engine",
        target=ceilings.COMPILE_MAX_NS,
    ),
    Row("load_cold", "first load via own API, no cache (compile + cache write)", target=1000 * MS),
    Row("deser_raw", "deserialize compiled module: raw wasmtime, fresh engine"),
    Row("load_disk", "cached load via own API: disk cache, fresh engine", target=5 * MS),
    Row("load_memory", "cached load via own API: in-process, second load", target=5 * MS),
    Row("create", "`Sandbox()` creation (module already loaded)", target=0.5 * MS),
    Row(
        "first",
        "first sandbox in a fresh process: import, `Sandbox()`, `return 1+2` (disk caches warm)",
        target=15 * MS,
    ),
    Row("simple", "execute `return 1+2`: median", target=0.1 * MS),
    Row("simple", "execute `return 1+2`: p90", pick=_p90, stat="p90"),
    Row("tool", "one tool call `return await echo({x: 1})`: median", target=0.15 * MS),
    Row("tool", "one tool call: p90", pick=_p90, stat="p90"),
    Row("batch", f"`Promise.all` of {BATCH} sync tool calls: total", stat="total"),
    Row(
        "batch",
        f"`Promise.all` of {BATCH} sync tool calls: per call",
        pick=_per_call,
        target=0.03 * MS,
        stat="per_call",
    ),
    Row("abatch", f"`Promise.all` of {BATCH} async tool calls: total", stat="total"),
    Row(
        "abatch",
        f"`Promise.all` of {BATCH} async tool calls: per call",
        pick=_per_call,
        target=0.03 * MS,
        stat="per_call",
    ),
)

EXPECTED: dict[str, Any] = {"simple": 3, "tool": {"x": 1}, "batch": BATCH, "abatch": BATCH}
"""What each session workload must return; checked once before it is timed."""


class Subject:
    """One adapter plus what the run keeps for it (raw-wasmtime helper, open session)."""

    def __init__(self, adapter: Adapter, workdir: Path) -> None:
        self.adapter = adapter
        self.name = adapter.name
        self.raw = RawWasm(adapter.name, adapter.engine_wasm().read_bytes(), workdir)
        self._session: Session | None = None

    def session(self) -> Session:
        """The subject's sandbox for the workloads, opened on first use."""
        if self._session is None:
            self._session = self.adapter.session()
        return self._session

    def close(self) -> None:
        """Close the session, if one was opened."""
        if self._session is not None:
            self._session.close()


def _session_op(subject: Subject, measurement: str) -> Timed:
    """A timed workload, checked once against :data:`EXPECTED` first."""
    session = subject.session()
    calls: dict[str, Callable[[], object]] = {
        "simple": session.simple,
        "tool": session.tool,
        "batch": lambda: session.batch(BATCH),
        "abatch": lambda: session.abatch(BATCH),
    }
    fn = calls[measurement]
    got, expected = fn(), EXPECTED[measurement]
    if got != expected:
        raise RuntimeError(f"returned {got!r}, expected {expected!r}")
    return Timed(fn)


def _operation(subject: Subject, measurement: str) -> Timed | Scalar:
    """What to measure for ``measurement`` on ``subject``; raises UnavailableError if n/a."""
    adapter = subject.adapter
    if measurement == "size":
        return Scalar(adapter.engine_wasm().stat().st_size)
    if measurement == "size_gz":
        return Scalar(ceilings.gzip_size(adapter.engine_wasm()))
    if measurement == "size_all":
        return Scalar(sum(path.stat().st_size for path in adapter.shipped_wasm()))
    own: dict[str, Callable[[], Timed]] = {
        "compile_raw": subject.raw.compile,
        "deser_raw": subject.raw.deserialize,
        "load_cold": adapter.cold_load,
        "load_disk": adapter.disk_load,
        "load_memory": adapter.memory_load,
        "create": adapter.create,
        "first": adapter.first_sandbox,
    }
    if measurement in own:
        return own[measurement]()
    return _session_op(subject, measurement)


def _prepare(subject: Subject, measurement: str) -> Timed | Outcome:
    """The operation to time, or the final outcome if there is nothing to time."""
    note = subject.adapter.notes.get(measurement, "")
    try:
        op = _operation(subject, measurement)
    except UnavailableError as error:
        return NotAvailable(error.reason)
    except Exception as error:
        return Failed(f"{subject.name}, {measurement}: {type(error).__name__}: {error}")
    return dataclasses.replace(op, note=note)


def _rounds(total: int) -> list[int]:
    """Split ``total`` samples into at most :data:`ROUNDS` non-empty chunks."""
    count = max(1, min(ROUNDS, total))
    return [total // count + (1 if i < total % count else 0) for i in range(count)]


def _interleave(ops: dict[str, Timed], runs: int, warmup: int, what: str) -> dict[str, Outcome]:
    """Time every op ``runs`` times, in rounds that alternate between subjects."""
    plans = {name: _rounds(min(runs, op.max_runs or runs)) for name, op in ops.items()}
    samples: dict[str, list[int]] = {name: [] for name in ops}
    failed: dict[str, Failed] = {}
    for index in range(max(map(len, plans.values()), default=0)):
        for name, op in ops.items():
            if name in failed or index >= len(plans[name]):
                continue
            try:
                stats = measure(op, plans[name][index], warmup if index == 0 else 0)
            except Exception as error:
                failed[name] = Failed(f"{name}, {what}: {type(error).__name__}: {error}")
                continue
            samples[name].extend(stats.samples_ns)
    return {
        name: failed.get(name) or Stats(tuple(samples[name]), note=op.note)
        for name, op in ops.items()
    }


def run_measurement(
    subjects: Sequence[Subject], measurement: str, quick: bool
) -> dict[str, Outcome]:
    """One measurement on every subject (corral first)."""
    quick_runs, full_runs, warmup = RUNS.get(measurement, (1, 1, 0))
    prepared = {s.name: _prepare(s, measurement) for s in subjects}
    ops = {name: op for name, op in prepared.items() if isinstance(op, Timed)}
    timed = _interleave(ops, quick_runs if quick else full_runs, warmup, measurement)
    return {name: timed[name] if isinstance(op, Timed) else op for name, op in prepared.items()}


def _progress(measurement: str, subject: str, outcome: Outcome) -> None:
    """One line on stderr per outcome, so a long run shows where it is."""
    row = next(r for r in ROWS if r.measurement == measurement)
    value = row_value(row, outcome)
    if value is not None:
        shown = format_quantity(value, row.kind)
        if isinstance(outcome, Stats):
            shown += f" (median of {outcome.n})"
    elif isinstance(outcome, NotAvailable):
        shown = f"n/a: {outcome.reason}"
    else:
        shown = f"error: {outcome.error}" if isinstance(outcome, Failed) else "?"
    print(f"  {measurement:<12} {subject:<13} {shown}", file=sys.stderr, flush=True)


def run_all(subjects: Sequence[Subject], quick: bool) -> dict[str, dict[str, Outcome]]:
    """Every measurement, in table order, on every subject (corral first)."""
    outcomes: dict[str, dict[str, Outcome]] = {}
    for measurement in dict.fromkeys(row.measurement for row in ROWS):
        outcomes[measurement] = run_measurement(subjects, measurement, quick)
        for name, outcome in outcomes[measurement].items():
            _progress(measurement, name, outcome)
    return outcomes


def load_subjects(names: Sequence[str], workdir: Path) -> tuple[list[Subject], list[str]]:
    """The adapters that can be built, and a note for each subject that was skipped."""
    subjects: list[Subject] = []
    skipped: list[str] = []
    for name in names:
        module, factory = ADAPTERS[name]
        if importlib.util.find_spec(module) is None:
            skipped.append(f"{name}: not installed (`pip install {name}`)")
            continue
        try:
            subjects.append(Subject(factory(), workdir))
        except Exception as error:
            skipped.append(f"{name}: could not be set up: {type(error).__name__}: {error}")
    return subjects, skipped


def metadata(
    subjects: Sequence[Subject], quick: bool, load_before: list[float] | None
) -> dict[str, Any]:
    """Where and how the numbers were taken."""
    from importlib.metadata import version

    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "mode": "quick" if quick else "full",
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "wasmtime": version("wasmtime"),
        "versions": {s.name: s.adapter.version() for s in subjects},
        "batch": BATCH,
        "runs": {m: r[0] if quick else r[1] for m, r in RUNS.items()},
    }


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    add_results_options(parser, REPO / "bench" / "results.json")
    parser.add_argument(
        "--peers",
        default=",".join(name for name in ADAPTERS if name != "corral"),
        help="comma-separated peers to run next to corral (default: all; '' for none)",
    )
    return parser.parse_args(argv)


def _busy_warning(meta: dict[str, Any]) -> str:
    load, cpus = meta["load_average_before"], meta["cpu_count"] or 1
    if load and load[0] > cpus / 2:
        return (
            f"**Warning: the machine was busy before the run (1-min load {load[0]} on {cpus} "
            "CPUs); absolute "
            "numbers are inflated and noisy; ratios are fairer (samples alternate between "
            "subjects) but not immune.**\n\n"
        )
    return ""


def _header(meta: dict[str, Any]) -> str:
    versions = ", ".join(f"{name} {v}" for name, v in meta["versions"].items())
    return (
        f"## corral spine benchmark ({meta['mode']}, {meta['date']})\n\n"
        f"{versions}; wasmtime {meta['wasmtime']}; Python {meta['python']}; "
        f"{meta['cpu']} x{meta['cpu_count']}; {meta['platform']}; "
        f"load average before/after {meta['load_average_before']}/"
        f"{meta['load_average_after']}\n\n"
        f"{_busy_warning(meta)}"
        "Medians unless marked p90; ratio = peer / corral (above 1: corral is faster or "
        "smaller). Sizes in MB = 10^6 bytes.\n"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark, print the table, write the results."""
    args = _parse(argv)
    unknown = [p for p in filter(None, args.peers.split(",")) if p not in ADAPTERS]
    if unknown:
        print(f"unknown peers {unknown}; known: {sorted(ADAPTERS)}", file=sys.stderr)
        return 2
    names = ["corral", *(p for p in filter(None, args.peers.split(",")) if p != "corral")]
    load_before = load_average()
    with tempfile.TemporaryDirectory(prefix="corral-bench-") as tmp:
        subjects, skipped = load_subjects(names, Path(tmp))
        for note in skipped:
            print(f"skipping {note}", file=sys.stderr)
        if not subjects or subjects[0].name != "corral":
            print("corral itself could not be loaded: " + "; ".join(skipped), file=sys.stderr)
            return 1
        try:
            outcomes = run_all(subjects, args.quick)
        finally:
            for subject in subjects:
                subject.close()
        meta = metadata(subjects, args.quick, load_before)
    order = [s.name for s in subjects]
    print(_header(meta))
    print(markdown(ROWS, outcomes, order))
    for note in skipped:
        print(f"\nSkipped {note}.")
    meta["skipped"] = skipped
    save_results(args, to_json(ROWS, outcomes, order, meta))
    text, crossed = ceilings.report(_ceiling_readings(outcomes))
    print(f"\n{text}")
    if crossed:
        print(text, file=sys.stderr)
    return 1 if crossed else 0


def _ceiling_readings(outcomes: dict[str, dict[str, Outcome]]) -> list[ceilings.Reading]:
    """corral's values for the ceilings from this run's outcomes."""

    def value(measurement: str) -> float | None:
        row = next(r for r in ROWS if r.measurement == measurement)
        outcome = outcomes.get(measurement, {}).get("corral")
        return None if outcome is None else row_value(row, outcome)

    return ceilings.readings(value("size"), value("size_gz"), value("compile_raw"))


if __name__ == "__main__":
    sys.exit(main())
