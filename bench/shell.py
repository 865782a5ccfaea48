"""Benchmark the shell: corral against native bash + GNU tools and its peers, one process.

Usage::

    PYTHONPATH=python python bench/shell.py [--quick] [--only CASES] [--json PATH] [--note TEXT]
        [--peers ...] [--scale F]

Cases: ``echo hi`` per execution; a group-by over a 50 MB CSV (``cut -d, -f3 | sort | uniq -c |
sort -rn | head``); ``grep -c``, an awk sum by key and ``sed -n '$p'`` over the same file; ``jq``
over a 20 MB JSON array. The data are
generated from a fixed seed. Each subject gets the files once per run, untimed for the cases
(placing them is its own row), and every output is checked against native before it is timed.
Prints a markdown table on stdout (progress on stderr); nothing is asserted but the module's
ceilings (``ceilings.py``: its raw and gzipped sizes are reported by every run, and a run that
finds one crossed exits 1). A case whose native tool is missing (``jq``) has no native figure,
with a note saying what to install. The results
replace ``bench/results-shell.json``, the file the README's shell figures are checked against,
unless ``--json`` names another file.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

REPO = Path(__file__).resolve().parent.parent
if importlib.util.find_spec("corral") is None:
    sys.path.insert(0, str(REPO / "python"))

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
    installed_version,
    load_average,
    measure,
)
from report import (  # noqa: E402
    Row,
    add_results_options,
    format_quantity,
    markdown,
    save_results,
    to_json,
)

TIMES = "\N{MULTIPLICATION SIGN}"
MB = 1_000_000
CSV_BYTES = 50 * MB
JSON_BYTES = 20 * MB
SEED = 20260101
CSV = "data.csv"
JSON_FILE = "data.json"
NATIVE_FACTOR = 1.5
"""Issue 14's target for the data cases: at most this many times native's median."""
MEMORY_FACTOR = 2
"""... and peak guest memory at most this many times the input file."""
TEN_X = 10.0
"""A peer slower than this many times native on a case's checking run is timed once only."""
MIN_CAP_NS = 1e9
"""... but a run under this long is always sampled in full."""


@dataclass(frozen=True)
class Case:
    """One shell command, run by every subject in a directory holding the data files."""

    id: str
    label: str
    command: str
    runs: tuple[int, int]  # (samples with --quick, samples by default)
    warmup: int = 0
    target: str = ""  # "abs:<ns>" or "native:<factor>"
    tools: tuple[str, ...] = ()  # programs native needs besides bash and coreutils


CASES: tuple[Case, ...] = (
    Case("echo", "`echo hi`, one execution", "echo hi", (200, 2000), 20, "abs:60000"),
    Case(
        "groupby",
        # (pipes escaped: the label goes into a markdown table cell)
        "{csv} CSV group-by: `cut -d, -f3 \\| sort \\| uniq -c \\| sort -rn \\| head`",
        f"cut -d, -f3 {CSV} | sort | uniq -c | sort -rn | head",
        (2, 5),
        target=f"native:{NATIVE_FACTOR}",
    ),
    Case(
        "grep",
        "`grep -c` over {csv}",
        f"grep -c ,cat12 {CSV}",
        (2, 5),
        target=f"native:{NATIVE_FACTOR}",
        tools=("grep",),
    ),
    Case(
        "jq",
        "`jq` over a {json} JSON array",
        f"jq '[.[] | select(.active and .score > 500) | .value] | add' {JSON_FILE}",
        (2, 5),
        target=f"native:{NATIVE_FACTOR}",
        tools=("jq",),
    ),
    Case(
        "awk",
        "awk sums by key over {csv}: `awk -F, '{s[$3]+=$4} ...'`",
        f"awk -F, '{{s[$3]+=$4}} END {{for (k in s) t+=s[k]; print length(s), t}}' {CSV}",
        (2, 5),
        tools=("awk",),
    ),
    Case(
        "sed",
        "`sed -n '$p'` over {csv} (the last line)",
        f"sed -n '$p' {CSV}",
        (2, 5),
        tools=("sed",),
    ),
)
MEMORY_CASES = ("groupby", "grep", "jq")
DEFAULT_RESULTS = Path(__file__).resolve().parent / "results-shell.json"
"""The committed results, which the README's shell figures are checked against."""
"""Cases whose peak guest memory is measured, each in a fresh corral sandbox."""


# --- data --------------------------------------------------------------------------------------


def make_csv(size: int, seed: int = SEED) -> bytes:
    """``id,user,category,amount,ratio`` rows until ``size`` bytes; 500 categories."""
    rng = random.Random(seed)
    categories = [f"cat{rng.randrange(10**6):06d}" for _ in range(500)]
    lines: list[str] = []
    total = 0
    while total < size:
        line = (
            f"{len(lines)},user{rng.randrange(10**5)},{rng.choice(categories)},"
            f"{rng.randrange(10**6)},{rng.random():.4f}\n"
        )
        lines.append(line)
        total += len(line)
    return "".join(lines).encode()


def make_json(size: int, seed: int = SEED) -> bytes:
    """A JSON array of flat objects (strings, integers, booleans, a short list) of ``size``."""
    rng = random.Random(seed)
    items: list[str] = []
    total = 2
    while total < size:
        item = json.dumps(
            {
                "id": len(items),
                "name": f"user{rng.randrange(10**5)}",
                "active": rng.random() < 0.5,
                "score": rng.randrange(1000),
                "value": rng.randrange(10**6),
                "tags": rng.sample(["red", "green", "blue", "amber", "violet"], 2),
            },
            separators=(",", ":"),
        )
        items.append(item)
        total += len(item) + 1
    return ("[" + ",".join(items) + "]\n").encode()


# --- subjects ----------------------------------------------------------------------------------


class ShellSubject(ABC):
    """Something that runs shell commands over the data files."""

    name: ClassVar[str]
    dist: ClassVar[str] = ""
    notes: ClassVar[dict[str, str]] = {}
    """Per-case footnotes on how this subject runs it (keyed by case id, or ``place``)."""

    def version(self) -> str:
        """The installed version of the subject's distribution."""
        return installed_version(self.dist)

    @abstractmethod
    def place(self, files: dict[str, bytes]) -> None:
        """Put the data files where commands see them (the working directory)."""

    @abstractmethod
    def run(self, command: str) -> str:
        """Run ``command`` and return its stdout; raise if it failed."""

    def memory(self, command: str, files: dict[str, bytes]) -> int:
        """Peak memory (bytes) of a fresh sandbox that holds ``files`` and ran ``command``."""
        raise UnavailableError("no public API reports the sandbox's memory")

    def close(self) -> None:  # noqa: B027 (most subjects hold nothing to release)
        """Release the sandbox."""


class Native(ShellSubject):
    """bash + GNU coreutils/grep and jq on this machine, ``LC_ALL=C``, files in a temp dir."""

    name = "native"
    notes: ClassVar[dict[str, str]] = {
        "place": "native: write the files into a temporary directory (page cache, no fsync).",
        "echo": "native: a fresh `bash -c 'echo hi'` process per execution (the nearest "
        "native equivalent of one sandbox execution).",
        "memory": "native: the largest max RSS of any process of the pipeline "
        "(`getrusage(RUSAGE_CHILDREN)` in a small helper process; floor ~10 MB).",
    }

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="corral-shell-bench-")
        self.dir = Path(self._tmp.name)
        self.env = {**os.environ, "LC_ALL": "C"}

    def version(self) -> str:
        out = subprocess.run(["bash", "--version"], capture_output=True, text=True, check=False)
        sort = subprocess.run(["sort", "--version"], capture_output=True, text=True, check=False)
        jq = subprocess.run(["jq", "--version"], capture_output=True, text=True, check=False)
        return (
            f"bash {out.stdout.split()[3] if out.stdout else '?'}, "
            f"{sort.stdout.splitlines()[0] if sort.stdout else 'sort ?'}, {jq.stdout.strip()}"
        )

    def place(self, files: dict[str, bytes]) -> None:
        for name, data in files.items():
            (self.dir / name).write_bytes(data)

    def missing(self, case: Case) -> str | None:
        """Why native cannot run ``case`` (a program it needs is not installed), or None."""
        absent = [tool for tool in case.tools if shutil.which(tool) is None]
        if not absent:
            return None
        return f"native: {', '.join(absent)} not installed (apt-get install {' '.join(absent)})"

    def run(self, command: str) -> str:
        done = subprocess.run(
            ["bash", "-c", command], cwd=self.dir, env=self.env, capture_output=True, check=False
        )
        if done.returncode:
            raise RuntimeError(f"exit {done.returncode}: {done.stderr.decode()[:200]}")
        return done.stdout.decode()

    def memory(self, command: str, files: dict[str, bytes]) -> int:
        # A small helper process runs the pipeline and reports its children's peak RSS: a
        # process forked straight from this (large) Python would inherit its high-water mark.
        helper = (
            "import resource, subprocess, sys\n"
            "subprocess.run(['bash', '-c', sys.argv[1]], stdout=subprocess.DEVNULL, check=True)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        )
        done = subprocess.run(
            [sys.executable, "-S", "-c", helper, command],
            cwd=self.dir,
            env=self.env,
            capture_output=True,
            check=True,
        )
        return int(done.stdout) * 1024

    def close(self) -> None:
        self._tmp.cleanup()


class Corral(ShellSubject):
    """``corral.Sandbox``: ``fs.write`` then ``execute(command, language="shell")``."""

    name = "corral"
    dist = "corral"
    notes: ClassVar[dict[str, str]] = {
        "place": "corral: `Sandbox.fs.write(path, bytes)` (host → guest VFS, no guest code; "
        "the default trace recording keeps a reference to the bytes, not a copy).",
        "memory": "corral: `Sandbox.memory_bytes` (linear-memory size, i.e. its peak) of a "
        "fresh sandbox after placing the files and running the case once; includes the files.",
    }

    def __init__(self) -> None:
        import corral

        self._version = corral.__version__
        self.sandbox = self._new()

    @staticmethod
    def _new() -> Any:
        from corral import Limits, Sandbox

        mib = 1 << 20
        # Default settings (trace recording on) but for limits large enough for the files.
        return Sandbox(limits=Limits(timeout=600, max_file_size=128 * mib, max_fs_bytes=256 * mib))

    def version(self) -> str:
        return self._version

    def place(self, files: dict[str, bytes]) -> None:
        _place_corral(self.sandbox, files)

    def run(self, command: str) -> str:
        result = self.sandbox.execute(command, language="shell")
        if result.exit_code:
            raise RuntimeError(f"exit {result.exit_code}: {result.stderr[:200]}")
        return str(result.stdout)

    def memory(self, command: str, files: dict[str, bytes]) -> int:
        sandbox = self._new()
        _place_corral(sandbox, files)
        result = sandbox.execute(command, language="shell")
        if result.exit_code:
            raise RuntimeError(f"exit {result.exit_code}: {result.stderr[:200]}")
        return int(sandbox.memory_bytes)


def _place_corral(sandbox: Any, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        sandbox.fs.write(name, data)


class Bashkit(ShellSubject):
    """bashkit (PyPI): a bash interpreter in Rust, a native extension; ``Bash.execute_sync``."""

    name = "bashkit"
    dist = "bashkit"
    notes: ClassVar[dict[str, str]] = {
        "place": "bashkit: its in-memory files are capped at 10 MB (not configurable from "
        "Python), so the files are written to a host directory mounted read-only at "
        "/workspace (`FileSystem.real` + `Bash.mount`): commands read the host's files. A "
        "session takes 1000 executions at most: a fresh one is made every 900.",
    }

    SESSION_CALLS = 900
    """A ``Bash`` session refuses its 1001st ``execute``; a fresh one (same mount) is made
    after this many (inside that sample: one sample in 900)."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="corral-shell-bench-bashkit-")
        self._calls = 0
        self.bash = self._new()

    def _new(self) -> Any:
        import bashkit

        bash = bashkit.Bash(cwd="/workspace", timeout_seconds=600)
        real = bashkit.FileSystem.real(self._tmp.name, writable=False)
        bash.mount("/workspace", real, read_only=True)
        return bash

    def place(self, files: dict[str, bytes]) -> None:
        for name, data in files.items():
            (Path(self._tmp.name) / name).write_bytes(data)

    def run(self, command: str) -> str:
        self._calls += 1
        if self._calls % self.SESSION_CALLS == 0:
            self.bash = self._new()
        result = self.bash.execute_sync(command)
        if result.exit_code:
            raise RuntimeError(f"exit {result.exit_code}: {result.stderr[:200]}")
        return str(result.stdout)

    def close(self) -> None:
        self._tmp.cleanup()


AMLA_CHUNK = 4 * MB
"""amla-sandbox has no host file API: a file enters as tool results of this many bytes (its
cap on one result is 10 MiB), each written by JavaScript to a part file, then joined by `cat`."""


class Amla(ShellSubject):
    """amla-sandbox (PyPI): ``Sandbox.shell(command)``; files enter through a tool."""

    name = "amla-sandbox"
    dist = "amla-sandbox"
    notes: ClassVar[dict[str, str]] = {
        "echo": "amla-sandbox: every command runs as `cd /workspace && COMMAND` (the files' "
        "directory), `echo hi` too.",
        "place": "amla-sandbox: no host file API and no `fs.appendFile`; a tool returns the "
        f"file in {AMLA_CHUNK // MB} MB strings, JavaScript writes each to a part file "
        "(`fs.writeFile`), `cat` joins them (`stdin` is capped by its 8 KiB message buffer, "
        "and `cat >>` per chunk is quadratic).",
    }

    def __init__(self) -> None:
        import amla_sandbox as amla

        self._data = b""

        def part(i: int) -> str:
            """Part ``i`` of the file being placed."""
            return self._data[i * AMLA_CHUNK : (i + 1) * AMLA_CHUNK].decode()

        self.sandbox = amla.Sandbox(
            tools=[amla.tool_from_function(part)],
            capabilities=[amla.ToolCallCap(method_pattern="**")],
            tool_handler=lambda method, params: part(**params),
        )

    def place(self, files: dict[str, bytes]) -> None:
        for name, data in files.items():
            self._data = data
            count = (len(data) + AMLA_CHUNK - 1) // AMLA_CHUNK
            self.sandbox.shell("mkdir -p /workspace/parts")
            for i in range(count):
                self.sandbox.execute(
                    f"await fs.writeFile('/workspace/parts/{i:04d}', await part({{i: {i}}}))"
                )
            self.sandbox.shell(f"cat /workspace/parts/* > /workspace/{name}")
            self.sandbox.shell("rm -r /workspace/parts")
            size = self.sandbox.shell(f"wc -c < /workspace/{name}").strip()
            if size != str(len(data)):
                raise RuntimeError(f"{name}: placed {size} bytes of {len(data)}")
        self._data = b""

    def run(self, command: str) -> str:
        return str(self.sandbox.shell(f"cd /workspace && {command}"))

    def close(self) -> None:
        self.sandbox.__exit__(None, None, None)


SUBJECTS: dict[str, tuple[str | None, Callable[[], ShellSubject]]] = {
    "corral": ("corral", Corral),
    "native": (None, Native),
    "amla-sandbox": ("amla_sandbox", Amla),
    "bashkit": ("bashkit", Bashkit),
}
"""Subject name -> (import name, factory)."""


# --- running -----------------------------------------------------------------------------------


def _time_once(fn: Callable[[], object]) -> tuple[object, int]:
    start = time.perf_counter_ns()
    value = fn()
    return value, time.perf_counter_ns() - start


def place_all(
    subjects: Sequence[ShellSubject], files: dict[str, bytes], place_cap: float
) -> tuple[dict[str, Outcome], dict[str, str]]:
    """Place the files in every subject once (timed: a row of its own). A peer slower than
    ``place_cap`` ns at that (0: no cap) does not run the data cases."""
    outcomes: dict[str, Outcome] = {}
    broken: dict[str, str] = {}
    for subject in subjects:
        try:
            _, elapsed = _time_once(lambda s=subject: s.place(files))  # type: ignore[misc]
            outcomes[subject.name] = Stats((elapsed,), note=subject.notes.get("place", ""))
            if place_cap and subject.name not in ("native", "corral") and elapsed > place_cap:
                broken[subject.name] = (
                    f"placing the files took {elapsed / 1e9:.0f} s, over the {place_cap / 1e9:g}"
                    " s cap (`--place-cap`): its data cases were not run"
                )
        except Exception as error:
            broken[subject.name] = f"no files ({type(error).__name__}: {error})"[:300]
            outcomes[subject.name] = Failed(
                f"{subject.name}, placing files: {broken[subject.name]}"
            )
        _progress("place", subject.name, outcomes[subject.name])
    return outcomes, broken


def _normalise(out: str) -> str:
    return "\n".join(line.rstrip() for line in out.strip().splitlines())


def run_case(
    case: Case, subjects: Sequence[ShellSubject], broken: dict[str, str], quick: bool
) -> dict[str, Outcome]:
    """Check each subject's output against native once, then time it (native first)."""
    runs = case.runs[0] if quick else case.runs[1]
    outcomes: dict[str, Outcome] = {}
    expected: str | None = None
    native_ns: float | None = None
    for subject in subjects:
        if subject.name in broken and (CSV in case.command or JSON_FILE in case.command):
            outcomes[subject.name] = NotAvailable(f"{subject.name}: {broken[subject.name]}")
            continue
        missing = subject.missing(case) if isinstance(subject, Native) else None
        if missing is not None:
            outcomes[subject.name] = NotAvailable(missing)
            continue
        try:
            out, first = _time_once(lambda s=subject: s.run(case.command))  # type: ignore[misc]
        except Exception as error:
            outcomes[subject.name] = Failed(f"{subject.name}, {case.id}: {error}"[:300])
            continue
        got = _normalise(str(out))
        if expected is None:
            expected = got
        elif got != expected:
            print(
                f"\n!!! MISMATCH: {subject.name} / {case.id}: output differs from native\n"
                f"--- native\n{expected[:500]}\n--- {subject.name}\n{got[:500]}\n",
                file=sys.stderr,
            )
        note = subject.notes.get(case.id, "")
        if got != expected:
            note = f"{subject.name}: WRONG OUTPUT (differs from native; timed anyway): {got[:60]!r}"
        cap = None if native_ns is None else max(MIN_CAP_NS, TEN_X * native_ns)
        if cap is not None and first > cap:
            outcomes[subject.name] = Stats(
                (first,),
                note=f"{note} {subject.name}: timed once only (over {TEN_X:.0f}{TIMES} native on "
                "the checking run).".strip(),
            )
            continue
        timed = Timed(lambda s=subject: s.run(case.command), note=note)  # type: ignore[misc]
        try:
            outcomes[subject.name] = measure(timed, runs, case.warmup)
        except Exception as error:
            outcomes[subject.name] = Failed(f"{subject.name}, {case.id}: {error}"[:300])
            continue
        if subject.name == "native":
            native_ns = outcomes[subject.name].median  # type: ignore[union-attr]
    return outcomes


def memory_case(
    case: Case, subjects: Sequence[ShellSubject], files: dict[str, bytes]
) -> dict[str, Outcome]:
    """Peak memory of each subject for one case."""
    outcomes: dict[str, Outcome] = {}
    needed = {name: data for name, data in files.items() if name in case.command}
    for subject in subjects:
        try:
            missing = subject.missing(case) if isinstance(subject, Native) else None
            if missing is not None:
                raise UnavailableError(missing)
            value = subject.memory(case.command, needed)
            outcomes[subject.name] = Scalar(value, note=subject.notes.get("memory", ""))
        except UnavailableError as error:
            outcomes[subject.name] = NotAvailable(error.reason)
        except Exception as error:
            outcomes[subject.name] = Failed(f"{subject.name}, memory {case.id}: {error}"[:300])
    return outcomes


def _progress(what: str, subject: str, outcome: Outcome, kind: str = "time") -> None:
    if isinstance(outcome, Stats):
        shown = f"{format_quantity(outcome.median, 'time')} (median of {outcome.n})"
    elif isinstance(outcome, Scalar):
        shown = format_quantity(outcome.value, "size")
    elif isinstance(outcome, NotAvailable):
        shown = f"n/a: {outcome.reason}"
    else:
        shown = f"error: {outcome.error}"
    print(f"  {what:<14} {subject:<13} {shown}", file=sys.stderr, flush=True)


def load_subjects(names: Sequence[str]) -> tuple[list[ShellSubject], list[str]]:
    """The subjects that can be built, and a note for each that was skipped."""
    subjects: list[ShellSubject] = []
    skipped: list[str] = []
    for name in names:
        module, factory = SUBJECTS[name]
        if module is not None and importlib.util.find_spec(module) is None:
            skipped.append(f"{name}: not installed (`pip install {name}`)")
            continue
        try:
            subjects.append(factory())
        except Exception as error:
            skipped.append(f"{name}: could not be set up: {type(error).__name__}: {error}")
    return subjects, skipped


# --- the table ---------------------------------------------------------------------------------


def _ratio_to_native(outcomes: dict[str, Outcome], subject: str) -> Outcome:
    """``subject``'s median over native's, as a Scalar."""
    mine, native = outcomes.get(subject), outcomes.get("native")
    if isinstance(mine, Stats) and isinstance(native, Stats) and native.median:
        return Scalar(mine.median / native.median)
    return NotAvailable("no native or no own timing")


def build_rows(
    outcomes: dict[str, dict[str, Outcome]],
    files: dict[str, bytes],
    cases: Sequence[Case] = CASES,
) -> tuple[Row, ...]:
    """The rows, with targets made concrete (a factor of native's median, or of a file size)."""
    total = sum(map(len, files.values())) / MB
    rows: list[Row] = [Row("place", f"place the data files ({total:.0f} MB) in the sandbox")]
    for case in cases:
        target: float | None = None
        kind, _, value = case.target.partition(":")
        native = outcomes.get(case.id, {}).get("native")
        if kind == "abs":
            target = float(value)
        elif kind == "native" and isinstance(native, Stats):
            target = float(value) * native.median
        rows.append(Row(case.id, _sized(case.label, files) + ": median", target=target))
    for case_id in _memory_cases(cases):
        size = len(files[JSON_FILE if case_id == "jq" else CSV])
        rows.append(
            Row(
                f"mem_{case_id}",
                f"peak memory, {case_id} (file {size / MB:.3g} MB)",
                kind="size",
                target=MEMORY_FACTOR * size,
                stat="peak",
            )
        )
    return tuple(rows)


def ratio_table(
    outcomes: dict[str, dict[str, Outcome]], order: Sequence[str], cases: Sequence[Case] = CASES
) -> str:
    """Each subject's median as a multiple of native's, per case (below 1: faster than native)."""
    head = ["case", *(f"{s} / native" for s in order if s != "native")]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case in cases:
        cells = [case.id]
        for subject in order:
            if subject == "native":
                continue
            ratio = _ratio_to_native(outcomes.get(case.id, {}), subject)
            cells.append(
                f"{ratio.value:.2f}{TIMES}" if isinstance(ratio, Scalar) else "\N{EN DASH}"
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    add_results_options(parser, DEFAULT_RESULTS)
    parser.add_argument(
        "--peers",
        default="amla-sandbox,bashkit",
        help="comma-separated peers to run next to corral and native ('' for none)",
    )
    parser.add_argument(
        "--place-cap",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="a peer that takes longer to receive the files skips the data cases (0: no cap)",
    )
    parser.add_argument(
        "--only",
        default="",
        metavar="CASES",
        help="comma-separated case ids to run (default: all; "
        f"{', '.join(c.id for c in CASES)}); the results file is then not written unless "
        "--json names one",
    )
    parser.add_argument(
        "--scale",
        type=float,
        default=1.0,
        help="multiply the data sizes (e.g. 0.1 for a fast trial; targets refer to 1.0)",
    )
    return parser.parse_args(argv)


def _memory_cases(cases: Sequence[Case]) -> list[str]:
    """The ids of ``cases`` whose peak memory is measured."""
    return [case.id for case in cases if case.id in MEMORY_CASES]


def select_cases(only: str) -> tuple[Case, ...]:
    """The cases ``--only`` names (all for ''); raises ValueError naming an unknown one."""
    if not only:
        return CASES
    wanted = [name.strip() for name in only.split(",") if name.strip()]
    known = {case.id for case in CASES}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise ValueError(f"unknown case {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return tuple(case for case in CASES if case.id in wanted)


def _sized(label: str, files: dict[str, bytes]) -> str:
    """``label`` with ``{csv}`` and ``{json}`` (not ``str.format``: labels hold awk's braces)
    replaced by the files' sizes, which ``--scale`` changes."""
    for name, path in (("{csv}", CSV), ("{json}", JSON_FILE)):
        label = label.replace(name, f"{len(files[path]) / MB:.3g} MB")
    return label


def run_all(
    subjects: Sequence[ShellSubject],
    files: dict[str, bytes],
    quick: bool,
    place_cap: float,
    cases: Sequence[Case] = CASES,
) -> dict[str, dict[str, Outcome]]:
    """Place the files, run every case, measure memory; native runs first in every case."""
    outcomes: dict[str, dict[str, Outcome]] = {}
    outcomes["place"], broken = place_all(subjects, files, place_cap)
    for case in cases:
        outcomes[case.id] = run_case(case, subjects, broken, quick)
        for name, outcome in outcomes[case.id].items():
            _progress(case.id, name, outcome)
    by_id = {case.id: case for case in CASES}
    for case_id in _memory_cases(cases):
        outcomes[f"mem_{case_id}"] = memory_case(by_id[case_id], subjects, files)
        for name, outcome in outcomes[f"mem_{case_id}"].items():
            _progress(f"mem_{case_id}", name, outcome)
    return outcomes


def main(argv: Sequence[str] | None = None) -> int:
    """Generate the data, run the cases, print the tables, write the results."""
    args = _parse(argv)
    try:
        cases = select_cases(args.only)
    except ValueError as e:
        print(f"--only: {e}", file=sys.stderr)
        return 2
    if args.only and args.json == str(DEFAULT_RESULTS):
        args.json = ""  # a partial run never replaces the committed results
    peers = [p for p in filter(None, args.peers.split(",")) if p not in ("corral", "native")]
    for unknown in [p for p in peers if p not in SUBJECTS]:
        print(f"skipping {unknown}: not a shell peer (known: {sorted(SUBJECTS)})", file=sys.stderr)
    peers = [p for p in peers if p in SUBJECTS]
    load_before = load_average()
    started = time.perf_counter()
    files = {
        CSV: make_csv(int(CSV_BYTES * args.scale)),
        JSON_FILE: make_json(int(JSON_BYTES * args.scale)),
    }
    print(f"data generated in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    # native first: every other subject is checked against (and capped by) its output
    subjects, skipped = load_subjects(["native", "corral", *peers])
    for note in skipped:
        print(f"skipping {note}", file=sys.stderr)
    if [s.name for s in subjects[:2]] != ["native", "corral"]:
        print("native or corral could not be set up: " + "; ".join(skipped), file=sys.stderr)
        return 1
    try:
        outcomes = run_all(subjects, files, args.quick, args.place_cap * 1e9, cases)
    finally:
        for subject in subjects:
            subject.close()
    order = ["corral", "native", *(s.name for s in subjects[2:])]
    meta = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "mode": "quick" if args.quick else "full",
        "cpu": cpu_model(),
        "cpu_count": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": load_average(),
        "versions": {s.name: s.version() for s in subjects},
        "seed": SEED,
        "scale": args.scale,
        "place_cap_s": args.place_cap,
        "files": {name: len(data) for name, data in files.items()},
        "commands": {case.id: case.command for case in cases},
        "skipped": skipped,
    }
    rows = build_rows(outcomes, files, cases)
    versions = "; ".join(f"{name} {v}" for name, v in meta["versions"].items())
    print(
        f"## corral shell benchmark ({meta['mode']}, {meta['date']})\n\n{versions}; "
        f"{meta['cpu']} x{meta['cpu_count']}; load average before/after "
        f"{meta['load_average_before']}/{meta['load_average_after']}\n\n"
        "Medians; ratio = peer / corral (above 1: corral is faster or smaller). Targets: "
        f"`echo hi` ≤ 60 µs; data cases ≤ {NATIVE_FACTOR}{TIMES} native; peak memory ≤ "
        f"{MEMORY_FACTOR}{TIMES} the file.\n"
    )
    print(markdown(rows, outcomes, order))
    print("\nEach subject relative to native bash + GNU tools (below 1: faster than native):\n")
    print(ratio_table(outcomes, order, cases))
    for note in skipped:
        print(f"\nSkipped {note}.")
    save_results(args, to_json(rows, outcomes, order, meta))
    text, crossed = ceilings.report(ceilings.module_readings(_module_path()))
    print(f"\n{text}")
    if crossed:
        print(text, file=sys.stderr)
    return 1 if crossed else 0


def _module_path() -> Path:
    """The guest module corral runs."""
    from corral._module import wasm_path

    return wasm_path()


if __name__ == "__main__":
    sys.exit(main())
