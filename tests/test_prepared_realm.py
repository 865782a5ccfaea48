"""The next JavaScript realm is built while the sandbox is idle (``Driver._prepare_realm``):
executions still each get a fresh realm, traces do not depend on when it was built, and a
preparation that fails or traps costs nothing but the time."""

from __future__ import annotations

import os
import time
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from corral import Sandbox, replay_all
from corral.protocol import ProtocolError
from corral.results import ErrorKind
from corral.runtime import GuestTrap, Later


def _entropy_reads(sandbox: Sandbox, code: str) -> list[dict[str, Any]]:
    """The clock and random events the trace records for one execution of ``code``."""
    start = len(sandbox.trace.events)
    sandbox.execute(code)
    return [e for e in sandbox.trace.events[start:] if e["t"] in ("clock", "random")]


def test_an_execution_after_the_first_does_not_build_its_realm() -> None:
    # Building a realm reads the clock; the first execution uses the realm of the image, and
    # every later one the realm prepared after the one before: all read the clock alike.
    with Sandbox() as sandbox:
        first = _entropy_reads(sandbox, "return 1")
        for _ in range(3):
            later = _entropy_reads(sandbox, "return 1")
            assert [e["id"] for e in later] == [e["id"] for e in first]


def test_each_execution_still_gets_a_fresh_realm() -> None:
    with Sandbox() as sandbox:
        sandbox.execute("Array.prototype.sum = function () { return 1 }; globalThis.leak = 2")
        result = sandbox.execute("return [typeof [].sum, typeof leak]")
        assert result.return_value == ["undefined", "undefined"]


def test_a_trace_with_prepared_realms_replays_exactly() -> None:
    with Sandbox(seed=7) as sandbox:
        for code in ("return Math.random()", "throw new Error('x')", "return Date.now()"):
            sandbox.execute(code)
        sandbox.execute("echo $RANDOM", language="shell")
        sandbox.execute("return Math.random()")
        originals = [e["result"] for e in sandbox.trace.events if e["t"] == "end"]
        replayed = replay_all(sandbox.trace)
    assert [r.to_dict() for r in replayed] == originals


def _failing_preparation(
    monkeypatch: pytest.MonkeyPatch, sandbox: Sandbox, error: Exception
) -> list[int]:
    """Make the sandbox's next preparations fail with ``error`` (without running them);
    returns a list that counts how many ran."""
    ran: list[int] = []
    backend = sandbox._driver._backend

    def in_background(work: Callable[[], None]) -> Later:
        del work  # never run

        def fail() -> None:
            ran.append(1)
            raise error

        return Later(fail)

    monkeypatch.setattr(backend, "in_background", in_background)
    return ran


@pytest.mark.parametrize(
    "error",
    [GuestTrap(ErrorKind.TRAP, "the guest trapped (test)"), ProtocolError("refused (test)")],
    ids=["trap", "refusal"],
)
def test_a_failed_preparation_leaves_the_sandbox_and_its_files(
    monkeypatch: pytest.MonkeyPatch, error: Exception
) -> None:
    with Sandbox() as sandbox:
        sandbox.execute("fs.writeFileSync('/workspace/a.txt', 'kept')")
        ran = _failing_preparation(monkeypatch, sandbox, error)
        sandbox.execute("return 1")  # schedules a preparation that fails
        result = sandbox.execute("return [fs.readFileSync('/workspace/a.txt', 'utf8'), 1 + 1]")
        assert result.error is None
        assert result.return_value == ["kept", 2]
        assert ran == [1]
    assert ran == [1]  # closing dropped the last one, which had not started


def test_closing_or_reading_while_a_realm_is_prepared_waits_for_it() -> None:
    for _ in range(20):
        sandbox = Sandbox()
        sandbox.execute("return 1")
        assert sandbox.memory_bytes > 0  # waits for the preparation, then reads
        sandbox.execute("return 2")
        sandbox.close()
        assert sandbox.closed


def test_a_dropped_sandbox_is_released_at_once_with_a_preparation_pending() -> None:
    sandbox = Sandbox()
    sandbox.execute("return 1")  # the preparation waits for the sandbox to be idle
    instance = weakref.ref(sandbox._driver.instance)
    sandbox.execute("return 2")
    del sandbox
    assert instance() is None


@pytest.mark.needs_native("the realm is prepared by a worker thread")
def test_a_sandbox_dropped_while_its_realm_is_prepared_is_released_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from corral.runtime import _wasmtime

    monkeypatch.setattr(_wasmtime, "IDLE_AFTER", 0.0)
    for _ in range(5):
        sandbox = Sandbox()
        sandbox.execute("return 1")
        preparing = sandbox._driver._preparing
        assert preparing is not None
        while preparing.pending:  # until the worker thread has started on it
            pass
        instance = weakref.ref(sandbox._driver._instance)  # type: ignore[arg-type]
        del sandbox, preparing
        assert instance() is None


@pytest.mark.needs_native("forks the process")
def test_a_forked_process_prepares_realms_with_its_own_worker(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from corral.runtime import _wasmtime

    monkeypatch.setattr(_wasmtime, "IDLE_AFTER", 0.0)
    with Sandbox() as parent:
        parent.execute("return 1")  # the worker thread runs in this process now
        parent.execute("return 2")
    pid = os.fork()
    if pid == 0:  # the child: only the thread that forked runs here
        try:
            child = Sandbox()
            child.execute("return 1")
            preparing = child._driver._preparing
            deadline = time.monotonic() + 10
            while preparing is not None and preparing.pending and time.monotonic() < deadline:
                time.sleep(0.01)
            os._exit(0 if preparing is not None and not preparing.pending else 1)
        finally:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_shell_executions_prepare_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    with Sandbox() as sandbox:
        ran = _failing_preparation(
            monkeypatch, sandbox, ProtocolError("a shell execution prepared a realm")
        )
        assert sandbox.execute("echo hi", language="shell").stdout == "hi\n"
        assert sandbox.execute("echo hi", language="shell").stdout == "hi\n"
        assert ran == []


def test_later_runs_its_work_once_by_whoever_comes_first() -> None:
    runs: list[int] = []
    later = Later(lambda: runs.append(1))
    assert runs == []
    later.wait()  # nobody started it: done here
    later.wait()
    later.run()
    assert runs == [1]
    started = Later(lambda: runs.append(2))
    started.run()  # as the worker thread does
    started.wait()
    assert runs == [1, 2]


def test_a_cancelled_later_never_runs_and_a_failed_one_raises_once() -> None:
    runs: list[int] = []
    later = Later(lambda: runs.append(1))
    later.cancel()
    later.run()
    later.wait()
    assert runs == []

    def fail() -> None:
        raise ProtocolError("failed")

    failing = Later(fail)
    failing.run()
    with pytest.raises(ProtocolError):
        failing.wait()
    failing.wait()  # reported once
