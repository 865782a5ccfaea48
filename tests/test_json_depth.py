"""The nesting bound on JSON from outside the host (``corral._json``), and JSON nested as deep
as jq allows (10,000 levels) inside the sandbox's ``jq``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from typing import Any

import pytest

from corral import Limits, Sandbox, _json


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
        # A long text is looked at for overflow signs first, a short one is not.
        (
            "[" + "0.5, " * 100 + "1e999]",
            "1e999 is too large for a JSON number here (the largest is about 1.8e308)",
        ),
        ("[" + "0, " * 100 + "9" * 310 + "]", None),
        # As json.loads: a text (str) with a byte order mark is refused, not read past.
        ("\ufeff[1]", "Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)"),
    ],
)
def test_decoding_is_strict(text: str, reason: str | None) -> None:
    if reason is None:  # a long integer is no overflow
        assert _json.loads(text) == json.loads(text)
        return
    with pytest.raises(ValueError) as info:
        _json.loads(text)
    assert str(info.value) == reason


def test_large_finite_numbers_decode() -> None:
    text = "[1.7e308, -1e-999, 1e99, " + "9" * 250 + ".0e-5, " + "1" * 300 + "]"
    assert _json.loads(text) == [1.7e308, -0.0, 1e99, float("9" * 250 + ".0e-5"), int("1" * 300)]


# Texts whose value, or error, must be json.loads's: whitespace around the value; UTF-16 and a
# byte order mark (as bytes); and errors, which the C scanner cannot raise itself while
# json.decoder is not imported (Python 3.11), so the json package decodes the text again.
_AS_JSON_LOADS = [
    ' [1, "a"] \n', "[1,", "", "[1] x", '"\\x"', '{"a" 1}', '"\\ud800"', "tru", "[1 2]",
    '{"a": 1,}', "\t", '"abc', "-", "01", "[1]".encode("utf-16"), "[2]".encode("utf-8-sig"),
]  # fmt: skip


@pytest.mark.needs_native("runs Python in a subprocess")
def test_values_and_errors_read_as_json_loads_in_a_fresh_process() -> None:
    code = f"""if True:
        import sys
        from corral import _json
        assert "json" not in sys.modules  # what the first sandbox of a process spares
        def outcome(decode, text):
            try:
                return repr(decode(text))
            except ValueError as error:
                return f"{{type(error).__name__}}: {{error}}"
        mine = [outcome(_json.loads, text) for text in {_AS_JSON_LOADS!r}]
        import json
        theirs = [outcome(json.loads, text) for text in {_AS_JSON_LOADS!r}]
        assert mine == theirs, (mine, theirs)
        print("\\n".join(mine[:3]))
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert (done.stderr, done.stdout) == (
        "",
        "[1, 'a']\n"
        "JSONDecodeError: Expecting value: line 1 column 4 (char 3)\n"
        "JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n",
    )


@pytest.fixture
def sandbox() -> Sandbox:
    """A sandbox with time for 10,000 levels on a busy machine."""
    return Sandbox(limits=Limits(timeout=30))


def _deep_file(sandbox: Sandbox, levels: int) -> None:
    sandbox.fs.write("deep.json", "[" * levels + "[1,2]" + "]" * levels + "\n")


@pytest.mark.parametrize(
    ("program", "output"),
    [
        ("[..] | length", "10002"),
        ('[paths(type == "number") | length]', "[10000,10000]"),
        ("[leaf_paths | length]", "[10000,10000]"),
        ("[limit(3; paths)]", "[[0],[0,0],[0,0,0]]"),
        ("[leaf_paths as $p | getpath($p)]", "[1,2]"),
        ("[.. | numbers] | add", "3"),
        ("del(.. | numbers?) | [..] | length", "10000"),
        ('walk(if type == "number" then . * 10 else . end) | [.. | numbers]', "[10,20]"),
        ("(.. | numbers) |= . + 1 | [.. | numbers]", "[2,3]"),
        ("[any(..; . == 2), all(..; . != 3)]", "[true,true]"),
    ],
)
def test_jq_recursion_reaches_jqs_depth_limit(sandbox: Sandbox, program: str, output: str) -> None:
    # 10,000 levels of arrays, the most jq parses (an object takes two of its levels).
    _deep_file(sandbox, 9_999)
    result = sandbox.execute(f"jq -c '{program}' deep.json", language="shell")
    assert (result.stdout, result.stderr, result.exit_code) == (output + "\n", "", 0)


def test_jq_refuses_input_past_its_depth_limit(sandbox: Sandbox) -> None:
    _deep_file(sandbox, 10_000)
    result = sandbox.execute("jq -c '[..] | length' deep.json", language="shell")
    assert result.exit_code != 0
    assert "Exceeds depth limit for parsing" in result.stderr
    built = "reduce range(10001) as $_ (1; [.])"
    program = (
        "([..] | length), (walk(.) | [..] | length), (try getpath([range(10001) | 0]) catch .)"
    )
    result = sandbox.execute(f"jq -n -c '{built} | {program}'", language="shell")
    assert (result.stdout, result.exit_code) == ('10002\n10002\n"Path too deep"\n', 0)
