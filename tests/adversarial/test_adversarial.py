"""Hostile code against a sandbox with tools, capabilities and tight limits.

Every case (``cases.py``) is held to the same invariants, whatever it tried:

- ``execute()`` returns (never raises) within the time limit plus a backstop's slack;
- the host's secret (an environment variable and a file in the host's working directory) never
  appears in stdout, stderr, the error or the return value;
- every ``pay`` call that reached the tool obeyed the policy (0 < amount <= 100, a finite
  number, currency USD or EUR), and no more than its budget of 5 ran;
- afterwards the same sandbox is usable and its files are intact.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cases import CASES, Case

from conftest import IN_PYODIDE
from corral import Limits, MethodCapability, Param, Sandbox
from corral._calls import CANCELLED, DEADLINE_EVERY, Timers
from corral.protocol import Cancel, HostOp

SECRET = "s3cr3t-" + "7f1c9a0e4b"  # spelled in two parts so no source file holds it whole
TIMEOUT = 1.0
# How late a runaway may end: the guest's own checks stop it at once; a builtin that never
# polls them is stopped by the native epoch backstop (issue 11 targets +250 ms at p99; this
# bound leaves room for a loaded CI machine and is reported, not tuned).
SLACK = 2.0


def overload() -> float:
    """How many times over its cores the machine is loaded now (at least 1): a case that takes
    the host's own time (a deep tool result to convert, 100 MB to copy) is that much slower."""
    loadavg = getattr(os, "getloadavg", None)
    if loadavg is None:  # Pyodide
        return 1.0
    load: float = loadavg()[0]
    return max(1.0, load / (os.cpu_count() or 1))


CANARY = b"canary: files survive hostile code\n"


@dataclass
class Host:
    """What the host's tools saw."""

    paid: list[tuple[Any, Any]] = field(default_factory=list)
    sandbox: Sandbox | None = None


def make_sandbox(host: Host) -> Sandbox:
    def pay(amount: float, currency: str) -> str:
        """Pay someone."""
        host.paid.append((amount, currency))
        return f"paid {amount} {currency}"

    def echo(text: str) -> str:
        """Echo text back."""
        return text

    def boom() -> str:
        """Always fails."""
        raise RuntimeError("boom: the tool failed")

    def boom_secret() -> str:
        """Fails with a secret in a local variable of its traceback."""
        token = SECRET  # noqa: F841 - a local a traceback would show
        raise RuntimeError("the tool failed")

    class Opaque:
        def __repr__(self) -> str:
            return f"<Opaque {SECRET}>"

    def opaque() -> Any:
        """Returns an object that is not JSON."""
        return Opaque()

    def generator() -> Any:
        """Returns a generator."""
        return (SECRET for _ in range(1))

    def env_var(name: str) -> str | None:
        """Reads the host's environment (never granted)."""
        return os.environ.get(name)

    def secret_admin() -> str:
        """A tool the sandbox holds but may not call."""
        return SECRET

    def nan_result() -> float:
        """Returns NaN."""
        return math.nan

    def deep_result() -> Any:
        """Returns a list nested 100,000 deep."""
        value: list[Any] = []
        for _ in range(100_000):
            value = [value]
        return value

    class BadStr:
        def __str__(self) -> str:
            raise RuntimeError(SECRET)

        __repr__ = __str__

    def bad_str() -> Any:
        """Returns an object whose str() raises."""
        return BadStr()

    class BadDump:
        def model_dump(self) -> Any:
            raise RuntimeError("broken model_dump")

    def bad_dump() -> Any:
        """Returns an object whose model_dump() raises."""
        return BadDump()

    def reenter() -> Any:
        """Calls execute() on its own sandbox."""
        assert host.sandbox is not None
        return host.sandbox.execute("return 1").return_value

    granted = ["echo", "boom", "boom_secret", "opaque", "generator", "nan_result"]
    granted += ["deep_result", "bad_str", "bad_dump", "reenter"]
    capabilities = [
        MethodCapability(
            "pay",
            [Param("amount") > 0, Param("amount") <= 100, Param("currency").is_in(["USD", "EUR"])],
            max_calls=5,
        ),
        *(MethodCapability(name) for name in granted),
    ]
    tools = [pay, echo, boom, boom_secret, opaque, generator, env_var, secret_admin]
    tools += [nan_result, deep_result, bad_str, bad_dump, reenter]
    sandbox = Sandbox(
        tools=tools,
        capabilities=capabilities,
        limits=Limits(
            timeout=TIMEOUT,
            memory=32 * 1024 * 1024,
            max_output=64 * 1024,
            max_fs_bytes=16 * 1024 * 1024,
            max_files=1000,
            max_file_size=8 * 1024 * 1024,
        ),
    )
    host.sandbox = sandbox
    sandbox.fs.write("canary.txt", CANARY)
    return sandbox


@pytest.fixture(autouse=True)
def host_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("CORRAL_ADVERSARIAL_SECRET", SECRET)
    (tmp_path / "secret.txt").write_text(SECRET)
    monkeypatch.chdir(tmp_path)
    yield


# Cases that fail today, with the reason: each must still fail (strict), so a fix is noticed.
KNOWN_FAILURES: dict[str, str] = {}
# Known failures that depend on timing: they fail on a quiet machine and may pass on a loaded
# one (so not strict), each with its cause.
KNOWN_TIMING_FAILURES: dict[str, str] = {
    "DOS-194": "natively the batch stops at the deadline; under Pyodide (Node, load 9) 20,000 "
    "tool results of 1 KB still ran past the allocator backstop's 50 ms grace somewhere "
    "outside the settling loop (not found yet)",
}
# Cases that run natively only, each with the reason (the rest run under Pyodide too, where the
# guest's own deadline checks are the only bound: there is no epoch backstop).
NATIVE_ONLY = {
    # Under Pyodide a million words take longer than the 1 s limit to build: the guest's own
    # deadline ends the command cleanly before the bound on words is reached (which
    # tests/test_limits.py checks there with a longer limit).
    "DOS-181": "the words take longer than the time limit to build under Pyodide",
    # The tool's own 100,000-deep list: Pyodide itself cannot free it. Without corral,
    # `v = []; for _ in range(100_000): v = [v]; del v` ends Pyodide 314 with a fatal
    # "RangeError: Maximum call stack size exceeded" (CPython's deallocation recurses past the
    # JavaScript stack). The tool builds the list, not a conversion corral could bound.
    "EXF-024": "Pyodide cannot free the tool's 100,000-deep list (fatal to Pyodide)",
    "EXF-027": "Pyodide cannot free the tool's 100,000-deep list (fatal to Pyodide)",
}


def params(case: Case) -> Any:
    marks = []
    if case.id in KNOWN_FAILURES:
        marks.append(pytest.mark.xfail(reason=KNOWN_FAILURES[case.id], strict=True))
    if case.id in KNOWN_TIMING_FAILURES:
        marks.append(pytest.mark.xfail(reason=KNOWN_TIMING_FAILURES[case.id], strict=False))
    if case.native:
        # A builtin that never polls QuickJS's interrupt: the native epoch backstop ends it; in
        # the browser, terminating the Worker does (see docs/browser.rst).
        marks.append(pytest.mark.needs_native("bounded by the native epoch backstop"))
    elif case.id in NATIVE_ONLY:
        marks.append(pytest.mark.needs_native(NATIVE_ONLY[case.id]))
    return pytest.param(case, id=case.id, marks=marks)


def leaked(*texts: Any) -> bool:
    return any(SECRET in str(text) for text in texts)


def obeys_policy(amount: Any, currency: Any) -> bool:
    number = isinstance(amount, int | float) and not isinstance(amount, bool)
    return number and math.isfinite(amount) and 0 < amount <= 100 and currency in ("USD", "EUR")


@pytest.mark.parametrize("case", [params(c) for c in CASES])
def test_hostile_code(case: Case) -> None:
    host = Host()
    sandbox = make_sandbox(host)
    started = time.monotonic()
    result = sandbox.execute(case.code, language=case.language)
    elapsed = time.monotonic() - started
    text = f"{result.stdout}\n{result.stderr}\n{result.error}"

    slack = SLACK * (3 if IN_PYODIDE else 1) * overload()
    assert elapsed <= TIMEOUT + slack, f"took {elapsed:.2f} s"
    assert not leaked(result.stdout, result.stderr, result.error, result.return_value)
    assert all(obeys_policy(a, c) for a, c in host.paid), host.paid
    assert len(host.paid) <= 5
    kind, _, arg = case.expect.partition(":")
    if kind == "fails":
        assert result.exit_code != 0, text
    elif kind == "kind":
        assert result.error_kind == arg, text
    elif kind == "says":
        assert arg in text, text
    elif kind == "out":
        assert result.stdout == arg, text
    elif kind == "stops":
        assert result.error_kind == "timeout", text
        if overload() < 2:  # past that, the process may sleep through its own checks
            assert "inside a builtin" not in text, text  # a backstop's wording
    else:
        assert kind == "any"

    if case.id not in MAY_TOUCH_CANARY:
        assert sandbox.fs.read("/workspace/canary.txt") == CANARY
    after = sandbox.execute("return 6 * 7")
    assert (after.return_value, after.error) == (42, None)
    shell = sandbox.execute("echo still here", language="shell")
    assert (shell.stdout, shell.exit_code) == ("still here\n", 0)


# Work that only the native epoch backstop used to stop: builtins that never poll QuickJS's
# interrupt but allocate a few big buffers (the guest allocator's backstop looked at the clock
# by count of allocations only; now after every MiB allocated too). The browser has no epoch,
# so the guest must stop them itself.
# (Not join over 2**32 - 1 elements, DOS-009/010/011: on a fast machine the heap fills before
# the time limit, and join then loops on allocating nothing.)
GUEST_STOPS = ["DOS-124", "DOS-125", "DOS-126"]
# The native epoch's wording, which the guest's own backstop never uses.
EPOCH_WORDING = "cannot be interrupted"


@pytest.mark.parametrize("case_id", GUEST_STOPS)
def test_the_guest_stops_what_only_the_epoch_stopped(case_id: str) -> None:
    (case,) = [c for c in CASES if c.id == case_id]
    sandbox = make_sandbox(Host())
    # As in the browser: natively the epoch still comes, but 10 time limits late.
    sandbox._driver.backstop_factor = 10.0
    started = time.monotonic()
    result = sandbox.execute(case.code, language=case.language)
    elapsed = time.monotonic() - started
    # A timeout, or where the machine is fast enough (Pyodide under Node), the heap's limit
    # first (join filling 32 MiB): either way the guest ended it, not the epoch.
    assert result.error_kind in ("timeout", "exception"), result.error
    assert EPOCH_WORDING not in (result.error or ""), result.error
    assert elapsed <= TIMEOUT + SLACK * overload(), f"took {elapsed:.2f} s"
    assert sandbox.fs.read("/workspace/canary.txt") == CANARY


# Cases that legitimately change or remove the sandbox's own files (the code may manage its
# scratch space); they must still leave a working sandbox.
MAY_TOUCH_CANARY = {
    "ESC-046", "VFS-003", "VFS-004", "VFS-005",
    "VFS-006", "VFS-010", "VFS-022", "VFS-023",
    "VFS-035", "VFS-046", "VFS-044",
}  # fmt: skip


def test_the_cases_are_many_and_named_once() -> None:
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 280
    assert {i.split("-")[0] for i in ids} == {"ESC", "CAP", "DOS", "EXF", "VFS"}


def test_a_batch_of_calls_that_outlasts_the_deadline_is_cut_short() -> None:
    """DOS-024's host side: 10,000 calls reach the host in one batch after the deadline; the
    host decides 64 of them (one look at the clock), answers with a timeout, runs no tool."""
    host = Host()
    sandbox = make_sandbox(host)
    args = b'{"amount": 1, "currency": "USD"}'
    ops = [HostOp(i, "call", "pay", args) for i in range(10_000)]
    started = time.monotonic()
    answer, records = sandbox._dispatcher.dispatch_sync(ops, started - 1, Timers())
    assert answer == Cancel("timeout")
    assert len(records) == DEADLINE_EVERY
    assert host.paid == []
    assert {r.error for r in records if r.allowed} == {CANCELLED}
