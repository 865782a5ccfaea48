"""The docs say what the code is: every ``corral.*`` name and ``guest/src`` path the README and
the docs mention exists, and the README's module size is the module's."""

from __future__ import annotations

import importlib
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
    row = re.search(r"\| module size \| ([\d.]+) MB", readme)
    assert row is not None, "the README's benchmark table has no module size row"
    actual = len(wasm_bytes()) / 1e6
    assert abs(float(row.group(1)) - actual) <= 0.05 * actual, (
        f"README says {row.group(1)} MB, the module is {actual:.2f} MB: update the table "
        "from a bench run (nox -s bench)"
    )


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
