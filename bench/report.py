"""Turning outcomes into the markdown table (stdout) and the JSON file.

A row shows, for each subject, one number derived from its outcome (the median, the p90, the
median divided by the batch size...), then each peer's ratio to corral, then corral's target.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from harness import Failed, NotAvailable, Outcome, Scalar, Stats

__all__ = [
    "Row",
    "add_results_options",
    "format_quantity",
    "markdown",
    "row_value",
    "save_results",
    "to_json",
]

Kind = Literal["time", "size"]
BASE = "corral"
NONE = "\N{EN DASH}"
TIMES = "\N{MULTIPLICATION SIGN}"


@dataclass(frozen=True)
class Row:
    """One line of the table.

    Attributes:
        measurement: The measurement whose outcomes this row reads.
        label: What the row shows.
        kind: ``time`` (values in ns) or ``size`` (values in bytes).
        pick: The number this row takes from a timing (median by default).
        target: corral's target, in the row's unit (None: no target).
        stat: Names what ``pick`` takes; with ``measurement`` it identifies the row in JSON.
    """

    measurement: str
    label: str
    kind: Kind = "time"
    pick: Callable[[Stats], float] = lambda stats: stats.median
    target: float | None = None
    stat: str = "median"

    @property
    def id(self) -> str:
        """``measurement.stat``, unique per row."""
        return f"{self.measurement}.{self.stat}"


def row_value(row: Row, outcome: Outcome) -> float | None:
    """The number a row shows for one outcome, or None if there is none."""
    if isinstance(outcome, Stats):
        return row.pick(outcome)
    if isinstance(outcome, Scalar):
        return outcome.value
    return None


def format_quantity(value: float, kind: Kind) -> str:
    """``1.42 MB``, ``312 µs``, ``1.86 s``..."""
    if kind == "size":
        return f"{value / 1e6:.2f} MB"
    for scale, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{value:.0f} ns"


class _Footnotes:
    """Numbered footnotes, each distinct text once."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def ref(self, text: str) -> str:
        if text not in self.texts:
            self.texts.append(text)
        return f"[{self.texts.index(text) + 1}]"


def _cell(row: Row, outcome: Outcome | None, notes: _Footnotes) -> str:
    if outcome is None:
        return NONE
    if isinstance(outcome, NotAvailable):
        return f"n/a {notes.ref(outcome.reason)}"
    if isinstance(outcome, Failed):
        return f"error {notes.ref(outcome.error)}"
    value = row_value(row, outcome)
    text = NONE if value is None else format_quantity(value, row.kind)
    if isinstance(outcome, Stats) and outcome.n < 3:
        text += f" (n={outcome.n})"
    if outcome.note:
        text += f" {notes.ref(outcome.note)}"
    return text


def _ratio(row: Row, peer: Outcome | None, base: Outcome | None) -> str:
    if peer is None or base is None:
        return NONE
    mine, theirs = row_value(row, base), row_value(row, peer)
    if mine is None or theirs is None or mine == 0:
        return NONE
    return f"{theirs / mine:.2f}{TIMES}"


def _target(row: Row, base: Outcome | None) -> str:
    if row.target is None:
        return ""
    value = None if base is None else row_value(row, base)
    mark = "" if value is None else (" ✓" if value <= row.target else " ✗")
    return f"≤ {format_quantity(row.target, row.kind)}{mark}"


Outcomes = Mapping[str, Mapping[str, Outcome]]
"""measurement id -> subject name -> outcome."""


def markdown(rows: Sequence[Row], outcomes: Outcomes, subjects: Sequence[str]) -> str:
    """The results table, then its footnotes (n/a reasons, errors, how each peer does a row)."""
    peers = [s for s in subjects if s != BASE]
    notes = _Footnotes()
    head = ["measurement", BASE, *peers, *(f"{p} / {BASE}" for p in peers), "target (corral)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        got = outcomes.get(row.measurement, {})
        cells = [row.label, _cell(row, got.get(BASE), notes)]
        cells += [_cell(row, got.get(p), notes) for p in peers]
        cells += [_ratio(row, got.get(p), got.get(BASE)) for p in peers]
        cells.append(_target(row, got.get(BASE)))
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines += [f"[{i}] {text}" for i, text in enumerate(notes.texts, 1)]
    return "\n".join(lines)


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    if isinstance(outcome, Stats):
        return {
            "n": outcome.n,
            "median_ns": outcome.median,
            "p90_ns": outcome.p90,
            "min_ns": outcome.min,
            "samples_ns": list(outcome.samples_ns),
            "note": outcome.note or None,
        }
    if isinstance(outcome, Scalar):
        return {"value": outcome.value, "note": outcome.note or None}
    if isinstance(outcome, NotAvailable):
        return {"na": outcome.reason}
    return {"error": outcome.error}


def to_json(
    rows: Sequence[Row], outcomes: Outcomes, subjects: Sequence[str], meta: Mapping[str, Any]
) -> dict[str, Any]:
    """Everything measured: per row the shown values, ratios and target; raw outcomes too."""
    table = []
    for row in rows:
        got = outcomes.get(row.measurement, {})
        values = {s: row_value(row, got[s]) if s in got else None for s in subjects}
        base = values.get(BASE)
        table.append(
            {
                "id": row.id,
                "measurement": row.measurement,
                "label": row.label,
                "unit": "ns" if row.kind == "time" else "bytes",
                "values": values,
                "ratio_to_corral": {
                    s: (v / base if v is not None and base else None)
                    for s, v in values.items()
                    if s != BASE
                },
                "target": row.target,
                "target_met": None if row.target is None or base is None else base <= row.target,
            }
        )
    raw = {m: {s: _outcome_json(o) for s, o in per.items()} for m, per in outcomes.items()}
    return {"meta": dict(meta), "rows": table, "outcomes": raw}


def add_results_options(parser: argparse.ArgumentParser, default: Path) -> None:
    """``--json PATH`` (``default``, the committed results file the README quotes, unless
    given; ``--json ''`` writes nothing) and ``--note TEXT`` (kept with the results)."""
    parser.add_argument(
        "--json",
        default=str(default),
        metavar="PATH",
        help=f"write results here (default: {default.parent.name}/{default.name}; '' for none)",
    )
    parser.add_argument(
        "--note", default="", help="a remark kept with the results (e.g. 'machine loaded')"
    )


def save_results(args: argparse.Namespace, data: dict[str, Any]) -> None:
    """Write ``data`` (from :func:`to_json`) where ``--json`` says, with ``--note`` and the
    commit measured."""
    if not args.json:
        return
    data["meta"] = {**data["meta"], "note": args.note, "commit": _commit()}
    Path(args.json).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"\nJSON written to {args.json}", file=sys.stderr)


def _commit() -> str | None:
    """The checkout's commit (``+`` when it has changes), or None outside a git checkout."""

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=Path(__file__).parent, check=True,
                              capture_output=True, text=True)  # fmt: skip
        return done.stdout.strip()

    try:
        head, dirty = git("rev-parse", "--short", "HEAD"), git("status", "--porcelain", "-uno")
    except (OSError, subprocess.CalledProcessError):
        return None
    return head + ("+" if dirty.strip() else "")
