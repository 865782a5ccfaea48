"""The step/resume protocol, driven directly (below the Sandbox)."""

from __future__ import annotations

import json
import struct

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


def _resume_fields(frame: bytes) -> tuple[tuple[int, ...], list[tuple[int, ...]], bytes]:
    """A resume frame's header fields, its rows and its blob (as the guest's ``Resume``)."""
    length, flags, cancel, count, clock = struct.unpack_from("<IBBxxIQ", frame)
    assert length == 16 + 28 * count
    rows = [struct.unpack_from("<QB3xIIII", frame, 20 + 28 * i) for i in range(count)]
    return (flags, cancel, clock), rows, frame[4 + length :]


def test_the_results_frame_holds_each_result_by_id_and_range() -> None:
    results = [
        OpResult(7, ok=b'{"x":1}'),
        OpResult(8, error_kind=CallErrorKind.CAPABILITY, error='no "quotes" \u00e9'),
        OpResult(9, ok=b"null"),
        OpResult(10, error_kind=None, error=None),
        OpResult(11, error_kind=CallErrorKind.TOOL, error="lone \udc80"),
    ]
    fields, rows, blob = _resume_fields(_results_frame(results))
    assert fields == (0, 0, 0)
    assert rows == [
        (7, 0, 0, 7, 0, 0),
        (8, 1, 7, 10, 17, 14),
        (9, 0, 31, 4, 0, 0),
        (10, 1, 35, 4, 39, 0),
        (11, 1, 39, 4, 43, 6),
    ]
    assert blob == b'{"x":1}capabilityno "quotes" \xc3\xa9nulltooltoollone ?'
    assert _resume_fields(_results_frame([], 123))[0] == (2, 0, 123)


def test_a_cancellation_is_sent_as_the_guests_error_kind_number() -> None:
    assert _resume_fields(protocol._cancel_frame(ErrorKind.TIMEOUT)) == ((1, 2, 0), [], b"")
    with pytest.raises(ValueError, match="cannot be cancelled as"):
        protocol._cancel_frame(ErrorKind.TRAP)


def _reply(header: str | bytes, blob: bytes = b"") -> bytes:
    head = header.encode() if isinstance(header, str) else header
    return len(head).to_bytes(4, "little") + head + blob


def _step(
    *,
    done: int = 0,
    kind: int = 0,
    flags: int = 0,
    exit_code: int = 0,
    generation: int = 0,
    ranges: tuple[int, ...] = (0,) * 10,
    ops: tuple[tuple[int, int, int, int, int, int, float], ...] = (),
    count: int | None = None,
) -> bytes:
    """A step reply's binary header (the guest's ``protocol::StepReply``)."""
    fixed = struct.pack(
        "<BBBxiQ11I", done, kind, flags, exit_code, generation, *ranges,
        len(ops) if count is None else count,
    )  # fmt: skip
    return fixed + b"".join(struct.pack("<QB3xIIIId", *op) for op in ops)


SLEEP_OP = (1, 2, 0, 0, 0, 0, 2.5)  # id, kind (sleep), tool's range, arguments' range, ms
CALL_OP = (3, 1, 2, 4, 6, 7, 0.0)  # a call from the shell: tool "echo", arguments "{"x":1}"
DONE_STEP = (
    '{"status":"done","ops":[],"stdout":[0,0],"stderr":[0,0],'
    '"outcome":{"exit_code":CODE,"value":null,"error":null,"fs_generation":0}}'
)
# A broken guest's step replies: each must end the execution as a protocol trap. A JSON header
# is only the error of a refused message; under Pyodide the deep one must be refused before
# the C decoder recurses: its recursion there can exhaust the JavaScript stack, which kills the
# whole runtime instead of raising. The binary header is read without recursion.
MALFORMED_STEPS = {
    "json-step": _reply(DONE_STEP.replace("CODE", "0")),
    "nan": _reply('{"error":NaN}'),
    "overflow": _reply('{"error":1e999}'),
    "deep": _reply(DONE_STEP.replace("CODE", "[" * 100_000 + "]" * 100_000)),
    "deep-objects": _reply(DONE_STEP.replace("CODE", '{"a":' * 100_000 + "1" + "}" * 100_000)),
    "trailing": _reply('{"error":"no"} trailing'),
    "bom": _reply("\ufeff" + '{"error":"no"}'),
    "empty": _reply(""),
    "not-utf8": (2).to_bytes(4, "little") + b"\xff{",
    "short": _reply(_step()[:-1]),
    "longer": _reply(_step() + b"\0"),
    "too-many-ops": _reply(_step(ops=(SLEEP_OP,), count=2)),
    "unknown-status": _reply(_step(done=2)),
    "done-with-ops": _reply(_step(done=1, ops=(SLEEP_OP,))),
    "unknown-error-kind": _reply(_step(done=1, kind=4)),
    "unknown-op-kind": _reply(_step(ops=((1, 3, 0, 0, 0, 0, 0.0),))),
    "nan-sleep": _reply(_step(ops=((1, 2, 0, 0, 0, 0, float("nan")),))),
    "infinite-sleep": _reply(_step(ops=((1, 2, 0, 0, 0, 0, float("inf")),))),
    "negative-sleep": _reply(_step(ops=((1, 2, 0, 0, 0, 0, -1.0),))),
    "stdout-outside": _reply(_step(ranges=(0, 3, *(0,) * 8)), b"hi"),
    "args-outside": _reply(_step(ops=((3, 0, 0, 4, 4, 9, 0.0),)), b"echo{}"),
    "tool-not-utf8": _reply(_step(ops=((3, 0, 0, 2, 2, 2, 0.0),)), b"\xff\xfe{}"),
    "message-not-utf8": _reply(_step(done=1, kind=1, ranges=(*(0,) * 7, 1, 0, 0)), b"\xff"),
}


def test_a_step_reply_is_read_from_its_header_and_blob() -> None:
    step = _parse_step(_reply(_step(ranges=(0, 2, 2, 0, *(0,) * 6), ops=(SLEEP_OP,)), b"hi"))
    assert (step.stdout, step.ops, step.outcome) == (b"hi", [HostOp(1, "sleep", ms=2.5)], None)
    call = _parse_step(_reply(_step(ops=(CALL_OP,)), b'hiecho{"x":1}'))
    assert call.ops == [HostOp(3, "call", "echo", b'{"x":1}', caller="shell")]
    ranges = (0, 0, 0, 0, 0, 1, 1, 4, 5, 2)
    late = _step(done=1, kind=2, flags=3, exit_code=124, generation=7, ranges=ranges)
    done = _parse_step(_reply(late, b"3late{}"))
    assert done.outcome is not None
    assert (done.outcome.exit_code, done.outcome.fs_generation) == (124, 7)
    assert (done.outcome.value, done.outcome.session) == (b"3", b"{}")
    assert (done.outcome.error_kind, done.outcome.error) == (ErrorKind.TIMEOUT, "late")
    plain = _parse_step(_reply(_step(done=1, exit_code=-1, ranges=ranges), b"3late{}"))
    assert plain.outcome == RawOutcome(exit_code=-1, stdout=b"", stderr=b"")


def test_a_refused_message_is_a_protocol_trap_that_says_why() -> None:
    with pytest.raises(GuestTrap, match="the guest refused a message: no execution") as caught:
        _parse_step(_reply('{"error":"no execution"}'))
    assert caught.value.kind == ErrorKind.PROTOCOL


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


@pytest.mark.parametrize("stdin", [None, b"", b"in\n"])
@pytest.mark.parametrize(("language", "number"), [("javascript", 0), ("shell", 1)])
def test_the_submit_frame_holds_fixed_fields(
    language: str, number: int, stdin: bytes | None
) -> None:
    frame = protocol._job_frame(language, 1500, "ré".encode(), stdin)
    extra = stdin or b""
    fields = (number, stdin is not None, 1500, 0, 3, 3, len(extra))
    assert struct.unpack_from("<IBBxxQIIII", frame) == (28, *fields)
    assert frame[32:] == "ré".encode() + extra


def test_the_submit_frame_refuses_an_unknown_language() -> None:
    with pytest.raises(ValueError, match="unsupported language 'cobol'"):
        protocol._job_frame("cobol", 1500, b"", None)
