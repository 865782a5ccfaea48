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
"""

from __future__ import annotations

import math
import operator
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

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
    "capabilities_from_dict",
    "constraint_from_spec",
    "match_pattern",
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


def _check_json_value(value: object, what: str) -> None:
    """Constraint literals must be JSON-ish, or they could never be satisfied."""
    if _kind(value) == "other":
        raise ValueError(f"{what} must be a JSON value, not {type(value).__name__}")


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

    path: str

    def __post_init__(self) -> None:
        _split_path(self.path)

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

    op: str
    value: Any

    def __post_init__(self) -> None:
        super().__post_init__()
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
        """Type mismatch, unknown operator, or ``<path> = <value>``."""
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


def _as_values(values: Iterable[Any], what: str) -> tuple[Any, ...]:
    if isinstance(values, (str, bytes, Mapping)):
        raise TypeError(f"{what} needs a list of values, not {type(values).__name__}")
    result = tuple(values)
    for value in result:
        _check_json_value(value, f"each value of {what}")
    return result


@dataclass(frozen=True)
class IsIn(_ParamConstraint):
    """The value is one of ``values`` (strict JSON equality)."""

    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "values", _as_values(self.values, f"{self.path} in"))

    def describe(self) -> str:
        """``currency in ['USD', 'EUR']``."""
        return f"{self.path} in {list(self.values)!r}"

    def value_failure(self, value: Any) -> str | None:
        """``<path> = <value>`` when it is not among the values."""
        found = any(_same(value, allowed) for allowed in self.values)
        return None if found else f"{self.path} = {_show(value)}"


@dataclass(frozen=True)
class NotIn(_ParamConstraint):
    """The value is none of ``values``; a value of a kind not among them fails (fail closed)."""

    values: tuple[Any, ...]

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "values", _as_values(self.values, f"{self.path} not in"))

    def describe(self) -> str:
        """``role not in ['admin']``."""
        return f"{self.path} not in {list(self.values)!r}"

    def value_failure(self, value: Any) -> str | None:
        """Type mismatch, or ``<path> = <value>`` when it is among the values."""
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

    item: Any

    def __post_init__(self) -> None:
        super().__post_init__()
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

    def describe(self) -> str:
        """``amount exists``."""
        return f"{self.path} exists"

    def value_failure(self, value: Any) -> str | None:
        """Never: presence is all it asks."""
        return None


@dataclass(frozen=True)
class NotExists(_ParamConstraint):
    """The parameter is absent."""

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
    calls one :class:`Authorizer` lets through under this capability.
    """

    method_pattern: str
    constraints: ConstraintSet
    max_calls: int | None

    def __init__(
        self,
        method_pattern: str,
        constraints: ConstraintSet | Constraint | Iterable[Constraint] | None = None,
        max_calls: int | None = None,
    ) -> None:
        """Check the pattern, collect the constraints and check the budget."""
        object.__setattr__(self, "method_pattern", validate_pattern(method_pattern))
        object.__setattr__(self, "constraints", _as_constraint_set(constraints))
        object.__setattr__(self, "max_calls", _check_max_calls(max_calls, repr(method_pattern)))

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
        return text


@dataclass(frozen=True)
class Decision:
    """The outcome of :meth:`Authorizer.authorize`.

    Attributes:
        allowed: Whether the call may go ahead.
        rule: When denied, the rule that denied it; when allowed, the allowing capability.
        capability: The capability that allowed the call, or (when denied) the first matching
            capability, or None when none matched.
        method: The tool name that was called.
    """

    allowed: bool
    rule: str
    capability: MethodCapability | None
    method: str

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


class Authorizer:
    """Decides every tool call of one sandbox, and keeps its call budgets.

    For a call, the capabilities whose pattern matches are tried in order; the first that
    allows it wins and is charged one call. If none matches the call is denied with
    ``no capability matches '<method>'``; if all matching ones deny, the first one's reason is
    reported. A budget is checked before constraints: once it is spent, fixing the arguments
    cannot help. Any error while checking denies the call (fail closed).
    """

    def __init__(self, capabilities: Iterable[MethodCapability]) -> None:
        """Keep ``capabilities`` in order, each with an unused budget."""
        self._capabilities = tuple(capabilities)
        for capability in self._capabilities:
            if not isinstance(capability, MethodCapability):
                raise TypeError(f"expected a MethodCapability, got {_show(capability)}")
        self._used = [0] * len(self._capabilities)
        # Tool calls may be authorised from several threads (the native host runs tools there).
        self._lock = threading.Lock()

    @property
    def capabilities(self) -> tuple[MethodCapability, ...]:
        """The capabilities, in the order they are tried."""
        return self._capabilities

    def authorize(self, method: str, params: Mapping[str, Any]) -> Decision:
        """Decide a call of ``method`` with ``params``; charge the budget if it is allowed."""
        with self._lock:
            decision, index = self._decide(method, params)
            if index is not None:
                self._used[index] += 1
        return decision

    def can_call(self, method: str, params: Mapping[str, Any]) -> bool:
        """Whether :meth:`authorize` would allow the call now, without charging any budget."""
        with self._lock:
            return self._decide(method, params)[0].allowed

    def remaining_calls(self) -> dict[str, int | None]:
        """Calls left per pattern (None = unlimited); repeated patterns are summed."""
        remaining: dict[str, int | None] = {}
        with self._lock:
            for capability, used in zip(self._capabilities, self._used, strict=True):
                left = None if capability.max_calls is None else capability.max_calls - used
                previous = remaining.get(capability.method_pattern, 0)
                both = None if left is None or previous is None else left + previous
                remaining[capability.method_pattern] = both
        return remaining

    def _decide(self, method: str, params: Mapping[str, Any]) -> tuple[Decision, int | None]:
        """The decision, and the index of the capability to charge (None when denied)."""
        problem = _request_problem(method, params)
        if problem is not None:
            return Decision(False, problem, None, method), None
        first_denial: Decision | None = None
        for index, capability in enumerate(self._capabilities):
            if not capability.matches(method):
                continue
            reason = self._denial_reason(index, params)
            if reason is None:
                return Decision(True, capability.describe(), capability, method), index
            first_denial = first_denial or Decision(False, reason, capability, method)
        if first_denial is None:
            return Decision(False, f"no capability matches {method!r}", None, method), None
        return first_denial, None

    def _denial_reason(self, index: int, params: Mapping[str, Any]) -> str | None:
        """Why capability ``index`` denies the call (budget first), or None if it allows it."""
        capability = self._capabilities[index]
        limit, used = capability.max_calls, self._used[index]
        if limit is not None and used >= limit:
            calls = "call" if used == 1 else "calls"
            pattern = capability.method_pattern
            return f"max_calls={limit} for {pattern!r} exhausted ({used} {calls} made)"
        try:
            return capability.check(params)
        except Exception as error:  # noqa: BLE001 - any surprise while checking must deny
            kind = type(error).__name__
            return f"{capability.constraints.describe()} failed (error while checking: {kind})"


def _request_problem(method: object, params: object) -> str | None:
    """Why a call request is malformed before any capability is consulted, or None."""
    problem = _name_problem(method)
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
