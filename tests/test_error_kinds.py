"""Error kinds are one enum, with one exit code each, whichever side ends the execution."""

from __future__ import annotations

import json

import pytest

from corral import ErrorKind, ExecutionResult, Limits, Sandbox
from corral.results import timeout_message


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("return 1", None),
        ("throw new Error('boom')", ErrorKind.EXCEPTION),
        ("await new Promise(() => {})", ErrorKind.DEADLOCK),
        ("while (true) {}", ErrorKind.TIMEOUT),
        ("function f() { return f() + 1 } f()", ErrorKind.STACK_OVERFLOW),
    ],
)
def test_each_kind_comes_back_typed_with_its_exit_code(code: str, kind: ErrorKind | None) -> None:
    result = Sandbox(limits=Limits(timeout=0.3)).execute(code)
    assert result.error_kind is kind
    assert result.exit_code == (0 if kind is None else kind.exit_code)


def test_the_guests_timeout_message_is_the_hosts() -> None:
    result = Sandbox(limits=Limits(timeout=0.3)).execute("while (true) {}")
    assert result.error == timeout_message(0.3)


def test_a_kind_reads_compares_and_serialises_as_its_string() -> None:
    result = ExecutionResult("", "", 124, error="late", error_kind=ErrorKind.TIMEOUT)
    assert result.error_kind == "timeout" and isinstance(result.error_kind, str)
    assert repr(result.error_kind) == "'timeout'" and f"{result.error_kind}" == "timeout"
    data = json.loads(json.dumps(result.to_dict()))
    assert data["error_kind"] == "timeout"
    assert ExecutionResult.from_dict(data).error_kind is ErrorKind.TIMEOUT


def test_only_a_timeout_exits_124() -> None:
    assert {kind: kind.exit_code for kind in ErrorKind if kind.exit_code != 1} == {
        ErrorKind.TIMEOUT: 124
    }
