"""The audit trail as amla-sandbox's users know it: AuditConfig, AuditCollector, AuditEntry.

Every entry a sandbox's collector holds comes from a record of what the sandbox did.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from corral import MethodCapability, Param, Sandbox
from corral.audit import AuditCollector, AuditConfig, AuditEntry

T0 = datetime(2025, 1, 1, 12, tzinfo=UTC)


def pay(amount: int, note: str = "") -> dict[str, int]:
    """Pay an amount."""
    return {"paid": amount}


def paying_sandbox(config: AuditConfig) -> Sandbox:
    return Sandbox(
        tools=[pay],
        capabilities=[MethodCapability("pay", constraints=[Param("amount") <= 100])],
        audit_config=config,
    )


def entry(type_: str, when: datetime = T0, **data: Any) -> AuditEntry:
    return AuditEntry(type=type_, session_id="s", timestamp=when, data=data)


def test_a_sandbox_collects_what_it_did_with_the_agents_ids() -> None:
    config = AuditConfig(agent_id="agent-1", trace_id="trace-9")
    sandbox = paying_sandbox(config)
    sandbox.execute("await pay({amount: 5}); try { await pay({amount: 500}) } catch {}")
    collector = sandbox.audit_collector
    assert collector is not None
    assert [(e.type, e.data.get("decision")) for e in collector] == [
        ("execution_start", None),
        ("tool_call", "allowed"),
        ("tool_call", "denied"),
        ("execution_end", None),
    ]
    denied = collector.get_entries(entry_type="tool_call")[1]
    assert (denied.session_id, denied.agent_id, denied.trace_id, denied.turn_id) == (
        sandbox.id,
        "agent-1",
        "trace-9",
        0,
    )
    assert denied.data["params"] == {"amount": 500}
    assert denied.data["rule"] == sandbox.audit(kind="tool_call")[1].rule
    assert collector.get_entries(entry_type="execution_end")[0].data["exit_code"] == 0
    records = sandbox.audit()
    assert [e.timestamp.timestamp() for e in collector] == pytest.approx(
        [r.timestamp for r in records]
    )


def test_turns_number_the_entries_collected_after_them() -> None:
    sandbox = paying_sandbox(AuditConfig())
    collector = sandbox.audit_collector
    assert collector is not None and bool(collector) and len(collector) == 0
    sandbox.execute("return 1")
    assert collector.new_turn() == 1
    sandbox.execute("return 2")
    assert [e.turn_id for e in collector] == [0, 0, 1, 1]
    assert len(collector.get_entries(turn_id=1)) == 2


def test_the_enricher_adds_fields_to_sandbox_entries(tmp_path: Path) -> None:
    def enrich(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "region": "eu-1"}

    out = tmp_path / "audit.jsonl"
    sandbox = paying_sandbox(AuditConfig(output_path=out, agent_id="a", custom_enricher=enrich))
    sandbox.execute("await pay({amount: 1})")
    sandbox.close()
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(line["type"], line["region"], line["agent_id"]) for line in lines] == [
        ("execution_start", "eu-1", "a"),
        ("tool_call", "eu-1", "a"),
        ("execution_end", "eu-1", "a"),
    ]
    assert lines[1]["method"] == "pay" and lines[1]["params"] == {"amount": 1}


def test_an_enricher_must_return_the_data() -> None:
    sandbox = paying_sandbox(AuditConfig(custom_enricher=lambda data: None))  # type: ignore[arg-type,return-value]
    with pytest.raises(TypeError, match="custom_enricher must return the data dict, not NoneType"):
        sandbox.execute("return 1")


def test_binary_parameters_are_summarised_unless_captured() -> None:
    code = r"await pay({amount: 1, note: 'a\u0000b'}); await pay({amount: 2, note: 'tab\tok'})"
    notes = {}
    for capture in (False, True):
        sandbox = paying_sandbox(AuditConfig(capture_binary=capture))
        sandbox.execute(code)
        assert sandbox.audit_collector is not None
        calls = sandbox.audit_collector.get_entries(entry_type="tool_call")
        notes[capture] = [e.data["params"]["note"] for e in calls]
    assert notes == {False: ["<binary: 3 chars>", "tab\tok"], True: ["a\x00b", "tab\tok"]}


def test_a_closed_sandbox_closes_its_collector(tmp_path: Path) -> None:
    out = tmp_path / "audit.jsonl"
    with paying_sandbox(AuditConfig(output_path=out)) as sandbox:
        sandbox.execute("return 1")
    collector = sandbox.audit_collector
    assert collector is not None and len(collector) == 2
    with pytest.raises(ValueError, match="AuditCollector is closed: make a new one"):
        collector.add_entry(entry("late"))
    assert len(out.read_text().splitlines()) == 2


def test_filters_by_type_time_and_turn() -> None:
    collector = AuditCollector()
    later = T0 + timedelta(seconds=5)
    collector.add_entries([entry("a"), entry("b", later), entry("a", later)], write_to_file=False)
    assert [e.type for e in collector.get_entries(since=later)] == ["b", "a"]
    assert len(collector.get_entries(entry_type="a", since=later)) == 1
    assert collector.get_entries(turn_id=3) == []
    with pytest.raises(ValueError, match="since must be timezone-aware"):
        collector.get_entries(since=datetime(2025, 1, 1))


def test_the_context_manager_writes_jsonl_and_closes(tmp_path: Path) -> None:
    out = tmp_path / "log.jsonl"
    with AuditCollector(AuditConfig(output_path=out, agent_id="x")) as collector:
        collector.add_entry(entry("kept", n=1), write_to_file=False)
        collector.add_entry(entry("written", n=2))
    assert [e.type for e in collector.entries] == ["kept", "written"]
    assert out.read_text() == (
        '{"type":"written","session_id":"s","timestamp":"2025-01-01T12:00:00+00:00",'
        '"agent_id":null,"trace_id":null,"turn_id":null,"n":2}\n'
    )


def test_bad_input_says_what_to_do() -> None:
    with pytest.raises(ValueError, match=r"may not use the envelope's names \['type'\]"):
        entry("x", type="y")
    with pytest.raises(TypeError, match="add_entry takes an AuditEntry, not dict"):
        AuditCollector().add_entry({"type": "x"})  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"audit_config must be a corral.audit.AuditConfig"):
        Sandbox(audit_config={"agent_id": "a"})  # type: ignore[arg-type]


def test_without_a_config_there_is_no_collector() -> None:
    assert Sandbox().audit_collector is None
