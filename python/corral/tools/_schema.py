"""Python type annotations to JSON Schema."""

from __future__ import annotations

import collections.abc
import contextvars
import dataclasses
import inspect
import json
import types
import typing
from collections.abc import Callable
from typing import Annotated, Any, Final, Literal, NotRequired, Required, Union

MAX_SCHEMA_DEPTH: Final = 16  # nested/recursive annotations deeper than this are refused
_SUPPORTED_TYPES: Final = (
    "str, int, float, bool, None, Any, list[X], tuple[X, ...], dict[str, X], Literal[...], "
    "X | Y, X | None, Annotated[X, 'description'] or a TypedDict"
)


def object_schema(
    properties: dict[str, Any], required: list[str], free_form: bool = False
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = free_form
    return schema


_SCALARS: Final[dict[object, str]] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
    None: "null",
}
_ANY: Final[tuple[object, ...]] = (Any, object, inspect.Parameter.empty)
_ARRAYS: Final[tuple[object, ...]] = (list, collections.abc.Sequence, tuple)
_OBJECTS: Final[tuple[object, ...]] = (dict, collections.abc.Mapping)


def unwrap_annotated(annotation: Any) -> tuple[Any, str]:
    """``Annotated[X, "text", ...]`` → ``(X, "text")``; anything else → ``(annotation, "")``."""
    if typing.get_origin(annotation) is not Annotated:
        return annotation, ""
    inner, *extras = typing.get_args(annotation)
    return inner, next((extra for extra in extras if isinstance(extra, str)), "")


def strip_optional(annotation: Any) -> tuple[bool, Any]:
    """``X | None`` → ``(True, X)``; anything else → ``(False, annotation)``."""
    if not _is_union(annotation):
        return False, annotation
    rest = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    if len(rest) == len(typing.get_args(annotation)):
        return False, annotation
    return True, rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (Union, types.UnionType)


def annotation_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    """The JSON Schema of a type annotation; ``where`` names it in errors."""
    if depth > MAX_SCHEMA_DEPTH:
        raise ValueError(f"{where}: the type is nested too deeply (recursive?)")
    annotation, _ = unwrap_annotated(annotation)
    origin = typing.get_origin(annotation) or annotation
    for test, build in _BUILDERS:
        if test(annotation, origin):
            return build(annotation, where, depth + 1)
    raise ValueError(f"{where}: unsupported annotation {annotation!r}; use {_SUPPORTED_TYPES}")


def _any_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    return {}


def _scalar_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    return {"type": _SCALARS[annotation]}


def _literal_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    values = list(typing.get_args(annotation))
    types_ = {_SCALARS.get(type(value)) for value in values}
    if None in types_:
        raise ValueError(f"{where}: Literal values must be str, int, float, bool or None")
    schema: dict[str, Any] = {"enum": values}
    if len(types_) == 1:
        schema["type"] = types_.pop()
    return schema


def _union_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    return {"anyOf": [annotation_schema(arg, where, depth) for arg in typing.get_args(annotation)]}


def _array_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        return _fixed_tuple_schema(args, where, depth)
    schema: dict[str, Any] = {"type": "array"}
    if args and args[0] not in _ANY:
        schema["items"] = annotation_schema(args[0], where, depth)
    return schema


def _fixed_tuple_schema(args: tuple[Any, ...], where: str, depth: int) -> dict[str, Any]:
    items = [annotation_schema(arg, where, depth) for arg in args]
    return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}


def _dict_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    args = typing.get_args(annotation)
    schema: dict[str, Any] = {"type": "object"}
    if not args:
        return schema
    if args[0] is not str:
        raise ValueError(f"{where}: object keys must be str in JSON, not {args[0]!r}")
    if args[1] not in _ANY:
        schema["additionalProperties"] = annotation_schema(args[1], where, depth)
    return schema


def _typeddict_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    hints = typing.get_type_hints(annotation, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for key, hint in hints.items():
        marker, inner = _required_marker(hint)
        properties[key] = annotation_schema(inner, f"{where}, key {key!r}", depth)
        if marker is Required or (marker is None and key in annotation.__required_keys__):
            required.append(key)
    return object_schema(properties, required)


def _required_marker(hint: Any) -> tuple[Any, Any]:
    """``(Required | NotRequired | None, inner type)`` of a TypedDict key's hint."""
    # Under ``from __future__ import annotations``, Python 3.11 cannot see these markers when
    # it builds ``__required_keys__``, so they are read from the resolved hints instead.
    origin = typing.get_origin(hint)
    if origin in (Required, NotRequired):
        return origin, typing.get_args(hint)[0]
    return None, hint


def return_schema(annotation: Any) -> dict[str, Any] | None:
    """The JSON Schema of a return annotation, or None when there is none or it has no JSON
    form. Dataclasses and pydantic models are understood here too (a result is sent to the
    guest as their JSON), unlike in parameters (a function expects the object, not a dict)."""
    if annotation is inspect.Signature.empty:
        return None
    token = _RESULTS.set(True)
    try:
        return annotation_schema(annotation, "return", 0)
    except (ValueError, TypeError, NameError):
        return None
    finally:
        _RESULTS.reset(token)


# Set while a return annotation is read: then dataclasses and pydantic models have a schema.
_RESULTS: Final[contextvars.ContextVar[bool]] = contextvars.ContextVar("results", default=False)


def _is_result_dataclass(annotation: Any) -> bool:
    return _RESULTS.get() and dataclasses.is_dataclass(annotation) and isinstance(annotation, type)


def _dataclass_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    hints = typing.get_type_hints(annotation, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for item in dataclasses.fields(annotation):
        properties[item.name] = annotation_schema(hints[item.name], where, depth)
        no_default = item.default is dataclasses.MISSING
        if no_default and item.default_factory is dataclasses.MISSING:
            required.append(item.name)
    return object_schema(properties, required)


def _is_result_model(annotation: Any) -> bool:
    return (
        _RESULTS.get()
        and isinstance(annotation, type)
        and callable(getattr(annotation, "model_json_schema", None))
    )


def _model_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    """A pydantic model's own JSON Schema, with each ``$ref`` to its ``$defs`` inlined."""
    schema = dict(annotation.model_json_schema())
    defs = schema.pop("$defs", {})
    inlined: dict[str, Any] = _inline(schema, defs, depth)
    return inlined


def _inline(schema: Any, defs: dict[str, Any], depth: int) -> Any:
    if depth > MAX_SCHEMA_DEPTH:
        return {}  # a recursive model: any value
    if isinstance(schema, list):
        return [_inline(item, defs, depth + 1) for item in schema]
    if not isinstance(schema, dict):
        return schema
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _inline(defs.get(ref.removeprefix("#/$defs/"), {}), defs, depth + 1)
    return {
        k: _inline(v, defs, depth + 1) for k, v in schema.items() if k not in ("$defs", "title")
    }


_Builder = Callable[[Any, str, int], dict[str, Any]]
_BUILDERS: Final[list[tuple[Callable[[Any, Any], bool], _Builder]]] = [
    (lambda ann, origin: ann in _ANY, _any_schema),
    (lambda ann, origin: ann in _SCALARS, _scalar_schema),
    (lambda ann, origin: origin is Literal, _literal_schema),
    (lambda ann, origin: _is_union(ann), _union_schema),
    (lambda ann, origin: origin in _ARRAYS, _array_schema),
    (lambda ann, origin: origin in _OBJECTS, _dict_schema),
    (lambda ann, origin: typing.is_typeddict(ann), _typeddict_schema),
    (lambda ann, origin: _is_result_dataclass(ann), _dataclass_schema),
    (lambda ann, origin: _is_result_model(ann), _model_schema),
]


def is_json(value: object, depth: int) -> bool:
    """Whether a default can be shown in the schema as JSON."""
    if depth > MAX_SCHEMA_DEPTH:
        return False
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(is_json(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and is_json(v, depth + 1) for k, v in value.items())
    return False


def json_copy(value: Any) -> Any:
    """A copy of a JSON-able default, with tuples as lists (so a mutable default is not shared)."""
    return json.loads(json.dumps(value))
