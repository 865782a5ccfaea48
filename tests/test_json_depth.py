"""The nesting bound on JSON from outside the host (``corral._json``)."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from corral import _json


def _nesting(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((_nesting(item) for item in value), default=0)
    if isinstance(value, dict):
        return 1 + max((_nesting(item) for item in value.values()), default=0)
    return 0


_TRICKY_STRINGS = ["[", "]{", "\\", '\\"', '"[[', 'a\\\\"b', "\\\\\\", "\n[", '{"x": [1]}', "é["]


def _random_value(rng: random.Random, depth: int) -> Any:
    roll = rng.random()
    if depth > 6 or roll < 0.3:
        return rng.choice([*_TRICKY_STRINGS, 1, None, True, 2.5])
    if roll < 0.65:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(_TRICKY_STRINGS): _random_value(rng, depth + 1) for _ in range(3)}


@pytest.mark.parametrize("seed", range(200))
def test_depth_matches_the_decoded_nesting(seed: int) -> None:
    rng = random.Random(seed)
    value = _random_value(rng, 0)
    text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
    assert _json._depth(text.encode()) == _nesting(value)


def test_brackets_inside_strings_do_not_count() -> None:
    hidden = json.dumps(["[" * 5000, '\\"' + "{" * 5000, "\\" * 7])
    assert _json.loads(hidden)[0] == "[" * 5000


def test_deep_nesting_is_refused_after_escaped_quotes_and_backslashes() -> None:
    deep = '["\\\\", "\\"", ' + "[" * 600 + "]" * 600 + "]"
    with pytest.raises(RecursionError, match="deeper than 512"):
        _json.loads(deep)


def test_nesting_at_the_limit_decodes() -> None:
    value = _json.loads("[" * 512 + "]" * 512)
    for _ in range(511):
        (value,) = value
    assert value == []
    with pytest.raises(RecursionError):
        _json.loads('{"a": ' * 513 + "1" + "}" * 513)


@pytest.mark.parametrize("depth", range(40))
def test_depth_is_exact_around_the_quick_count(depth: int) -> None:
    # Shallow data is measured by removing the innermost level repeatedly, deeper data (and
    # brackets that do not pair up) bracket by bracket: both give the decoded nesting.
    value: Any = [1, {"s": "[{"}]
    for level in range(depth):
        value = [value, []] if level % 2 else {"k": value, "e": {}}
    text = json.dumps([value, value]).encode()
    assert _json._depth(text) == _nesting([value, value])
    assert _json._depth(b"[" * depth + b"}" + b"]" * depth) == depth


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("NaN", "NaN is not a JSON number (JSON numbers are finite)"),
        ('{"a": [-Infinity]}', "-Infinity is not a JSON number (JSON numbers are finite)"),
        ("1e999", "1e999 is too large for a JSON number here (the largest is about 1.8e308)"),
        ("-1E+0400", "-1E+0400 is too large for a JSON number here (the largest is about 1.8e308)"),
        # Overflow from the digits, with an exponent too small to look suspicious alone.
        (
            "9" * 299 + "e10",
            "9" * 299 + "e10 is too large for a JSON number here (the largest is about 1.8e308)",
        ),
        (
            "9" * 310 + ".5",
            "9" * 310 + ".5 is too large for a JSON number here (the largest is about 1.8e308)",
        ),
    ],
)
def test_decoding_is_strict(text: str, reason: str) -> None:
    with pytest.raises(ValueError) as info:
        _json.loads(text)
    assert str(info.value) == reason


def test_large_finite_numbers_decode() -> None:
    text = "[1.7e308, -1e-999, 1e99, " + "9" * 250 + ".0e-5, " + "1" * 300 + "]"
    assert _json.loads(text) == [1.7e308, -0.0, 1e99, float("9" * 250 + ".0e-5"), int("1" * 300)]
