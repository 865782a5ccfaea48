"""The audit trail, traces and exact replay, through the public API."""

from __future__ import annotations

import asyncio
import io
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from corral import (
    AuditLog,
    AuditRecord,
    Limits,
    MethodCapability,
    Param,
    ReplayDivergence,
    Sandbox,
    Trace,
    replay,
    replay_all,
)

counter = {"n": 0}


def lookup(key: str) -> dict[str, Any]:
    """A tool whose answers change from call to call (so replay must not call it)."""
    counter["n"] += 1
    return {"key": key, "n": counter["n"]}


def transfer(amount: int) -> str:
    """Move money."""
    return f"moved {amount}"


def test_audit_records_executions_and_every_call() -> None:
    sandbox = Sandbox(
        tools=[lookup, transfer],
        capabilities=[
            MethodCapability("lookup"),
            MethodCapability("transfer", [Param("amount") <= 10]),
        ],
    )
    sandbox.execute("await lookup({key: 'a'}); try { await transfer({amount: 99}) } catch {}")
    kinds = [(e.kind, e.method, e.decision) for e in sandbox.audit()]
    assert kinds == [
        ("execution_start", None, None),
        ("tool_call", "lookup", "allowed"),
        ("tool_call", "transfer", "denied"),
        ("execution_end", None, None),
    ]
    denied = sandbox.audit(kind="tool_call")[1]
    assert (denied.rule, denied.params, denied.error) == (
        "amount <= 10 failed (amount = 99)",
        {"amount": 99},
        "transfer denied: amount <= 10 failed (amount = 99)",
    )
    allowed = sandbox.audit(kind="tool_call")[0]
    assert allowed.result_size is not None and allowed.result_size > 0
    assert {e.sandbox_id for e in sandbox.audit()} == {sandbox.id}
    assert {e.execution_id for e in sandbox.audit()} == {1}
    end = sandbox.audit(kind="execution_end")[0]
    assert end.detail == {"exit_code": 0, "error_kind": None}


def test_audit_since_and_bad_kind() -> None:
    sandbox = Sandbox()
    sandbox.execute("return 1")
    cut = sandbox.audit()[-1].timestamp + 1e-6
    sandbox.execute("return 2")
    assert [e.execution_id for e in sandbox.audit(since=cut)] == [2, 2]
    with pytest.raises(ValueError, match="unknown audit kind 'calls'"):
        sandbox.audit(kind="calls")


def test_audit_jsonl_sink_with_redaction(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"

    def redact(method: str, params: Any) -> Any:
        return {k: "***" if k == "key" else v for k, v in params.items()}

    sandbox = Sandbox(tools=[lookup], audit_sink=path, redact=redact)
    sandbox.execute("await lookup({key: 'secret'})")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["execution_start", "tool_call", "execution_end"]
    assert lines[1]["params"] == {"key": "***"}
    assert "secret" not in path.read_text()
    stream = io.StringIO()
    Sandbox(audit_sink=stream).execute("return 1")
    assert len(stream.getvalue().splitlines()) == 2


def test_audit_log_records_a_batch_in_order_with_one_flush() -> None:
    class Sink(io.StringIO):
        flushes = 0

        def flush(self) -> None:
            self.flushes += 1
            super().flush()

    sink = Sink()
    log = AuditLog(sink, redact=lambda method, params: {"n": params["n"] * 10})
    seen: list[AuditRecord] = []
    log.subscribe(seen.append)
    batch = [
        AuditRecord(1.0 + n, "tool_call", "s", 1, call_id=n, method="t", params={"n": n})
        for n in range(3)
    ]
    kept = log.record_all(batch)
    assert [record.params for record in kept] == [{"n": 0}, {"n": 10}, {"n": 20}]
    assert list(log) == kept == seen
    lines = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert [(line["call_id"], line["params"]) for line in lines] == [
        (0, {"n": 0}),
        (1, {"n": 10}),
        (2, {"n": 20}),
    ]
    assert sink.flushes == 1


def test_call_records_read_later_are_those_a_sink_gets_at_once() -> None:
    def add(a: int, b: int) -> int:
        """Add."""
        return a + b

    def trail(log: AuditLog) -> list[tuple[Any, ...]]:
        sandbox = Sandbox(tools=[add], audit_sink=log)
        sandbox.execute("await add({a: 1, b: 2}); await Promise.all([add({a: 3}), nope({})])")
        sandbox.execute("return await Promise.all([add({a: 4, b: 5}), add({a: 1, b: 1})])")
        assert len(log) == 8
        assert [e.timestamp for e in log] == sorted(e.timestamp for e in log)
        return [
            (e.kind, e.execution_id, e.call_id, e.method, e.params, e.decision, e.rule, e.error)
            for e in sandbox.audit()
            if e.sandbox_id == sandbox.id
        ]

    sink = io.StringIO()
    kept = trail(AuditLog())  # no sink, redactor or listener: records made when read
    assert kept == trail(AuditLog(sink))
    assert [entry[5] for entry in kept if entry[0] == "tool_call"] == ["allowed", "denied"] + [
        "allowed"
    ] * 2
    assert len(sink.getvalue().splitlines()) == 8


def test_an_audit_log_subclass_sees_every_call_of_a_batch_through_record() -> None:
    calls: list[int | None] = []

    class Counting(AuditLog):
        def record(self, entry: AuditRecord) -> AuditRecord:
            entry = super().record(entry)
            if entry.kind == "tool_call":
                calls.append(entry.call_id)
            return entry

    log = Counting()
    sandbox = Sandbox(tools=[transfer], audit_sink=log)
    sandbox.execute("await Promise.all([transfer({amount: 1}), transfer({amount: 2})])")
    assert calls == [1, 2]
    assert [e.kind for e in log] == ["execution_start", "tool_call", "tool_call", "execution_end"]


def test_a_trace_read_between_executions_holds_each_batch_once_as_json() -> None:
    sandbox = Sandbox(tools=[transfer], capabilities=[MethodCapability("transfer", max_calls=2)])
    sandbox.execute("return await Promise.all([transfer({amount: 1}), transfer({amount: 2})])")
    first = sandbox.trace
    sandbox.execute("try { await transfer({amount: 3}) } catch (e) { return e.name }")
    second = sandbox.trace
    assert second.events[: len(first.events)] == first.events
    batches = [(e["t"], e.get("ops") or e.get("results")) for e in second.events]
    denied = "transfer denied: max_calls=2 for 'transfer' exhausted (2 calls made)"
    assert [b for b in batches if b[0] in ("ops", "answer")] == [
        ("ops", [_transfer_op(1, 1), _transfer_op(2, 2)]),
        ("answer", [{"id": 1, "ok": '"moved 1"'}, {"id": 2, "ok": '"moved 2"'}]),
        ("ops", [_transfer_op(3, 3)]),
        ("answer", [{"id": 3, "error_kind": "capability", "error": denied}]),
    ]
    assert [r.return_value for r in replay_all(Trace.from_jsonl(second.to_jsonl()))] == [
        ["moved 1", "moved 2"],
        "CapabilityError",
    ]


def test_a_trace_keeps_the_returned_value_as_it_was() -> None:
    sandbox = Sandbox(tools=[transfer])
    result = sandbox.execute("return {paid: await transfer({amount: 5}), items: [1]}")
    result.return_value["items"].append(threading.Lock())  # the caller's copy to change
    result.return_value["paid"] = "changed"
    [end] = [e for e in sandbox.trace.events if e["t"] == "end"]
    assert end["result"]["return_value"] == {"paid": "moved 5", "items": [1]}
    assert end["result"]["tool_calls"][0]["result"] == "moved 5"
    assert replay(sandbox.trace).return_value == {"paid": "moved 5", "items": [1]}


def test_a_trace_keeps_flat_returned_values_as_they_were() -> None:
    sandbox = Sandbox()
    flat_object = sandbox.execute("return {a: 1, b: 'x', c: null, d: 1.5, e: true}")
    flat_list = sandbox.execute("return [1, 'x', null]")
    nested = sandbox.execute("return [[1]]")
    flat_object.return_value["a"] = "changed"
    flat_list.return_value.append(threading.Lock())
    nested.return_value[0].append(2)
    ends = [e["result"]["return_value"] for e in sandbox.trace.events if e["t"] == "end"]
    assert ends == [{"a": 1, "b": "x", "c": None, "d": 1.5, "e": True}, [1, "x", None], [[1]]]


def _transfer_op(call_id: int, amount: int) -> dict[str, Any]:
    return {"id": call_id, "kind": "call", "tool": "transfer", "args": f'{{"amount":{amount}}}'}


def test_replay_is_exact_without_calling_tools_or_clocks() -> None:
    sandbox = Sandbox(tools=[lookup])
    code = """
    const a = await lookup({key: 'x'});
    const [b, c] = await Promise.all([lookup({key: 'y'}), lookup({key: 'z'})]);
    console.log(Math.random(), Date.now(), new Date().toISOString());
    return [a.n, b.n, c.n];
    """
    original = sandbox.execute(code)
    calls_before = counter["n"]
    text = sandbox.trace.to_jsonl()
    replayed = replay(Trace.from_jsonl(text))
    assert replayed == original
    assert counter["n"] == calls_before  # no tool ran


def test_replay_of_a_whole_session_keeps_guest_state() -> None:
    sandbox = Sandbox(tools=[lookup])
    first = sandbox.execute("const {n} = await lookup({key: 'k'}); fs.writeFileSync('n', `${n}`)")
    second = sandbox.execute("return [fs.readFileSync('n', 'utf8'), Math.random()]")
    assert replay_all(sandbox.trace) == [first, second]


def test_replay_of_denials_timeouts_and_recovered_traps() -> None:
    sandbox = Sandbox(
        tools=[transfer],
        capabilities=[MethodCapability("transfer", [Param("amount") <= 10])],
        limits=Limits(timeout=0.3),
    )
    # The guest's own deadline check must end the loop, as in the replay: on a loaded machine
    # the native backstop (0.1 s past the limit) could come first, with other wording.
    sandbox._driver.backstop_factor = 10.0
    results = [
        sandbox.execute("try { await transfer({amount: 50}) } catch (e) { return e.message }"),
        sandbox.execute("while (true) {}"),
        sandbox.execute("function f() { return f() + 1 } f()"),
        sandbox.execute("return 'after'"),
    ]
    assert [r.error_kind for r in results] == [None, "timeout", "stack_overflow", None]
    assert replay_all(sandbox.trace) == results


@pytest.mark.needs_native("the native epoch backstop")
def test_replay_of_an_execution_the_native_backstop_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The epoch stops a runaway between two of its clock readings, at a time a replay cannot
    reproduce: the replay stops the guest the same way where the trace's readings end (it used
    to ask for one more and diverge)."""
    from corral.runtime import _wasmtime

    sandbox = Sandbox(limits=Limits(timeout=0.3))
    # The epoch 0.1 s in, with no CPU time granted past it, before the guest's own check at
    # 0.3 s: as when a loaded machine kept the guest from running past its deadline.
    sandbox._driver.backstop_factor = 0.0
    monkeypatch.setattr(_wasmtime, "CPU_GRACE", 0.0)
    sandbox.fs.write("kept.txt", b"kept")
    results = [
        sandbox.execute("while (true) {}"),
        sandbox.execute("echo more > kept.txt; while :; do :; done", language="shell"),
        sandbox.execute("cat kept.txt", language="shell"),
    ]
    assert [r.error_kind for r in results] == ["timeout", "timeout", None]
    assert "inside a builtin" in (results[0].error or "")
    assert replay_all(sandbox.trace) == results


def test_replay_of_async_tools_and_cancellation() -> None:
    async def slow(i: int) -> int:
        """Sleep a little."""
        await asyncio.sleep(0.01 * i)
        return i

    sandbox = Sandbox(tools=[slow], limits=Limits(timeout=1.0))
    result = asyncio.run(
        sandbox.aexecute("return await Promise.all([1, 2, 3].map(i => slow({i})))")
    )
    assert result.return_value == [1, 2, 3]
    assert replay(sandbox.trace) == result


def test_divergence_names_the_first_differing_request() -> None:
    sandbox = Sandbox(tools=[lookup])
    sandbox.execute("await lookup({key: 'a'}); await lookup({key: 'b'})")
    trace = sandbox.trace
    for event in trace.events:
        if event["t"] == "execute":
            event["code"] = "await lookup({key: 'a'}); await lookup({key: 'c'})"
    with pytest.raises(ReplayDivergence) as info:
        replay(trace)
    assert (
        'the guest asked for lookup({"key":"c"}) but the trace recorded lookup({"key":"b"})'
        in str(info.value)
    )


def test_divergence_when_the_trace_runs_out() -> None:
    sandbox = Sandbox(tools=[lookup])
    sandbox.execute("await lookup({key: 'a'})")
    trace = sandbox.trace
    trace.events = [e for e in trace.events if e["t"] not in ("ops", "answer", "end")]
    with pytest.raises(ReplayDivergence, match="the replay needs the calls lookup"):
        replay(trace)


def test_seed_and_clock_make_runs_deterministic() -> None:
    code = "return [Math.random(), Date.now(), crypto === undefined]"
    code = "return [Math.random(), Math.random(), Date.now()]"
    one = Sandbox(seed=7, clock=1_700_000_000.0).execute(code).return_value
    two = Sandbox(seed=7, clock=1_700_000_000.0).execute(code).return_value
    other = Sandbox(seed=8, clock=1_700_000_000.0).execute(code).return_value
    assert one == two
    assert one != other
    assert 1_700_000_000_000 <= one[2] < 1_700_000_001_000


def test_trace_requires_recording() -> None:
    with pytest.raises(ValueError, match="record=True"):
        _ = Sandbox(record=False).trace


def test_trace_holds_written_bytes_without_a_copy_and_round_trips_them() -> None:
    data = bytes(range(256)) * 4096  # 1 MB, not UTF-8
    box = Sandbox()
    box.fs.write("/workspace/blob.bin", data)
    stdin = b"\xff\x00 input"
    original = box.execute(
        "cat > in.bin; wc -c < in.bin; wc -c < blob.bin",
        language="shell",
        stdin=stdin,
    )
    assert original.stdout == "8\n1048576\n"
    writes = [e for e in box.trace.events if e["t"] == "fs" and e["data"] is not None]
    assert writes[-1]["data"] is data  # a reference: recording costs no memory
    loaded = Trace.from_jsonl(box.trace.to_jsonl())
    assert [e for e in loaded.events if e["t"] == "fs" and e["data"] is not None][-1][
        "data"
    ] == data
    assert [e["stdin"] for e in loaded.events if e["t"] == "execute"] == [stdin]
    assert replay(loaded) == original


def test_trace_parse_errors() -> None:
    with pytest.raises(ValueError, match="not a corral trace"):
        Trace.from_jsonl('{"t": "execute"}\n')


def test_audit_log_can_be_shared() -> None:
    log = AuditLog()
    Sandbox(audit_sink=log).execute("return 1")
    Sandbox(audit_sink=log).execute("return 2")
    assert len({e.sandbox_id for e in log}) == 2


def test_records_and_traces_hold_json_even_for_rich_results() -> None:
    import dataclasses

    @dataclasses.dataclass
    class Point:
        x: int

    def rich() -> Any:
        """Not plain JSON."""
        return {"p": Point(1), "s": {3}, "t": (1, 2)}

    sandbox = Sandbox(tools=[rich])
    original = sandbox.execute("return await rich()")
    assert original.tool_calls[0].result == {"p": {"x": 1}, "s": [3], "t": [1, 2]}
    assert replay(Trace.from_jsonl(sandbox.trace.to_jsonl())) == original
    trace = sandbox.trace
    trace.events.clear()
    assert sandbox.trace.events  # the sandbox's own record is not shared


TOOL_CALLS_V2 = Path(__file__).parent / "traces" / "tool-calls-v2.jsonl"
"""A trace recorded before the guest asked the host for the clock before a wait (it read it
itself, a call out of the guest): a JavaScript call, a sleep then two calls, a shell call
then a sleep, and no call."""


def test_a_trace_recorded_when_the_guest_read_the_clock_itself_replays_exactly() -> None:
    trace = Trace.load(TOOL_CALLS_V2)
    recorded = [e["result"] for e in trace.events if e["t"] == "end"]
    assert [r.to_dict() for r in replay_all(trace)] == recorded


def test_the_clock_read_for_a_wait_is_recorded_where_the_guest_read_it() -> None:
    # The host reads the clock for the guest now (sent with the resume), at the same place
    # in the trace: the events of the same executions are those of a trace from before.
    def echo(x: int) -> dict[str, int]:
        """Return the argument."""
        return {"x": x}

    old = Trace.load(TOOL_CALLS_V2).events
    with Sandbox(tools=[echo]) as sandbox:
        for event in old:
            if event["t"] == "execute":
                sandbox.execute(event["code"], event["language"])
        new = sandbox.trace.events
    shape = [(e["t"], e.get("id")) for e in new if e["t"] != "fs"]
    assert shape == [(e["t"], e.get("id")) for e in old if e["t"] != "fs"]
    assert ("clock", 1) in shape  # before each execution's first wait
