"""Capabilities: the one host-side check point for every tool call.

Every call a guest makes is checked here, on the host, against the canonical tool name and the
actual parameters; the guest is never trusted to enforce anything. The model reads denial
messages, so each one names the rule that denied the call and the value that broke it::

    >>> cap = MethodCapability("transfer_money", [Param("amount") <= 1000], max_calls=10)
    >>> auth = Authorizer([cap])
    >>> auth.authorize("transfer_money", {"amount": 500}).allowed
    True
    >>> auth.authorize("transfer_money", {"amount": 5000}).message
    'transfer_money denied: amount <= 1000 failed (amount = 5000)'

Method patterns match canonical tool names whose segments are separated by ``/``: ``a/b/c``
matches exactly, ``*`` matches exactly one segment, ``**`` matches zero or more segments, and a
``*`` inside a segment (``*_create``, ``charges_*``) matches any run of characters within that
segment. A pattern ``mcp:NAME`` also matches the tool ``NAME`` (a compatibility spelling).

Capabilities have a JSON form (:meth:`MethodCapability.to_json`, :func:`constraint_from_json`)
and a subset relation (:func:`pattern_covers`, :meth:`Constraint.implies`,
:meth:`MethodCapability.is_subset_of`, :func:`is_attenuation`), which signed tokens
(:mod:`corral.tokens`) use to check that a delegated capability only narrows its parent::

    >>> small = MethodCapability("stripe/charges/create", [Param("amount") <= 50])
    >>> small.is_subset_of(MethodCapability("stripe/**", [Param("amount") <= 1000]))
    True
    >>> is_attenuation([MethodCapability("github/**")], [MethodCapability("stripe/**")])
    "capability 'github/**' is not within any capability of the token it narrows"
"""

from __future__ import annotations

import functools
import json
import math
import operator
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from re import _parser as _sre_parser  # type: ignore[attr-defined]
from typing import Any, ClassVar, Final, TypeVar

__all__ = [
    "AllOf",
    "AnyOf",
    "Authorizer",
    "CapabilityError",
    "Comparison",
    "Constraint",
    "ConstraintSet",
    "Contains",
    "Decision",
    "EndsWith",
    "Exists",
    "IsIn",
    "Length",
    "Matches",
    "MethodCapability",
    "NotExists",
    "NotIn",
    "Param",
    "StartsWith",
    "backtracking_risk",
    "capabilities_from_dict",
    "constraint_from_json",
    "constraint_from_spec",
    "is_attenuation",
    "match_pattern",
    "pattern_covers",
    "raise_for",
    "validate_pattern",
    "validate_tool_name",
]

MAX_NAME_LENGTH: Final = 256
"""Longest tool name or method pattern accepted (names come from untrusted guests)."""

_MAX_SHOWN: Final = 80  # longest rendering of a guest value inside a message
_NAME_PUNCTUATION: Final = "_-.:/"
_ALLOWED_HINT: Final = "only ASCII letters, digits and _ - . : / are allowed"
_MCP_PREFIX: Final = "mcp:"
_T = TypeVar("_T")


# --------------------------------------------------------------------------------------------
# Errors and rendering helpers


class CapabilityError(Exception):
    """A tool call denied by a capability check.

    Attributes:
        method: The canonical tool name that was called.
        rule: The human-readable rule that denied the call.

    ``str(error)`` is the message the model sees, e.g.
    ``transfer_money denied: amount <= 1000 failed (amount = 5000)``.
    """

    def __init__(self, method: str, rule: str) -> None:
        """Build the error for a denied call of ``method`` by ``rule``."""
        super().__init__(f"{_name_for_message(method)} denied: {rule}")
        self.method = method
        self.rule = rule

    def __reduce__(self) -> tuple[Any, ...]:
        # The default reduce would re-create the error from the message alone.
        return (type(self), (self.method, self.rule))


def _show(value: object) -> str:
    """Render a (possibly hostile, possibly huge) value for a message, bounded in length."""
    return _bounded(repr(value))


def _show_name(name: object) -> str:
    """Render a rejected name with non-ASCII escaped, so lookalikes and invisibles show."""
    return _bounded(ascii(name))


def _bounded(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _name_for_message(method: object) -> str:
    """A method as it appears before ``denied:``; invalid names are quoted so they cannot lie."""
    if isinstance(method, str) and _name_problem(method) is None:
        return method
    return _show_name(method)


# --------------------------------------------------------------------------------------------
# Tool names and method patterns


def _first_bad_char(name: str, extra: str = "") -> str | None:
    """Describe the first character of ``name`` outside the allowed set, or None."""
    for index, char in enumerate(name):
        if char.isascii() and (char.isalnum() or char in _NAME_PUNCTUATION + extra):
            continue
        return f"{_char_kind(char)} at index {index}; {_ALLOWED_HINT}"
    return None


def _char_kind(char: str) -> str:
    """Name the kind of a rejected character, so the message says what is wrong with it."""
    if unicodedata.category(char) == "Cc":
        return f"control character {char!r}"
    if char.isspace():
        return f"whitespace {char!a}"
    if not char.isascii():
        # Lookalikes (Cyrillic a, U+0430; fullwidth solidus, U+FF0F) and invisible characters.
        return f"non-ASCII character {char!a} (U+{ord(char):04X})"
    return f"character {char!r}"


def _name_problem(name: object, extra: str = "") -> str | None:
    """Why ``name`` is not a valid tool name (or pattern, with ``extra`` characters), or None."""
    if not isinstance(name, str):
        return f"must be a str, not {type(name).__name__}"
    if not name:
        return "it is empty"
    if len(name) > MAX_NAME_LENGTH:
        return f"it is longer than {MAX_NAME_LENGTH} characters"
    bad = _first_bad_char(name, extra)
    if bad is not None:
        return bad
    return _segment_problem(name.split("/"))


def _segment_problem(segments: Sequence[str]) -> str | None:
    """Why the ``/``-separated segments of a name are not acceptable, or None."""
    if "" in segments:
        return "it has an empty segment (a leading, trailing or doubled '/')"
    for segment in segments:
        if segment in (".", ".."):
            return f"segment {segment!r} is not allowed"
    return None


def validate_tool_name(name: str) -> str:
    """Check that ``name`` is a canonical tool name and return it unchanged.

    A tool name is one or more ``/``-separated segments of ASCII letters, digits and
    ``_ - . :``; segments may not be empty, ``.`` or ``..``.

    Raises:
        ValueError: naming the offending character or segment, e.g. for whitespace, control
            characters, non-ASCII lookalikes, or an empty name.
    """
    problem = _name_problem(name)
    if problem is not None:
        raise ValueError(f"invalid tool name {_show_name(name)}: {problem}")
    return name


def validate_pattern(pattern: str) -> str:
    """Check that ``pattern`` is a method pattern and return it unchanged.

    Patterns follow the rules of :func:`validate_tool_name`, and may also contain ``*``.

    Raises:
        ValueError: naming the offending character or segment.
    """
    problem = _name_problem(pattern, extra="*")
    if problem is not None:
        raise ValueError(f"invalid method pattern {_show_name(pattern)}: {problem}")
    return pattern


def match_pattern(pattern: str, method: str) -> bool:
    """Whether the method pattern ``pattern`` matches the canonical tool name ``method``.

    ``a/b/c`` matches exactly; ``*`` matches exactly one segment; ``**`` matches zero or more
    segments (so ``a/**`` matches ``a`` too); a ``*`` inside a segment matches any characters
    within that segment; ``mcp:NAME`` also matches ``NAME`` (so ``mcp:**`` matches every
    tool), while a plain ``NAME`` does not match a tool named ``mcp:NAME``.

    >>> match_pattern("stripe/*/create", "stripe/charges/create")
    True
    >>> match_pattern("stripe/*", "stripe/charges/create")
    False
    """
    if _match_segments(pattern.split("/"), method.split("/")):
        return True
    alias = pattern.removeprefix(_MCP_PREFIX)
    return alias != pattern and _match_segments(alias.split("/"), method.split("/"))


def _match_segments(pattern: Sequence[str], method: Sequence[str]) -> bool:
    """Wildcard matching over segment lists, by dynamic programming (no exponential blowup)."""
    # reachable[j]: the pattern prefix seen so far matches method[:j].
    reachable = [True] + [False] * len(method)
    for part in pattern:
        if part == "**":
            reachable = _star_star_step(reachable)
        else:
            reachable = [False] + [
                reachable[j] and _match_segment(part, method[j]) for j in range(len(method))
            ]
    return reachable[-1]


def _star_star_step(reachable: list[bool]) -> list[bool]:
    """After ``**``, every position at or beyond a reachable one is reachable."""
    seen = False
    result = []
    for flag in reachable:
        seen = seen or flag
        result.append(seen)
    return result


def _match_segment(part: str, segment: str) -> bool:
    """Match one pattern segment against one name segment (``*`` = any run within it)."""
    if "*" not in part:
        return part == segment
    regex = "[^/]*".join(re.escape(piece) for piece in part.split("*"))
    return re.fullmatch(regex, segment) is not None


# --------------------------------------------------------------------------------------------
# Value kinds (JSON-ish types, with bool never a number)


_KIND_NOUNS: Final = {
    "None": "None",
    "bool": "a bool",
    "number": "a number",
    "str": "a str",
    "list": "a list",
    "dict": "a dict",
    "other": "a JSON value",
}


def _kind(value: object) -> str:
    """The JSON-ish kind of a value; bool is never a number and a numeric str is a str."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "dict"
    return "other"


def _type_phrase(value: object) -> str:
    """``a str``, ``an int``... the Python type of a value with its article."""
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _mismatch(path: str, value: object, expected: Iterable[str]) -> str:
    """Failure detail for a wrong kind: ``amount = '5' is a str, not a number``."""
    nouns = [_KIND_NOUNS[kind] for kind in expected]
    wanted = nouns[0] if len(nouns) == 1 else ", ".join(nouns[:-1]) + " or " + nouns[-1]
    if value is None:
        return f"{path} is None, not {wanted}"
    return f"{path} = {_show(value)} is {_type_phrase(value)}, not {wanted}"


def _same(left: object, right: object) -> bool:
    """Strict JSON equality: kinds must agree, so ``True != 1`` and ``'1' != 1``."""
    kind = _kind(left)
    if kind != _kind(right) or kind == "other":
        return False
    if kind == "list":
        return _same_lists(left, right)  # type: ignore[arg-type]
    if kind == "dict":
        return _same_dicts(left, right)  # type: ignore[arg-type]
    return left == right


def _same_lists(left: Sequence[object], right: Sequence[object]) -> bool:
    return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))


def _same_dicts(left: Mapping[object, object], right: Mapping[object, object]) -> bool:
    return left.keys() == right.keys() and all(_same(left[key], right[key]) for key in left)


def _got(value: object) -> str:
    """What a JSON field holds instead, for a message: ``None`` or ``a list``..."""
    return "None" if value is None else _type_phrase(value)


def _check_json_value(value: object, what: str) -> None:
    """Constraint literals must be JSON values (finite numbers), or they could never be
    satisfied and would have no JSON form."""
    if _kind(value) == "other":
        raise ValueError(f"{what} must be a JSON value, not {type(value).__name__}")
    if not _finite(value):
        raise ValueError(f"{what} must be finite, not {_show(value)}; JSON has no NaN or Infinity")


def _finite(value: object) -> bool:
    """Whether ``value`` holds no NaN or infinity, at any depth (numbers from a guest are
    finite after strict decoding; from the host they may not be)."""
    pending, seen = [value], set()
    while pending:
        item = pending.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, (list, tuple, Mapping)) and id(item) not in seen:
            seen.add(id(item))
            pending.extend(item.values() if isinstance(item, Mapping) else item)
    return True


def _non_finite_failure(path: str, value: object) -> str | None:
    """``amount = -inf is not a finite number``: numeric rules deny NaN and infinities, which
    would slip past them (``-inf <= 100``, ``nan != 0``)."""
    if _finite(value):
        return None
    if isinstance(value, float):
        return f"{path} = {_show(value)} is not a finite number"
    return f"{path} = {_show(value)} holds a number that is not finite"


def _plain(value: Any) -> Any:
    """A private copy of a literal with plain containers (tuples → lists, mappings → dicts).

    Constraints keep their own copy, so a caller mutating its list cannot change a rule, and
    the JSON round trip gives back an equal constraint.
    """
    kind = _kind(value)
    if kind == "list":
        return [_plain(item) for item in value]
    if kind == "dict":
        return {key: _plain(item) for key, item in value.items()}
    return value


_MAX_JSON_DEPTH: Final = 32  # deepest literal a token may carry (JSON from tokens is hostile)


def _json_literal(value: object, depth: int = _MAX_JSON_DEPTH) -> Any:
    """A JSON copy of a literal, or ValueError if it has no JSON form or is nested too deeply."""
    if depth < 0:
        raise ValueError(f"a value is nested more than {_MAX_JSON_DEPTH} levels deep")
    kind = _kind(value)
    if kind == "list":
        return [_json_literal(item, depth - 1) for item in value]  # type: ignore[attr-defined]
    if kind == "dict":
        return _json_object_literal(value, depth)  # type: ignore[arg-type]
    if kind == "other":
        raise ValueError(f"{_type_phrase(value)} is not a JSON value")
    return value


def _json_object_literal(value: Mapping[object, object], depth: int) -> dict[str, Any]:
    result = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise ValueError(f"object keys must be str, not {_show(key)}")
        result[key] = _json_literal(item, depth - 1)
    return result


def _canonical_json(data: object) -> str:
    """The one JSON spelling of ``data`` (sorted keys, no spaces, ASCII), for comparisons."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


# --------------------------------------------------------------------------------------------
# Parameter paths


class _Missing:
    """Marker for a parameter path that does not resolve."""

    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Final = _Missing()


def _split_path(path: str) -> list[str]:
    """Split and check a parameter path such as ``body/user/email`` or ``items/0``."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"invalid parameter path {_show(path)}: it must be a non-empty str")
    segments = path.split("/")
    if "" in segments:
        raise ValueError(f"invalid parameter path {path!r}: it has an empty segment")
    return segments


def _resolve(params: object, path: str) -> object:
    """The value at ``path`` in ``params``, or ``_MISSING``; list indexes are decimal digits."""
    current = params
    for segment in path.split("/"):
        current = _step(current, segment)
        if current is _MISSING:
            break
    return current


def _step(container: object, segment: str) -> object:
    """One step of a path: a key of a mapping or an index of a list."""
    if isinstance(container, Mapping):
        return container.get(segment, _MISSING)
    if isinstance(container, (list, tuple)) and segment.isdigit() and segment.isascii():
        index = int(segment)
        return container[index] if index < len(container) else _MISSING
    return _MISSING


# --------------------------------------------------------------------------------------------
# Constraints


class Constraint(ABC):
    """A rule about the parameters of a call.

    Subclasses implement :meth:`describe` and :meth:`failure`; :meth:`check` combines them into
    the message the model reads. Constraints combine with ``&`` (all) and ``|`` (any). They
    have no truth value, so that ``0 < Param("x") < 10`` (which Python would silently turn into
    ``(0 < x) and (x < 10)``) raises instead of dropping a bound.
    """

    @abstractmethod
    def describe(self) -> str:
        """Render the rule, e.g. ``amount <= 1000``."""

    @abstractmethod
    def failure(self, params: Mapping[str, Any]) -> str | None:
        """Why ``params`` break the rule (e.g. ``amount = 5000``), or None if they satisfy it."""

    def check(self, params: Mapping[str, Any]) -> str | None:
        """None if ``params`` satisfy the rule, else ``'<rule> failed (<why>)'``."""
        detail = self.failure(params)
        return None if detail is None else f"{self.describe()} failed ({detail})"

    def to_json(self) -> dict[str, Any]:
        """The JSON form, e.g. ``{"type": "comparison", "path": "amount", "op": "<=", ...}``.

        :func:`constraint_from_json` turns it back into an equal constraint.

        Raises:
            TypeError: for a constraint class of your own (only the built-in ones have one).
            ValueError: if a literal has no JSON form (say, a dict with int keys).
        """
        raise TypeError(f"{type(self).__name__} has no JSON form")

    def implies(self, other: Constraint) -> bool:
        """Whether every call that satisfies this constraint also satisfies ``other``.

        The answer is conservative: True is a proof, False means "not proven". It holds for
        equal constraints; bounds on the same path (``x <= 5`` implies ``x <= 10``, ``x < 5``
        implies ``x <= 5``); ``x == a`` and ``x in S`` when ``other`` holds for every value
        they allow; longer prefixes and suffixes; narrower length bounds; more values in
        ``not_in``; ``exists`` after any rule that fails when the value is missing; and
        through ``&`` and ``|`` (an AllOf implies what one member implies, an AnyOf what
        every member implies). Paths compare exactly; ``matches`` implies only itself.

        >>> (Param("x") <= 5).implies(Param("x") < 10)
        True
        >>> Param("c").is_in(["USD", "EUR"]).implies(Param("c").is_in(["USD"]))
        False
        """
        if not isinstance(other, Constraint):
            raise TypeError(f"expected a Constraint, got {_show(other)}")
        return _implies(self, other, _Work())

    def __and__(self, other: Constraint) -> AllOf:
        """Both constraints must hold."""
        return AllOf(_flatten(AllOf, (self, other)))

    def __or__(self, other: Constraint) -> AnyOf:
        """At least one of the constraints must hold."""
        return AnyOf(_flatten(AnyOf, (self, other)))

    def __bool__(self) -> bool:
        raise TypeError(
            f"a constraint has no truth value ({self.describe()}); combine constraints with "
            "& and |, and write a range as (Param('x') >= lo) & (Param('x') <= hi)"
        )


def _flatten(kind: type[AllOf | AnyOf], items: Iterable[Constraint]) -> tuple[Constraint, ...]:
    """Splice nested combinations of the same kind, so ``a & b & c`` is one flat AllOf."""
    flat: list[Constraint] = []
    for item in items:
        flat.extend(item.constraints if isinstance(item, kind) else (item,))
    return tuple(flat)


def _check_constraints(items: Iterable[object]) -> tuple[Constraint, ...]:
    result: list[Constraint] = []
    for item in items:
        if not isinstance(item, Constraint):
            raise TypeError(f"expected a Constraint, got {_show(item)}")
        result.append(item)
    return tuple(result)


def _describe_operand(item: Constraint, inside: type[AllOf | AnyOf]) -> str:
    """Parenthesise a combination nested inside the other kind of combination."""
    text = item.describe()
    nested = isinstance(item, (AllOf, AnyOf)) and not isinstance(item, inside)
    return f"({text})" if nested else text


@dataclass(frozen=True)
class AllOf(Constraint):
    """Every constraint must hold; the first failure is reported."""

    constraints: tuple[Constraint, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "constraints", _check_constraints(self.constraints))

    def to_json(self) -> dict[str, Any]:
        """``{"type": "all_of", "constraints": [...]}``."""
        return {"type": "all_of", "constraints": [item.to_json() for item in self.constraints]}

    def describe(self) -> str:
        """``a and b``."""
        return " and ".join(_describe_operand(item, AllOf) for item in self.constraints)

    def failure(self, params: Mapping[str, Any]) -> str | None:
        """The first failing constraint's detail."""
        return next(_details(self.constraints, params), None)

    def check(self, params: Mapping[str, Any]) -> str | None:
        """The first failing constraint's own message (its rule is the more precise one)."""
        return next((m for m in (c.check(params) for c in self.constraints) if m), None)


@dataclass(frozen=True)
class AnyOf(Constraint):
    """At least one constraint must hold; a failure lists why each alternative failed."""

    constraints: tuple[Constraint, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "constraints", _check_constraints(self.constraints))

    def to_json(self) -> dict[str, Any]:
        """``{"type": "any_of", "constraints": [...]}``."""
        return {"type": "any_of", "constraints": [item.to_json() for item in self.constraints]}

    def describe(self) -> str:
        """``a or b``."""
        return " or ".join(_describe_operand(item, AnyOf) for item in self.constraints)

    def failure(self, params: Mapping[str, Any]) -> str | None:
        """None if any alternative holds, else the distinct details joined by ``"; "``."""
        details = []
        for item in self.constraints:
            detail = item.failure(params)
            if detail is None:
                return None
            details.append(detail)
        return "; ".join(dict.fromkeys(details))


def _details(items: Iterable[Constraint], params: Mapping[str, Any]) -> Iterator[str]:
    for item in items:
        detail = item.failure(params)
        if detail is not None:
            yield detail


@dataclass(frozen=True)
class _ParamConstraint(Constraint):
    """A constraint on the value at one parameter path; a missing value fails it."""

    # The JSON form: its "type", and (JSON key, attribute, kind) for each field after "path".
    # A kind is "str", "json" (a literal), "values" (a list of literals) or "int?" (optional).
    _JSON_TYPE: ClassVar[str]
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = ()

    path: str

    def __post_init__(self) -> None:
        _split_path(self.path)

    def to_json(self) -> dict[str, Any]:
        """``{"type": ..., "path": ..., <fields>}``; see :func:`constraint_from_json`."""
        data: dict[str, Any] = {"type": self._JSON_TYPE, "path": self.path}
        for key, attribute, kind in self._JSON_FIELDS:
            data[key] = _field_to_json(getattr(self, attribute), kind)
        return data

    def failure(self, params: Mapping[str, Any]) -> str | None:
        """``<path> is missing``, or what is wrong with the value."""
        value = _resolve(params, self.path)
        if value is _MISSING:
            return f"{self.path} is missing"
        return self.value_failure(value)

    @abstractmethod
    def value_failure(self, value: Any) -> str | None:
        """What is wrong with ``value`` (present at :attr:`path`), or None."""


_ORDER_OPS: Final[dict[str, Callable[[Any, Any], bool]]] = {
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
_EQUALITY_OPS: Final = ("==", "!=")


@dataclass(frozen=True)
class Comparison(_ParamConstraint):
    """``path <op> value`` for ``op`` in ``< <= > >= == !=``.

    Ordering needs both sides to be numbers (bool is not one) or both str. Equality is strict
    JSON equality (``True != 1``, ``'1' != 1``); a value of another kind fails it, except that
    ``== None`` / ``!= None`` accept any kind.
    """

    _JSON_TYPE: ClassVar[str] = "comparison"
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("op", "op", "str"),
        ("value", "value", "json"),
    )

    op: str
    value: Any

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "value", _plain(self.value))
        if self.op in _EQUALITY_OPS:
            _check_json_value(self.value, f"the value of {self.path} {self.op} ...")
        elif self.op in _ORDER_OPS:
            _check_order_bound(self.path, self.op, self.value)
        else:
            raise ValueError(f"unknown operator {self.op!r}; use one of < <= > >= == !=")

    def describe(self) -> str:
        """``amount <= 1000``."""
        return f"{self.path} {self.op} {self.value!r}"

    def value_failure(self, value: Any) -> str | None:
        """Type mismatch, a number that is not finite, unknown operator, or
        ``<path> = <value>``."""
        non_finite = _non_finite_failure(self.path, value)
        if non_finite is not None:
            return non_finite
        if self.op in _EQUALITY_OPS:
            return self._equality_failure(value)
        compare = _ORDER_OPS.get(self.op)
        if compare is None:  # unreachable through __init__; fail closed if forced
            return f"unknown operator {self.op!r} for {self.path} = {_show(value)}"
        if _kind(value) != _kind(self.value):
            return _mismatch(self.path, value, [_kind(self.value)])
        return None if compare(value, self.value) else f"{self.path} = {_show(value)}"

    def _equality_failure(self, value: Any) -> str | None:
        if self.value is None:
            equal = value is None
        elif _kind(value) != _kind(self.value):
            return _mismatch(self.path, value, [_kind(self.value)])
        else:
            equal = _same(value, self.value)
        return None if equal == (self.op == "==") else f"{self.path} = {_show(value)}"


def _check_order_bound(path: str, op: str, bound: object) -> None:
    if _kind(bound) not in ("number", "str"):
        raise ValueError(f"{path} {op} needs a number or a str, not {_show(bound)}")
    if isinstance(bound, float) and math.isnan(bound):
        raise ValueError(f"{path} {op} nan would deny every call; use a number")
    if isinstance(bound, float) and math.isinf(bound):
        raise ValueError(
            f"{path} {op} {bound}: a bound must be finite (JSON has no Infinity); leave the "
            "rule out for no limit"
        )


def _as_values(values: Iterable[Any], what: str) -> tuple[Any, ...]:
    if isinstance(values, (str, bytes, Mapping)):
        raise TypeError(f"{what} needs a list of values, not {type(values).__name__}")
    result = tuple(_plain(value) for value in values)
    for value in result:
        _check_json_value(value, f"each value of {what}")
    return result


@dataclass(frozen=True)
class IsIn(_ParamConstraint):
    """The value is one of ``values`` (strict JSON equality)."""

    _JSON_TYPE: ClassVar[str] = "in"
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (("values", "values", "values"),)

    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "values", _as_values(self.values, f"{self.path} in"))

    def describe(self) -> str:
        """``currency in ['USD', 'EUR']``."""
        return f"{self.path} in {list(self.values)!r}"

    def value_failure(self, value: Any) -> str | None:
        """``<path> = <value>`` when it is not among the values (or not finite)."""
        non_finite = _non_finite_failure(self.path, value)
        if non_finite is not None:
            return non_finite
        found = any(_same(value, allowed) for allowed in self.values)
        return None if found else f"{self.path} = {_show(value)}"


@dataclass(frozen=True)
class NotIn(_ParamConstraint):
    """The value is none of ``values``; a value of a kind not among them fails (fail closed)."""

    _JSON_TYPE: ClassVar[str] = "not_in"
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (("values", "values", "values"),)

    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "values", _as_values(self.values, f"{self.path} not in"))

    def describe(self) -> str:
        """``role not in ['admin']``."""
        return f"{self.path} not in {list(self.values)!r}"

    def value_failure(self, value: Any) -> str | None:
        """Type mismatch, a number that is not finite, or ``<path> = <value>`` when it is
        among the values."""
        non_finite = _non_finite_failure(self.path, value)
        if non_finite is not None:
            return non_finite
        kinds = list(dict.fromkeys(_kind(v) for v in self.values))
        if kinds and _kind(value) not in kinds:
            return _mismatch(self.path, value, kinds)
        found = any(_same(value, banned) for banned in self.values)
        return f"{self.path} = {_show(value)}" if found else None


def _check_str_operand(path: str, name: str, operand: object) -> None:
    if not isinstance(operand, str):
        raise TypeError(f"{path} {name} needs a str, not {_show(operand)}")


@dataclass(frozen=True)
class StartsWith(_ParamConstraint):
    """The value is a str starting with ``prefix``.

    This is a string test, not a path test: ``'/workspace/../etc'`` starts with
    ``'/workspace'``.
    """

    _JSON_TYPE: ClassVar[str] = "starts_with"
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (("prefix", "prefix", "str"),)

    prefix: str

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_str_operand(self.path, "starts_with", self.prefix)

    def describe(self) -> str:
        """``path starts_with '/workspace'``."""
        return f"{self.path} starts_with {self.prefix!r}"

    def value_failure(self, value: Any) -> str | None:
        """Type mismatch, or ``<path> = <value>``."""
        if not isinstance(value, str):
            return _mismatch(self.path, value, ["str"])
        return None if value.startswith(self.prefix) else f"{self.path} = {_show(value)}"


@dataclass(frozen=True)
class EndsWith(_ParamConstraint):
    """The value is a str ending with ``suffix``."""

    _JSON_TYPE: ClassVar[str] = "ends_with"
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (("suffix", "suffix", "str"),)

    suffix: str

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_str_operand(self.path, "ends_with", self.suffix)

    def describe(self) -> str:
        """``file ends_with '.csv'``."""
        return f"{self.path} ends_with {self.suffix!r}"

    def value_failure(self, value: Any) -> str | None:
        """Type mismatch, or ``<path> = <value>``."""
        if not isinstance(value, str):
            return _mismatch(self.path, value, ["str"])
        return None if value.endswith(self.suffix) else f"{self.path} = {_show(value)}"


@dataclass(frozen=True)
class Contains(_ParamConstraint):
    """A str value contains ``item`` as a substring, or a list value has ``item`` as an element."""

    _JSON_TYPE: ClassVar[str] = "contains"
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (("item", "item", "json"),)

    item: Any

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "item", _plain(self.item))
        _check_json_value(self.item, f"the item of {self.path} contains")

    def describe(self) -> str:
        """``tags contains 'urgent'``."""
        return f"{self.path} contains {self.item!r}"

    def value_failure(self, value: Any) -> str | None:
        """Type mismatch, or ``<path> = <value>`` when the item is absent."""
        if isinstance(value, str) and isinstance(self.item, str):
            found = self.item in value
        elif isinstance(value, (list, tuple)):
            found = any(_same(element, self.item) for element in value)
        else:
            kinds = ["str", "list"] if isinstance(self.item, str) else ["list"]
            return _mismatch(self.path, value, kinds)
        return None if found else f"{self.path} = {_show(value)}"


@dataclass(frozen=True)
class Matches(_ParamConstraint):
    """The value is a str that the regular expression ``regex`` matches in full.

    The regex is the host's; keep it free of catastrophic backtracking, since the value is not.
    """

    _JSON_TYPE: ClassVar[str] = "matches"
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (("regex", "regex", "str"),)

    regex: str
    _compiled: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        _check_str_operand(self.path, "matches", self.regex)
        try:
            compiled = re.compile(self.regex)
        except re.error as error:
            raise ValueError(
                f"{self.path} matches {self.regex!r}: invalid regex ({error})"
            ) from None
        object.__setattr__(self, "_compiled", compiled)

    def describe(self) -> str:
        """``email matches '[a-z.]+@example[.]com'``."""
        return f"{self.path} matches {self.regex!r}"

    def value_failure(self, value: Any) -> str | None:
        """Type mismatch, or ``<path> = <value>``."""
        if not isinstance(value, str):
            return _mismatch(self.path, value, ["str"])
        return None if self._compiled.fullmatch(value) else f"{self.path} = {_show(value)}"


@dataclass(frozen=True)
class Exists(_ParamConstraint):
    """The parameter is present (any value, including None)."""

    _JSON_TYPE: ClassVar[str] = "exists"

    def describe(self) -> str:
        """``amount exists``."""
        return f"{self.path} exists"

    def value_failure(self, value: Any) -> str | None:
        """Never: presence is all it asks."""
        return None


@dataclass(frozen=True)
class NotExists(_ParamConstraint):
    """The parameter is absent."""

    _JSON_TYPE: ClassVar[str] = "not_exists"

    def describe(self) -> str:
        """``debug not_exists``."""
        return f"{self.path} not_exists"

    def failure(self, params: Mapping[str, Any]) -> str | None:
        """None when absent, else ``<path> = <value>``."""
        value = _resolve(params, self.path)
        return None if value is _MISSING else self.value_failure(value)

    def value_failure(self, value: Any) -> str | None:
        """Any present value fails."""
        return f"{self.path} = {_show(value)}"


@dataclass(frozen=True)
class Length(_ParamConstraint):
    """``minimum <= len(value) <= maximum`` for a str, list or dict value; a bound may be None."""

    _JSON_TYPE: ClassVar[str] = "length"
    _JSON_FIELDS: ClassVar[tuple[tuple[str, str, str], ...]] = (
        ("min", "minimum", "int?"),
        ("max", "maximum", "int?"),
    )

    minimum: int | None
    maximum: int | None

    def __post_init__(self) -> None:
        super().__post_init__()
        for bound in (self.minimum, self.maximum):
            if bound is not None and (_kind(bound) != "number" or not isinstance(bound, int)):
                raise TypeError(f"len({self.path}) bounds must be ints, not {_show(bound)}")
        if self.minimum is None and self.maximum is None:
            raise ValueError(f"len({self.path}) needs a minimum, a maximum or both")
        if (self.minimum or 0) < 0 or (self.maximum is not None and self.maximum < 0):
            raise ValueError(f"len({self.path}) bounds must not be negative")
        if self.maximum is not None and (self.minimum or 0) > self.maximum:
            raise ValueError(f"len({self.path}) minimum {self.minimum} > maximum {self.maximum}")

    def describe(self) -> str:
        """``len(name) <= 64``, ``len(name) >= 1`` or ``1 <= len(name) <= 64``."""
        if self.minimum is None:
            return f"len({self.path}) <= {self.maximum}"
        if self.maximum is None:
            return f"len({self.path}) >= {self.minimum}"
        return f"{self.minimum} <= len({self.path}) <= {self.maximum}"

    def value_failure(self, value: Any) -> str | None:
        """Type mismatch, or ``len(<path>) = <n>``."""
        if _kind(value) not in ("str", "list", "dict"):
            return _mismatch(self.path, value, ["str", "list", "dict"])
        size = len(value)
        too_short = self.minimum is not None and size < self.minimum
        too_long = self.maximum is not None and size > self.maximum
        return f"len({self.path}) = {size}" if too_short or too_long else None


class Param:
    """A parameter of a tool call, to build constraints on.

    ``path`` is a parameter name (``amount``) or a ``/``-separated path into nested objects and
    lists (``body/user/email``, ``items/0``).

    Comparison operators build :class:`Comparison` constraints (``Param("amount") <= 1000``);
    the methods build the other kinds. Because ``==`` builds a constraint, a Param is not
    hashable.
    """

    __slots__ = ("path",)
    __hash__: ClassVar[None]  # type: ignore[assignment]

    def __init__(self, path: str) -> None:
        """Refer to the parameter at ``path``."""
        _split_path(path)
        self.path: Final = path

    def __repr__(self) -> str:
        return f"Param({self.path!r})"

    def __lt__(self, value: Any) -> Comparison:
        """``Param(p) < value``."""
        return Comparison(self.path, "<", value)

    def __le__(self, value: Any) -> Comparison:
        """``Param(p) <= value``."""
        return Comparison(self.path, "<=", value)

    def __gt__(self, value: Any) -> Comparison:
        """``Param(p) > value``."""
        return Comparison(self.path, ">", value)

    def __ge__(self, value: Any) -> Comparison:
        """``Param(p) >= value``."""
        return Comparison(self.path, ">=", value)

    def __eq__(self, value: Any) -> Comparison:  # type: ignore[override]
        """``Param(p) == value`` (strict: ``True`` does not equal ``1``)."""
        return Comparison(self.path, "==", value)

    def __ne__(self, value: Any) -> Comparison:  # type: ignore[override]
        """``Param(p) != value``."""
        return Comparison(self.path, "!=", value)

    def is_in(self, values: Iterable[Any]) -> IsIn:
        """The value is one of ``values``."""
        return IsIn(self.path, _as_values(values, f"{self.path} in"))

    def not_in(self, values: Iterable[Any]) -> NotIn:
        """The value is none of ``values``."""
        return NotIn(self.path, _as_values(values, f"{self.path} not in"))

    def starts_with(self, prefix: str) -> StartsWith:
        """The value is a str starting with ``prefix`` (a string test, not a path test)."""
        return StartsWith(self.path, prefix)

    def ends_with(self, suffix: str) -> EndsWith:
        """The value is a str ending with ``suffix``."""
        return EndsWith(self.path, suffix)

    def contains(self, item: Any) -> Contains:
        """A str value contains ``item``, or a list value has ``item`` as an element."""
        return Contains(self.path, item)

    def matches(self, regex: str) -> Matches:
        """The value is a str that ``regex`` matches in full."""
        return Matches(self.path, regex)

    def exists(self) -> Exists:
        """The parameter is present."""
        return Exists(self.path)

    def not_exists(self) -> NotExists:
        """The parameter is absent."""
        return NotExists(self.path)

    def len_between(self, minimum: int, maximum: int) -> Length:
        """``minimum <= len(value) <= maximum`` (inclusive) for a str, list or dict."""
        return Length(self.path, minimum, maximum)

    def len_le(self, maximum: int) -> Length:
        """``len(value) <= maximum``."""
        return Length(self.path, None, maximum)

    def len_ge(self, minimum: int) -> Length:
        """``len(value) >= minimum``."""
        return Length(self.path, minimum, None)


# --------------------------------------------------------------------------------------------
# The JSON form of constraints (tokens carry it; a token may be hostile, so parse strictly)

_MAX_NESTING: Final = 16  # deepest & / | nesting accepted from JSON
_COMBINATIONS: Final[dict[str, type[AllOf | AnyOf]]] = {"all_of": AllOf, "any_of": AnyOf}
_ATOM_TYPES: Final[tuple[type[_ParamConstraint], ...]] = (
    Comparison,
    IsIn,
    NotIn,
    StartsWith,
    EndsWith,
    Contains,
    Matches,
    Exists,
    NotExists,
    Length,
)
_ATOMS_BY_JSON_TYPE: Final = {atom._JSON_TYPE: atom for atom in _ATOM_TYPES}


def _field_to_json(value: Any, kind: str) -> Any:
    """One field of a constraint's JSON form."""
    if kind == "json":
        return _json_literal(value)
    if kind == "values":
        return [_json_literal(item) for item in value]
    return value


def constraint_from_json(data: object) -> Constraint:
    """The constraint whose JSON form (:meth:`Constraint.to_json`) is ``data``.

    >>> constraint_from_json({"type": "comparison", "path": "amount", "op": "<=", "value": 10})
    Comparison(path='amount', op='<=', value=10)

    Raises:
        ValueError: naming the problem, for an unknown type, a missing or unexpected key, a
            field of the wrong type, a literal nested more than 32 levels or constraints
            nested more than 16 levels deep, or a rule the constructor refuses.
    """
    return _constraint_from_json(data, _MAX_NESTING)


def _constraint_from_json(data: object, depth: int) -> Constraint:
    if depth < 0:
        raise ValueError(f"constraints are nested more than {_MAX_NESTING} levels deep")
    if not isinstance(data, Mapping):
        raise ValueError(f"a constraint must be a JSON object, not {_got(data)}")
    if "type" not in data:
        raise ValueError("a constraint needs a 'type'")
    kind = data["type"]
    if isinstance(kind, str) and kind in _COMBINATIONS:
        return _combination_from_json(kind, data, depth)
    atom = _ATOMS_BY_JSON_TYPE.get(kind) if isinstance(kind, str) else None
    if atom is None:
        known = ", ".join(sorted([*_COMBINATIONS, *_ATOMS_BY_JSON_TYPE]))
        raise ValueError(f"unknown constraint type {_show(kind)}; expected one of {known}")
    return _atom_from_json(atom, data)


def _combination_from_json(kind: str, data: Mapping[str, Any], depth: int) -> Constraint:
    _check_json_keys(data, f"constraint {kind!r}", ("type", "constraints"))
    items = data["constraints"]
    if not isinstance(items, list):
        raise ValueError(f"'constraints' of constraint {kind!r} must be a list")
    members = [
        _numbered("constraint", index, _constraint_from_json, item, depth - 1)
        for index, item in enumerate(items)
    ]
    return _COMBINATIONS[kind](tuple(members))


def _atom_from_json(atom: type[_ParamConstraint], data: Mapping[str, Any]) -> Constraint:
    what = f"constraint {atom._JSON_TYPE!r}"
    fields = atom._JSON_FIELDS
    required = ["type", "path", *(key for key, _, kind in fields if kind != "int?")]
    optional = [key for key, _, kind in fields if kind == "int?"]
    _check_json_keys(data, what, required, optional)
    args = [_json_field(data, "path", "str", what)]
    args.extend(_json_field(data, key, kind, what) for key, _, kind in fields)
    try:
        return atom(*args)
    except TypeError as error:  # the constructors' own checks, e.g. a float length bound
        raise ValueError(str(error)) from None


def _json_field(data: Mapping[str, Any], key: str, kind: str, what: str) -> Any:
    """One field of a constraint from JSON, checked and copied."""
    value = data.get(key)
    if kind == "str" and not isinstance(value, str):
        raise ValueError(f"{key!r} of {what} must be a str, not {_got(value)}")
    if kind == "json":
        return _json_literal(value)
    if kind == "values":
        if not isinstance(value, list):
            raise ValueError(f"{key!r} of {what} must be a list, not {_got(value)}")
        return tuple(_json_literal(item) for item in value)
    return value


def _check_json_keys(
    data: Mapping[str, Any], what: str, required: Sequence[str], optional: Sequence[str] = ()
) -> None:
    """Refuse unexpected and missing keys, naming the first one."""
    for key in data:
        if key not in required and key not in optional:
            raise ValueError(f"{what} has an unexpected key {_show(key)}")
    for key in required:
        if key not in data:
            raise ValueError(f"{what} is missing {key!r}")


def _numbered(what: str, index: int, parse: Callable[..., _T], *args: Any) -> _T:
    """``parse(*args)``, with ``<what> <n>: `` (1-based) before the message of a ValueError."""
    try:
        return parse(*args)
    except ValueError as error:
        raise ValueError(f"{what} {index + 1}: {error}") from None


# --------------------------------------------------------------------------------------------
# Subsets: is one capability within another? (used to check attenuation; answers are sound,
# never complete: when a rule cannot prove it, the answer is False, and the token is refused)

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


# --------------------------------------------------------------------------------------------
# Constraint sets and capabilities


@dataclass(frozen=True, init=False)
class ConstraintSet:
    """Constraints that must all hold (an AND); :meth:`check` reports the first failure."""

    constraints: tuple[Constraint, ...]

    def __init__(self, constraints: Iterable[Constraint] = ()) -> None:
        """Collect ``constraints``; anything that is not a :class:`Constraint` is a TypeError."""
        object.__setattr__(self, "constraints", _check_constraints(constraints))

    def __iter__(self) -> Iterator[Constraint]:
        return iter(self.constraints)

    def __len__(self) -> int:
        return len(self.constraints)

    def check(self, params: Mapping[str, Any]) -> str | None:
        """None if every constraint holds, else the first failing one's message."""
        return next((m for m in (c.check(params) for c in self.constraints) if m), None)

    def describe(self) -> str:
        """The constraints joined by ``and`` (empty when there are none)."""
        return " and ".join(_describe_operand(item, AllOf) for item in self.constraints)

    def implies(self, parent: ConstraintSet) -> bool:
        """Whether every call that satisfies these constraints satisfies ``parent``'s.

        Each of ``parent``'s constraints must be implied (see :meth:`Constraint.implies`) by
        one of these (or, through an AllOf member of ``parent``, by one for each member).
        Conservative: False means "not proven".
        """
        return self._implies(parent, _Work())

    def _implies(self, parent: ConstraintSet, work: _Work) -> bool:
        together = AllOf(self.constraints)
        return all(_implies(together, item, work) for item in parent.constraints)


def _as_constraint_set(
    constraints: ConstraintSet | Constraint | Iterable[Constraint] | None,
) -> ConstraintSet:
    if constraints is None:
        return ConstraintSet()
    if isinstance(constraints, ConstraintSet):
        return constraints
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

        >>> parent = MethodCapability("fs/*", [Param("path").starts_with("/workspace/")])
        >>> MethodCapability("fs/read", [Param("path").starts_with("/workspace/a/")]).is_subset_of(
        ...     parent
        ... )
        True
        >>> MethodCapability("fs/read").is_subset_of(parent)
        False
        """
        return _is_subset(self, parent, _Work())


def _is_subset(child: MethodCapability, parent: MethodCapability, work: _Work) -> bool:
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


@dataclass(frozen=True)
class Decision:
    """The outcome of :meth:`Authorizer.authorize`.

    Attributes:
        allowed: Whether the call may go ahead.
        rule: When denied, the rule that denied it; when allowed, the allowing capability.
        capability: The capability that allowed the call, or (when denied) the first matching
            capability, or None when none matched.
        method: The tool name that was called.
        requires_approval: Whether the allowing capability wants a human to approve the call
            before it runs (always False for a denial). The authorizer asks no one itself.
    """

    allowed: bool
    rule: str
    capability: MethodCapability | None
    method: str
    requires_approval: bool = False

    @property
    def message(self) -> str:
        """``<method> denied: <rule>`` or ``<method> allowed: <rule>``."""
        verdict = "allowed" if self.allowed else "denied"
        return f"{_name_for_message(self.method)} {verdict}: {self.rule}"

    def error(self) -> CapabilityError:
        """The :class:`CapabilityError` for a denied decision.

        Raises:
            ValueError: if the decision allowed the call.
        """
        if self.allowed:
            raise ValueError(f"{self.message}; there is no error to raise")
        return CapabilityError(self.method, self.rule)


def raise_for(decision: Decision) -> None:
    """Raise the decision's :class:`CapabilityError` if it denied the call; else do nothing."""
    if not decision.allowed:
        raise decision.error()


@dataclass
class _Budget:
    """One call budget: its limit (None = unlimited), the calls charged, its name in messages."""

    label: str
    limit: int | None
    used: int = 0

    def denial(self) -> str | None:
        """``<label> exhausted (<n> calls made)`` once the budget is spent, else None."""
        if self.limit is None or self.used < self.limit:
            return None
        calls = "call" if self.used == 1 else "calls"
        return f"{self.label} exhausted ({self.used} {calls} made)"

    def remaining(self) -> int | None:
        """Calls left (None = unlimited)."""
        return None if self.limit is None else self.limit - self.used


def _sandbox_budget(limit: int | None) -> _Budget:
    return _Budget(f"sandbox max_calls={limit}", _check_max_calls(limit, "the sandbox"))


def _execution_budget(limit: int | None) -> _Budget:
    return _Budget(f"execution max_calls={limit}", _check_max_calls(limit, "the execution"))


def _tool_budgets(limits: Mapping[str, int] | None) -> dict[str, _Budget]:
    if limits is None:
        return {}
    if not isinstance(limits, Mapping):
        raise TypeError(f"max_calls_per_tool must map tool names to ints, not {_show(limits)}")
    budgets = {}
    for name, limit in limits.items():
        validate_tool_name(name)
        checked = _check_max_calls(limit, f"tool {name!r}")
        if checked is not None:
            budgets[name] = _Budget(f"max_calls={checked} for tool {name!r}", checked)
    return budgets


class Authorizer:
    """Decides every tool call of one sandbox, and keeps its call budgets.

    For a call, the capabilities whose pattern matches are tried in order; the first that
    allows it wins and is charged one call. If none matches the call is denied with
    ``no capability matches '<method>'``; if all matching ones deny, the first one's reason is
    reported. Budgets are checked before constraints (once one is spent, fixing the arguments
    cannot help), and charged only when a call is allowed: ``max_calls`` for the whole
    sandbox, ``max_calls_per_tool`` per canonical tool name (however many capabilities cover
    it), the budget of the current execution (:meth:`start_execution`) and each capability's
    own. Any error while checking denies the call (fail closed).

    >>> auth = Authorizer([MethodCapability("get_*")], max_calls=1)
    >>> auth.authorize("get_a", {}).allowed
    True
    >>> auth.authorize("get_b", {}).message
    'get_b denied: sandbox max_calls=1 exhausted (1 call made)'
    """

    def __init__(
        self,
        capabilities: Iterable[MethodCapability],
        max_calls: int | None = None,
        max_calls_per_tool: Mapping[str, int] | None = None,
    ) -> None:
        """Keep ``capabilities`` in order, each with an unused budget.

        Raises:
            TypeError: if a capability is not a :class:`MethodCapability`.
            ValueError: for a budget that is not an int >= 0 or None, or an invalid tool name.
        """
        self._capabilities = tuple(capabilities)
        for capability in self._capabilities:
            if not isinstance(capability, MethodCapability):
                raise TypeError(f"expected a MethodCapability, got {_show(capability)}")
        self._budgets = [
            _Budget(f"max_calls={cap.max_calls} for {cap.method_pattern!r}", cap.max_calls)
            for cap in self._capabilities
        ]
        self._sandbox = _sandbox_budget(max_calls)
        self._tools = _tool_budgets(max_calls_per_tool)
        self._execution = _execution_budget(None)
        # Tool calls may be authorised from several threads (the native host runs tools there).
        self._lock = threading.Lock()

    @property
    def capabilities(self) -> tuple[MethodCapability, ...]:
        """The capabilities, in the order they are tried."""
        return self._capabilities

    def start_execution(self, max_calls: int | None = None) -> None:
        """Begin a new execution: its own budget of ``max_calls`` calls (None = unlimited)."""
        budget = _execution_budget(max_calls)
        with self._lock:
            self._execution = budget

    def authorize(self, method: str, params: Mapping[str, Any]) -> Decision:
        """Decide a call of ``method`` with ``params``; charge the budgets if it is allowed."""
        with self._lock:
            decision, index = self._decide(method, params)
            if index is not None:
                self._charge(index, method)
        return decision

    def admit(self, method: str, params: Mapping[str, Any]) -> Decision:
        """Decide a call once; charge the budgets now unless it waits for approval.

        An allowed call that needs approval is charged later, by :meth:`authorize` once it is
        approved, so a refused approval costs nothing.
        """
        with self._lock:
            decision, index = self._decide(method, params)
            if index is not None and not decision.requires_approval:
                self._charge(index, method)
        return decision

    def check(self, method: str, params: Mapping[str, Any]) -> Decision:
        """The decision :meth:`authorize` would make now, without charging any budget."""
        with self._lock:
            return self._decide(method, params)[0]

    def can_call(self, method: str, params: Mapping[str, Any]) -> bool:
        """Whether :meth:`authorize` would allow the call now, without charging any budget."""
        return self.check(method, params).allowed

    def remaining_calls(self) -> dict[str, int | None]:
        """Calls left per pattern (None = unlimited); repeated patterns are summed."""
        with self._lock:
            return self._per_pattern()

    def remaining_budgets(self) -> dict[str, int | None]:
        """Calls left in every budget (None = unlimited).

        Keys: ``"sandbox"``, ``"execution"``, ``"tool:<name>"`` for each tool with a budget
        and ``"capability:<pattern>"`` for each pattern (repeated patterns summed).
        """
        with self._lock:
            remaining = {
                "sandbox": self._sandbox.remaining(),
                "execution": self._execution.remaining(),
            }
            for name, budget in self._tools.items():
                remaining[f"tool:{name}"] = budget.remaining()
            for pattern, left in self._per_pattern().items():
                remaining[f"capability:{pattern}"] = left
        return remaining

    def _per_pattern(self) -> dict[str, int | None]:
        remaining: dict[str, int | None] = {}
        for capability, budget in zip(self._capabilities, self._budgets, strict=True):
            left = budget.remaining()
            previous = remaining.get(capability.method_pattern, 0)
            both = None if left is None or previous is None else left + previous
            remaining[capability.method_pattern] = both
        return remaining

    def _charge(self, index: int, method: str) -> None:
        for budget in (self._budgets[index], self._sandbox, self._execution):
            budget.used += 1
        tool = self._tools.get(method)
        if tool is not None:
            tool.used += 1

    def _decide(self, method: str, params: Mapping[str, Any]) -> tuple[Decision, int | None]:
        """The decision, and the index of the capability to charge (None when denied)."""
        problem = _request_problem(method, params)
        if problem is not None:
            return Decision(False, problem, None, method), None
        matching = [i for i, cap in enumerate(self._capabilities) if cap.matches(method)]
        if not matching:
            return Decision(False, f"no capability matches {method!r}", None, method), None
        shared = self._shared_denial(method)
        if shared is not None:
            return Decision(False, shared, self._capabilities[matching[0]], method), None
        denials = []
        for index in matching:
            capability = self._capabilities[index]
            reason = self._denial_reason(index, params)
            if reason is None:
                allowed = Decision(
                    True, capability.describe(), capability, method, capability.requires_approval
                )
                return allowed, index
            denials.append(Decision(False, reason, capability, method))
        return denials[0], None

    def _shared_denial(self, method: str) -> str | None:
        """Why the sandbox, tool or execution budget denies any call of ``method``, or None."""
        for budget in (self._sandbox, self._tools.get(method), self._execution):
            denial = None if budget is None else budget.denial()
            if denial is not None:
                return denial
        return None

    def _denial_reason(self, index: int, params: Mapping[str, Any]) -> str | None:
        """Why capability ``index`` denies the call (budget first), or None if it allows it."""
        capability = self._capabilities[index]
        exhausted = self._budgets[index].denial()
        if exhausted is not None:
            return exhausted
        try:
            return capability.check(params)
        except Exception as error:  # noqa: BLE001 - any surprise while checking must deny
            kind = type(error).__name__
            return f"{capability.constraints.describe()} failed (error while checking: {kind})"


@functools.lru_cache(maxsize=4096)
def _known_name_problem(name: str) -> str | None:
    """:func:`_name_problem`, remembered: a sandbox calls the same few tools over and over."""
    return _name_problem(name)


def _request_problem(method: object, params: object) -> str | None:
    """Why a call request is malformed before any capability is consulted, or None."""
    problem = _known_name_problem(method) if isinstance(method, str) else _name_problem(method)
    if problem is not None:
        return f"invalid tool name: {problem}"
    if not isinstance(params, Mapping):
        return f"parameters must be an object, not {_type_phrase(params)}"
    return None


# --------------------------------------------------------------------------------------------
# The dict form: create_sandbox_tool(tools=..., constraints=..., max_calls=...)

SPEC_FORMS: Final = (
    "'<=N', '>=N', '<N', '>N', '==X', '!=X', 'startswith:X', 'endswith:X', 'contains:X', "
    "'regex:X', a list of allowed values, or a bare value (int, float, bool, None or a str "
    "not starting with an operator) for equality"
)
"""The constraint spec forms :func:`constraint_from_spec` accepts, for error messages."""

_SPEC_OPERATORS: Final = ("<=", ">=", "==", "!=", "<", ">")  # longest first
_SPEC_KEYWORDS: Final[dict[str, Callable[[str, str], Constraint]]] = {
    "startswith:": StartsWith,
    "endswith:": EndsWith,
    "contains:": Contains,
    "regex:": Matches,
}
_OPERATOR_CHARS: Final = "<>=!~"
_INT_RE: Final = re.compile(r"[+-]?[0-9]+")
_FLOAT_RE: Final = re.compile(r"[+-]?(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?")


def _parse_number(text: str) -> int | float | None:
    """An int or float literal (no nan, inf or underscores), or None."""
    text = text.strip()
    if _INT_RE.fullmatch(text):
        return int(text)
    if _FLOAT_RE.fullmatch(text):
        return float(text)
    return None


def constraint_from_spec(param: str, spec: object) -> Constraint:
    """The constraint on ``param`` that a spec of the dict form denotes.

    ``"<=1000"`` → ``Param(param) <= 1000``; a list → :meth:`Param.is_in`; ``"startswith:X"``,
    ``"endswith:X"``, ``"contains:X"``, ``"regex:X"`` → the matching methods; ``"==X"`` and
    ``"!=X"`` compare with a number if X is one, else with the str X; a bare int, float, bool,
    None or str (not starting with an operator) → equality.

    Raises:
        ValueError: if the spec is not one of those forms (the message lists them).
    """
    if isinstance(spec, (list, tuple)):
        return IsIn(param, tuple(spec))
    if spec is None or isinstance(spec, (bool, int, float)):
        return Comparison(param, "==", spec)
    if isinstance(spec, str):
        return _constraint_from_str(param, spec)
    raise ValueError(f"{_show(spec)} is not understood; accepted forms: {SPEC_FORMS}")


def _constraint_from_str(param: str, spec: str) -> Constraint:
    for op in _SPEC_OPERATORS:
        if spec.startswith(op):
            return _comparison_from_spec(param, op, spec[len(op) :], spec)
    for keyword, build in _SPEC_KEYWORDS.items():
        if spec.startswith(keyword):
            return build(param, spec[len(keyword) :])
    if spec[:1] in _OPERATOR_CHARS and spec:
        raise ValueError(f"{spec!r} is not understood; accepted forms: {SPEC_FORMS}")
    return Comparison(param, "==", spec)


def _comparison_from_spec(param: str, op: str, operand: str, spec: str) -> Comparison:
    number = _parse_number(operand)
    if isinstance(number, float) and not math.isfinite(number):
        raise ValueError(
            f"{spec!r} needs a finite number after {op!r}; accepted forms: {SPEC_FORMS}"
        )
    if number is not None:
        return Comparison(param, op, number)
    if op in _EQUALITY_OPS:
        return Comparison(param, op, operand)
    raise ValueError(f"{spec!r} needs a number after {op!r}; accepted forms: {SPEC_FORMS}")


def capabilities_from_dict(
    tool_names: Sequence[str],
    constraints: Mapping[str, Mapping[str, Any]] | None = None,
    max_calls: Mapping[str, int] | int | None = None,
) -> list[MethodCapability]:
    """One capability per tool, from the dict form of ``create_sandbox_tool``.

    ``constraints`` maps a tool name to ``{param: spec}`` (see :func:`constraint_from_spec`);
    ``max_calls`` is a per-tool mapping, or one int applied to every tool separately.

    >>> caps = capabilities_from_dict(
    ...     ["transfer_money", "get_balance"],
    ...     constraints={"transfer_money": {"amount": "<=1000", "currency": ["USD", "EUR"]}},
    ...     max_calls={"transfer_money": 10},
    ... )
    >>> [cap.describe() for cap in caps]  # doctest: +NORMALIZE_WHITESPACE
    ["transfer_money where amount <= 1000 and currency in ['USD', 'EUR'] (max_calls=10)",
     'get_balance']

    Raises:
        ValueError: for an invalid or repeated tool name, a spec that is not understood, or
            constraints or a budget for a tool not in ``tool_names``.
    """
    names = _tool_names(tool_names)
    per_tool = _constraints_by_tool(names, constraints or {})
    budgets = _budgets_by_tool(names, max_calls)
    return [MethodCapability(name, per_tool.get(name), budgets.get(name)) for name in names]


def _tool_names(tool_names: Sequence[str]) -> list[str]:
    if isinstance(tool_names, str):
        raise TypeError("tool_names must be a list of names, not a single str")
    names = [validate_tool_name(name) for name in tool_names]
    for index, name in enumerate(names):
        if name in names[:index]:
            raise ValueError(f"tool {name!r} is listed twice in tool_names")
    return names


def _check_known(names: Sequence[str], tool: object, what: str) -> str:
    if tool not in names:
        raise ValueError(
            f"{what} for {_show(tool)}: no such tool in tool_names ({', '.join(names)})"
        )
    return str(tool)


def _constraints_by_tool(
    names: Sequence[str], constraints: Mapping[str, Mapping[str, Any]]
) -> dict[str, list[Constraint]]:
    result = {}
    for tool, specs in constraints.items():
        _check_known(names, tool, "constraints")
        if not isinstance(specs, Mapping):
            raise ValueError(f"constraints for {tool!r} must map parameter names to specs")
        result[tool] = [_tool_constraint(tool, param, spec) for param, spec in specs.items()]
    return result


def _tool_constraint(tool: str, param: object, spec: object) -> Constraint:
    try:
        return constraint_from_spec(param, spec)  # type: ignore[arg-type]
    except (ValueError, TypeError) as error:
        where = f"invalid constraint for tool {tool!r}, parameter {_show(param)}"
        raise ValueError(f"{where}: {error}") from None


def _budgets_by_tool(
    names: Sequence[str], max_calls: Mapping[str, int] | int | None
) -> dict[str, int | None]:
    if max_calls is None or isinstance(max_calls, (int, bool)):
        return {name: _check_max_calls(max_calls, "every tool") for name in names}
    return {
        _check_known(names, tool, "max_calls"): _check_max_calls(limit, repr(tool))
        for tool, limit in max_calls.items()
    }
