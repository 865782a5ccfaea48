"""The public result and record types keep what they had as dataclasses (issue 14).

They are made without ``dataclasses`` at import (``corral._record``); whatever a user did with
them as frozen dataclasses must still work: keyword and positional construction, defaults,
``repr``, ``==``, ``hash`` where they had it, immutability, pickling, ``copy``, and
``dataclasses.fields``/``asdict``/``replace``/``is_dataclass``.
"""

from __future__ import annotations

import copy
import dataclasses
import inspect
import pickle
from datetime import UTC, datetime
from typing import Any

import pytest

from corral.audit import AuditConfig, AuditEntry, AuditRecord
from corral.limits import Limits
from corral.results import ErrorKind, ExecutionResult, ToolCall
from corral.trace import Trace

WHEN = datetime(2025, 1, 1, tzinfo=UTC)
CALL = ToolCall("add", {"a": 1}, True, "tool:add", result=3, call_id=7)
RESULT = ExecutionResult("out\n", "", 0, return_value=[1], tool_calls=(CALL,))
RECORD = AuditRecord(1.5, "tool_call", "s1", 2, method="add", detail={"x": 1})
ENTRY = AuditEntry(type="tool_call", session_id="s1", timestamp=WHEN, data={"m": 1})
# Each public type, one value of it, and its fields as dataclasses.fields names them.
PUBLIC: list[tuple[Any, list[str]]] = [
    (CALL, ["method", "params", "allowed", "rule", "result", "error", "duration_ms",
            "call_id", "timestamp", "result_size"]),
    (RESULT, ["stdout", "stderr", "exit_code", "return_value", "error", "error_kind",
              "tool_calls", "duration_ms"]),
    (Limits(timeout=5), ["timeout", "memory", "max_output", "max_tool_calls", "max_fs_bytes",
                         "max_files", "max_file_size"]),
    (RECORD, ["timestamp", "kind", "sandbox_id", "execution_id", "call_id", "method", "params",
              "decision", "rule", "duration_ms", "result_size", "error", "detail"]),
    (AuditConfig(agent_id="a"), ["output_path", "agent_id", "trace_id", "capture_binary",
                                 "custom_enricher"]),
    (ENTRY, ["type", "session_id", "timestamp", "data", "agent_id", "trace_id", "turn_id"]),
    (Trace([{"type": "start"}]), ["events"]),
]  # fmt: skip
IDS = [type(value).__name__ for value, _ in PUBLIC]


@pytest.mark.parametrize(("value", "names"), PUBLIC, ids=IDS)
def test_dataclasses_functions_work_on_the_public_types(value: Any, names: list[str]) -> None:
    cls = type(value)
    assert dataclasses.is_dataclass(cls) and dataclasses.is_dataclass(value)
    assert [f.name for f in dataclasses.fields(cls)] == names
    assert [f.name for f in dataclasses.fields(value)] == names
    assert dataclasses.asdict(value) == {name: _plain(getattr(value, name)) for name in names}
    changed = dataclasses.replace(value)
    assert changed == value and changed is not value
    assert copy.copy(value) == value and copy.deepcopy(value) == value
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        if cls is not AuditConfig:  # holds no callable here, but is pickled like the others
            assert pickle.loads(pickle.dumps(value, protocol)) == value


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, tuple):
        return tuple(_plain(item) for item in value)
    return value


def test_the_dataclass_parameters_are_those_of_a_frozen_dataclass() -> None:
    for cls in (ToolCall, ExecutionResult, Limits, AuditRecord, AuditConfig, AuditEntry):
        params = cls.__dataclass_params__  # type: ignore[attr-defined]
        assert (params.init, params.repr, params.eq, params.frozen) == (True, True, True, True)
    assert Trace.__dataclass_params__.frozen is False  # type: ignore[attr-defined]
    kinds = {f.name: f.kw_only for f in dataclasses.fields(AuditEntry)}
    assert set(kinds.values()) == {True}
    factory = {f.name: f.default_factory for f in dataclasses.fields(AuditEntry)}["data"]
    assert factory is dict


def test_keyword_construction_defaults_and_repr() -> None:
    made = ToolCall(method="m", params=None, allowed=False, rule="r")
    assert (made.result, made.error, made.duration_ms, made.call_id, made.timestamp) == (
        None, None, 0.0, 0, 0.0
    )  # fmt: skip
    assert repr(made) == (
        "ToolCall(method='m', params=None, allowed=False, rule='r', result=None, error=None, "
        "duration_ms=0.0, call_id=0, timestamp=0.0, result_size=None)"
    )
    result = ExecutionResult(stdout="", stderr="", exit_code=124, error_kind=ErrorKind.TIMEOUT)
    assert repr(result) == (
        "ExecutionResult(stdout='', stderr='', exit_code=124, return_value=None, error=None, "
        f"error_kind={ErrorKind.TIMEOUT!r}, tool_calls=(), duration_ms=0.0)"
    )
    assert repr(Limits()) == (
        "Limits(timeout=30.0, memory=67108864, max_output=1048576, max_tool_calls=None, "
        "max_fs_bytes=268435456, max_files=100000, max_file_size=67108864)"
    )
    assert repr(Trace()) == "Trace(events=[])" and Trace().events is not Trace().events
    assert AuditEntry(type="t", session_id="s", timestamp=WHEN).data == {}
    with pytest.raises(TypeError):
        AuditEntry("t", "s", WHEN)  # type: ignore[misc]  # keyword-only, as before
    with pytest.raises(TypeError, match="unexpected keyword argument 'colour'"):
        ToolCall("m", None, True, "r", colour=1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="AuditEntry data may not use the envelope's names"):
        AuditEntry(type="t", session_id="s", timestamp=WHEN, data={"type": 1})  # __post_init__
    with pytest.raises(ValueError, match=r"Limits\.timeout must be > 0"):
        Limits(timeout=0)


def test_signatures_are_those_of_the_fields() -> None:
    assert str(inspect.signature(ToolCall)) == (
        "(method: 'str', params: 'Any', allowed: 'bool', rule: 'str', result: 'Any' = None, "
        "error: 'str | None' = None, duration_ms: 'float' = 0.0, call_id: 'int' = 0, "
        "timestamp: 'float' = 0.0, result_size: 'int | None' = None) -> None"
    )
    assert str(inspect.signature(AuditEntry)).startswith(
        "(*, type: 'str', session_id: 'str', timestamp: 'datetime', "
        "data: 'dict[str, Any]' = <factory>, agent_id"
    )
    assert ExecutionResult.__match_args__ == (
        "stdout", "stderr", "exit_code", "return_value", "error", "error_kind", "tool_calls",
        "duration_ms",
    )  # fmt: skip


def test_equality_hash_and_immutability() -> None:
    assert ExecutionResult("out\n", "", 0, return_value=[1], tool_calls=(CALL,)) == RESULT
    assert dataclasses.replace(RESULT, exit_code=1) != RESULT
    assert RESULT != ("out\n", "", 0) and CALL != RESULT
    nan = float("nan")
    assert ToolCall("m", nan, True, "r") == ToolCall("m", nan, True, "r")  # the same object
    assert hash(Limits()) == hash(Limits()) and len({Limits(), Limits(), Limits(timeout=1)}) == 2
    plain = ToolCall("add", 1, True, "tool:add", result=3, call_id=7)
    assert hash(plain) == hash(ToolCall("add", 1, True, "tool:add", result=3, call_id=7))
    with pytest.raises(TypeError, match="unhashable type: 'dict'"):
        hash(CALL)  # its params are a dict, as with the dataclass
    with pytest.raises(TypeError, match="unhashable type: 'Trace'"):
        hash(Trace())
    frozen = dataclasses.FrozenInstanceError
    for value, name in ((RESULT, "exit_code"), (Limits(), "timeout"), (ENTRY, "type")):
        with pytest.raises(frozen, match=f"cannot assign to field '{name}'"):
            setattr(value, name, 1)
        with pytest.raises(AttributeError, match=f"cannot delete field '{name}'"):
            delattr(value, name)
    trace = Trace()
    trace.events = [{"a": 1}]
    assert trace == Trace([{"a": 1}])


def test_a_plain_subclass_keeps_the_fields_and_may_add_attributes() -> None:
    class Mine(ExecutionResult):  # not a dataclass itself: it inherits what the base has
        def shout(self) -> str:
            return self.stdout.upper()

    mine = Mine("hi", "", 0)
    assert mine.shout() == "HI" and mine == Mine("hi", "", 0) and mine != RESULT
    assert repr(mine).startswith(f"{Mine.__qualname__}(stdout='hi', stderr=''")
    mine.note = "kept"  # type: ignore[attr-defined]  # not a field, not the frozen class itself
    assert mine.note == "kept"  # type: ignore[attr-defined]
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'stdout'"):
        mine.stdout = "x"  # type: ignore[misc]
    assert [f.name for f in dataclasses.fields(Mine)][:3] == ["stdout", "stderr", "exit_code"]
    assert dataclasses.replace(mine, exit_code=1).exit_code == 1


def test_asking_the_base_class_leaves_the_records_their_fields() -> None:
    # Sphinx (and any code walking classes) may look for __dataclass_fields__ on the base
    # first: it answered an empty set and stored it where every record not yet asked found
    # it, so `fields(Limits)` was empty (the MCP config lost its limits keys).
    from corral._record import Record

    class Point(Record):
        x: int
        y: int = 0

    assert not dataclasses.is_dataclass(Record)
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y"]


def test_an_init_is_compiled_when_first_used_by_an_instance_a_signature_or_a_subclass() -> None:
    # Compiling is most of what defining a record costs; a first sandbox uses half of its
    # records' __init__ (issue 14).
    from corral._record import Record

    def fresh() -> Any:
        class Point(Record, frozen=True):
            x: int
            y: int = 0

        assert type(Point.__dict__["__init__"]).__name__ == "_LazyInit"  # not compiled yet
        return Point

    point = fresh()
    assert point(1) == point(x=1, y=0) and repr(point(2, 3)).endswith("Point(x=2, y=3)")
    assert inspect.isfunction(point.__dict__["__init__"])  # compiled once, then in place
    assert str(inspect.signature(fresh())) == "(x: 'int', y: 'int' = 0) -> None"
    assert fresh().__init__.__qualname__.endswith("Point.__init__")

    base = fresh()

    class Labelled(base):  # type: ignore[valid-type,misc]
        def __init__(self, x: int, label: str) -> None:
            super().__init__(x)
            object.__setattr__(self, "label", label)

    labelled = Labelled(4, "four")
    assert (labelled.x, labelled.y, labelled.label) == (4, 0, "four")
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'x'"):
        fresh()()


def test_written_out_inits_are_those_the_fields_would_compile() -> None:
    # The records a fresh process's first sandbox makes have their __init__ written out, not
    # compiled from the fields (issue 14: ~0.1 ms each): the same signature, and the same
    # fields set from the same arguments (a default factory's value made afresh each time).
    from corral._image import InitImage
    from corral._record import _make_init
    from corral._wasi import Entropy, WasiFunction
    from corral.audit import _Event
    from corral.protocol import RawOutcome, _Output, _Step
    from corral.sandbox import _Run

    written = [Limits, ExecutionResult, Trace, Entropy, WasiFunction, InitImage, _Event, _Run]
    for record in [*written, _Output, RawOutcome, _Step]:  # every one a first sandbox makes
        assert inspect.isfunction(record.__dict__["__init__"]), record
        compiled = _make_init(record)
        assert inspect.signature(record.__init__) == inspect.signature(compiled), record
        required = [
            name
            for name, parameter in inspect.signature(compiled).parameters.items()
            if name != "self" and parameter.default is inspect.Parameter.empty
        ]
        args = [object() for _ in required]
        made, twin = record.__new__(record), record.__new__(record)
        record.__init__(made, *args)
        compiled(twin, *args)
        for name in record._specs:
            mine, theirs = getattr(made, name), getattr(twin, name)
            assert mine == theirs and (mine is theirs or name not in required), (record, name)
        other = record.__new__(record)
        record.__init__(other, *args)
        for name in record._specs:  # a factory's value is made for each instance
            if isinstance(getattr(made, name), (list, dict, bytearray)):
                assert getattr(made, name) is not getattr(other, name), (record, name)
