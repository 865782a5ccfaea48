"""Tool definitions from Python functions, and the names the guest calls them by.

A tool has a canonical name (``stripe/charges/create``, ``get_weather``), a description, and a
JSON Schema for its parameters, built from the function's signature and docstring::

    >>> def get_weather(city: str, days: int = 1) -> str:
    ...     '''Forecast for a city.
    ...
    ...     Args:
    ...         city: City name, e.g. "Paris".
    ...         days: How many days ahead.
    ...     '''
    ...     return f"{city}: sunny for {days} day(s)"
    >>> tool = tool_from_function(get_weather)
    >>> tool.parameters["required"]
    ['city']
    >>> call_tool(tool, {"city": "Paris"})
    'Paris: sunny for 1 day(s)'

In JavaScript a tool is reachable as a flat function (:func:`js_name`, ``stripe_charges_create``)
and through namespaces (:func:`js_namespace_path`, ``stripe.charges.create``).
"""

from __future__ import annotations

import collections.abc
import copy
import difflib
import functools
import inspect
import json
import re
import textwrap
import types
import typing
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, NotRequired, Required, Union

from corral.capabilities import validate_tool_name

__all__ = [
    "ToolArgumentError",
    "ToolDefinition",
    "acall_tool",
    "call_tool",
    "js_name",
    "js_namespace_path",
    "tool_from_function",
    "tools_from",
    "validate_arguments",
]

_MAX_SCHEMA_DEPTH: Final = 16  # nested/recursive annotations deeper than this are refused
_MAX_SHOWN: Final = 60  # longest rendering of an argument inside a message
_SUPPORTED_TYPES: Final = (
    "str, int, float, bool, None, Any, list[X], tuple[X, ...], dict[str, X], Literal[...], "
    "X | Y, X | None, Annotated[X, 'description'] or a TypedDict"
)


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


# --------------------------------------------------------------------------------------------
# Names


def js_name(name: str) -> str:
    """The flat JavaScript function name of a tool: each of ``. / - :`` becomes ``_``.

    >>> js_name("stripe/charges/create"), js_name("mcp:fs.read")
    ('stripe_charges_create', 'mcp_fs_read')
    """
    return re.sub(r"[./:-]", "_", name)


def js_namespace_path(name: str) -> list[str]:
    """The namespace path of a tool in JavaScript: its name split on ``/``, ``.`` and ``:``,
    with ``-`` turned into ``_`` (the guest mounts the tool there too).

    >>> js_namespace_path("stripe/charges/create")
    ['stripe', 'charges', 'create']
    >>> js_namespace_path("mcp:fs.read-file")
    ['mcp', 'fs', 'read_file']
    """
    return [part.replace("-", "_") for part in re.split(r"[/.:]", name) if part]


# --------------------------------------------------------------------------------------------
# Definitions


@dataclass(frozen=True)
class ToolDefinition:
    """A tool the guest can call.

    Attributes:
        name: The canonical name, e.g. ``stripe/charges/create`` or ``get_weather``.
        description: What the tool does, for the model.
        parameters: A JSON Schema of type ``object`` for the arguments.
        func: The Python callable behind the tool, if any (the host may dispatch otherwise).
        is_async: Whether ``func`` must be awaited (use :func:`acall_tool`).
    """

    name: str
    description: str
    parameters: dict[str, Any]
    func: Callable[..., Any] | None = None
    is_async: bool = False

    def __post_init__(self) -> None:
        validate_tool_name(self.name)
        if not isinstance(self.parameters, dict) or self.parameters.get("type") != "object":
            raise ValueError(f"tool {self.name!r}: parameters must be a JSON Schema of type object")

    @property
    def js_name(self) -> str:
        """The flat JavaScript name (see :func:`js_name`)."""
        return js_name(self.name)

    def to_json(self) -> dict[str, Any]:
        """``{name, description, parameters}``: what the guest's ``listTools()`` shows."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": copy.deepcopy(self.parameters),
        }


def tool_from_function(
    func: Callable[..., Any], name: str | None = None, description: str | None = None
) -> ToolDefinition:
    """Build a :class:`ToolDefinition` from a function's signature, type hints and docstring.

    The name defaults to ``func.__name__``; the description to the docstring's first paragraph.
    Parameter descriptions come from a Google (``Args:``), NumPy (``Parameters``) or reST
    (``:param x:``) docstring, or from ``Annotated[X, "description"]``. A parameter with a
    default, or annotated ``X | None``, is not required. With ``**kwargs`` the object is
    free-form: keys beyond the declared parameters are passed through to it.

    Raises:
        ValueError: for ``*args``, positional-only parameters, an unsupported
            annotation, an unresolvable forward reference, or an invalid name.
    """
    tool_name = _tool_name(func, name)
    signature = _signature(func, tool_name)
    doc = _docstring(func)
    docs = _param_docs(doc)
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
        description=_first_paragraph(doc) if description is None else description,
        parameters=_object_schema(properties, required, free_form),
        func=func,
        is_async=_is_async(func),
    )


def tools_from(objects: Iterable[Callable[..., Any] | ToolDefinition]) -> list[ToolDefinition]:
    """Tool definitions for functions and ready definitions, in order.

    Raises:
        ValueError: if two tools share a canonical name or a JavaScript name.
        TypeError: for an object that is neither callable nor a :class:`ToolDefinition`.
    """
    tools = [_as_definition(obj) for obj in objects]
    seen: dict[str, str] = {}  # JS name -> canonical name; equal names have equal JS names
    for tool in tools:
        if tool.js_name in seen:
            raise ValueError(_duplicate_message(seen[tool.js_name], tool))
        seen[tool.js_name] = tool.name
    return tools


def _duplicate_message(other: str, tool: ToolDefinition) -> str:
    if other == tool.name:
        return f"duplicate tool name {tool.name!r}"
    return (
        f"tools {other!r} and {tool.name!r} both map to the JavaScript name "
        f"{tool.js_name!r}; rename one of them"
    )


def _as_definition(obj: object) -> ToolDefinition:
    if isinstance(obj, ToolDefinition):
        return obj
    if callable(obj):
        return tool_from_function(obj)
    raise TypeError(f"expected a function or a ToolDefinition, got {type(obj).__name__}")


def _docstring(func: Callable[..., Any]) -> str:
    """The function's docstring, dedented; a partial's comes from the wrapped function."""
    target = func.func if isinstance(func, functools.partial) else func
    raw = getattr(target, "__doc__", None)
    if not isinstance(raw, str):
        return ""
    first, _, rest = raw.partition("\n")
    if first.strip() and any(line.strip() and not line[0].isspace() for line in rest.split("\n")):
        # Python 3.13+ strips the indentation of every line but the first when it compiles a
        # docstring; give it back, so that both read the same as on older versions.
        raw = first + "\n" + textwrap.indent(rest, "    ")
    # The leading newline makes cleandoc dedent the first line like the others, so a docstring
    # that opens with a header ("Args:") keeps its entries indented under it.
    return inspect.cleandoc("\n" + raw)


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


def _is_async(func: Callable[..., Any]) -> bool:
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
    annotation, note = _unwrap_annotated(param.annotation)
    optional, annotation = _strip_optional(annotation)
    schema = _schema(annotation, f"tool {tool!r}, parameter {param.name!r}", 0)
    description = note or docs.get(param.name, "")
    if description:
        schema["description"] = description
    has_default = param.default is not inspect.Parameter.empty
    if has_default and _is_json(param.default, 0):
        schema["default"] = _json_copy(param.default)
    elif optional and not has_default:
        schema["default"] = None  # call_tool passes None for it when it is left out
    return schema, not (has_default or optional)


def _object_schema(
    properties: dict[str, Any], required: list[str], free_form: bool = False
) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    schema["additionalProperties"] = free_form
    return schema


# --------------------------------------------------------------------------------------------
# Annotations to JSON Schema

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


def _unwrap_annotated(annotation: Any) -> tuple[Any, str]:
    """``Annotated[X, "text", ...]`` → ``(X, "text")``; anything else → ``(annotation, "")``."""
    if typing.get_origin(annotation) is not Annotated:
        return annotation, ""
    inner, *extras = typing.get_args(annotation)
    return inner, next((extra for extra in extras if isinstance(extra, str)), "")


def _strip_optional(annotation: Any) -> tuple[bool, Any]:
    """``X | None`` → ``(True, X)``; anything else → ``(False, annotation)``."""
    if not _is_union(annotation):
        return False, annotation
    rest = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
    if len(rest) == len(typing.get_args(annotation)):
        return False, annotation
    return True, rest[0] if len(rest) == 1 else Union[tuple(rest)]  # noqa: UP007


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (Union, types.UnionType)


def _schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    """The JSON Schema of a type annotation; ``where`` names it in errors."""
    if depth > _MAX_SCHEMA_DEPTH:
        raise ValueError(f"{where}: the type is nested too deeply (recursive?)")
    annotation, _ = _unwrap_annotated(annotation)
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
    return {"anyOf": [_schema(arg, where, depth) for arg in typing.get_args(annotation)]}


def _array_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        return _fixed_tuple_schema(args, where, depth)
    schema: dict[str, Any] = {"type": "array"}
    if args and args[0] not in _ANY:
        schema["items"] = _schema(args[0], where, depth)
    return schema


def _fixed_tuple_schema(args: tuple[Any, ...], where: str, depth: int) -> dict[str, Any]:
    items = [_schema(arg, where, depth) for arg in args]
    return {"type": "array", "prefixItems": items, "minItems": len(items), "maxItems": len(items)}


def _dict_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    args = typing.get_args(annotation)
    schema: dict[str, Any] = {"type": "object"}
    if not args:
        return schema
    if args[0] is not str:
        raise ValueError(f"{where}: object keys must be str in JSON, not {args[0]!r}")
    if args[1] not in _ANY:
        schema["additionalProperties"] = _schema(args[1], where, depth)
    return schema


def _typeddict_schema(annotation: Any, where: str, depth: int) -> dict[str, Any]:
    hints = typing.get_type_hints(annotation, include_extras=True)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for key, hint in hints.items():
        marker, inner = _required_marker(hint)
        properties[key] = _schema(inner, f"{where}, key {key!r}", depth)
        if marker is Required or (marker is None and key in annotation.__required_keys__):
            required.append(key)
    return _object_schema(properties, required)


def _required_marker(hint: Any) -> tuple[Any, Any]:
    """``(Required | NotRequired | None, inner type)`` of a TypedDict key's hint."""
    # Under ``from __future__ import annotations``, Python 3.11 cannot see these markers when
    # it builds ``__required_keys__``, so they are read from the resolved hints instead.
    origin = typing.get_origin(hint)
    if origin in (Required, NotRequired):
        return origin, typing.get_args(hint)[0]
    return None, hint


_Builder = Callable[[Any, str, int], dict[str, Any]]
_BUILDERS: Final[list[tuple[Callable[[Any, Any], bool], _Builder]]] = [
    (lambda ann, origin: ann in _ANY, _any_schema),
    (lambda ann, origin: ann in _SCALARS, _scalar_schema),
    (lambda ann, origin: origin is Literal, _literal_schema),
    (lambda ann, origin: _is_union(ann), _union_schema),
    (lambda ann, origin: origin in _ARRAYS, _array_schema),
    (lambda ann, origin: origin in _OBJECTS, _dict_schema),
    (lambda ann, origin: typing.is_typeddict(ann), _typeddict_schema),
]


def _is_json(value: object, depth: int) -> bool:
    """Whether a default can be shown in the schema as JSON."""
    if depth > _MAX_SCHEMA_DEPTH:
        return False
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_is_json(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _is_json(v, depth + 1) for k, v in value.items())
    return False


def _json_copy(value: Any) -> Any:
    """A copy of a JSON-able default, with tuples as lists (so a mutable default is not shared)."""
    return json.loads(json.dumps(value))


# --------------------------------------------------------------------------------------------
# Docstrings


_SECTION_NAMES: Final = (
    "Args|Arguments|Parameters|Params|Other Parameters|Keyword Args|Keyword Arguments|Returns|"
    "Return|Yields|Raises|Examples|Example|Notes|Note|Attributes|See Also|Warnings|Warning"
)
_SECTION_HEADER: Final = re.compile(rf"\s*(?:{_SECTION_NAMES}):?\s*")


def _first_paragraph(doc: str) -> str:
    """The docstring's first paragraph on one line (empty if it opens with a section)."""
    lines = doc.splitlines()
    summary: list[str] = []
    for index, line in enumerate(lines):
        if not line.strip() or _is_section_start(lines, index):
            break
        summary.append(line.strip())
    return " ".join(summary)


def _is_section_start(lines: list[str], index: int) -> bool:
    """A Google or NumPy section header, or a reST field such as ``:param x:``."""
    line = lines[index]
    underlined = index + 1 < len(lines) and _is_rule(lines[index + 1])
    return bool(_SECTION_HEADER.fullmatch(line)) or underlined or line.lstrip().startswith(":")


def _param_docs(doc: str) -> dict[str, str]:
    """Parameter descriptions from a Google, NumPy or reST docstring, by parameter name."""
    lines = doc.splitlines()
    found: dict[str, str] = {}
    for parse in (_google_params, _numpy_params, _rest_params):
        for key, text in parse(lines).items():
            found.setdefault(key, text)
    return found


_GOOGLE_HEADER: Final = re.compile(
    r"(\s*)(Args|Arguments|Parameters|Params|Keyword Args|Keyword Arguments|Other Parameters):\s*"
)
_GOOGLE_ENTRY: Final = re.compile(r"\*{0,2}(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)")


def _google_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for index, line in enumerate(lines):
        header = _GOOGLE_HEADER.fullmatch(line)
        if header:
            body = _indented_block(lines, index + 1, len(header.group(1)))
            found.update(_entries(body, _GOOGLE_ENTRY))
    return found


def _indented_block(lines: list[str], start: int, indent: int) -> list[str]:
    """The lines from ``start`` indented deeper than ``indent`` (blank lines included)."""
    block = []
    for line in lines[start:]:
        if line.strip() and _indent(line) <= indent:
            break
        block.append(line)
    return block


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _entries(block: list[str], entry: re.Pattern[str]) -> dict[str, str]:
    """``name: text`` entries at the block's base indent, with deeper lines continuing them."""
    found: dict[str, list[str]] = {}
    base = min((_indent(line) for line in block if line.strip()), default=0)
    current: list[str] | None = None
    for line in block:
        match = entry.fullmatch(line.strip()) if _indent(line) == base else None
        if match:
            current = found.setdefault(match.group(1), [])
            current.append(match.group(2))
        elif current is not None and line.strip():
            current.append(line.strip())
    return {name: " ".join(part for part in parts if part) for name, parts in found.items()}


_NUMPY_ENTRY: Final = re.compile(r"(\w+(?:\s*,\s*\w+)*)\s*(?::.*)?")


def _numpy_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for index in range(len(lines) - 1):
        if lines[index].strip() in ("Parameters", "Other Parameters") and _is_rule(
            lines[index + 1]
        ):
            found.update(_numpy_section(lines[index + 2 :], _indent(lines[index])))
    return found


def _is_rule(line: str) -> bool:
    return bool(re.fullmatch(r"\s*-{3,}\s*", line))


def _numpy_section(lines: list[str], indent: int) -> dict[str, str]:
    found: dict[str, str] = {}
    names: list[str] = []
    for index, line in enumerate(lines):
        if index + 1 < len(lines) and _is_rule(lines[index + 1]):
            break  # the next section's title
        match = _NUMPY_ENTRY.fullmatch(line.strip()) if _indent(line) == indent else None
        if match:
            names = [name.strip() for name in match.group(1).split(",")]
        elif line.strip() and names:
            for name in names:
                found[name] = f"{found[name]} {line.strip()}" if name in found else line.strip()
    return found


_REST_ENTRY: Final = re.compile(r"(\s*):param\s+(?:[^:]*\s)?\*{0,2}(\w+)\s*:\s*(.*)")


def _rest_params(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for index, line in enumerate(lines):
        match = _REST_ENTRY.fullmatch(line)
        if match:
            more = _indented_block(lines, index + 1, len(match.group(1)))
            parts = [match.group(3).strip()] + [part.strip() for part in more if part.strip()]
            found[match.group(2)] = " ".join(part for part in parts if part)
    return found


# --------------------------------------------------------------------------------------------
# Calling


def call_tool(tool: ToolDefinition, args: Mapping[str, Any], *, validated: bool = False) -> Any:
    """Validate ``args`` against the tool's schema and call its (sync) function with them.

    Pass ``validated=True`` when :func:`validate_arguments` already accepted ``args``.

    Raises:
        ToolArgumentError: if the arguments do not fit the schema.
        TypeError: if the tool is async (use :func:`acall_tool`) or has no function.
    """
    func = _callable(tool)
    if tool.is_async:
        raise TypeError(f"tool {tool.name!r} is async; call it with acall_tool")
    result = func(**_call_kwargs(tool, args, validated))
    if inspect.isawaitable(result):
        _close(result)
        raise TypeError(f"tool {tool.name!r} returned an awaitable; call it with acall_tool")
    return result


async def acall_tool(
    tool: ToolDefinition, args: Mapping[str, Any], *, validated: bool = False
) -> Any:
    """Validate ``args`` and call the tool's function, awaiting the result if it is awaitable.

    Pass ``validated=True`` when :func:`validate_arguments` already accepted ``args``.

    Raises:
        ToolArgumentError: if the arguments do not fit the schema.
        TypeError: if the tool has no function.
    """
    func = _callable(tool)
    result = func(**_call_kwargs(tool, args, validated))
    if inspect.isawaitable(result):
        return await result
    return result


def _callable(tool: ToolDefinition) -> Callable[..., Any]:
    if tool.func is None:
        raise TypeError(f"tool {tool.name!r} has no Python function to call")
    return tool.func


def _close(awaitable: Awaitable[Any]) -> None:
    # Closing an un-awaited coroutine avoids a "never awaited" warning.
    close = getattr(awaitable, "close", None)
    if callable(close):
        close()


def _call_kwargs(tool: ToolDefinition, args: Mapping[str, Any], validated: bool) -> dict[str, Any]:
    """Validated keyword arguments, with None for left-out parameters whose default is None."""
    if not validated:
        validate_arguments(tool, args)
    kwargs = dict(args)
    for name, schema in tool.parameters.get("properties", {}).items():
        if name not in kwargs and "default" in schema and schema["default"] is None:
            kwargs[name] = None
    return kwargs


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
    if depth > _MAX_SCHEMA_DEPTH:
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
