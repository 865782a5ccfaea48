"""Constraint sets and capabilities: a method pattern, the constraints its calls must meet
and a budget; and attenuation (whether capabilities only narrow others)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from re import _parser as _sre_parser  # type: ignore[attr-defined]
from typing import TYPE_CHECKING, Any

from ._patterns import match_pattern, validate_pattern
from ._values import _got, _show

# The constraint classes, their JSON form and the subset proofs are imported where they are
# used: a sandbox without capabilities never needs them (their ~15 dataclasses cost a fresh
# process milliseconds to define).
if TYPE_CHECKING:
    from ._constraints import Constraint
    from ._subsets import _Work


@dataclass(frozen=True, init=False)
class ConstraintSet:
    """Constraints that must all hold (an AND); :meth:`check` reports the first failure."""

    constraints: tuple[Constraint, ...]

    def __init__(self, constraints: Iterable[Constraint] = ()) -> None:
        """Collect ``constraints``; anything that is not a :class:`Constraint` is a TypeError."""
        from ._constraints import _check_constraints

        object.__setattr__(self, "constraints", _check_constraints(constraints))

    def __iter__(self) -> Iterator[Constraint]:
        return iter(self.constraints)

    def __len__(self) -> int:
        return len(self.constraints)

    def check(self, params: Mapping[str, Any]) -> str | None:
        """None if every constraint holds, else the first failing one's message."""
        for constraint in self.constraints:  # a loop, not generators: run for every call
            message = constraint.check(params)
            if message:
                return message
        return None

    def is_empty(self) -> bool:
        """Whether there are no constraints."""
        return not self.constraints

    def evaluate(self, params: Mapping[str, Any]) -> None:
        """Raise ``ValueError`` with :meth:`check`'s message unless every constraint holds."""
        failure = self.check(params)
        if failure is not None:
            raise ValueError(failure)

    def describe(self) -> str:
        """The constraints joined by ``and`` (empty when there are none)."""
        from ._constraints import AllOf, _describe_operand

        return " and ".join(_describe_operand(item, AllOf) for item in self.constraints)

    def implies(self, parent: ConstraintSet) -> bool:
        """Whether every call that satisfies these constraints satisfies ``parent``'s.

        Each of ``parent``'s constraints must be implied (see :meth:`Constraint.implies`) by
        one of these (or, through an AllOf member of ``parent``, by one for each member).
        Conservative: False means "not proven".
        """
        from ._subsets import _Work

        return self._implies(parent, _Work())

    def _implies(self, parent: ConstraintSet, work: _Work) -> bool:
        from ._constraints import AllOf
        from ._subsets import _implies

        together = AllOf(self.constraints)
        return all(_implies(together, item, work) for item in parent.constraints)


def _as_constraint_set(
    constraints: ConstraintSet | Constraint | Iterable[Constraint] | None,
) -> ConstraintSet:
    if constraints is None:
        return ConstraintSet()
    if isinstance(constraints, ConstraintSet):
        return constraints
    from ._constraints import Constraint

    if isinstance(constraints, Constraint):
        return ConstraintSet([constraints])
    return ConstraintSet(constraints)


def _check_max_calls(max_calls: object, what: str) -> int | None:
    if max_calls is None:
        return None
    if isinstance(max_calls, bool) or not isinstance(max_calls, int) or max_calls < 0:
        raise ValueError(
            f"max_calls for {what} must be an int >= 0 or None, not {_show(max_calls)}"
        )
    return max_calls


@dataclass(frozen=True, init=False)
class MethodCapability:
    """Permission to call the tools that ``method_pattern`` matches.

    A call is allowed when every constraint holds; ``max_calls`` (if not None) bounds how many
    calls one :class:`Authorizer` lets through under this capability. With
    ``requires_approval`` the :class:`Authorizer` still decides, but marks the
    :class:`Decision` so that the sandbox asks a human before the call runs.
    """

    method_pattern: str
    constraints: ConstraintSet
    max_calls: int | None
    requires_approval: bool

    def __init__(
        self,
        method_pattern: str,
        constraints: ConstraintSet | Constraint | Iterable[Constraint] | None = None,
        max_calls: int | None = None,
        requires_approval: bool = False,
    ) -> None:
        """Check the pattern, collect the constraints and check the budget."""
        object.__setattr__(self, "method_pattern", validate_pattern(method_pattern))
        object.__setattr__(self, "constraints", _as_constraint_set(constraints))
        object.__setattr__(self, "max_calls", _check_max_calls(max_calls, repr(method_pattern)))
        if not isinstance(requires_approval, bool):
            raise ValueError(
                f"requires_approval for {method_pattern!r} must be a bool, "
                f"not {_show(requires_approval)}"
            )
        object.__setattr__(self, "requires_approval", requires_approval)

    def matches(self, method: str) -> bool:
        """Whether this capability's pattern matches the canonical tool name ``method``."""
        return match_pattern(self.method_pattern, method)

    def check(self, params: Mapping[str, Any]) -> str | None:
        """None if ``params`` satisfy every constraint, else the first failure's message."""
        return self.constraints.check(params)

    def describe(self) -> str:
        """E.g. ``transfer_money where amount <= 1000 (max_calls=10)``."""
        text = self.method_pattern
        if self.constraints.constraints:
            text += f" where {self.constraints.describe()}"
        if self.max_calls is not None:
            text += f" (max_calls={self.max_calls})"
        if self.requires_approval:
            text += " (requires approval)"
        return text

    def key(self) -> str:
        """``cap:method:<pattern>``, this capability's name in
        :meth:`~corral.sandbox.Sandbox.remaining_calls` and ``get_remaining_calls``."""
        return f"cap:method:{self.method_pattern}"

    def validate_call(self, method: str, params: Mapping[str, Any]) -> None:
        """Raise :class:`CapabilityError` unless this capability alone allows the call (its
        pattern and constraints; budgets are the :class:`Authorizer`'s).

        >>> from corral.capabilities import CapabilityError, Param
        >>> cap = MethodCapability("pay", [Param("amount") <= 10])
        >>> try:
        ...     cap.validate_call("pay", {"amount": 50})
        ... except CapabilityError as error:
        ...     print(error)
        pay denied: amount <= 10 failed (amount = 50)
        """
        from ._authorizer import CapabilityError  # _authorizer imports this module

        if not self.matches(method):
            raise CapabilityError(method, f"pattern {self.method_pattern!r} does not match")
        failure = self.check(params)
        if failure is not None:
            raise CapabilityError(method, failure)

    def to_dict(self) -> dict[str, Any]:
        """:meth:`to_json` (amla-sandbox's name)."""
        return self.to_json()

    @classmethod
    def from_dict(cls, data: object) -> MethodCapability:
        """:meth:`from_json` (amla-sandbox's name)."""
        return cls.from_json(data)

    def to_json(self) -> dict[str, Any]:
        """``{"pattern": ..., "constraints": [...], "max_calls": ..., "requires_approval": ...}``.

        Raises:
            TypeError: if a constraint is of a class of your own (it has no JSON form).
            ValueError: if a constraint's literal has no JSON form.
        """
        return {
            "pattern": self.method_pattern,
            "constraints": [item.to_json() for item in self.constraints],
            "max_calls": self.max_calls,
            "requires_approval": self.requires_approval,
        }

    @classmethod
    def from_json(cls, data: object) -> MethodCapability:
        """The capability whose JSON form (:meth:`to_json`) is ``data``.

        ``constraints``, ``max_calls`` and ``requires_approval`` may be left out.

        Raises:
            ValueError: naming the problem (see :func:`constraint_from_json`).
        """
        from ._json_form import _check_json_keys, _numbered, constraint_from_json

        if not isinstance(data, Mapping):
            raise ValueError(f"a capability must be a JSON object, not {_got(data)}")
        optional = ("constraints", "max_calls", "requires_approval")
        _check_json_keys(data, "a capability", ("pattern",), optional)
        items = data.get("constraints", [])
        if not isinstance(items, list):
            raise ValueError(f"'constraints' of a capability must be a list, not {_got(items)}")
        constraints = [
            _numbered("constraint", index, constraint_from_json, item)
            for index, item in enumerate(items)
        ]
        approval = data.get("requires_approval", False)
        return cls(data["pattern"], constraints, data.get("max_calls"), approval)

    def is_subset_of(self, parent: MethodCapability) -> bool:
        """Whether this capability allows nothing that ``parent`` does not.

        Its pattern is covered by the parent's (:func:`pattern_covers`), its constraints
        imply the parent's (:meth:`ConstraintSet.implies`), its budget is not higher (an
        unlimited one only under an unlimited parent), and it keeps ``requires_approval`` if
        the parent has it. Conservative: False means "not proven".

        >>> from corral.capabilities import Param
        >>> parent = MethodCapability("fs/*", [Param("path").starts_with("/workspace/")])
        >>> MethodCapability("fs/read", [Param("path").starts_with("/workspace/a/")]).is_subset_of(
        ...     parent
        ... )
        True
        >>> MethodCapability("fs/read").is_subset_of(parent)
        False
        """
        from ._subsets import _Work

        return _is_subset(self, parent, _Work())


def _is_subset(child: MethodCapability, parent: MethodCapability, work: _Work) -> bool:
    from ._subsets import _pattern_covers

    return (
        _budget_within(child.max_calls, parent.max_calls)
        and (child.requires_approval or not parent.requires_approval)
        and _pattern_covers(parent.method_pattern, child.method_pattern, work)
        and child.constraints._implies(parent.constraints, work)
    )


def _budget_within(child: int | None, parent: int | None) -> bool:
    """A budget no higher than the parent's (None = unlimited)."""
    return parent is None or (child is not None and child <= parent)


def _regexes(constraints: Iterable[Constraint]) -> set[str]:
    """Every ``matches`` regex in ``constraints``, however nested."""
    from ._constraints import AllOf, AnyOf, Matches

    found: set[str] = set()
    for item in constraints:
        if isinstance(item, Matches):
            found.add(item.regex)
        elif isinstance(item, AllOf | AnyOf):
            found |= _regexes(item.constraints)
    return found


def backtracking_risk(regex: str) -> str | None:
    """Why ``regex`` could take exponential time in Python's backtracking engine, or None.

    The host checks ``matches`` constraints with ``re``, whose worst case is exponential.
    A regex that the holder of a token adds when narrowing it (the root key's holder is
    trusted, a token's holder is not) must be free of the constructs that cause that: a
    repetition of something that itself repeats or branches (``(a+)+``, ``(a|b)*``),
    back-references and lookarounds.

    >>> backtracking_risk("[a-z0-9.]+@example[.]com") is None
    True
    >>> backtracking_risk("(a+)+b")
    'repeats a group that repeats or branches inside'
    """
    try:
        tree = _sre_parser.parse(regex)
    except re.error as error:
        return f"is not a valid regex ({error})"
    return _tree_risk(tree, inside_repeat=False)


_NESTED = "repeats a group that repeats or branches inside"
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _tree_risk(items: Any, inside_repeat: bool) -> str | None:
    """Walk a parsed regex (``re._parser``'s tree of ``(opcode, argument)`` pairs)."""
    for op, arg in items:
        problem, children, repeats = _node_risk(str(op), arg, inside_repeat)
        if problem is not None:
            return problem
        for child in children:
            problem = _tree_risk(child, inside_repeat or repeats)
            if problem is not None:
                return problem
    return None


def _node_risk(name: str, arg: Any, inside_repeat: bool) -> tuple[str | None, list[Any], bool]:
    """One node: its own problem, the subtrees to walk, and whether it repeats them."""
    if name in ("GROUPREF", "GROUPREF_EXISTS"):
        return "uses a back-reference", [], False
    if name in ("ASSERT", "ASSERT_NOT"):
        return "uses a lookaround", [], False
    if name in _REPEATS:
        low, high, body = arg
        repeats = bool(high != low)
        return (_NESTED if inside_repeat and repeats else None), [body], repeats
    if name == "BRANCH":
        return (_NESTED if inside_repeat else None), list(arg[1]), False
    if name == "SUBPATTERN":
        return None, [arg[-1]], False
    if name == "ATOMIC_GROUP":
        return None, [arg], False
    return None, [], False


def is_attenuation(
    children: Sequence[MethodCapability], parents: Sequence[MethodCapability]
) -> str | None:
    """None if ``children`` allow nothing that ``parents`` do not, else what widens.

    Every child must be a subset (:meth:`MethodCapability.is_subset_of`) of some parent.
    Budgets also add up: children placed under one budgeted parent (each under the first
    parent with room left, preferring unlimited parents) may not together exceed it, so a
    ``max_calls=10`` capability cannot be split into two of 10. Conservative: a child that
    cannot be proven within is reported.

    >>> parent = [MethodCapability("pay", max_calls=10)]
    >>> is_attenuation([MethodCapability("pay", max_calls=5)] * 2, parent) is None
    True
    >>> print(is_attenuation([MethodCapability("pay", max_calls=6)] * 2, parent))
    ... # doctest: +NORMALIZE_WHITESPACE
    capability 'pay' (max_calls=6) and the ones before it exceed max_calls=10 of 'pay' in the
    token they narrow
    """
    from ._subsets import _Work

    work = _Work()
    room: list[int | None] = [parent.max_calls for parent in parents]
    trusted = {regex for parent in parents for regex in _regexes(parent.constraints)}
    for child in children:
        for regex in _regexes(child.constraints) - trusted:
            problem = backtracking_risk(regex)
            if problem is not None:
                return (
                    f"capability {child.method_pattern!r}: a narrowing `matches` regex must "
                    f"run in linear time, and {regex!r} {problem}"
                )
        within = [i for i, parent in enumerate(parents) if _is_subset(child, parent, work)]
        if not within:
            return (
                f"capability {child.method_pattern!r} is not within any capability of the "
                "token it narrows"
            )
        problem = _place(child, within, room, parents)
        if problem is not None:
            return problem
    return None


def _place(
    child: MethodCapability,
    within: Sequence[int],
    room: list[int | None],
    parents: Sequence[MethodCapability],
) -> str | None:
    """Charge ``child``'s budget to a parent it is within; what overflows, or None."""
    if any(room[i] is None for i in within):
        return None
    needed = child.max_calls or 0  # not None: a subset of a budgeted parent has a budget
    for index in within:
        left = room[index]
        if left is not None and left >= needed:
            room[index] = left - needed
            return None
    parent = parents[within[0]]
    return (
        f"capability {child.method_pattern!r} (max_calls={child.max_calls}) and the ones "
        f"before it exceed max_calls={parent.max_calls} of {parent.method_pattern!r} in the "
        "token they narrow"
    )
