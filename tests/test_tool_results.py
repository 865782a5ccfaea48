"""What a tool returns, as the guest receives it: the accepted types and their JSON form, the
refusals (a ToolError naming the type, never its repr), and that nothing a tool returns makes
``execute()`` raise, for sync and async tools, a tool handler, JavaScript and the shell's
``tool`` command; every case replays exactly."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import decimal
import enum
import pathlib
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from corral import Limits, Sandbox, ToolDefinition, Trace, replay_all


class Secret:
    """An object whose repr holds a secret: it must never reach the guest."""

    def __repr__(self) -> str:
        return "Secret(token='hunter2')"


class BrokenStr:
    def __str__(self) -> str:
        raise RuntimeError("str is broken")

    __repr__ = __str__


class BrokenDump:
    def model_dump(self) -> Any:
        raise RuntimeError("model_dump is broken")


class Model:
    """Stands for a pydantic model: anything with ``model_dump()``."""

    def model_dump(self) -> Any:
        return {"id": 7, "tags": {"a"}, "when": datetime.date(2026, 1, 2)}


class BrokenMessage(Exception):
    def __str__(self) -> str:
        raise ValueError("no message")


class Colour(enum.Enum):
    RED = "red"
    PAIR = (1, 2)


@dataclasses.dataclass
class Point:
    x: int
    y: float
    label: Any = None


# Pyodide itself cannot free a list nested 100,000 deep (CPython's deallocation recurses past
# the JavaScript stack: fatal to Pyodide, whatever corral does), and the deep_list tool builds
# one. corral's encoder measures nesting without recursion on both targets (_tool_result.py).
pytestmark = pytest.mark.needs_native("Pyodide cannot free a 100,000-deep list (fatal to it)")


def deep(levels: int) -> list[Any]:
    """``levels`` nested lists."""
    value: list[Any] = []
    for _ in range(levels - 1):
        value = [value]
    return value


def circular() -> list[Any]:
    value: list[Any] = [1]
    value.append({"again": value})
    return value


def generator() -> Iterator[int]:
    yield 1


# What each kind of value returns; a callable is called afresh for each run.
VALUES: dict[str, Any] = {
    "plain": {"a": [1, 2.5, None, True, "é"]},
    "tuple_and_sets": {"t": (1, 2), "f": frozenset([3])},
    "int_keys": {1: "one", 2.5: "x", None: "n", False: "f"},
    "nan": {"x": float("nan"), "y": [float("inf"), float("-inf")], "z": 1.0},
    "bytes": [b"\x00\xffhi", bytearray(b"ab"), memoryview(b"c")],
    "dates": [
        datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC),
        datetime.date(2026, 1, 2),
        datetime.time(3, 4),
    ],
    "str_likes": [
        uuid.UUID(int=1),
        decimal.Decimal("1.10"),
        pathlib.PurePosixPath("/workspace/a.txt"),
    ],
    "enums": [Colour.RED, Colour.PAIR],
    "dataclass": lambda: Point(1, 2.5, label=Point(3, 4.0)),
    "model": Model,
    "deep_ok": lambda: deep(60),  # (a returned value is cut at 64 levels by the guest)
    "lone_surrogate": "a\udcffb",
    # Refused.
    "object": object,
    "secret": lambda: {"user": "ann", "key": Secret()},
    "generator": generator,
    "broken_str": BrokenStr,
    "broken_dump": BrokenDump,
    "deep_list": lambda: deep(100_000),
    "deep_513": lambda: deep(513),
    "circular": circular,
    "tuple_key": lambda: {(1, 2): "pair"},
    "nan_key": lambda: {float("nan"): 1},
    "function": lambda: len,
    "raises_broken_message": None,  # the tool raises BrokenMessage
}
ACCEPTED = {
    "plain": {"a": [1, 2.5, None, True, "é"]},
    "tuple_and_sets": {"t": [1, 2], "f": [3]},
    "int_keys": {"1": "one", "2.5": "x", "null": "n", "false": "f"},
    "nan": {"x": None, "y": [None, None], "z": 1.0},
    "bytes": ["AP9oaQ==", "YWI=", "Yw=="],
    "dates": ["2026-01-02T03:04:05+00:00", "2026-01-02", "03:04:00"],
    "str_likes": ["00000000-0000-0000-0000-000000000001", "1.10", "/workspace/a.txt"],
    "enums": ["red", [1, 2]],
    "dataclass": {"x": 1, "y": 2.5, "label": {"x": 3, "y": 4.0, "label": None}},
    "model": {"id": 7, "tags": ["a"], "when": "2026-01-02"},
    "deep_ok": deep(60),
    "lone_surrogate": "a\udcffb",
}
ADVICE = (
    "which cannot be sent as JSON; return dicts, lists, str, int, float, bool or None "
    "(dataclasses, pydantic models, bytes and dates are converted)"
)
REFUSED = {
    "object": f"TypeError: the result is an object of type object, {ADVICE}",
    "secret": f'TypeError: the result holds an object of type Secret at result["key"], {ADVICE}',
    "generator": f"TypeError: the result is an object of type generator, {ADVICE}",
    "broken_str": f"TypeError: the result is an object of type BrokenStr, {ADVICE}",
    "broken_dump": "RuntimeError: model_dump is broken",
    "deep_list": "TypeError: the result is nested deeper than 512 levels; return flatter data",
    "deep_513": "TypeError: the result is nested deeper than 512 levels; return flatter data",
    "circular": (
        'TypeError: the result holds itself at result[1]["again"] (a circular reference); '
        "return a copy without the cycle"
    ),
    "tuple_key": (
        "TypeError: the result has a key that is an object of type tuple in the object at "
        "result; JSON object keys are strings: use str, int, float, bool or None keys"
    ),
    "nan_key": (
        "TypeError: the result has a key that is an object of type float in the object at "
        "result; JSON object keys are strings: use str, int, float, bool or None keys"
    ),
    "function": f"TypeError: the result is an object of type builtin_function_or_method, {ADVICE}",
    "raises_broken_message": (
        "BrokenMessage: (its message cannot be shown: str() raised ValueError)"
    ),
}
assert set(ACCEPTED) | set(REFUSED) == set(VALUES)


def produce(kind: str) -> Any:
    if kind == "raises_broken_message":
        raise BrokenMessage
    value = VALUES[kind]
    return value() if callable(value) else value


def give(kind: str) -> Any:
    """Return a value of the given kind."""
    return produce(kind)


async def agive(kind: str) -> Any:
    """Return a value of the given kind, asynchronously."""
    await asyncio.sleep(0)
    return produce(kind)


GIVE = ToolDefinition(
    name="give",
    description="Return a value of the given kind (from a handler).",
    parameters={"type": "object", "properties": {"kind": {"type": "string"}}},
)


def sync_handler(name: str, params: dict[str, Any]) -> Any:
    return produce(params["kind"])


async def async_handler(name: str, params: dict[str, Any]) -> Any:
    return produce(params["kind"])


SANDBOXES: dict[str, Callable[[], Sandbox]] = {
    "sync": lambda: Sandbox(tools=[give], limits=Limits(timeout=10)),
    "async": lambda: Sandbox(tools=[agive], limits=Limits(timeout=10)),
    "handler": lambda: Sandbox(tools=[GIVE], tool_handler=sync_handler),
    "async_handler": lambda: Sandbox(tools=[GIVE], tool_handler=async_handler),
}
JS = "try { return ['ok', await %s({kind: %r})] } catch (e) { return [e.name, e.message] }"


def js(sandbox: Sandbox, kind: str) -> Any:
    tool = "agive" if "agive" in sandbox.tools else "give"
    result = sandbox.execute(JS % (tool, kind))
    assert (result.exit_code, result.error) == (0, None), result.error
    return result.return_value


@pytest.mark.parametrize("how", SANDBOXES)
def test_what_the_guest_receives_from_javascript(how: str) -> None:
    sandbox = SANDBOXES[how]()
    tool = "agive" if how == "async" else "give"
    expected = {kind: ["ok", value] for kind, value in ACCEPTED.items()}
    expected |= {kind: ["ToolError", f"{tool} failed: {error}"] for kind, error in REFUSED.items()}
    assert {kind: js(sandbox, kind) for kind in VALUES} == expected
    # The records hold what the guest saw; the run replays exactly, calling no tool.
    results = [sandbox.execute(JS % (tool, kind)) for kind in VALUES]
    records = {kind: r.tool_calls[0].result for kind, r in zip(VALUES, results, strict=True)}
    assert records == {kind: ACCEPTED.get(kind) for kind in VALUES}
    replayed = replay_all(Trace.from_jsonl(sandbox.trace.to_jsonl()))
    assert replayed[len(VALUES) :] == results


def test_results_nest_up_to_512_levels() -> None:
    sandbox = Sandbox(tools=[give])
    code = """
        let value = await give({kind: %r}), depth = 0;
        while (Array.isArray(value)) { value = value[0]; depth += 1 }
        return depth
    """
    VALUES["deep_512"] = lambda: deep(512)
    try:
        assert sandbox.execute(code % "deep_512").return_value == 512
        assert sandbox.execute(code % "deep_513").error == (
            f"ToolError: give failed: {REFUSED['deep_513']}"
        )
    finally:
        del VALUES["deep_512"]


def test_no_repr_reaches_the_guest_or_the_records() -> None:
    sandbox = Sandbox(tools=[give])
    result = sandbox.execute("return await give({kind: 'secret'})")
    assert "hunter2" not in repr(result) and "hunter2" not in sandbox.trace.to_jsonl()
    assert result.error == f"ToolError: give failed: {REFUSED['secret']}"


def test_what_the_shell_tool_command_prints() -> None:
    sandbox = Sandbox(tools=[give])

    def shell(kind: str) -> tuple[str, str, int]:
        result = sandbox.execute(f"tool give --kind {kind}", language="shell")
        return result.stdout, result.stderr, result.exit_code

    pretty = '{\n  "x": null,\n  "y": [\n    null,\n    null\n  ],\n  "z": 1.0\n}\n'
    assert shell("nan") == (pretty, "", 0)
    assert shell("secret") == ("", f"tool: give failed: {REFUSED['secret']}\n", 1)
    broken = "tool: give failed: RuntimeError: model_dump is broken\n"
    assert shell("broken_dump") == ("", broken, 1)
    assert shell("deep_list") == ("", f"tool: give failed: {REFUSED['deep_list']}\n", 1)
    # Bytes arrive as base64: the shell's base64 gives them back.
    decoded = sandbox.execute(
        "tool give --kind bytes | jq -r '.[0]' | base64 -d | od -An -tx1", language="shell"
    )
    assert decoded.stdout == " 00 ff 68 69\n"


def test_bytes_decode_in_javascript() -> None:
    sandbox = Sandbox(tools=[give])
    code = """
        const [first] = await give({kind: 'bytes'});
        return Array.from(Uint8Array.from(atob(first), (c) => c.charCodeAt(0)));
    """
    assert sandbox.execute(code).return_value == [0, 255, 104, 105]


def test_a_nan_result_no_longer_restarts_the_sandbox() -> None:
    sandbox = Sandbox(tools=[give])
    sandbox.fs.write("/workspace/kept.txt", b"kept")
    result = sandbox.execute(
        "const r = await give({kind: 'nan'}); return [r.x, Number.isNaN(r.x), r.y]"
    )
    assert (result.return_value, result.error_kind) == ([None, False, [None, None]], None)
    assert sandbox.fs.read("/workspace/kept.txt") == b"kept"
