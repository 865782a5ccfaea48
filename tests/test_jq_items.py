"""jq programs that only iterate their input (``.[] | f``, ``[.[] | f] | g``, ``map(f)``...)
run on an array file's items one at a time, built as they are used: the same outputs, errors,
messages and statuses as running the program on the whole array, which jq does when the input
comes through a pipe (read as it arrives, so built whole first)."""

from __future__ import annotations

import json
import shlex

import pytest

from corral import Sandbox

PROGRAMS = (
    ".[]",
    ".[]?",
    ".[] | .n",
    ".[]|.n, .a",
    ".[] | select(.n > 1) | .n",
    ".[] | .n + 1",
    ".[] | tojson",
    ".[] | $__loc__",
    "\n.[]\n| [$__loc__, .n]",
    ".[] | debug | .n",
    ".[] | stderr | .n",
    ".[] | if .n == 2 then halt_error else . end",
    ".[] | [paths]",
    '.[] | getpath(["a"])',
    ".[] | label $out | (., break $out)",
    ".[] | error",
    "[.[]]",
    "[.[] | .n]",
    "[.[] | .n] | add",
    "[.[] | .n + 1] | length",
    "[ .[]? | .n ] | sort | reverse",
    "map(.n)",
    "map(.n) | add",
    "map(.n + 1)",
    "map(select(.n)) | length, $__loc__",
    "map(.) | .[0]",
    "first(.[])",
    "limit(2; .[])",
    ".[] as $x | $x",
    "def f: .; .[] | f",
    "[.[] | .n] , 1",
    ".[] | .n |= . + 1",
    # Shapes evaluated directly (guest/src/applets/jq/fast.rs), jaq where that gives up:
    ".[] | select(.n > 1 and .a) | .n",
    '[.[] | select(.n >= 1 or .a == "x") | .n] | add',
    "map(.n * 2 - 1)",
    ".[] | .a.b",
    ".[] | .a[1]",
    "[.[] | .n | not]",
    ".[] | select(.n)",
    "map(.a + .n)",
    "[.[] | .n % 2 == 0]",
)

INPUTS = (
    '[{"n": 1, "a": "x"},\n {"n": 2, "a": [1, {"b": null}]},\n {"n": "s"}]\n',
    '[1, 2.50, 1e1000, 100000000000000000001, -0, "\\u00e9\\ud83d\\ude00\\n", true, null]',
    "[]",
    "[[]]\n",
    '{"n": 1}',
    "3",
    '[{"n": 1}, {"n": 2}] [{"n": 3}]\n{"n": 4}\n',
    '[{"n": 1}, {"n": 2}, x]',
    '[{"n": 1}, {"n": 2}]\n[{"n": 3},',
    "[1, 2,]",
    "\ufeff[1]",
    '[1,2]\n\n  [3]\n4\n[5, {"n": [6, 7]}]',
    "[" * 5000 + "]" * 5000,
)


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return Sandbox()


# Blanks after the values make every file big enough to be read an item at a time (the
# command line's SPLIT_MIN): smaller arrays are not worth compiling the program's parts.
PADDING = " " * (1 << 20)


def _run(sb: Sandbox, command: str) -> tuple[str, str, int]:
    result = sb.execute(command, language="shell")
    return result.stdout, result.stderr.replace("<stdin>", "in.json"), result.exit_code


@pytest.mark.parametrize("options", ["-c", "-e -r --seq"])
@pytest.mark.parametrize("program", PROGRAMS)
def test_items_one_at_a_time_are_the_whole_array(
    sandbox: Sandbox, program: str, options: str
) -> None:
    for text in INPUTS:
        sandbox.fs.write("in.json", text + PADDING)
        jq = f"jq {options} {shlex.quote(program)}"
        items = _run(sandbox, f"{jq} in.json")
        whole = _run(sandbox, f"cat in.json | {jq}")
        assert items == whole, (program, text[:80])


@pytest.mark.parametrize(
    ("program", "output"),
    [
        (".[] | select(.on) | .id", "39998"),
        ("[.[] | select(.id % 1000 == 0) | .name] | length", "40"),
        ("map(select(.id < 3) | .tags[1]) | unique", '["b"]'),
    ],
)
def test_an_iterated_array_is_never_built_whole(program: str, output: str) -> None:
    sb = Sandbox()
    items = [
        {"id": i, "name": f"user{i}", "tags": ["a", "b"], "on": i % 2 == 0} for i in range(40_000)
    ]
    text = json.dumps(items)
    sb.fs.write("big.json", text)
    sb.execute("jq -n 1", language="shell")
    before = sb.memory_bytes
    result = sb.execute(f"jq -c {shlex.quote(program)} big.json | tail -1", language="shell")
    assert (result.stdout, result.exit_code) == (output + "\n", 0)
    grown = sb.memory_bytes - before
    # The whole tree would take six times the file; one item at a time takes a few pages
    # (and the outputs collected).
    assert grown < len(text) / 3, (grown, len(text))
