"""Limits end an execution with a clear error and leave the sandbox usable."""

from __future__ import annotations

import logging
import time

import pytest

import corral.protocol
from conftest import TIMEOUT_SLACK
from corral import Limits, Sandbox, SandboxTool


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
    "QuickJS does not poll its interrupt handler in Array.prototype.sort, nor allocate; only "
    "wasmtime's epoch backstop stops it (a browser has no such backstop in-process)"
)
@pytest.mark.parametrize(
    "code",
    ["Array.prototype.sort.call({length: 2 ** 32 - 1})", "[].reverse.call({length: 2 ** 32 - 1})"],
)
def test_uninterruptible_builtin_is_stopped_by_the_native_backstop(code: str) -> None:
    # QuickJS does not poll its interrupt handler inside these builtins, and they allocate
    # nothing (join, which builds a string, is stopped by the guest's allocator instead).
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    sandbox.fs.write("/workspace/kept.txt", b"kept")
    setup = "globalThis.kept = 'yes'; fs.writeFileSync('/workspace/run.txt', 'ran')"
    assert sandbox.execute(setup).error is None
    started = time.monotonic()
    result = sandbox.execute(code)
    assert time.monotonic() - started < 3
    assert (result.exit_code, result.error_kind) == (124, "timeout")
    assert result.error == (
        "TimeoutError: execution exceeded the 0.3 s time limit and was stopped (the time limit "
        "was exceeded inside a builtin that cannot be interrupted); do less work per execution "
        "or raise Limits(timeout=...)"
    )
    # The instance was replaced; the sandbox works, with its files (guest globals are gone).
    assert sandbox.execute("return typeof kept").return_value == "undefined"
    assert sandbox.fs.read("/workspace/kept.txt") == b"kept"
    assert sandbox.fs.read("/workspace/run.txt") == b"ran"
    assert sandbox.execute("return 2 + 2").return_value == 4


def test_memory_limit_raises_out_of_memory_and_recovers() -> None:
    sandbox = Sandbox(limits=Limits(memory=16 * 1024 * 1024))
    result = sandbox.execute("const a = []; while (true) a.push(new Array(1e5).fill(1));")
    assert (result.exit_code, result.error) == (
        1,
        f"InternalError: out of memory: the code used all of the {16 * 1024 * 1024}-byte "
        "JavaScript heap (Limits.memory); keep less in memory at once (process the data in "
        "parts, write intermediate results to files) or raise Limits(memory=...)",
    )
    assert sandbox.execute("return [1, 2, 3].length").return_value == 3


@pytest.mark.parametrize("memory", [2, 16])
def test_cyclic_garbage_is_still_collected_within_the_memory_limit(memory: int) -> None:
    # Many times the heap limit in cycles that only the cycle collector frees: it must still
    # run in time (the guest lets an execution allocate a few MB before its first collection).
    sandbox = Sandbox(limits=Limits(memory=memory * 1024 * 1024))
    code = """
    let kept = 0;
    for (let i = 0; i < 2000; i++) {
      const a = {pad: new Array(1000).fill(i)}, b = {a};
      a.b = b;
      kept += b.a.pad.length;
    }
    return kept
    """
    result = sandbox.execute(code)
    assert (result.return_value, result.error) == (2_000_000, None)


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


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        # jaq's own evaluation: only the guest allocator's backstop stops it (a trap).
        ("jq -n 'def f: f; f'", False),
        # Loops that check the execution's deadline themselves: the session is kept.
        ("echo 'while (1) {}' | bc", True),
        ("jq -n 'last(range(1e12))'", True),
    ],
)
def test_the_guest_stops_loops_that_never_yield_without_an_epoch_backstop(
    code: str, kept: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As in the browser: no host backstop within the test's time.
    monkeypatch.setattr(corral.protocol, "BACKSTOP_GRACE", 60.0)
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    sandbox.fs.write("kept.txt", "before")
    started = time.monotonic()
    result = sandbox.execute(f"x=set; echo after > kept.txt; {code}", language="shell")
    assert time.monotonic() - started < 2.0  # bounded (it would run for a minute)
    assert (result.exit_code, result.error_kind) == (124, "timeout"), result.error
    assert sandbox.fs.read_text("kept.txt") == ("after\n" if kept else "before")
    after = sandbox.execute('echo "${x:-unset}"', language="shell")
    assert after.stdout == ("set\n" if kept else "unset\n")


def test_output_is_capped_with_a_marker() -> None:
    sandbox = Sandbox(limits=Limits(max_output=100))
    result = sandbox.execute("for (let i = 0; i < 1000; i++) console.log('line', i)")
    assert result.exit_code == 0
    head, marker = result.stdout[:100], result.stdout[100:]
    assert head.startswith("line 0\nline 1\n")
    assert marker == "\n[output truncated: more than 100 bytes; print less or return a summary]\n"
    assert sandbox.execute("console.log('fresh')").stdout == "fresh\n"


def test_printing_a_string_near_half_the_heap_is_cut_to_the_cap_not_an_error() -> None:
    # Joining the arguments and copying the line out used to need two more copies of a
    # 30 MB string in a 64 MiB heap: "QuickJS library created a unknown error".
    sandbox = Sandbox(limits=Limits(max_output=100))
    result = sandbox.execute("console.log('x'.repeat(30e6), 'y'); console.error('z'); return 1")
    assert (result.error, result.return_value) == (None, 1)
    assert result.stdout == "x" * 100 + (
        "\n[output truncated: more than 100 bytes; print less or return a summary]\n"
    )


def test_caps_apply_to_the_returned_value_too() -> None:
    sandbox = Sandbox(limits=Limits(max_output=10))
    result = sandbox.execute("return 'x'.repeat(50)")
    assert result.stdout.startswith("xxxxxxxxxx\n[output truncated")
    assert result.return_value == "x" * 50


RANGE = {
    "memory": "from 1 MiB to 4031 MiB",
    "max_output": "from 1 byte to 4031 MiB",
    "max_fs_bytes": "from 1 byte to 4031 MiB",
    "max_files": "from 1 to 4_294_967_295 files",
    "max_file_size": "from 1 byte to 4031 MiB",
    "max_tool_calls": "from 0 to 4_294_967_295 calls, or None",
}
TIMEOUT_RANGE = "Limits.timeout must be > 0 and at most 86400 seconds (one day), got"


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"timeout": 0}, ValueError, f"{TIMEOUT_RANGE} 0"),
        ({"timeout": -1.5}, ValueError, f"{TIMEOUT_RANGE} -1.5"),
        ({"timeout": float("inf")}, ValueError, f"{TIMEOUT_RANGE} inf"),
        ({"timeout": float("nan")}, ValueError, f"{TIMEOUT_RANGE} nan"),
        ({"timeout": 1e300}, ValueError, f"{TIMEOUT_RANGE} 1e+300"),
        ({"timeout": 86400.5}, ValueError, f"{TIMEOUT_RANGE} 86400.5"),
        (
            {"timeout": True},
            TypeError,
            "Limits.timeout must be a number of seconds (int or float), not True",
        ),
        (
            {"timeout": "2"},
            TypeError,
            "Limits.timeout must be a number of seconds (int or float), not '2'",
        ),
        ({"memory": 1024}, ValueError, f"Limits.memory must be {RANGE['memory']}, got 1024"),
        ({"memory": -1}, ValueError, f"Limits.memory must be {RANGE['memory']}, got -1"),
        ({"memory": 2**32}, ValueError, f"Limits.memory must be {RANGE['memory']}, got {2**32}"),
        (
            {"memory": 1e8},
            TypeError,
            f"Limits.memory must be an int {RANGE['memory']}, not 100000000.0",
        ),
        ({"max_output": 0}, ValueError, f"Limits.max_output must be {RANGE['max_output']}, got 0"),
        (
            {"max_output": 1.5},
            TypeError,
            f"Limits.max_output must be an int {RANGE['max_output']}, not 1.5",
        ),
        (
            {"max_fs_bytes": None},
            TypeError,
            f"Limits.max_fs_bytes must be an int {RANGE['max_fs_bytes']}, not None",
        ),
        ({"max_files": 0}, ValueError, f"Limits.max_files must be {RANGE['max_files']}, got 0"),
        (
            {"max_files": True},
            TypeError,
            f"Limits.max_files must be an int {RANGE['max_files']}, not True",
        ),
        (
            {"max_file_size": 2**40},
            ValueError,
            f"Limits.max_file_size must be {RANGE['max_file_size']}, got {2**40}",
        ),
        (
            {"max_tool_calls": -1},
            ValueError,
            f"Limits.max_tool_calls must be {RANGE['max_tool_calls']}, got -1",
        ),
        (
            {"max_tool_calls": "3"},
            TypeError,
            f"Limits.max_tool_calls must be an int {RANGE['max_tool_calls']}, not '3'",
        ),
        (
            {"memory": 2 * 1024**3, "max_fs_bytes": 2 * 1024**3},
            ValueError,
            "Limits.memory + Limits.max_fs_bytes must be at most 4032 MiB (a wasm32 guest "
            "addresses 4096 MiB, 64 MiB of it for itself), got 2048 MiB + 2048 MiB",
        ),
    ],
)
def test_invalid_limits_are_rejected_naming_the_range(
    kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error) as caught:
        Limits(**kwargs)  # type: ignore[arg-type]
    assert (type(caught.value), str(caught.value)) == (error, message)


def test_the_extremes_of_each_range_work() -> None:
    # The largest timeout once overflowed the epoch deadline and timed out at once.
    sandbox = Sandbox(limits=Limits(timeout=86400, memory=1024 * 1024, max_tool_calls=0))
    assert sandbox.execute("return [1, 2].map(x => x * 2)").return_value == [2, 4]
    assert sandbox.execute("echo small", "shell").stdout == "small\n"
    sandbox.close()
    Limits(memory=4031 * 1024 * 1024, max_fs_bytes=1024 * 1024)  # the largest linear memory


@pytest.mark.parametrize(
    ("language", "error", "message"),
    [
        (None, TypeError, "language must be a str ('javascript', 'shell' or 'auto'), not None"),
        (5, TypeError, "language must be a str ('javascript', 'shell' or 'auto'), not 5"),
        (
            "python",
            ValueError,
            "unsupported language 'python': use 'javascript', 'shell' (or 'bash'), or 'auto'",
        ),
    ],
)
def test_invalid_language_is_rejected_at_once(
    language: object, error: type[Exception], message: str
) -> None:
    sandbox = Sandbox()
    with pytest.raises(error) as caught:
        sandbox.execute("return 1", language)  # type: ignore[arg-type]
    assert (type(caught.value), str(caught.value)) == (error, message)
    with pytest.raises(error) as caught:
        SandboxTool(sandbox, language)  # type: ignore[arg-type]
    assert str(caught.value) == message
    assert [entry.kind for entry in sandbox.audit()] == []  # nothing ran
    assert sandbox.execute("return 1").return_value == 1


def test_guest_out_of_memory_restarts_the_sandbox(caplog: pytest.LogCaptureFixture) -> None:
    sandbox = Sandbox(limits=Limits(memory=16 * 1024 * 1024, max_fs_bytes=1024 * 1024))
    with caplog.at_level(logging.DEBUG, logger="corral"):
        result = sandbox.execute("return readStdin().length", stdin=b"x" * (70 << 20))
    # The guest's allocation-failure lines are kept for debugging, but the result already
    # says what happened: no warning in the host's log (it used to print two).
    guest_lines = [r for r in caplog.records if r.getMessage().startswith("guest: ")]
    assert guest_lines and all(r.levelno == logging.DEBUG for r in guest_lines)
    assert (result.exit_code, result.error_kind) == (1, "out_of_memory")
    assert result.error == (
        "InternalError: the sandbox ran out of memory and was restarted; work on smaller data, "
        "or raise Limits(memory=...)"
    )
    assert sandbox.execute("return 1").return_value == 1


def test_a_shell_writer_past_the_output_cap_stops_instead_of_running_to_the_time_limit() -> None:
    sandbox = Sandbox(limits=Limits(max_output=1000, timeout=20))
    result = sandbox.execute("yes; echo after", "shell")
    assert result.duration_ms < 10_000  # it used to run on to the 20 s time limit
    assert result.stdout.startswith("y\ny\n")
    assert result.stdout.endswith(
        "[output truncated: more than 1000 bytes; print less or return a summary]\n"
    )
    assert sandbox.execute("echo fresh", "shell").stdout == "fresh\n"


def _echo(x: int) -> dict[str, int]:
    """Echo."""
    return {"x": x}


def test_running_out_of_heap_in_a_promise_all_is_out_of_memory_not_a_deadlock() -> None:
    # Promise.all's reactions that fail to allocate reject promises nobody awaits, so the
    # execution used to end as "awaits a promise that can never settle" (8,192 calls here,
    # after the smaller runs).
    sandbox = Sandbox(tools=[_echo], limits=Limits(memory=4 * 1024 * 1024))
    for calls in (2048, 4096, 5000, 6000, 8192):
        code = f"const ps = []; for (let i = 0; i < {calls}; i++) ps.push(_echo({{x: i}}));"
        result = sandbox.execute(code + " return (await Promise.all(ps)).length")
        if calls <= 4096:
            assert result.return_value == calls, (calls, result.error)  # fits
            continue
        assert result.error_kind == "exception", (calls, result.error)
        assert "out of memory" in (result.error or ""), (calls, result.error)
    assert sandbox.execute("return 1").return_value == 1


def test_a_short_execution_reads_no_clock() -> None:
    # The deadline starts at the first look at the clock (a call out to the host).
    with Sandbox() as sandbox:
        for code, language in (("return 1 + 2", "javascript"), ("echo hi", "shell")):
            start = len(sandbox.trace.events)
            sandbox.execute(code, language)
            assert [e for e in sandbox.trace.events[start:] if e["t"] == "clock"] == []


@pytest.mark.parametrize("language", ["javascript", "shell"])
def test_time_waiting_on_a_tool_counts_against_the_limit(language: str) -> None:
    # The guest reads the clock before it waits on the host, so the loop after the tool is
    # stopped by the guest's own check at the limit, not by the host's backstop after it.
    def slow() -> int:
        """Take 0.25 s."""
        time.sleep(0.25)
        return 1

    sandbox = Sandbox(tools=[slow], limits=Limits(timeout=0.4))
    code = {
        "javascript": "await slow(); while (true) {}",
        "shell": "tool slow; while true; do :; done",
    }[language]
    started = time.monotonic()
    result = sandbox.execute(code, language)
    assert (result.exit_code, result.error_kind) == (124, "timeout"), result.error
    assert time.monotonic() - started < 0.4 + TIMEOUT_SLACK
    assert result.error.startswith("TimeoutError: execution exceeded the 0.4 s time limit")


def test_a_printf_field_too_large_for_memory_fails_that_command_only() -> None:
    sandbox = Sandbox()
    sandbox.execute("KEPT=yes", "shell")
    huge = sandbox.execute("printf '%0*d' 200000000 1 | wc -c; echo \"$KEPT\"", "shell")
    assert (huge.stdout, huge.exit_code, huge.error_kind) == ("0\nyes\n", 0, None)
    assert huge.stderr == (
        "bash: line 1: printf: 200000000: field width too large (at most 16777216 in this "
        "sandbox)\n"
    )
    precision = sandbox.execute("printf '%.*f' 300000000 1; echo \" $?\"", "shell")
    assert (precision.stdout, precision.error_kind) == (" 1\n", None)
    # A large field within the bound, and a long argument list, stream through a pipe.
    fine = "printf '%*s' 10000000 x | wc -c; printf '%s\\n' {1..200000} | tail -1"
    assert sandbox.execute(fine, "shell").stdout == "10000000\n200000\n"


@pytest.mark.parametrize(
    "command",
    [
        "set -- $(seq 1000000)",
        "a=($(seq 1000000))",
        "for x in $(seq 1000000); do :; done",
        "echo $(yes | head -c 8000000) > /dev/null",
    ],
)
def test_a_command_with_more_words_than_memory_holds_fails_that_command_only(
    command: str,
) -> None:
    # A million words used to exhaust the guest's memory (over 100 bytes each while they were
    # split) and restart the sandbox; now the command fails, as an external command would
    # with "Argument list too long", and the session goes on.
    limits = Limits(timeout=20.0, memory=32 * 1024 * 1024, max_fs_bytes=16 * 1024 * 1024)
    sandbox = Sandbox(limits=limits)
    sandbox.execute("KEPT=yes", "shell")
    result = sandbox.execute(f'{command}; echo "$? $KEPT"', "shell")
    assert (result.stdout[-6:], result.error_kind) == ("1 yes\n", None), result.error
    assert "line 1: argument list too long: " in result.stderr
    # A long list that fits is whole.
    fine = sandbox.execute('a=($(seq 200000)); set -- "${a[@]}"; echo "$# ${a[-1]}"', "shell")
    assert fine.stdout == "200000 200000\n"


def test_a_console_log_loop_stops_at_the_deadline_without_a_restart(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # console.log writes nothing once out of time, but the loop around it used to run on until
    # QuickJS's next interrupt check, 10k iterations later: past the guest allocator's
    # backstop, which restarts the sandbox. Now the write throws the uncatchable interrupt.
    monkeypatch.setattr(corral.protocol, "BACKSTOP_GRACE", 60.0)
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    sandbox.fs.write("kept.txt", "before")
    code = "await fs.writeFile('kept.txt', 'after'); for (;;) console.log('x'.repeat(10000))"
    result = sandbox.execute(code)
    assert result.error_kind == "timeout", result.error
    assert "inside a builtin" not in (result.error or "")  # the allocator backstop's wording
    assert sandbox.fs.read_text("kept.txt") == "after"  # no restart


def test_a_large_here_document_in_a_script_runs_without_a_restart() -> None:
    # Its body was copied as characters (four bytes each) to look for expansions: 7 MB of
    # text ran the guest out of memory (with 32 MiB of heap and 16 MiB of files).
    limits = Limits(timeout=20.0, memory=32 * 1024 * 1024, max_fs_bytes=16 * 1024 * 1024)
    sandbox = Sandbox(limits=limits)
    sandbox.fs.write("s.sh", "cat <<EOF\n" + "x" * 7_000_000 + "\nEOF\n")
    result = sandbox.execute("bash s.sh | wc -c", "shell")
    assert (result.stdout, result.error_kind) == ("7000001\n", None), result.error
