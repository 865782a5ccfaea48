"""Subsets: is one pattern or constraint within another? (used to check attenuation;
answers are sound, never complete: when a rule cannot prove it, the answer is False,
and the token is refused)"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any, Final

from ._constraints import (
    _ORDER_OPS,
    AllOf,
    AnyOf,
    Comparison,
    Constraint,
    EndsWith,
    Exists,
    IsIn,
    Length,
    Matches,
    NotIn,
    StartsWith,
    _ParamConstraint,
)
from ._json_form import _ATOM_TYPES
from ._patterns import _MCP_PREFIX, _name_problem, _star_star_step
from ._values import _canonical_json, _kind, _same

_MAX_WORK: Final = 200_000
"""Steps one subset question may take; hostile tokens must not make verification slow."""


class _Work:
    """The step budget of one subset question, and the JSON keys of the atoms it compared.

    When the budget runs out every further step answers False. The rules never negate an
    answer, so running out can only refuse, never allow.
    """

    __slots__ = ("keys", "left")

    def __init__(self) -> None:
        self.left = _MAX_WORK
        # id → (atom, key); holding the atom keeps its id from being reused meanwhile.
        self.keys: dict[int, tuple[Constraint, str]] = {}

    def spend(self, steps: int = 1) -> bool:
        """Use ``steps``; False once the budget is spent."""
        self.left -= steps
        return self.left >= 0

    def key(self, atom: _ParamConstraint) -> str:
        """The canonical JSON of ``atom`` ("" if it has none), computed once per question."""
        cached = self.keys.get(id(atom))
        if cached is not None:
            return cached[1]
        try:
            key = _canonical_json(atom.to_json())
        except (ValueError, TypeError, RecursionError):
            key = ""
        self.keys[id(atom)] = (atom, key)
        return key


def pattern_covers(parent: str, child: str) -> bool:
    """Whether every tool name that the pattern ``child`` matches, ``parent`` matches too.

    Sound but not complete: True is a proof; False may also mean "could not prove it" (or
    that a pattern is invalid).

    >>> pattern_covers("stripe/**", "stripe/charges/*")
    True
    >>> pattern_covers("stripe/*", "stripe/**")
    False
    >>> pattern_covers("mcp:fs/*", "fs/read")
    True
    """
    if _name_problem(parent, "*") is not None or _name_problem(child, "*") is not None:
        return False
    return _pattern_covers(parent, child, _Work())


def _pattern_covers(parent: str, child: str, work: _Work) -> bool:
    """:func:`pattern_covers` for valid patterns (a capability's are checked when it is made)."""
    if parent == child:
        return True
    if not work.spend(1 + len(parent) * len(child) // 16):
        return False
    parents = _pattern_forms(parent)
    return all(
        any(_covers(form, alias, "**", _segment_covers) for form in parents)
        for alias in _pattern_forms(child)
    )


def _pattern_forms(pattern: str) -> list[list[str]]:
    """The segment lists a pattern matches with: itself, and without ``mcp:`` if it has it."""
    forms = [pattern.split("/")]
    alias = pattern.removeprefix(_MCP_PREFIX)
    if alias != pattern:
        forms.append(alias.split("/"))
    return forms


def _covers(
    parent: Sequence[str], child: Sequence[str], star: str, covers_one: Callable[[str, str], bool]
) -> bool:
    """Whether the token sequence ``parent`` covers ``child`` (``star`` matches any run).

    Used twice: on segments (``star`` = ``**``) and on the characters of one segment
    (``star`` = ``*``). A parent star absorbs any run of child tokens (stars included); any
    other parent token covers exactly one child token that is not a star. Such an alignment
    proves the inclusion; it is found by dynamic programming, like :func:`match_pattern`.
    """
    # covered[i]: the parent tokens seen so far cover child[:i].
    covered = [True] + [False] * len(child)
    for part in parent:
        if part == star:
            covered = _star_star_step(covered)
        else:
            covered = [False] + [
                covered[i] and child[i] != star and covers_one(part, child[i])
                for i in range(len(child))
            ]
    return covered[-1]


def _segment_covers(parent: str, child: str) -> bool:
    """Whether the segment pattern ``parent`` matches every segment ``child`` matches."""
    return _covers(parent, child, "*", operator.eq)


def _implies(child: Constraint, parent: Constraint, work: _Work) -> bool:
    """Whether ``child`` implies ``parent``; see :meth:`Constraint.implies`.

    Combinations are taken apart first: the parent's AllOf and the child's AnyOf exactly
    (every member), then the child's AllOf and the parent's AnyOf (some member suffices).
    """
    if not work.spend():
        return False
    if child is parent:
        return True
    if type(parent) is AllOf:
        return all(_implies(child, item, work) for item in parent.constraints)
    if type(child) is AnyOf:
        return all(_implies(item, parent, work) for item in child.constraints)
    if type(child) is AllOf and any(_implies(item, parent, work) for item in child.constraints):
        return True
    if type(parent) is AnyOf:
        return any(_implies(child, item, work) for item in parent.constraints)
    return _atom_implies(child, parent, work)


def _atom_implies(child: Constraint, parent: Constraint, work: _Work) -> bool:
    """The rules for two built-in rules on one path (other classes imply only themselves)."""
    if not isinstance(child, _ATOM_TYPES) or not isinstance(parent, _ATOM_TYPES):
        return False
    if type(child) not in _ATOM_TYPES or type(parent) not in _ATOM_TYPES:
        return False  # a subclass may change the meaning: prove nothing about it
    if child.path != parent.path:
        return False
    if _same_atom(child, parent, work):
        return True
    if type(parent) is Exists and child.failure({}) is not None:
        return True  # the child fails whenever the value is missing
    if type(child) is IsIn or (type(child) is Comparison and child.op == "=="):
        return _values_imply(child, parent, work)
    rule = _NARROWING.get((type(child), type(parent)))
    return rule is not None and rule(child, parent)


def _same_atom(child: _ParamConstraint, parent: _ParamConstraint, work: _Work) -> bool:
    """Equal JSON forms (so ``x == 1`` and ``x == True`` are not the same rule)."""
    key = work.key(child)
    return bool(key) and key == work.key(parent)


def _values_imply(child: IsIn | Comparison, parent: _ParamConstraint, work: _Work) -> bool:
    """Whether ``parent`` holds for every value ``child`` allows (``x == a`` or ``x in S``).

    A value equal to an allowed one (``1.0`` for ``1``) behaves the same under every rule,
    so trying the listed values is enough. A regex is never run here: a hostile token could
    bring both the regex and the values.
    """
    if type(parent) is Matches:
        return False
    cost = (1 + len(work.key(child)) // 32) * (1 + len(work.key(parent)) // 32)
    if not work.spend(cost):
        return False
    values = child.values if isinstance(child, IsIn) else (child.value,)
    try:
        return all(parent.check(_params_at(child.path, value)) is None for value in values)
    except (ValueError, TypeError, RecursionError):
        return False


def _params_at(path: str, value: object) -> dict[str, Any]:
    """Parameters in which ``path`` resolves to ``value`` (and nothing else is present)."""
    params: Any = value
    for segment in reversed(path.split("/")):
        params = {segment: params}
    result: dict[str, Any] = params
    return result


def _bound_implies(child: Comparison, parent: Comparison) -> bool:
    """``x <= 5`` implies ``x <= 10``, ``x < 5`` implies ``x <= 5``, and the same for ``>``."""
    if child.op not in _ORDER_OPS or parent.op not in _ORDER_OPS:
        return False
    upper = ("<", "<=")
    if (child.op in upper) != (parent.op in upper) or _kind(child.value) != _kind(parent.value):
        return False
    bound, limit = child.value, parent.value
    tighter = bound < limit if child.op in upper else bound > limit
    strict_enough = child.op in ("<", ">") or parent.op in ("<=", ">=")
    return bool(tighter or (bound == limit and strict_enough))


def _starts_implies(child: StartsWith, parent: StartsWith) -> bool:
    return child.prefix.startswith(parent.prefix)


def _ends_implies(child: EndsWith, parent: EndsWith) -> bool:
    return child.suffix.endswith(parent.suffix)


def _length_implies(child: Length, parent: Length) -> bool:
    """A narrower length range (a missing minimum is 0, a missing maximum unbounded)."""
    low_ok = (child.minimum or 0) >= (parent.minimum or 0)
    high_ok = parent.maximum is None or (
        child.maximum is not None and child.maximum <= parent.maximum
    )
    return low_ok and high_ok


def _not_in_implies(child: NotIn, parent: NotIn) -> bool:
    """More banned values, of no new kinds: ``x not in [a, b]`` implies ``x not in [a]``.

    ``not_in`` also refuses values of a kind not among its values (fail closed), so the
    child's kinds must be among the parent's, and every parent value the child's kinds let
    through must be banned by the child.
    """
    if not parent.values:
        return True  # the parent only asks for presence, which the child also requires
    kinds = {_kind(value) for value in child.values}
    if not kinds or not kinds <= {_kind(value) for value in parent.values}:
        return False
    return all(
        _kind(banned) not in kinds or any(_same(banned, value) for value in child.values)
        for banned in parent.values
    )


_NARROWING: Final[dict[tuple[type[Constraint], type[Constraint]], Callable[[Any, Any], bool]]] = {
    (Comparison, Comparison): _bound_implies,
    (StartsWith, StartsWith): _starts_implies,
    (EndsWith, EndsWith): _ends_implies,
    (Length, Length): _length_implies,
    (NotIn, NotIn): _not_in_implies,
}
