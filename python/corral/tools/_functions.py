"""Tool definitions from Python functions."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Final

from corral.capabilities import validate_tool_name

from ._definition import ToolDefinition, tree_copy
from ._schema import (
    annotation_schema,
    is_json,
    json_copy,
    object_schema,
    return_schema,
    strip_optional,
    unwrap_annotated,
)


def tool_from_function(
    func: Callable[..., Any], name: str | None = None, description: str | None = None
) -> ToolDefinition:
    """Build a :class:`ToolDefinition` from a function's signature, type hints and docstring.

    The name defaults to ``func.__name__``; the description to the docstring's first paragraph.
    Parameter descriptions come from a Google (``Args:``), NumPy (``Parameters``) or reST
    (``:param x:``) docstring, or from ``Annotated[X, "description"]``. A parameter with a
    default, or annotated ``X | None``, is not required. With ``**kwargs`` the object is
    free-form: keys beyond the declared parameters are passed through to it.

    A plain function's definition is remembered for as long as the function lives, and made
    again when anything it was made from changes (its code, docstring, defaults, annotations
    and the globals they name); each call returns a definition of its own, whose schemas may
    be changed without touching the others.

    Raises:
        ValueError: for ``*args``, positional-only parameters, an unsupported
            annotation, an unresolvable forward reference, or an invalid name.
    """
    made_from = _made_from(func, name, description)
    known = _MADE.get(func) if made_from is not None else None
    if known is not None and known[0] == made_from:
        tool = known[1]
    else:
        tool = _tool_from_function(func, name, description)
        if made_from is not None:  # without the function: the entry must not keep it alive
            _MADE[func] = (made_from, dataclasses.replace(tool, func=None))
    return dataclasses.replace(
        tool,
        parameters=tree_copy(tool.parameters),
        returns=tree_copy(tool.returns),
        func=func,
    )


# Each plain function's definition, with what it was made from (~100 us a function to make:
# every Sandbox(tools=[...]) asks again).
_MADE: weakref.WeakKeyDictionary[Callable[..., Any], tuple[tuple[Any, ...], ToolDefinition]] = (
    weakref.WeakKeyDictionary()
)


def _made_from(
    func: Callable[..., Any], name: str | None, description: str | None
) -> tuple[Any, ...] | None:
    """Everything :func:`tool_from_function` reads from a plain function, compared (by ``==``,
    so by identity for the objects an annotation names) with what a remembered definition
    was made from; None for a function that is not remembered: not a plain function, one
    with attributes (``__wrapped__`` and ``__signature__`` change its signature) or with a
    list or dict default (changed in place, it would change the schema unseen)."""
    if type(func) is not types.FunctionType or func.__dict__:
        return None
    defaults = (*(func.__defaults__ or ()), *(func.__kwdefaults__ or {}).values())
    if any(isinstance(value, list | dict) for value in defaults):
        return None
    annotations = tuple(func.__annotations__.items())
    names: list[str] = []
    for _, annotation in annotations:
        if isinstance(annotation, str):
            found = _names_in(annotation)
            if found is None:
                return None
            names.extend(found)
    # A string annotation (``from __future__ import annotations``) is resolved in the module's
    # globals: the objects its names stand for now are part of what the schema is made from.
    named = tuple(func.__globals__.get(n, _MISSING) for n in names)
    kinds = tuple(map(type, defaults))  # == does not tell 1 from True or 1.0, the schema does
    code = func.__code__
    return (
        name,
        description,
        code,
        func.__name__,
        func.__doc__,
        defaults,
        kinds,
        annotations,
        named,
    )


_MISSING = object()  # what no global is


@functools.lru_cache(maxsize=1024)
def _names_in(annotation: str) -> tuple[str, ...] | None:
    """The names a string annotation uses, or None if it is not an expression."""
    try:
        return compile(annotation, "<annotation>", "eval").co_names
    except (SyntaxError, ValueError):
        return None


def _tool_from_function(
    func: Callable[..., Any], name: str | None, description: str | None
) -> ToolDefinition:
    # Here, not at the top: a process without tools from functions is spared textwrap and the
    # docstring patterns (~1.5 ms of a fresh process's first sandbox).
    from ._docstrings import docstring, first_paragraph, param_docs

    tool_name = _tool_name(func, name)
    signature = _signature(func, tool_name)
    doc = docstring(func)
    docs = param_docs(doc)
    properties: dict[str, Any] = {}
    required: list[str] = []
    free_form = False
    for param in signature.parameters.values():
        if param.kind is inspect.Parameter.VAR_KEYWORD:
            free_form = True  # **kwargs: keys beyond the declared ones are passed through
            continue
        properties[param.name], is_required = _param_schema(param, docs, tool_name)
        if is_required:
            required.append(param.name)
    return ToolDefinition(
        name=tool_name,
        description=first_paragraph(doc) if description is None else description,
        parameters=object_schema(properties, required, free_form),
        func=func,
        is_async=is_async(func),
        returns=return_schema(signature.return_annotation),
    )


def _tool_name(func: Callable[..., Any], name: str | None) -> str:
    chosen = name if name is not None else getattr(func, "__name__", None)
    if chosen is None:
        raise ValueError(f"{func!r} has no __name__; pass name=... to tool_from_function")
    try:
        return validate_tool_name(chosen)
    except ValueError as error:
        raise ValueError(f"{error}; pass name=... to tool_from_function") from None


def _signature(func: Callable[..., Any], tool: str) -> inspect.Signature:
    try:
        return inspect.signature(func, eval_str=True)
    except (NameError, SyntaxError) as error:
        raise ValueError(f"tool {tool!r}: cannot resolve its type hints ({error})") from None


def is_async(func: Callable[..., Any]) -> bool:
    # A callable object with an ``async def __call__`` is async too.
    call = getattr(func, "__call__", None)  # noqa: B004 - we want the attribute, not callable()
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(call)


_REJECTED_KINDS: Final = {
    inspect.Parameter.VAR_POSITIONAL: "*{} is not supported; declare each parameter explicitly",
    inspect.Parameter.POSITIONAL_ONLY: (
        "positional-only parameter {!r} is not supported; tools are called with keyword arguments"
    ),
}


def _param_schema(
    param: inspect.Parameter, docs: Mapping[str, str], tool: str
) -> tuple[dict[str, Any], bool]:
    """The schema of one parameter, and whether it is required."""
    if param.kind in _REJECTED_KINDS:
        raise ValueError(f"tool {tool!r}: " + _REJECTED_KINDS[param.kind].format(param.name))
    annotation, note = unwrap_annotated(param.annotation)
    optional, annotation = strip_optional(annotation)
    schema = annotation_schema(annotation, f"tool {tool!r}, parameter {param.name!r}", 0)
    description = note or docs.get(param.name, "")
    if description:
        schema["description"] = description
    has_default = param.default is not inspect.Parameter.empty
    if has_default and is_json(param.default, 0):
        schema["default"] = json_copy(param.default)
    elif optional and not has_default:
        schema["default"] = None  # call_tool passes None for it when it is left out
    return schema, not (has_default or optional)
