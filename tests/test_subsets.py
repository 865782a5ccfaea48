"""Property tests: the subset relations that attenuation relies on are sound.

Soundness is the property that matters (a wrong True would let a token widen); the
completeness checks only make sure the relations do not answer False to everything.
Alphabets are small so that matches, implications and subsets actually happen.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from corral.capabilities import (
    AllOf,
    AnyOf,
    Comparison,
    Constraint,
    Length,
    MethodCapability,
    Param,
    constraint_from_json,
    is_attenuation,
    match_pattern,
    pattern_covers,
)

# --------------------------------------------------------------------------------------------
# Patterns

SEGMENTS = ["a", "b", "ab", "ba", "mcp:a", "mcp:b"]
PATTERN_SEGMENTS = ["a", "b", "ab", "*", "**", "a*", "*b", "*a*", "mcp:a", "mcp:*", "mcp:**"]
# Every name of up to three segments: the oracle for "every name the child matches".
NAMES = [
    "/".join(parts) for size in (1, 2, 3) for parts in itertools.product(SEGMENTS, repeat=size)
]

patterns = st.lists(st.sampled_from(PATTERN_SEGMENTS), min_size=1, max_size=4).map("/".join)


def matched(pattern: str) -> set[str]:
    return {name for name in NAMES if match_pattern(pattern, name)}


@settings(max_examples=400)
@given(patterns, patterns)
def test_pattern_covers_is_sound(parent: str, child: str) -> None:
    if pattern_covers(parent, child):
        assert matched(child) <= matched(parent)


def specialise(segment: str, choice: int) -> list[str]:
    """A narrower replacement for one pattern segment (several segments for ``**``)."""
    if segment == "**":
        return [[], ["*"], ["a"], ["a", "**"], ["**"]][choice % 5]
    if segment == "*":
        return [["a"], ["a*"], ["*b"], ["*"]][choice % 4]
    if "*" in segment:
        return [[segment.replace("*", "a", 1)], [segment.replace("*", "*b", 1)], [segment]][
            choice % 3
        ]
    return [segment]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(PATTERN_SEGMENTS), min_size=1, max_size=4), st.data())
def test_pattern_covers_its_specialisations(parent: list[str], data: st.DataObject) -> None:
    child: list[str] = []
    for segment in parent:
        child.extend(specialise(segment, data.draw(st.integers(0, 4))))
    # Dropping a leading "**" can bring an "mcp:" segment to the front, where it also matches
    # the name without the prefix: that is not a specialisation.
    aliased = child[:1] != parent[:1] and child[:1] != [] and child[0].startswith("mcp:")
    if child and not aliased:
        assert pattern_covers("/".join(parent), "/".join(child))


@given(patterns)
def test_pattern_covers_itself(pattern: str) -> None:
    assert pattern_covers(pattern, pattern)


# --------------------------------------------------------------------------------------------
# Constraints

PATHS = ["x", "y", "x/0"]
SCALARS = [None, True, False, -1, 0, 1, 1.0, 2, 2.5, 3, "", "a", "b", "ab", "ba", "abb"]
VALUES = [*SCALARS, [], [1], ["a"], ["a", 1], {"0": 1}, {"0": "a"}, {}]
scalars = st.sampled_from(SCALARS)
values = st.sampled_from(VALUES)
paths = st.sampled_from(PATHS)
texts = st.sampled_from(["", "a", "b", "ab", "ba"])


def comparisons() -> st.SearchStrategy[Constraint]:
    order = st.builds(
        Comparison,
        paths,
        st.sampled_from(["<", "<=", ">", ">="]),
        st.sampled_from([-1, 0, 1, 1.5, 2, 3, "a", "ab", "b"]),
    )
    equality = st.builds(Comparison, paths, st.sampled_from(["==", "!="]), values)
    return order | equality


def atoms() -> st.SearchStrategy[Constraint]:
    listed = st.lists(values, max_size=4)
    return st.one_of(
        comparisons(),
        st.builds(lambda p, v: Param(p).is_in(v), paths, listed),
        st.builds(lambda p, v: Param(p).not_in(v), paths, listed),
        st.builds(lambda p, t: Param(p).starts_with(t), paths, texts),
        st.builds(lambda p, t: Param(p).ends_with(t), paths, texts),
        st.builds(lambda p, v: Param(p).contains(v), paths, scalars),
        st.builds(lambda p, r: Param(p).matches(r), paths, st.sampled_from(["a*", "[ab]b", ".*"])),
        st.builds(lambda p: Param(p).exists(), paths),
        st.builds(lambda p: Param(p).not_exists(), paths),
        st.builds(Length, paths, st.none() | st.integers(0, 2), st.integers(2, 4)),
        st.builds(Length, paths, st.integers(0, 3), st.none()),
    )


constraints = st.recursive(
    atoms(),
    lambda inner: (
        st.builds(AllOf, st.lists(inner, max_size=3).map(tuple))
        | st.builds(AnyOf, st.lists(inner, max_size=3).map(tuple))
    ),
    max_leaves=5,
)


def nest(path: str, value: object) -> dict[str, Any]:
    """Parameters in which ``path`` holds ``value``."""
    head, _, rest = path.partition("/")
    return {head: nest(rest, value) if rest else value}


# Fixed parameter sets to test every implication against: every value at every path, alone,
# and pairs of paths; "x" as a list too, so that "x/0" resolves through a list index.
PARAMS: list[Mapping[str, Any]] = [
    {},
    *(nest(path, value) for path in PATHS for value in VALUES),
    *({"x": value, "y": other} for value in SCALARS for other in SCALARS[::3]),
    *({"x": [value]} for value in VALUES),
    *({"x": {"0": value}, "y": value} for value in SCALARS),
]


def holds(rule: Constraint, params: Mapping[str, Any]) -> bool:
    return rule.check(params) is None


def weaken(rule: Constraint, other: Constraint, choice: int) -> tuple[Constraint, Constraint]:
    """A pair (child, parent) likely to be an implication, built from two random rules."""
    options = [
        (rule, rule),
        (rule & other, rule),
        (rule, rule | other),
        (rule & other, other | rule),
        (rule, constraint_from_json(rule.to_json())),
        (rule, other),
    ]
    return options[choice % len(options)]


@settings(max_examples=600)
@given(constraints, constraints, st.integers(0, 5))
def test_implies_is_sound(first: Constraint, second: Constraint, choice: int) -> None:
    child, parent = weaken(first, second, choice)
    if child.implies(parent):
        for params in PARAMS:
            if holds(child, params):
                assert holds(parent, params), (child.describe(), parent.describe(), params)


@settings(max_examples=300)
@given(constraints, constraints)
def test_implies_sees_the_obvious(rule: Constraint, other: Constraint) -> None:
    assert rule.implies(rule)
    assert (rule & other).implies(rule)
    assert rule.implies(rule | other)
    assert rule.implies(constraint_from_json(rule.to_json()))


@given(paths, st.integers(-3, 3), st.integers(-3, 3), st.sampled_from(["<", "<=", ">", ">="]))
def test_bounds_imply_exactly_when_python_says_so(path: str, low: int, high: int, op: str) -> None:
    child, parent = Comparison(path, op, low), Comparison(path, op, high)
    numbers = [n / 2 for n in range(-10, 11)]
    expected = all(holds(parent, nest(path, n)) for n in numbers if holds(child, nest(path, n)))
    assert child.implies(parent) == expected


# --------------------------------------------------------------------------------------------
# Capabilities

capabilities = st.builds(
    MethodCapability,
    patterns,
    st.lists(constraints, max_size=2),
    st.none() | st.integers(0, 3),
    st.booleans(),
)


def allows(capability: MethodCapability, name: str, params: Mapping[str, Any]) -> bool:
    return capability.matches(name) and capability.check(params) is None


@settings(max_examples=400)
@given(capabilities, capabilities, st.booleans())
def test_is_subset_of_is_sound(
    first: MethodCapability, second: MethodCapability, same: bool
) -> None:
    child = MethodCapability(
        first.method_pattern, [*first.constraints, *second.constraints], first.max_calls
    )
    parent = first if same else second
    if not child.is_subset_of(parent):
        return
    assert parent.max_calls is None or (
        child.max_calls is not None and child.max_calls <= parent.max_calls
    )
    assert child.requires_approval or not parent.requires_approval
    names = [name for name in NAMES if child.matches(name)]
    for name, params in itertools.product(names[:20], PARAMS[::7]):
        if allows(child, name, params):
            assert allows(parent, name, params)


@settings(max_examples=200)
@given(st.lists(capabilities, max_size=3), st.lists(capabilities, min_size=1, max_size=3))
def test_is_attenuation_is_sound(
    children: list[MethodCapability], parents: list[MethodCapability]
) -> None:
    if is_attenuation(children, parents) is not None:
        return
    for child in children:
        assert any(child.is_subset_of(parent) for parent in parents)
    # Budgets: what the children may spend outside unlimited parents fits the parents' budgets.
    bounded = [
        child
        for child in children
        if not any(parent.max_calls is None and child.is_subset_of(parent) for parent in parents)
    ]
    spent = sum(child.max_calls or 0 for child in bounded)
    assert spent <= sum(parent.max_calls or 0 for parent in parents)
