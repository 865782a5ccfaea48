"""Limits end an execution with a clear error and leave the sandbox usable."""

from __future__ import annotations

import time

import pytest

from conftest import TIMEOUT_SLACK
from corral import Limits, Sandbox


def test_infinite_loop_times_out_within_deadline_plus_100ms() -> None:
    sandbox = Sandbox(limits=Limits(timeout=0.5))
    started = time.monotonic()
    result = sandbox.execute("while (true) {}")
    elapsed = time.monotonic() - started
    assert (result.exit_code, result.error_kind) == (124, "timeout")
    assert result.error == (
        "TimeoutError: execution exceeded the 0.5 s time limit and was stopped; do less work "
        "per execution or raise Limits(timeout=...)"
    )
    assert result.stderr == result.error + "\n"
    assert elapsed < 0.5 + TIMEOUT_SLACK
    assert sandbox.execute("return 'still here'").return_value == "still here"


def test_timeout_cannot_be_caught_by_the_code() -> None:
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    code = "for (;;) { try { while (true) {} } catch (e) { console.log('caught', e) } }"
    result = sandbox.execute(code)
    assert (result.exit_code, result.stdout) == (124, "")


def test_timeout_in_a_promise_reaction_and_state_is_clean_after() -> None:
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    code = "await null; Promise.resolve().then(() => { while (true) {} }); await null; while(1){}"
    assert sandbox.execute(code).error_kind == "timeout"
    assert sandbox.execute("await null; return 1").return_value == 1


def test_output_before_a_timeout_is_kept() -> None:
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    result = sandbox.execute("console.log('started'); while (true) {}")
    assert result.stdout == "started\n"


@pytest.mark.needs_native(
    "QuickJS does not poll its interrupt handler in Array.prototype.join; only wasmtime's "
    "epoch backstop stops it (a browser has no such backstop in-process)"
)
def test_uninterruptible_builtin_is_stopped_by_the_native_backstop() -> None:
    # QuickJS does not poll its interrupt handler inside Array.prototype.join.
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    sandbox.execute("globalThis.kept = 'yes'")
    started = time.monotonic()
    result = sandbox.execute("Array.prototype.join.call({length: 2 ** 32 - 1}, ',')")
    assert time.monotonic() - started < 3
    assert (result.exit_code, result.error_kind) == (124, "timeout")
    assert result.error is not None and result.error.startswith("TimeoutError: execution exceeded")
    # The instance was replaced; the sandbox works (guest globals are not preserved).
    assert sandbox.execute("return typeof kept").return_value == "undefined"
    assert sandbox.execute("return 2 + 2").return_value == 4


def test_memory_limit_raises_out_of_memory_and_recovers() -> None:
    sandbox = Sandbox(limits=Limits(memory=16 * 1024 * 1024))
    result = sandbox.execute("const a = []; while (true) a.push(new Array(1e5).fill(1));")
    assert (result.exit_code, result.error) == (1, "InternalError: out of memory")
    assert sandbox.execute("return [1, 2, 3].length").return_value == 3


def test_out_of_memory_is_catchable_like_any_error() -> None:
    sandbox = Sandbox(limits=Limits(memory=16 * 1024 * 1024))
    code = "try { 'x'.repeat(64 * 1024 * 1024) } catch (e) { return e.message }"
    assert sandbox.execute(code).return_value == "out of memory"


@pytest.mark.parametrize(
    "code",
    [
        "function f(n) { return f(n + 1) + 1 } return f(0)",
        "JSON.parse('['.repeat(1e6))",
    ],
)
def test_deep_recursion_ends_the_execution_and_recovers(code: str) -> None:
    sandbox = Sandbox()
    result = sandbox.execute(code)
    assert (result.exit_code, result.error_kind) == (1, "stack_overflow")
    assert result.error is not None and result.error.startswith("RangeError: stack overflow")
    assert sandbox.execute("return 'ok'").return_value == "ok"


def test_output_is_capped_with_a_marker() -> None:
    sandbox = Sandbox(limits=Limits(max_output=100))
    result = sandbox.execute("for (let i = 0; i < 1000; i++) console.log('line', i)")
    assert result.exit_code == 0
    head, marker = result.stdout[:100], result.stdout[100:]
    assert head.startswith("line 0\nline 1\n")
    assert marker == "\n[output truncated: more than 100 bytes; print less or return a summary]\n"
    assert sandbox.execute("console.log('fresh')").stdout == "fresh\n"


def test_caps_apply_to_the_returned_value_too() -> None:
    sandbox = Sandbox(limits=Limits(max_output=10))
    result = sandbox.execute("return 'x'.repeat(50)")
    assert result.stdout.startswith("xxxxxxxxxx\n[output truncated")
    assert result.return_value == "x" * 50


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"timeout": 0}, "Limits.timeout must be > 0 seconds"),
        ({"memory": -1}, "Limits.memory must be a positive int of bytes"),
        ({"max_output": 1.5}, "Limits.max_output must be a positive int of bytes"),
    ],
)
def test_invalid_limits_are_rejected(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Limits(**kwargs)  # type: ignore[arg-type]


def test_guest_out_of_memory_restarts_the_sandbox() -> None:
    sandbox = Sandbox(limits=Limits(memory=16 * 1024 * 1024, max_fs_bytes=1024 * 1024))
    result = sandbox.execute("return readStdin().length", stdin=b"x" * (70 << 20))
    assert (result.exit_code, result.error_kind) == (1, "out_of_memory")
    assert result.error == (
        "InternalError: the sandbox ran out of memory and was restarted; work on smaller data, "
        "or raise Limits(memory=...)"
    )
    assert sandbox.execute("return 1").return_value == 1
