"""Checking a parameter schema that came from elsewhere (OpenAI, Anthropic, LangChain, MCP).

A malformed schema is refused where it is read, with the path of the offending field
(``tools[2].function.parameters.type must be "object", not "array"``), instead of failing
later in a way nobody can trace back to the definition.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from ._schema import MAX_SCHEMA_DEPTH

JSON_TYPES: Final = ("string", "number", "integer", "boolean", "null", "array", "object")
_SUBSCHEMA_LISTS: Final = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS: Final = ("properties", "$defs", "definitions", "patternProperties")
_SUBSCHEMAS: Final = ("items", "additionalProperties", "not", "contains")


class SchemaError(ValueError):
    """A tool definition or JSON Schema that cannot be used, naming the offending field."""


def check_parameters(schema: object, where: str) -> dict[str, Any]:
    """``schema`` as a tool's parameter schema: a JSON Schema of type ``object``.

    Returns a deep copy, so that later changes to the caller's dict do not reach the tool.

    Raises:
        SchemaError: naming the first malformed field under ``where``.
    """
    if not isinstance(schema, Mapping):
        raise SchemaError(f"{where} must be a JSON Schema object, not {_kind(schema)}")
    if schema.get("type") != "object":
        found = "missing" if "type" not in schema else json.dumps(schema["type"])
        raise SchemaError(f'{where}.type must be "object", not {found}')
    _check(schema, where, 0)
    copied: dict[str, Any] = json.loads(json.dumps(schema))
    return copied


def _check(schema: object, where: str, depth: int) -> None:
    if isinstance(schema, bool):
        return  # true accepts anything, false nothing
    if not isinstance(schema, Mapping):
        raise SchemaError(f"{where} must be a JSON Schema (an object), not {_kind(schema)}")
    if depth > 2 * MAX_SCHEMA_DEPTH:
        raise SchemaError(f"{where} is nested too deeply")
    _check_type(schema, where)
    _check_keywords(schema, where)
    for key in _SUBSCHEMAS:
        if key in schema:
            _check(schema[key], f"{where}.{key}", depth + 1)
    for key in _SUBSCHEMA_LISTS:
        if key in schema:
            for index, item in enumerate(_list(schema[key], f"{where}.{key}")):
                _check(item, f"{where}.{key}[{index}]", depth + 1)
    for key in _SUBSCHEMA_MAPS:
        if key in schema:
            for name, item in _map(schema[key], f"{where}.{key}").items():
                _check(item, f"{where}.{key}.{_field(name)}", depth + 1)


def _check_type(schema: Mapping[str, Any], where: str) -> None:
    if "type" not in schema:
        return
    kind = schema["type"]
    names = kind if isinstance(kind, list) else [kind]
    for name in names:
        if name not in JSON_TYPES:
            raise SchemaError(
                f"{where}.type must be one of {', '.join(JSON_TYPES)} (or a list of them), "
                f"not {json.dumps(name) if isinstance(name, str) else _kind(name)}"
            )


def _check_keywords(schema: Mapping[str, Any], where: str) -> None:
    if "enum" in schema and not _list(schema["enum"], f"{where}.enum"):
        raise SchemaError(f"{where}.enum must list at least one value")
    for key in ("description", "title", "$ref", "format", "pattern"):
        if key in schema and not isinstance(schema[key], str):
            raise SchemaError(f"{where}.{key} must be a string, not {_kind(schema[key])}")
    if "required" in schema:
        properties = schema.get("properties")
        for index, name in enumerate(_list(schema["required"], f"{where}.required")):
            if not isinstance(name, str):
                raise SchemaError(f"{where}.required[{index}] must be a string, not {_kind(name)}")
            if isinstance(properties, Mapping) and name not in properties:
                raise SchemaError(
                    f"{where}.required[{index}] names {name!r}, which is not among "
                    f"{where}.properties"
                )
    try:
        json.dumps(schema)
    except (TypeError, ValueError) as error:
        raise SchemaError(f"{where} is not JSON: {error}") from None


def _list(value: object, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise SchemaError(f"{where} must be a list, not {_kind(value)}")
    return value


def _map(value: object, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise SchemaError(f"{where} must be an object, not {_kind(value)}")
    return value


def _field(name: object) -> str:
    text = str(name)
    return text if text.isidentifier() else json.dumps(text)


def _kind(value: object) -> str:
    """``a list``, ``a str``, ``null``: what a value is, for a message."""
    if value is None:
        return "null"
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"
