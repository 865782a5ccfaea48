"""Docstrings: the summary, and the parameter descriptions (Google, NumPy or reST)."""

from __future__ import annotations

import functools
import inspect
import re
import textwrap
from collections.abc import Callable
from typing import Any, Final


def docstring(func: Callable[..., Any]) -> str:
    """The function's docstring, dedented; a partial's comes from the wrapped function."""
    target = func.func if isinstance(func, functools.partial) else func
    raw = getattr(target, "__doc__", None)
    if not isinstance(raw, str):
        return ""
    first, _, rest = raw.partition("\n")
    if first.strip() and any(line.strip() and not line[0].isspace() for line in rest.split("\n")):
        # Python 3.13+ strips the indentation of every line but the first when it compiles a
        # docstring; give it back, so that both read the same as on older versions.
        raw = first + "\n" + textwrap.indent(rest, "    ")
    # The leading newline makes cleandoc dedent the first line like the others, so a docstring
    # that opens with a header ("Args:") keeps its entries indented under it.
    return inspect.cleandoc("\n" + raw)


_SECTION_NAMES: Final = (
    "Args|Arguments|Parameters|Params|Other Parameters|Keyword Args|Keyword Arguments|Returns|"
    "Return|Yields|Raises|Examples|Example|Notes|Note|Attributes|See Also|Warnings|Warning"
)
_SECTION_HEADER: Final = re.compile(rf"\s*(?:{_SECTION_NAMES}):?\s*")


def first_paragraph(doc: str) -> str:
    """The docstring's first paragraph on one line (empty if it opens with a section)."""
    lines = doc.splitlines()
    summary: list[str] = []
    for index, line in enumerate(lines):
        if not line.strip() or _is_section_start(lines, index):
            break
        summary.append(line.strip())
    return " ".join(summary)


def _is_section_start(lines: list[str], index: int) -> bool:
    """A Google or NumPy section header, or a reST field such as ``:param x:``."""
    line = lines[index]
    underlined = index + 1 < len(lines) and _is_rule(lines[index + 1])
    return bool(_SECTION_HEADER.fullmatch(line)) or underlined or line.lstrip().startswith(":")


def param_docs(doc: str) -> dict[str, str]:
    """Parameter descriptions from a Google, NumPy or reST docstring, by parameter name."""
    lines = doc.splitlines()
    found: dict[str, str] = {}
    for parse in (_google_params, _numpy_params, _rest_params):
        for key, text in parse(lines).items():
            found.setdefault(key, text)
    return found


_GOOGLE_HEADER: Final = re.compile(
    r"(\s*)(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters):\s*"
)
_GOOGLE_ENTRY: Final = re.compile(r"\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")


def _google_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for index, line in enumerate(lines):
        header = _GOOGLE_HEADER.fullmatch(line)
        if header:
            body = _indented_block(lines, index + 1, len(header.group(1)))
            found.update(_entries(body, _GOOGLE_ENTRY))
    return found


def _indented_block(lines: list[str], start: int, indent: int) -> list[str]:
    """The lines from ``start`` indented deeper than ``indent`` (blank lines included)."""
    block = []
    for line in lines[start:]:
        if line.strip() and _indent(line) <= indent:
            break
        block.append(line)
    return block


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _entries(block: list[str], entry: re.Pattern[str]) -> dict[str, str]:
    """``name: text`` entries at the block's base indent, with deeper lines continuing them."""
    found: dict[str, list[str]] = {}
    base = min((_indent(line) for line in block if line.strip()), default=0)
    current: list[str] | None = None
    for line in block:
        match = entry.fullmatch(line.strip()) if _indent(line) == base else None
        if match:
            current = found.setdefault(match.group(1), [])
            current.append(match.group(2))
        elif current is not None and line.strip():
            current.append(line.strip())
    return {name: " ".join(part for part in parts if part) for name, parts in found.items()}


_NUMPY_ENTRY: Final = re.compile(r"(\w+(?:\s*,\s*\w+)*)\s*(?::.*)?")


def _numpy_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for index in range(len(lines) - 1):
        if lines[index].strip() in ("Parameters", "Other Parameters") and _is_rule(
            lines[index + 1]
        ):
            found.update(_numpy_section(lines[index + 2 :], _indent(lines[index])))
    return found


def _is_rule(line: str) -> bool:
    return bool(re.fullmatch(r"\s*-{3,}\s*", line))


def _numpy_section(lines: list[str], indent: int) -> dict[str, str]:
    found: dict[str, str] = {}
    names: list[str] = []
    for index, line in enumerate(lines):
        if index + 1 < len(lines) and _is_rule(lines[index + 1]):
            break  # the next section's title
        match = _NUMPY_ENTRY.fullmatch(line.strip()) if _indent(line) == indent else None
        if match:
            names = [name.strip() for name in match.group(1).split(",")]
        elif line.strip() and names:
            for name in names:
                found[name] = f"{found[name]} {line.strip()}" if name in found else line.strip()
    return found


_REST_ENTRY: Final = re.compile(r"(\s*):param\s+(?:[^:]*\s)?\*{0,2}(\w+)\s*:\s*(.*)")


def _rest_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for index, line in enumerate(lines):
        match = _REST_ENTRY.fullmatch(line)
        if match:
            more = _indented_block(lines, index + 1, len(match.group(1)))
            parts = [match.group(3).strip()] + [part.strip() for part in more if part.strip()]
            found[match.group(2)] = " ".join(part for part in parts if part)
    return found
