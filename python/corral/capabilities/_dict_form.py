"""The dict form: ``create_sandbox_tool(tools=..., constraints=..., max_calls=...)``."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from ._capability import MethodCapability, _check_max_calls
from ._constraints import (
    _EQUALITY_OPS,
    Comparison,
    Constraint,
    Contains,
    EndsWith,
    IsIn,
    Matches,
    StartsWith,
)
from ._patterns import validate_tool_name
from ._values import _show

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
    if not isinstance(constraints, Mapping):
        raise TypeError(
            f"constraints must map tool names to {{param: spec}}, not {_show(constraints)}"
        )
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
    if not isinstance(max_calls, Mapping):  # one budget for every tool: an int, or None
        return {name: _check_max_calls(max_calls, "every tool") for name in names}
    return {
        _check_known(names, tool, "max_calls"): _check_max_calls(limit, repr(tool))
        for tool, limit in max_calls.items()
    }
