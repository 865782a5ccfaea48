"""The docs say what the code is: every ``corral.*`` name and ``guest/src`` path the README and
the docs mention exists, the README's module size is the module's, and the benchmark figures
the README quotes are those of the last committed bench run (``bench/results*.json``)."""

from __future__ import annotations

import importlib
import json
import re
from pathlib import Path

import pytest

from corral._module import wasm_bytes

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.needs_native("reads the checkout's docs")
FILE_SUFFIXES = (".py", ".rst", ".toml", ".wasm", ".cwasm", ".json", ".whl")


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.rst"))]


def resolves(dotted: str) -> bool:
    """Whether ``dotted`` names a module, or an attribute path inside one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if name in getattr(target, "__dataclass_fields__", {}):
                return True  # a field (documented, possibly without a class default)
            if not hasattr(target, name):
                return False
            target = getattr(target, name)
        return True
    return False


def test_every_corral_name_in_the_docs_exists() -> None:
    pattern = re.compile(r"(?<![\w.])(corral(?:\.[A-Za-z_]\w*)+)")
    missing = set()
    for path in doc_files():
        for name in pattern.findall(path.read_text(encoding="utf-8")):
            # Framework modules need their extras; those pages are checked by the docs build.
            if name.startswith("corral.integrations.") or name.endswith(FILE_SUFFIXES):
                continue
            if not resolves(name):
                missing.add(f"{path.relative_to(ROOT)}: {name}")
    assert sorted(missing) == []


def test_every_guest_path_in_the_docs_exists() -> None:
    pattern = re.compile(r"guest/src/[\w/.-]*\w")
    missing = {
        f"{path.relative_to(ROOT)}: {found}"
        for path in doc_files()
        for found in pattern.findall(path.read_text(encoding="utf-8"))
        if not (ROOT / found).exists()
    }
    assert sorted(missing) == []


def test_the_readme_states_the_module_size() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = re.search(r"\| module size(?: <!--[^>]*-->)? \| ([\d.]+) MB", readme)
    assert row is not None, "the README's benchmark table has no module size row"
    actual = len(wasm_bytes()) / 1e6
    assert abs(float(row.group(1)) - actual) <= 0.05 * actual, (
        f"README says {row.group(1)} MB, the module is {actual:.2f} MB: update the table "
        "from a bench run (nox -s bench)"
    )


# The README quotes the last bench run: a table row whose first cell ends with
# `<!-- results.json: ID -->` shows the result row ID of bench/results.json (bench/run.py;
# results-shell.json: bench/shell.py). A column whose header starts with a subject's name
# holds that subject's figure, optionally with a ratio `(N x)` (a multiplication sign): the
# subject / corral, in corral's own cell corral / native. A target cell's ✓ or ✗ is the result's.
BENCH_ROW = re.compile(r"<!-- (results(?:-\w+)?\.json): ([\w.]+) -->")
FIGURE = re.compile(r"^([\d.]+) (ns|µs|ms|s|MB)\b")
TIMES = "\N{MULTIPLICATION SIGN}"
RATIO = re.compile(rf"\(([\d.]+){TIMES}\)")
UNITS = {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9, "MB": 1e6}


def cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def close_to(printed: str, scale: float, actual: float | None) -> bool:
    """Whether ``actual`` (in base units) rounds to ``printed`` (in units of ``scale``)."""
    if actual is None:
        return False
    decimals = len(printed.partition(".")[2])
    return abs(float(printed) * scale - actual) <= 0.5 * 10**-decimals * scale * 1.001


def quoted_figures(readme: str) -> list[tuple[str, str, list[str], list[str]]]:
    """(results file, row id, header cells, row cells) of each marked README row."""
    found, header = [], []
    for line in readme.splitlines():
        if not line.startswith("|"):
            header = []
        elif not header:
            header = cells(line)
        elif mark := BENCH_ROW.search(line):
            found.append((mark.group(1), mark.group(2), header, cells(line)))
    return found


def figure_errors(result: dict, header: list[str], row: list[str]) -> list[str]:
    values = result["values"]
    errors = []
    for title, cell in zip(header, row, strict=False):
        subject = next((s for s in values if title.startswith(s)), None)
        if subject is None:
            marked = title.startswith("target") and ("✓" in cell or "✗" in cell)
            if marked and ("✓" in cell) != result["target_met"]:
                errors.append(f"target mark {cell!r}, met: {result['target_met']}")
            continue
        value = values[subject]
        figure = FIGURE.match(cell)
        if figure is None:
            if value is not None:
                errors.append(f"{subject}: {cell!r} but the result is {value}")
            continue
        if not close_to(figure.group(1), UNITS[figure.group(2)], value):
            errors.append(f"{subject}: {cell!r} but the result is {value}")
        ratio = RATIO.search(cell)
        other = values.get("native") if subject == "corral" else values.get("corral")
        if ratio and not (value and other and close_to(ratio.group(1), 1, value / other)):
            errors.append(f"{subject}: ratio in {cell!r}, the results give {value} / {other}")
    return errors


def test_readme_figures_are_the_last_bench_results() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quoted = quoted_figures(readme)
    assert "results.json" in {name for name, *_ in quoted}, "no README row quotes the bench"
    errors = []
    for name, row_id, header, row in quoted:
        results = json.loads((ROOT / "bench" / name).read_text(encoding="utf-8"))
        by_id = {r["id"]: r for r in results["rows"]}
        if row_id not in by_id:
            errors.append(f"{row[0]}: bench/{name} has no row {row_id}")
            continue
        found = figure_errors(by_id[row_id], header, row)
        errors += [f"{row_id} in bench/{name}: {error}" for error in found]
    assert errors == [], "update the README from the results (nox -s bench) or rerun it"


def test_figure_checks_fail_on_drift() -> None:
    result = {"values": {"corral": 137e3, "native": 20e3, "peer": None}, "target_met": True}
    header = ["measurement", "corral", "native bash + GNU", "peer", "target"]
    good = ["x", f"137 µs (6.9{TIMES})", "20 µs", "n/a", "≤ 1 ms ✓"]
    assert figure_errors(result, header, good) == []
    drifted = ["x", f"139 µs (7.9{TIMES})", "20 ms", "1 ms", "≤ 1 ms ✗"]
    assert len(figure_errors(result, header, drifted)) == 5


def test_the_limits_page_lists_every_error_kind_with_its_exit_code() -> None:
    from corral import ErrorKind

    page = (ROOT / "docs" / "limits.rst").read_text(encoding="utf-8")
    table = page.split("Exit codes and error kinds")[1].split("Exit code 124 is")[0]
    rows = re.findall(r"\* - ``(\w+)``\n\s+- (\d+)", table)
    assert dict(rows) == {
        "None": "0",
        **{kind.value: str(kind.exit_code) for kind in ErrorKind},
    }


def _rust_consts(source: str) -> dict[str, int]:
    """``NAME: value`` of each ``pub const`` in ``source`` (a literal, an earlier constant, or
    two of them joined by ``<<`` or ``*``)."""
    values: dict[str, int] = {}

    def term(text: str) -> int:
        text = text.strip()
        return values[text] if text in values else int(text.replace("_", ""))

    for name, expression in re.findall(r"pub const (\w+): \w+ = ([^;]+);", source):
        left, op, right = [*re.split(r"(<<|\*)", expression), "", ""][:3]
        if op == "<<":
            values[name] = term(left) << term(right)
        else:
            values[name] = term(left) * (term(right) if op else 1)
    return values


def _doc_value(text: str) -> int:
    number, _, unit = text.partition(" ")
    return int(number.replace(",", "")) * {"": 1, "KiB": 1 << 10, "MiB": 1 << 20}[unit]


def test_the_limits_page_lists_every_fixed_guest_limit() -> None:
    source = (ROOT / "guest" / "src" / "limits.rs").read_text(encoding="utf-8")
    page = (ROOT / "docs" / "limits.rst").read_text(encoding="utf-8")
    table = page.split("\nFixed limits\n")[1].split("\n.. _recovery:")[0]
    documented = {
        name: _doc_value(value) for name, value in re.findall(r"\* - ``(\w+)``\n\s+- (.+)", table)
    }
    assert documented == _rust_consts(source)
    # Each constant says why it has its value, and nothing else in the guest defines one.
    assert re.findall(r"\n\n(pub const \w+)", source) == []
    strays = [
        f"{path.relative_to(ROOT)}: {line.strip()}"
        for path in sorted((ROOT / "guest" / "src").rglob("*.rs"))
        if path.name != "limits.rs"
        for line in path.read_text(encoding="utf-8").splitlines()
        if re.match(r"\s*(pub(\(\w+\))? )?const MAX_", line)
    ]
    assert strays == []
