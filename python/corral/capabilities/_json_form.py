"""The JSON form of constraints (tokens carry it; a token may be hostile, so parse
strictly)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeVar

from ._constraints import (
    AllOf,
    AnyOf,
    Comparison,
    Constraint,
    Contains,
    EndsWith,
    Exists,
    IsIn,
    Length,
    Matches,
    NotExists,
    NotIn,
    StartsWith,
    _ParamConstraint,
)
from ._values import _got, _json_literal, _show

_T = TypeVar("_T")


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
