"""Tool names and method patterns: which names are valid, and which names a pattern
matches."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Final

from ._values import _show_name

MAX_NAME_LENGTH: Final = 256
"""Longest tool name or method pattern accepted (names come from untrusted guests)."""
_NAME_PUNCTUATION: Final = "_-.:/"
_ALLOWED_HINT: Final = "only ASCII letters, digits and _ - . : / are allowed"
_MCP_PREFIX: Final = "mcp:"


def _first_bad_char(name: str, extra: str = "") -> str | None:
    """Describe the first character of ``name`` outside the allowed set, or None."""
    for index, char in enumerate(name):
        if char.isascii() and (char.isalnum() or char in _NAME_PUNCTUATION + extra):
            continue
        return f"{_char_kind(char)} at index {index}; {_ALLOWED_HINT}"
    return None


def _char_kind(char: str) -> str:
    """Name the kind of a rejected character, so the message says what is wrong with it."""
    if unicodedata.category(char) == "Cc":
        return f"control character {char!r}"
    if char.isspace():
        return f"whitespace {char!a}"
    if not char.isascii():
        # Lookalikes (Cyrillic a, U+0430; fullwidth solidus, U+FF0F) and invisible characters.
        return f"non-ASCII character {char!a} (U+{ord(char):04X})"
    return f"character {char!r}"


def _name_problem(name: object, extra: str = "") -> str | None:
    """Why ``name`` is not a valid tool name (or pattern, with ``extra`` characters), or None."""
    if not isinstance(name, str):
        return f"must be a str, not {type(name).__name__}"
    if not name:
        return "it is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"it is longer than {MAX_NAME_LENGTH} characters"
    bad = _first_bad_char(name, extra)
    if bad is not None:
        return bad
    return _segment_problem(name.split("/"))


def _segment_problem(segments: Sequence[str]) -> str | None:
    """Why the ``/``-separated segments of a name are not acceptable, or None."""
    if "" in segments:
        return "it has an empty segment (a leading, trailing or doubled '/')"
    for segment in segments:
        if segment in (".", ".."):
            return f"segment {segment!r} is not allowed"
    return None


def validate_tool_name(name: str) -> str:
    """Check that ``name`` is a canonical tool name and return it unchanged.

    A tool name is one or more ``/``-separated segments of ASCII letters, digits and
    ``_ - . :``; segments may not be empty, ``.`` or ``..``.

    Raises:
        ValueError: naming the offending character or segment, e.g. for whitespace, control
            characters, non-ASCII lookalikes, or an empty name.
    """
    problem = _name_problem(name)
    if problem is not None:
        raise ValueError(f"invalid tool name {_show_name(name)}: {problem}")
    return name


def validate_pattern(pattern: str) -> str:
    """Check that ``pattern`` is a method pattern and return it unchanged.

    Patterns follow the rules of :func:`validate_tool_name`, and may also contain ``*``.

    Raises:
        ValueError: naming the offending character or segment.
    """
    problem = _name_problem(pattern, extra="*")
    if problem is not None:
        raise ValueError(f"invalid method pattern {_show_name(pattern)}: {problem}")
    return pattern


def match_pattern(pattern: str, method: str) -> bool:
    """Whether the method pattern ``pattern`` matches the canonical tool name ``method``.

    ``a/b/c`` matches exactly; ``*`` matches exactly one segment; ``**`` matches zero or more
    segments (so ``a/**`` matches ``a`` too); a ``*`` inside a segment matches any characters
    within that segment; ``mcp:NAME`` also matches ``NAME`` (so ``mcp:**`` matches every
    tool), while a plain ``NAME`` does not match a tool named ``mcp:NAME``.

    >>> match_pattern("stripe/*/create", "stripe/charges/create")
    True
    >>> match_pattern("stripe/*", "stripe/charges/create")
    False
    """
    if _match_segments(pattern.split("/"), method.split("/")):
        return True
    alias = pattern.removeprefix(_MCP_PREFIX)
    return alias != pattern and _match_segments(alias.split("/"), method.split("/"))


def _match_segments(pattern: Sequence[str], method: Sequence[str]) -> bool:
    """Wildcard matching over segment lists, by dynamic programming (no exponential blowup)."""
    # reachable[j]: the pattern prefix seen so far matches method[:j].
    reachable = [True] + [False] * len(method)
    for part in pattern:
        if part == "**":
            reachable = _star_star_step(reachable)
        else:
            reachable = [False] + [
                reachable[j] and _match_segment(part, method[j]) for j in range(len(method))
            ]
    return reachable[-1]


def _star_star_step(reachable: list[bool]) -> list[bool]:
    """After ``**``, every position at or beyond a reachable one is reachable."""
    seen = False
    result = []
    for flag in reachable:
        seen = seen or flag
        result.append(seen)
    return result


def _match_segment(part: str, segment: str) -> bool:
    """Match one pattern segment against one name segment (``*`` = any run within it)."""
    if "*" not in part:
        return part == segment
    regex = "[^/]*".join(re.escape(piece) for piece in part.split("*"))
    return re.fullmatch(regex, segment) is not None
