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
