"""Checking a call's arguments against a tool's parameter schema, with messages for the model."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from ._definition import ToolDefinition
from ._schema import MAX_SCHEMA_DEPTH

_MAX_SHOWN: Final = 60  # longest rendering of an argument inside a message


class ToolArgumentError(ValueError):
    """Arguments that do not fit a tool's parameter schema.

    Attributes:
        tool: The canonical name of the tool.
        problem: What is wrong, without the tool name.

    The message (``<tool>: <problem>``) is written for the model that made the call.
    """

    def __init__(self, tool: str, problem: str) -> None:
        """Build the error for ``tool``."""
        super().__init__(f"{tool}: {problem}")
        self.tool = tool
        self.problem = problem

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.tool, self.problem))


def validate_arguments(tool: ToolDefinition, args: object, *, caller: str = "js") -> None:
    """Check ``args`` against the tool's parameter schema (a practical subset of JSON Schema).

    Checked: unknown parameters (when ``additionalProperties`` is false), missing required
    parameters, ``type``, ``enum``, ``anyOf``, array ``items``/``prefixItems``, and nested
    objects. A None value is accepted for a parameter whose schema default is None.
    ``caller`` (``"js"`` or ``"shell"``) picks the syntax of the call-form hint for missing
    parameters: ``pay({amount: ...})`` or ``tool pay --amount ...``.

    Raises:
        ToolArgumentError: with a message the model can act on.
    """
    if not isinstance(args, Mapping) or not all(isinstance(key, str) for key in args):
        raise ToolArgumentError(tool.name, f"arguments must be an object, got {_what(args)}")
    problem = _top_level_problem(tool, args, caller)
    if problem is not None:
        raise ToolArgumentError(tool.name, problem)


_PLAIN_TYPES: Final[dict[str, frozenset[type]]] = {
    "string": frozenset({str}),
    "integer": frozenset({int}),
    "number": frozenset({int, float}),
    "boolean": frozenset({bool}),
    "null": frozenset({type(None)}),
}
_PLAIN_KEYS: Final = frozenset({"type", "description", "title", "default"})


def quick_check(tool: ToolDefinition) -> Callable[[object], bool]:
    """A test, compiled once per tool, that accepts only arguments that
    :func:`validate_arguments` accepts, and most of them quickly: a dict of decoded JSON
    (exact ``str``, ``int``, ``float``, ``bool``, None) holding every required parameter, each
    value of a parameter whose schema is a plain scalar ``type`` (with a description, title
    or default) and of that type, or None where the default is None. Anything else (an
    unknown key, a list, an enum...) gets False, and :func:`validate_arguments` decides."""
    schema = tool.parameters
    plain: dict[str, tuple[frozenset[type], bool]] = {}
    for key, prop in schema.get("properties", {}).items():
        kind = prop.get("type") if isinstance(prop, Mapping) else None
        if isinstance(kind, str) and kind in _PLAIN_TYPES and _PLAIN_KEYS.issuperset(prop):
            plain[key] = (_PLAIN_TYPES[kind], "default" in prop and prop["default"] is None)
    required = tuple(schema.get("required", ()))

    def check(args: object) -> bool:
        if type(args) is not dict or not all(key in args for key in required):
            return False
        for key, value in args.items():
            rule = plain.get(key)
            if rule is None or (type(value) not in rule[0] and (value is not None or not rule[1])):
                return False
        return True

    return check


def _top_level_problem(tool: ToolDefinition, args: Mapping[str, Any], caller: str) -> str | None:
    schema = tool.parameters
    properties: Mapping[str, Any] = schema.get("properties", {})
    unknown = _unknown_key_problem(schema, args, "parameter")
    if unknown is not None:
        return unknown
    missing = [key for key in schema.get("required", []) if key not in args]
    if missing:
        return _missing_problem(tool, missing, caller)
    for key, value in args.items():
        prop = properties.get(key, {})
        if value is None and "default" in prop and prop["default"] is None:
            continue
        problem = _value_problem(prop, value, key, 0)
        if problem is not None:
            return problem
    return None


def _unknown_key_problem(
    schema: Mapping[str, Any], obj: Mapping[str, Any], noun: str
) -> str | None:
    if schema.get("additionalProperties", True) is not False:
        return None
    known = list(schema.get("properties", {}))
    for key in obj:
        if key not in known:
            return f"unknown {noun} {key!r}{_did_you_mean(key, known)} ({_known_list(noun, known)})"
    return None


def _did_you_mean(key: str, known: list[str]) -> str:
    import difflib  # only for a misspelled name: importing it costs a fresh process ~1 ms

    close = difflib.get_close_matches(key, known, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _known_list(noun: str, known: list[str]) -> str:
    return f"{noun}s: {', '.join(known)}" if known else f"it takes no {noun}s"


def _missing_problem(tool: ToolDefinition, missing: list[str], caller: str) -> str:
    names = ", ".join(repr(key) for key in missing)
    noun = "parameter" if len(missing) == 1 else "parameters"
    required = tool.parameters.get("required", [])
    if caller == "shell":
        flags = "".join(f" --{key} ..." for key in required)
        return f"missing required {noun} {names} (call as tool {tool.name}{flags})"
    example = ", ".join(f"{_js_key(key)}: ..." for key in required)
    return f"missing required {noun} {names} (call as {tool.js_name}({{{example}}}))"


def _js_key(key: str) -> str:
    """A key as written in a JS object literal: bare if it is an identifier, else quoted."""
    return key if key.isidentifier() and key.isascii() else json.dumps(key)


_JSON_TYPE_TESTS: Final[dict[str, Callable[[object], bool]]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, (list, tuple)),
    "object": lambda v: isinstance(v, Mapping),
}


def _value_problem(schema: Mapping[str, Any], value: object, where: str, depth: int) -> str | None:
    """What is wrong with ``value`` under ``schema`` (``where`` is its path), or None."""
    if depth > MAX_SCHEMA_DEPTH:
        return f"parameter {where!r} is nested too deeply"
    composite = isinstance(value, (list, tuple, Mapping))
    for check in _COMPOSITE_CHECKS if composite else _SCALAR_CHECKS:
        problem = check(schema, value, where, depth)
        if problem is not None:
            return problem
    return None


def _type_problem(schema: Mapping[str, Any], value: object, where: str, depth: int) -> str | None:
    expected = schema.get("type")
    if expected is None:
        return None
    names = [expected] if isinstance(expected, str) else list(expected)
    if any(name in _JSON_TYPE_TESTS and _JSON_TYPE_TESTS[name](value) for name in names):
        return None
    wanted = " or ".join(_with_article(name) for name in names)
    return f"parameter {where!r} must be {wanted}, got {_what(value)}"


def _enum_problem(schema: Mapping[str, Any], value: object, where: str, depth: int) -> str | None:
    if "enum" not in schema or any(_same_json(value, item) for item in schema["enum"]):
        return None
    options = ", ".join(_render(item) for item in schema["enum"])
    return f"parameter {where!r} must be one of {options}, got {_render(value)}"


def _any_of_problem(schema: Mapping[str, Any], value: object, where: str, depth: int) -> str | None:
    options = schema.get("anyOf")
    if not options or any(_value_problem(o, value, where, depth + 1) is None for o in options):
        return None
    kinds = [option.get("type") for option in options]
    if all(isinstance(kind, str) for kind in kinds):
        wanted = " or ".join(_with_article(kind) for kind in kinds)
        return f"parameter {where!r} must be {wanted}, got {_what(value)}"
    return f"parameter {where!r} matches none of its allowed forms, got {_what(value)}"


def _array_problem(schema: Mapping[str, Any], value: object, where: str, depth: int) -> str | None:
    if not isinstance(value, (list, tuple)):
        return None
    prefix = schema.get("prefixItems")
    if prefix is not None and len(value) != len(prefix):
        return f"parameter {where!r} must have {len(prefix)} items, got {len(value)}"
    for index, item in enumerate(value):
        item_schema = prefix[index] if prefix is not None else schema.get("items", {})
        problem = _value_problem(item_schema, item, f"{where}/{index}", depth + 1)
        if problem is not None:
            return problem
    return None


def _object_problem(schema: Mapping[str, Any], value: object, where: str, depth: int) -> str | None:
    if not isinstance(value, Mapping):
        return None
    unknown = _unknown_key_problem(schema, value, "key")
    if unknown is not None:
        return f"parameter {where!r} has an {unknown}"
    missing = [key for key in schema.get("required", []) if key not in value]
    if missing:
        return f"parameter {where!r} is missing required key {missing[0]!r}"
    return _object_values_problem(schema, value, where, depth)


def _object_values_problem(
    schema: Mapping[str, Any], value: Mapping[str, Any], where: str, depth: int
) -> str | None:
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", {})
    for key, item in value.items():
        item_schema = properties.get(key, extra if isinstance(extra, Mapping) else {})
        problem = _value_problem(item_schema, item, f"{where}/{key}", depth + 1)
        if problem is not None:
            return problem
    return None


# The checks that can fail for each kind of value (array and object checks pass scalars).
_SCALAR_CHECKS: Final = (_type_problem, _enum_problem, _any_of_problem)
_COMPOSITE_CHECKS: Final = (*_SCALAR_CHECKS, _array_problem, _object_problem)


def _same_json(left: object, right: object) -> bool:
    """JSON equality for enum checks: a bool never equals a number."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    return left == right


def _json_type(value: object) -> str:
    return next((name for name, test in _JSON_TYPE_TESTS.items() if test(value)), "")


def _with_article(name: str) -> str:
    if name == "null":
        return "null"
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _what(value: object) -> str:
    """``a string ("3")``: a value's JSON type and a short rendering."""
    kind = _json_type(value)
    if kind == "null":
        return "null"
    if not kind:
        return f"a {type(value).__name__}"
    return f"{_with_article(kind)} ({_render(value)})"


def _render(value: object) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."
