"""Fuzzing the host's parsers of untrusted input: the strict decoder of guest JSON
(``corral._json``), the JSON form of constraints and capabilities (tokens carry it) and the dict
form of ``create_sandbox_tool``.

Each target is a property: whatever the input, the parser returns a valid object or raises
``ValueError`` or ``TypeError`` (with a message); never another exception, never a hang. A normal
run tries each target on a few hundred Hypothesis examples and replays every input saved in
``tests/fuzz_regressions/<target>/``. ``nox -s fuzz -- --budget SECONDS`` runs each for that
long (``CORRAL_FUZZ_BUDGET``) and saves a failing input there, so a crash found once stays a test.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corral import _json
from corral.capabilities import (
    CapabilityError,
    Constraint,
    MethodCapability,
    capabilities_from_dict,
    constraint_from_json,
    constraint_from_spec,
)

REGRESSIONS = Path(__file__).parent / "fuzz_regressions"
BUDGET = float(os.environ.get("CORRAL_FUZZ_BUDGET", "0"))  # seconds per target; 0: a normal run
EXPECTED = (ValueError, TypeError)


def _finite(value: object) -> bool:
    """Whether no float anywhere in ``value`` is NaN or infinite."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite(v) for v in value)
    return True


def decode_guest_json(text: str) -> None:
    """The guest's JSON: a finite value, a ValueError, or the documented RecursionError."""
    try:
        value = _json.loads(text)
    except EXPECTED:
        return
    except RecursionError as e:
        assert str(e) == f"JSON nested deeper than {_json.MAX_DEPTH} levels"
        return
    assert _finite(value), value


def _valid_constraint(constraint: Constraint, params: object) -> None:
    assert isinstance(constraint, Constraint)
    assert isinstance(constraint.describe(), str)
    assert constraint_from_json(constraint.to_json()) == constraint
    assert constraint.implies(constraint)
    if isinstance(params, dict):
        assert constraint.check(params) is None or isinstance(constraint.check(params), str)


def parse_constraint(data: list[Any]) -> None:
    """``[constraint JSON, params]``: a constraint that round-trips and checks ``params``."""
    try:
        constraint = constraint_from_json(data[0])
    except EXPECTED:
        return
    _valid_constraint(constraint, data[1])


def parse_capability(data: list[Any]) -> None:
    """``[capability JSON, method, params]``: a capability that round-trips and decides."""
    try:
        capability = MethodCapability.from_json(data[0])
    except EXPECTED:
        return
    assert MethodCapability.from_json(capability.to_json()).to_json() == capability.to_json()
    if isinstance(data[1], str) and isinstance(data[2], dict):
        try:
            capability.validate_call(data[1], data[2])
        except CapabilityError as e:
            assert str(e)


def parse_spec(data: list[Any]) -> None:
    """``[param, spec]`` of the dict form: a constraint, or a ValueError listing the forms."""
    try:
        constraint = constraint_from_spec(data[0], data[1])
    except EXPECTED:
        return
    _valid_constraint(constraint, {data[0]: data[1]})


def parse_dict_form(data: list[Any]) -> None:
    """``[tool_names, constraints, max_calls]``: capabilities, or a clear error."""
    try:
        capabilities = capabilities_from_dict(data[0], data[1], data[2])
    except EXPECTED:
        return
    assert [cap.method_pattern for cap in capabilities] == list(data[0])


# Values biased toward what the parsers look for: their keys, types, operators and edge numbers.
_TYPES = ["comparison", "in", "not_in", "starts_with", "ends_with", "contains", "matches"]
_TYPES += ["exists", "not_exists", "length", "all_of", "any_of"]
_KEYS = ["type", "path", "op", "value", "values", "prefix", "suffix", "item", "regex", "min"]
_KEYS += ["max", "constraints", "pattern", "max_calls", "requires_approval"]
_WORDS = _TYPES + _KEYS + ["<=", ">=", "<", ">", "==", "!=", "a", "a.b", "a.*", "*", "", "x[0]"]
_WORDS += ["(a+)+$", "startswith:", "regex:", "<=1e999", "==nan", "!=", "é", "\x00"]
_NUMBERS = st.sampled_from([0, -1, 1, 2**63, -(2**64), 1e308, -0.0, 0.5])
_SCALARS = (
    st.none()
    | st.booleans()
    | _NUMBERS
    | st.integers()
    | st.floats()
    | st.sampled_from(_WORDS)
    | st.text(max_size=12)
)
_JSONISH = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_KEYS) | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=24,
)
_CONSTRAINT = st.recursive(
    st.fixed_dictionaries(
        {"type": st.sampled_from(_TYPES) | _SCALARS},
        optional={key: _JSONISH for key in _KEYS if key != "type"},
    ),
    lambda inner: st.fixed_dictionaries(
        {"type": st.sampled_from(["all_of", "any_of"]), "constraints": st.lists(inner, max_size=3)}
    ),
    max_leaves=8,
)
_PARAMS = st.dictionaries(st.sampled_from(["a", "b", "x"]) | st.text(max_size=3), _JSONISH)
_JSON_TEXT = st.lists(
    st.sampled_from(['"', "[", "]", "{", "}", ":", ",", "\\", "\\u", "\\ud800", "e", "E", "-"])
    | st.sampled_from(["1", "0", "9" * 30, "e999", "NaN", "Infinity", "true", "null", " "])
    | st.text(max_size=3),
    max_size=40,
).map("".join) | _JSONISH.map(json.dumps)

TARGETS: dict[str, tuple[Callable[[Any], None], st.SearchStrategy[Any]]] = {
    "guest-json": (decode_guest_json, _JSON_TEXT),
    "constraint-json": (parse_constraint, st.tuples(_CONSTRAINT | _JSONISH, _PARAMS).map(list)),
    "capability-json": (
        parse_capability,
        st.tuples(
            st.fixed_dictionaries(
                {"pattern": st.sampled_from(_WORDS) | _SCALARS},
                optional={
                    "constraints": st.lists(_CONSTRAINT, max_size=3) | _JSONISH,
                    "max_calls": _SCALARS,
                    "requires_approval": _SCALARS,
                    "extra": _SCALARS,
                },
            )
            | _JSONISH,
            st.sampled_from(_WORDS),
            _PARAMS,
        ).map(list),
    ),
    "spec": (
        parse_spec,
        st.tuples(st.sampled_from(_WORDS) | st.text(max_size=4), _JSONISH).map(list),
    ),
    "dict-form": (
        parse_dict_form,
        st.tuples(
            st.lists(st.sampled_from(_WORDS) | st.text(max_size=4), max_size=3),
            st.none() | _SCALARS | st.dictionaries(st.sampled_from(_WORDS), _JSONISH, max_size=3),
            st.none() | _SCALARS | st.dictionaries(st.sampled_from(_WORDS), _SCALARS, max_size=3),
        ).map(list),
    ),
}


def _saved(target: str) -> list[Path]:
    return sorted((REGRESSIONS / target).glob("*.json"))


def _save(target: str, data: object) -> Path:
    text = json.dumps({"input": data}, indent=1)
    path = REGRESSIONS / target / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")
    return path


def test_every_regression_folder_is_a_target() -> None:
    assert {p.name for p in REGRESSIONS.iterdir() if p.is_dir()} <= set(TARGETS)


@pytest.mark.parametrize(
    ("target", "path"),
    [(target, path) for target in TARGETS for path in _saved(target)],
    ids=lambda value: value.name if isinstance(value, Path) else value,
)
def test_regression(target: str, path: Path) -> None:
    """Every input a fuzz run once failed on passes now."""
    TARGETS[target][0](json.loads(path.read_text())["input"])


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_fuzz(target: str) -> None:
    """A few hundred inputs per target; under ``nox -s fuzz``, as many as the budget allows."""
    check, strategy = TARGETS[target]
    last: list[object] = []
    runs = [0]

    def run(data: object) -> None:
        last[:] = [data]
        runs[0] += 1
        check(data)

    examples = 300 if BUDGET else 150  # a budget run repeats rounds until its time is up
    fuzz = settings(
        max_examples=examples,
        deadline=2_000,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )(given(strategy)(run))
    started, cpu = time.monotonic(), time.process_time()
    while True:
        try:
            fuzz()
        except Exception:
            if BUDGET and last:
                print(f"saved {_save(target, last[0])}")  # Hypothesis replays the minimal one last
            raise
        if time.monotonic() - started >= BUDGET:
            break
    if BUDGET:
        wall, cpu = time.monotonic() - started, time.process_time() - cpu
        print(f"{target}: {runs[0]} inputs in {wall:.0f} s ({cpu:.1f} s of CPU), no crash")
