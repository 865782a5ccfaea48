"""The module's ceilings (issue 14): every feature stays under them, every benchmark run reports
them, and a run that finds one crossed exits non-zero with a line saying which.

- the module ≤ 5 MB raw and ≤ 1.8 MB gzipped (``gzip -9``: what a server pre-compresses it to);
- its first compile ≤ 2.5 s (raw wasmtime, a fresh default engine, on 2 cores: ``bench/run.py``'s
  ``compile_raw`` row; under load this row is inflated, see the run's load average).
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

RAW_MAX = 5_000_000
"""Bytes of the module as shipped."""
GZIP_MAX = 1_800_000
"""Bytes of the module after ``gzip -9``."""
COMPILE_MAX_NS = 2.5e9
"""First compile, in ns."""


def gzip_size(path: Path) -> int:
    """The size of ``path`` compressed as ``gzip -9`` does (no name, no timestamp)."""
    return len(gzip.compress(path.read_bytes(), compresslevel=9, mtime=0))


@dataclass(frozen=True)
class Reading:
    """One ceiling and the value a run measured for it (None: not measured in this run)."""

    what: str
    value: float | None
    limit: float
    unit: str  # "MB" (value in bytes) or "s" (value in ns)

    def shown(self, number: float) -> str:
        """``number`` in this reading's unit."""
        return f"{number / 1e6:.3f} MB" if self.unit == "MB" else f"{number / 1e9:.2f} s"

    @property
    def crossed(self) -> bool:
        """Whether the value is over the ceiling."""
        return self.value is not None and self.value > self.limit

    def __str__(self) -> str:
        got = "not measured" if self.value is None else self.shown(self.value)
        mark = "" if self.value is None else (" CROSSED" if self.crossed else " ok")
        return f"{self.what} {got} (ceiling {self.shown(self.limit)}){mark}"


def readings(
    raw: float | None, gzipped: float | None, compile_ns: float | None = None
) -> list[Reading]:
    """The ceilings with this run's values."""
    return [
        Reading("module raw", raw, RAW_MAX, "MB"),
        Reading("module gzipped", gzipped, GZIP_MAX, "MB"),
        Reading("first compile", compile_ns, COMPILE_MAX_NS, "s"),
    ]


def module_readings(path: Path, compile_ns: float | None = None) -> list[Reading]:
    """The ceilings with the sizes of the module at ``path`` (and a compile time if known)."""
    return readings(path.stat().st_size, gzip_size(path), compile_ns)


def report(found: list[Reading]) -> tuple[str, bool]:
    """One paragraph for the run's output, and whether any ceiling was crossed. A crossed
    ceiling gets a line of its own starting ``CEILING CROSSED``."""
    text = "Ceilings (issue 14): " + "; ".join(map(str, found)) + "."
    crossed = [r for r in found if r.crossed]
    for reading in crossed:
        text += f"\n\nCEILING CROSSED: {reading}: bring it back under before merging."
    return text, bool(crossed)
