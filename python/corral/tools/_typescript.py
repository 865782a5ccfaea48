"""Tools as TypeScript declarations, with JSDoc, generated from their JSON Schemas.

One declaration per tool::

    /**
     * Weather for a city.
     * Allowed when: city in ['Oslo', 'Rome']. 10 calls left.
     */
    declare function get_weather(args: {
      /** City name. */
      city: string;
      units?: "metric" | "imperial";
    }): Promise<{city: string; temp: number}>;

Optional properties get ``?``, enums become unions of literals, ``anyOf``/``oneOf`` unions,
``allOf`` intersections, ``nullable`` adds ``| null``, and a ``$ref`` into the schema's
``$defs`` (or ``definitions``) is shown inline (a recursive one as ``unknown`` once too deep).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, Final

from ._definition import ToolDefinition
from ._names import JS_GLOBALS, js_namespace_path

_MAX_DEPTH: Final = 12  # deeper types are shown as ``unknown``
_SCALARS: Final = {
    "string": "string",
    "integer": "number",
    "number": "number",
    "boolean": "boolean",
    "null": "null",
}
_BOUNDS: Final = (
    ("minimum", ">="),
    ("exclusiveMinimum", ">"),
    ("maximum", "<="),
    ("exclusiveMaximum", "<"),
    ("minLength", "length >="),
    ("maxLength", "length <="),
    ("minItems", "items >="),
    ("maxItems", "items <="),
)


def ts_declaration(tool: ToolDefinition, notes: Iterable[str] = ()) -> str:
    """``tool`` as a TypeScript declaration with its JSDoc; ``notes`` are extra lines of the
    comment (the capabilities in force, say).

    Remembered by what it is made from (the tool's name, description and schemas, and the
    notes), when that is plain JSON data: every ``Sandbox(tools=[...])`` asks again.
    """
    made_from = (tool.name, tool.description, tuple(notes), tool.parameters, tool.returns)
    if not _plain(made_from, 0):
        return _declaration(tool, made_from[2])
    # repr tells apart what == does not (1, 1.0 and True), for the plain data checked above.
    key = repr(made_from)
    declared = _DECLARED.get(key)
    if declared is None:
        declared = _declaration(tool, made_from[2])
        if len(_DECLARED) >= DECLARED_KEPT:  # another thread may drop the same one
            _DECLARED.pop(next(iter(_DECLARED), ""), None)
        _DECLARED[key] = declared
    return declared


DECLARED_KEPT: Final = 512
_DECLARED: dict[str, str] = {}  # made_from's repr -> the declaration, oldest first


def _plain(value: object, depth: int) -> bool:
    """Whether ``value`` is JSON data of the built-in types (tuples too, and str keys), at
    most :data:`PLAIN_DEPTH` deep (a deeper schema is shown as ``unknown`` past its depth
    anyway; and under Pyodide, a few thousand levels of recursion exhaust JavaScript's stack
    before Python's recursion limit)."""
    if depth > PLAIN_DEPTH:
        return False
    if type(value) is dict:
        return all(type(k) is str and _plain(v, depth + 1) for k, v in value.items())
    if type(value) is list or type(value) is tuple:
        return all(_plain(item, depth + 1) for item in value)
    return type(value) in _PLAIN_SCALARS


PLAIN_DEPTH: Final = 100


_PLAIN_SCALARS: Final[frozenset[type]] = frozenset({str, int, float, bool, type(None)})


def _declaration(tool: ToolDefinition, notes: tuple[str, ...]) -> str:
    path = js_namespace_path(tool.name)
    namespaced = (
        len(path) > 1
        and all(part.isidentifier() for part in path)
        and path[0] not in JS_GLOBALS  # the guest mounts no namespace on a global
    )
    lines = [line for line in (tool.description.strip(), *notes) if line]
    if namespaced:
        lines.append(f"Also callable as {tool.js_name}(args).")
    elif tool.js_name in JS_GLOBALS:
        lines.append(
            f"Not callable from JavaScript, where {tool.js_name} is the sandbox's own global; "
            f"from the shell: tool {tool.name} --key value."
        )
    root = tool.parameters
    params, returns = _Renderer(root), _Renderer(tool.returns or {})
    args = params.type(root, 0, "")
    optional = "?" if not root.get("required") else ""
    result = "unknown" if tool.returns is None else returns.type(tool.returns, 0, "")
    signature = f"(args{optional}: {args}): Promise<{result}>;"
    if namespaced:
        declared = f"declare namespace {'.'.join(path[:-1])} {{ function {path[-1]}{signature} }}"
    else:
        declared = f"declare function {tool.js_name}{signature}"
    return _aliases(params, returns) + _comment(lines, "") + declared


def ts_type(schema: Mapping[str, Any]) -> str:
    """The TypeScript type of a JSON Schema (each ``$ref`` resolved against the schema
    itself; a recursive definition shows as its name).

    >>> ts_type({"type": "object", "properties": {"a": {"enum": ["x", "y"]}},
    ...              "required": []})
    '{a?: "x" | "y"}'
    """
    renderer = _Renderer(schema)
    text = renderer.type(schema, 0, "")
    return _aliases(renderer) + text


def _aliases(*renderers: _Renderer) -> str:
    """The named types the renderers needed (recursive definitions), one declaration a line."""
    aliases = {name: text for r in renderers for name, text in r.aliases.items()}
    return "".join(f"type {name} = {text};\n" for name, text in aliases.items())


def _comment(lines: list[str], indent: str) -> str:
    text = [part for line in lines for part in line.replace("*/", "*\\/").splitlines()]
    if not text:
        return ""
    if len(text) == 1:
        return f"{indent}/** {text[0]} */\n"
    body = "".join(f"{indent} * {line}".rstrip() + "\n" for line in text)
    return f"{indent}/**\n{body}{indent} */\n"


class _Renderer:
    """Renders the types of one schema document (whose ``$defs`` a ``$ref`` points into)."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.aliases: dict[str, str] = {}  # recursive definitions, declared as named types
        self._expanding: dict[str, bool] = {}  # the refs being expanded: whether they recur

    def type(self, schema: object, depth: int, indent: str) -> str:
        """The type of ``schema``, laid out at ``indent`` when it spans lines."""
        if schema is False:
            return "never"
        if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
            return "unknown"
        text = self._bare(schema, depth, indent)
        if schema.get("nullable") is True and text not in ("unknown", "null"):
            text = f"{text} | null"
        return text

    def _bare(self, schema: Mapping[str, Any], depth: int, indent: str) -> str:
        if isinstance(schema.get("$ref"), str):
            return self._ref(schema["$ref"], depth, indent)
        if "const" in schema:
            return _literal(schema["const"])
        if isinstance(schema.get("enum"), list):
            return _union(_literal(value) for value in schema["enum"])
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                return _union(self._member(s, depth, indent) for s in schema[key])
        if isinstance(schema.get("allOf"), list):
            return " & ".join(self._member(s, depth, indent) for s in schema["allOf"])
        kind = schema.get("type")
        if isinstance(kind, list):
            return _union(self._of_type(schema, str(k), depth, indent) for k in kind)
        if kind is None and "properties" in schema:
            kind = "object"
        return self._of_type(schema, kind, depth, indent)

    def _member(self, schema: object, depth: int, indent: str) -> str:
        return _grouped(self.type(schema, depth + 1, indent))

    def _of_type(self, schema: Mapping[str, Any], kind: object, depth: int, indent: str) -> str:
        if kind in _SCALARS:
            return _SCALARS[str(kind)]
        if kind == "array":
            return self._array(schema, depth, indent)
        if kind == "object":
            return self._object(schema, depth, indent)
        return "unknown"

    def _array(self, schema: Mapping[str, Any], depth: int, indent: str) -> str:
        prefix = schema.get("prefixItems")
        if isinstance(prefix, list):
            return "[" + ", ".join(self.type(item, depth + 1, indent) for item in prefix) + "]"
        return _grouped(self.type(schema.get("items", {}), depth + 1, indent)) + "[]"

    def _object(self, schema: Mapping[str, Any], depth: int, indent: str) -> str:
        properties = schema.get("properties")
        extra = schema.get("additionalProperties", True)
        if not isinstance(properties, Mapping) or not properties:
            if extra is False:
                return "{}"
            values = self.type(extra if extra is not True else {}, depth + 1, indent)
            return f"Record<string, {values}>"
        required = set(schema.get("required") or ())
        fields = [
            (_key(name), "" if name in required else "?", sub, _notes(sub))
            for name, sub in properties.items()
        ]
        if isinstance(extra, Mapping) and extra:
            fields.append(("[key: string]", "", extra, []))
        inner = indent + "  "
        if not any(notes for *_, notes in fields):
            parts = [f"{k}{q}: {self.type(s, depth + 1, indent)}" for k, q, s, _ in fields]
            return "{" + "; ".join(parts) + "}"
        lines = [
            _comment(notes, inner) + f"{inner}{k}{q}: {self.type(s, depth + 1, inner)};\n"
            for k, q, s, notes in fields
        ]
        return "{\n" + "".join(lines) + indent + "}"

    def _ref(self, ref: str, depth: int, indent: str) -> str:
        """A definition inline, or by name when it refers to itself (then declared as a named
        type in :attr:`aliases`)."""
        name = "".join(c if c.isalnum() else "_" for c in ref.rsplit("/", 1)[-1]) or "Ref"
        name = name if name[0].isalpha() else f"T{name}"
        if name in self.aliases:
            return name
        if name in self._expanding:
            self._expanding[name] = True
            return name
        self._expanding[name] = False
        text = self.type(self._resolve(ref), depth + 1, indent)
        if not self._expanding.pop(name):
            return text
        self.aliases[name] = name  # while the alias itself is rendered, refer to it by name
        self.aliases[name] = self.type(self._resolve(ref), depth + 1, "")
        return name

    def _resolve(self, ref: str) -> object:
        for prefix in ("#/$defs/", "#/definitions/"):
            if ref.startswith(prefix):
                defs = self.root.get(prefix[2:-1])
                if isinstance(defs, Mapping):
                    return defs.get(ref.removeprefix(prefix), {})
        return {}


def _notes(schema: object) -> list[str]:
    """What a property's comment says: its description, default and bounds."""
    if not isinstance(schema, Mapping):
        return []
    parts = []
    description = schema.get("description")
    if isinstance(description, str) and description.strip():
        parts.append(description.strip())
    if "default" in schema and schema["default"] is not None:
        parts.append(f"Default: {_literal(schema['default'])}.")
    bounds = [f"{word} {schema[key]}" for key, word in _BOUNDS if key in schema]
    for key in ("format", "pattern"):
        if isinstance(schema.get(key), str):
            bounds.append(f"{key} {schema[key]}")
    if bounds:
        parts.append(f"({', '.join(bounds)})")
    return [" ".join(parts)] if parts else []


def _grouped(text: str) -> str:
    """``text`` in parentheses if it is a union or an intersection at its top level (outside
    brackets, string literals and comments)."""
    level, index = 0, 0
    while index < len(text):
        char = text[index]
        if text.startswith("/*", index):
            index = text.find("*/", index) % (len(text) + 1) + 1
        elif char == '"':
            index = _string_end(text, index)
        elif char in "{[(<":
            level += 1
        elif char in "}])>":
            level -= 1
        elif level == 0 and char in "|&":
            return f"({text})"
        index += 1
    return text


def _string_end(text: str, start: int) -> int:
    """The index of the quote that closes the JSON string opening at ``start``."""
    index = start + 1
    while index < len(text) and text[index] != '"':
        index += 2 if text[index] == "\\" else 1
    return index


def _union(members: Iterable[str]) -> str:
    unique = list(dict.fromkeys(members))
    return " | ".join(unique) if unique else "never"


def _literal(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return "unknown"


def _key(name: str) -> str:
    return name if name.isidentifier() and name.isascii() else json.dumps(name)
