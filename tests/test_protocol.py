"""The step/resume protocol, driven directly (below the Sandbox)."""

from __future__ import annotations

import json

import pytest

from corral import Sandbox, protocol
from corral._module import wasm_bytes
from corral.protocol import (
    CallErrorKind,
    Cancel,
    Driver,
    Execution,
    HostOp,
    OpResult,
    RawOutcome,
    _parse_step,
    _results_frame,
    decode_frame,
    encode_frame,
)
from corral.results import ErrorKind
from corral.runtime import GuestTrap, Instance, get_backend

CONFIG = {
    "tools": [{"name": "echo", "description": "Echo.", "parameters": {"type": "object"}}],
    "limits": {"memory": 32 << 20, "max_output": 1 << 20},
}


@pytest.fixture
def driver() -> Driver:
    backend = get_backend()
    return Driver(backend, backend.load(wasm_bytes()), CONFIG, 128 << 20)


def drive(run: Execution, answer: object = None) -> tuple[list[list[HostOp]], RawOutcome]:
    """Run to completion, echoing every call's arguments; return the batches and outcome."""
    batches: list[list[HostOp]] = []
    try:
        ops = next(run)
        while True:
            batches.append(ops)
            reply = answer if answer is not None else [OpResult(op.id, ok=op.args) for op in ops]
            ops = run.send(reply)  # type: ignore[arg-type]
    except StopIteration as stop:
        return batches, stop.value


def test_frames_round_trip() -> None:
    frame = encode_frame({"a": 1}, {"code": b"x = 1", "stdin": b"\x00\xff"})
    header, blob = decode_frame(frame)
    assert header == {"a": 1, "code": [0, 5], "stdin": [5, 2]}
    assert blob == b"x = 1\x00\xff"


def test_promise_all_sends_every_call_in_one_step(driver: Driver) -> None:
    code = "return (await Promise.all([1, 2, 3, 4].map((i) => echo({i})))).map((r) => r.i)"
    batches, outcome = drive(driver.run("javascript", code, None, 5.0))
    assert [[json.loads(op.args) for op in batch] for batch in batches] == [
        [{"i": 1}, {"i": 2}, {"i": 3}, {"i": 4}]
    ]
    assert [op.tool for op in batches[0]] == ["echo"] * 4
    assert (outcome.exit_code, outcome.value) == (0, b"[1,2,3,4]")


def test_sequential_awaits_take_one_step_each(driver: Driver) -> None:
    code = "await echo({}); await echo({}); return 'done'"
    batches, outcome = drive(driver.run("javascript", code, None, 5.0))
    assert [len(b) for b in batches] == [1, 1]
    assert outcome.stdout == b"done"


def test_error_results_reject_with_the_matching_class(driver: Driver) -> None:
    code = "try { await echo({}) } catch (e) { return [e.name, e.message] }"
    run = driver.run("javascript", code, None, 5.0)
    op = next(run)[0]
    with pytest.raises(StopIteration) as stop:
        run.send([OpResult(op.id, error_kind="capability", error="echo denied: nope")])
    assert stop.value.value.value == b'["CapabilityError","echo denied: nope"]'


def test_cancel_ends_the_execution(driver: Driver) -> None:
    run = driver.run("javascript", "await echo({}); return 1", None, 5.0)
    next(run)
    with pytest.raises(StopIteration) as stop:
        run.send(Cancel(ErrorKind.TIMEOUT))
    outcome = stop.value.value
    assert (outcome.exit_code, outcome.error_kind) == (124, "timeout")
    # Nothing of the cancelled execution leaks into the next one.
    assert drive(driver.run("javascript", "return 2", None, 5.0))[1].value == b"2"


def test_unawaited_calls_still_reach_the_host(driver: Driver) -> None:
    batches, outcome = drive(driver.run("javascript", "echo({late: true}); return 1", None, 5.0))
    assert [json.loads(op.args) for op in batches[0]] == [{"late": True}]
    assert outcome.value == b"1"


def test_a_refused_message_restarts_the_guest(driver: Driver) -> None:
    run = driver.run("javascript", "await echo({})", None, 5.0)
    next(run)
    with pytest.raises(StopIteration) as stop:
        run.send([OpResult(999, ok=b"1")])
    outcome = stop.value.value
    assert (outcome.error_kind, outcome.recovered) == ("protocol", True)
    assert outcome.error == (
        "InternalError: the guest refused a message: no pending operation with id 999; "
        "the sandbox was restarted"
    )
    assert drive(driver.run("javascript", "return 3", None, 5.0))[1].value == b"3"


def test_only_an_execution_that_ran_shell_code_sends_the_session(driver: Driver) -> None:
    # Saving the session cost a trivial execution a third of its guest time.
    _, javascript = drive(driver.run("javascript", "return 1", None, 5.0))
    _, shell = drive(driver.run("shell", "X=1", None, 5.0))
    _, both = drive(driver.run("javascript", "return shell('Y=2').exitCode", None, 5.0))
    assert (javascript.session, shell.session is None, both.session is None) == (None, False, False)
    assert b'"name":"Y"' in (both.session or b"")


def test_stdout_travels_as_raw_bytes(driver: Driver) -> None:
    _, outcome = drive(driver.run("javascript", "console.log('\\u00e9\\u0000x')", None, 5.0))
    assert outcome.stdout == "é\x00x\n".encode()


def test_the_results_frame_holds_each_result_by_id_and_range() -> None:
    results = [
        OpResult(7, ok=b'{"x":1}'),
        OpResult(8, error_kind=CallErrorKind.CAPABILITY, error='no "quotes" \u00e9'),
        OpResult(9, ok=b"null"),
        OpResult(10, error_kind=None, error=None),
    ]
    header, blob = decode_frame(_results_frame(results))
    assert header == {
        "results": [
            {"id": 7, "ok": [0, 7]},
            {"id": 8, "error": {"kind": "capability", "message": 'no "quotes" \u00e9'}},
            {"id": 9, "ok": [7, 4]},
            {"id": 10, "error": {"kind": "tool", "message": ""}},
        ]
    }
    assert blob == b'{"x":1}null'


def _reply(header: str, blob: bytes = b"") -> bytes:
    head = header.encode()
    return len(head).to_bytes(4, "little") + head + blob


SLEEP_STEP = (
    '{"status":"blocked","ops":[{"id":1,"kind":"sleep","ms":MS}],'
    '"stdout":[0,2],"stderr":[2,0],"outcome":null}'
)
DONE_STEP = (
    '{"status":"done","ops":[],"stdout":[0,0],"stderr":[0,0],'
    '"outcome":{"exit_code":CODE,"value":null,"error":null,"fs_generation":0}}'
)
# A broken guest's step replies: each must end the execution as a protocol trap. Under Pyodide
# the deep one must be refused before the C decoder recurses: its recursion there can exhaust
# the JavaScript stack, which kills the whole runtime instead of raising.
MALFORMED_STEPS = {
    "nan": _reply(SLEEP_STEP.replace("MS", "NaN")),
    "infinity": _reply(SLEEP_STEP.replace("MS", "Infinity")),
    "overflow": _reply(SLEEP_STEP.replace("MS", "1e999")),
    "negative-overflow": _reply(SLEEP_STEP.replace("MS", "-1e999")),
    "overflowed-int": _reply(DONE_STEP.replace("CODE", "1e999")),
    "deep": _reply(DONE_STEP.replace("CODE", "[" * 100_000 + "]" * 100_000)),
    "deep-objects": _reply(DONE_STEP.replace("CODE", '{"a":' * 100_000 + "1" + "}" * 100_000)),
    "trailing": _reply(SLEEP_STEP.replace("MS", "1") + " trailing"),
    "bom": _reply("\ufeff" + SLEEP_STEP.replace("MS", "1")),
    "empty": _reply(""),
    "not-utf8": (2).to_bytes(4, "little") + b"\xff{",
}


def test_a_step_reply_is_read_from_its_header_and_blob() -> None:
    step = _parse_step(_reply(SLEEP_STEP.replace("MS", "2.5"), b"hi"))
    assert (step.stdout, step.ops, step.outcome) == (b"hi", [HostOp(1, "sleep", ms=2.5)], None)
    done = _parse_step(_reply(DONE_STEP.replace("CODE", "3")))
    assert done.outcome is not None and done.outcome.exit_code == 3


@pytest.mark.parametrize("reply", MALFORMED_STEPS.values(), ids=MALFORMED_STEPS.keys())
def test_a_malformed_step_reply_is_a_protocol_trap(reply: bytes) -> None:
    with pytest.raises(GuestTrap, match="the guest sent a malformed reply") as caught:
        _parse_step(reply)
    assert caught.value.kind == ErrorKind.PROTOCOL


@pytest.mark.parametrize("reply", MALFORMED_STEPS.values(), ids=MALFORMED_STEPS.keys())
def test_a_malformed_step_reply_restarts_the_sandbox_with_its_files(
    reply: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    def echo(x: int) -> dict[str, int]:
        return {"x": x}

    with Sandbox(tools=[echo]) as sandbox:
        sandbox.fs.write("/workspace/kept.txt", b"kept")
        real_reply = protocol._reply
        replies: list[bytes] = []

        def one_broken_reply(instance: Instance, packed: int) -> bytes:
            replies.append(real_reply(instance, packed))
            return reply if len(replies) == 2 else replies[-1]  # the resume's is broken

        monkeypatch.setattr(protocol, "_reply", one_broken_reply)
        broken = sandbox.execute("return (await echo({x: 1})).x")
        monkeypatch.setattr(protocol, "_reply", real_reply)
        assert (broken.error_kind, broken.exit_code) == (ErrorKind.PROTOCOL, 1)
        assert broken.error is not None and "the guest sent a malformed reply" in broken.error
        after = sandbox.execute("return [(await echo({x: 2})).x, fs.readFileSync('kept.txt')]")
        assert (after.error, after.return_value) == (None, [2, "kept"])
