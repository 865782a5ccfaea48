"""Constraints: rules about a call's parameters (``Param("amount") <= 1000``), combined
with ``&`` and ``|``."""

from __future__ import annotations

import math
import operator
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

from ._values import (
    _MISSING,
    _check_json_value,
    _json_literal,
    _kind,
    _mismatch,
    _non_finite_failure,
    _plain,
    _resolve,
    _same,
    _show,
    _split_path,
)


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
        from ._subsets import _implies, _Work  # the proofs need the constraint classes

        return _implies(self, other, _Work())

    def __and__(self, other: Constraint) -> AllOf:
        """Both constraints must hold."""
        return AllOf(_flatten(AllOf, (self, other)))

    def __or__(self, other: Constraint) -> AnyOf:
        """At least one of the constraints must hold."""
        return AnyOf(_flatten(AnyOf, (self, other)))

    # Builders by name (amla-sandbox's spelling), made by the Param DSL: Constraint.le("x", 5)
    # is Param("x") <= 5.

    @staticmethod
    def eq(path: str, value: Any) -> Comparison:
        """``Param(path) == value``."""
        return Param(path).__eq__(value)  # typed, unlike the operator

    @staticmethod
    def ne(path: str, value: Any) -> Comparison:
        """``Param(path) != value``."""
        return Param(path).__ne__(value)  # typed, unlike the operator

    @staticmethod
    def lt(path: str, value: Any) -> Comparison:
        """``Param(path) < value``."""
        return Param(path).__lt__(value)  # typed, unlike the operator

    @staticmethod
    def le(path: str, value: Any) -> Comparison:
        """``Param(path) <= value``."""
        return Param(path).__le__(value)  # typed, unlike the operator

    @staticmethod
    def gt(path: str, value: Any) -> Comparison:
        """``Param(path) > value``."""
        return Param(path).__gt__(value)  # typed, unlike the operator

    @staticmethod
    def ge(path: str, value: Any) -> Comparison:
        """``Param(path) >= value``."""
        return Param(path).__ge__(value)  # typed, unlike the operator

    @staticmethod
    def is_in(path: str, values: Iterable[Any]) -> IsIn:
        """``Param(path).is_in(values)``."""
        return Param(path).is_in(values)

    @staticmethod
    def not_in(path: str, values: Iterable[Any]) -> NotIn:
        """``Param(path).not_in(values)``."""
        return Param(path).not_in(values)

    @staticmethod
    def starts_with(path: str, prefix: str) -> StartsWith:
        """``Param(path).starts_with(prefix)``."""
        return Param(path).starts_with(prefix)

    @staticmethod
    def ends_with(path: str, suffix: str) -> EndsWith:
        """``Param(path).ends_with(suffix)``."""
        return Param(path).ends_with(suffix)

    @staticmethod
    def contains(path: str, item: Any) -> Contains:
        """``Param(path).contains(item)``."""
        return Param(path).contains(item)

    @staticmethod
    def exists(path: str) -> Exists:
        """``Param(path).exists()``."""
        return Param(path).exists()

    @staticmethod
    def not_exists(path: str) -> NotExists:
        """``Param(path).not_exists()``."""
        return Param(path).not_exists()

    @staticmethod
    def and_(constraints: Iterable[Constraint]) -> AllOf:
        """All of ``constraints`` (``a & b & ...``)."""
        return AllOf(_flatten(AllOf, constraints))

    @staticmethod
    def or_(constraints: Iterable[Constraint]) -> AnyOf:
        """Any of ``constraints`` (``a | b | ...``)."""
        return AnyOf(_flatten(AnyOf, constraints))

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


def _field_to_json(value: Any, kind: str) -> Any:
    """One field of a constraint's JSON form."""
    if kind == "json":
        return _json_literal(value)
    if kind == "values":
        return [_json_literal(item) for item in value]
    return value
