"""A tool's return value as the JSON the guest receives: the one place that decides what a tool
may return and how it is sent.

Plain JSON data is sent as it is; dataclasses, sets, tuples, pydantic models, enums, bytes (as
base64), dates, UUIDs, decimals and paths are converted; ``nan`` and infinities become ``null``,
as ``JSON.stringify`` makes them. The whole table is in :ref:`tool-results` (the JavaScript
guide). Anything else is refused with a ``TypeError`` naming its type and where it sits, never
its ``repr`` (which may hold a secret); so is data nested deeper than
512 levels (``_json.MAX_DEPTH``) or holding itself. The sandbox turns that into a
``ToolError`` for the call.

>>> encode_result({"ok": True, "items": (1, 2.5), "hash": b"\\x00\\xff", "ratio": float("nan")})
b'{"ok": true, "items": [1, 2.5], "hash": "AP8=", "ratio": null}'
>>> encode_result({"handle": object()})
Traceback (most recent call last):
    ...
TypeError: the result holds an object of type object at result["handle"], which cannot be ...
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import decimal
import enum
import json
import math
import pathlib
import uuid
from collections.abc import Mapping
from itertools import chain, compress, repeat
from typing import Any, Final

from . import _json

__all__ = ["encode_result"]

_AS_STR: Final = (uuid.UUID, decimal.Decimal, pathlib.PurePath)
_DATES: Final = (datetime.datetime, datetime.date, datetime.time)
_BYTES: Final = (bytes, bytearray, memoryview)
_ACCEPTED: Final = (
    "return dicts, lists, str, int, float, bool or None (dataclasses, pydantic models, bytes and "
    "dates are converted)"
)

# Where a value sits in the result, built only as deep as the walk goes: (parent, key) pairs.
_Where = tuple[Any, ...]


def encode_result(value: Any) -> bytes:
    """``value`` as UTF-8 JSON text, converted as :ref:`tool-results` says.

    Raises:
        TypeError: if some part of ``value`` has no JSON form, is nested too deeply or holds
            itself (the message names the type and where it is).
        Exception: whatever a ``model_dump()`` of the value raises (the tool's own failure).
    """
    flat = type(value) in _FLAT and _SCALARS.issuperset(map(type, _items(value)))
    text = _plain_dumps(value) if flat or _shallow(value) else None
    data = None if text is None else _utf8(text)
    # Not plain data, or too deep (a flat dict or list of scalars is one level): the walk
    # says why.
    if data is None or (not flat and _json.too_deep(data)):
        data = _utf8(_dumps(_convert(value, (), 0, set())))
    return data


_dumps: Final = _json.encoder(ensure_ascii=False, allow_nan=False)
"""Made once: ``json.dumps`` with any option builds a new encoder on every call."""


def _shallow(value: Any) -> bool:
    """Whether ``value`` is a tree of lists, tuples and dicts at most ``_json.MAX_DEPTH`` deep,
    each held once: measured level by level, without recursion, before ``json.dumps`` recurses
    in C once per level (which, under Pyodide, can exhaust the JavaScript stack before Python
    notices: fatal to the interpreter). Anything else goes through :func:`_convert`, which
    refuses values nested too deeply or holding themselves."""
    level = [value]
    seen: set[int] = set()
    for _ in range(_json.MAX_DEPTH + 1):
        # All in C, no Python step per item: the sequences and dicts at this level ...
        sequences = [*compress(level, map(isinstance, level, repeat((list, tuple))))]
        mappings = [*compress(level, map(isinstance, level, repeat(dict)))]
        if not sequences and not mappings:
            return True
        held = len(seen)
        seen.update(map(id, sequences), map(id, mappings))
        if len(seen) - held < len(sequences) + len(mappings):
            return False  # one held twice (or itself): a level could double every time
        # ... and the items inside them, the next level.
        level = [*chain.from_iterable(sequences), *chain.from_iterable(map(dict.values, mappings))]
    return False


_FLAT: Final = frozenset({dict, list, tuple})
_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def _items(value: dict[Any, Any] | list[Any] | tuple[Any, ...]) -> Any:
    return value.values() if type(value) is dict else value


def _plain_dumps(value: Any) -> str | None:
    """The JSON of ``value`` if it is plain JSON data (the common case, done in C), else None."""
    try:
        return _dumps(value)
    except Exception:  # noqa: BLE001 - not plain data (or a mapping that fails): convert it
        return None


def _utf8(text: str) -> bytes:
    try:
        return text.encode()
    except UnicodeEncodeError:  # a lone surrogate: escape it, as JSON.stringify does
        return json.dumps(json.loads(text), ensure_ascii=True).encode()


def _convert(value: Any, where: _Where, depth: int, active: set[int]) -> Any:
    """A plain JSON copy of ``value``. One Python frame per level of nesting (no helper calls
    or comprehensions on the way down), so 512 levels (``_json.MAX_DEPTH``) fit in the
    interpreter's recursion limit."""
    while isinstance(value, enum.Enum):
        value = value.value
    plain = _scalar(value)
    if plain is not _CONTAINER:
        return plain
    if depth >= _json.MAX_DEPTH:
        raise TypeError(
            f"the result is nested deeper than {_json.MAX_DEPTH} levels; return flatter data"
        )
    if id(value) in active:
        raise TypeError(
            f"the result holds itself at {_show(where)} (a circular reference); return a copy "
            "without the cycle"
        )
    active.add(id(value))
    try:
        if isinstance(value, Mapping):
            result = {}
            for key, item in value.items():
                result[_key(key, where)] = _convert(item, (where, key), depth + 1, active)
            return result
        if isinstance(value, (list, tuple, set, frozenset)):
            items = []
            for index, item in enumerate(value):
                items.append(_convert(item, (where, index), depth + 1, active))
            return items
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {}
            for field in dataclasses.fields(value):
                item = getattr(value, field.name)
                fields[field.name] = _convert(item, (where, field.name), depth + 1, active)
            return fields
        dump = getattr(value, "model_dump", None)  # pydantic models
        if callable(dump):
            return _convert(dump(), where, depth, active)
    finally:
        active.discard(id(value))
    kind = _type_phrase(value)
    place = f"holds {kind} at {_show(where)}" if where else f"is {kind}"
    raise TypeError(f"the result {place}, which cannot be sent as JSON; {_ACCEPTED}")


_CONTAINER: Final = object()


def _scalar(value: Any) -> Any:
    """The JSON form of a value that holds no other values, or ``_CONTAINER``."""
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, _BYTES):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, _DATES):
        return value.isoformat()
    if isinstance(value, _AS_STR):
        return str(value)
    return _CONTAINER


def _key(key: object, where: _Where) -> object:
    """A mapping key as ``json.dumps`` writes it (str, int, finite float, bool or None)."""
    if key is None or isinstance(key, (str, int)):
        return key
    if isinstance(key, float) and math.isfinite(key):
        return key
    raise TypeError(
        f"the result has a key that is {_type_phrase(key)} in the object at {_show(where)}; "
        "JSON object keys are strings: use str, int, float, bool or None keys"
    )


def _type_phrase(value: object) -> str:
    """``an object of type Secret``: the type only, never the value."""
    return f"an object of type {type(value).__name__}"


def _show(where: _Where) -> str:
    """``result["items"][3]`` for the pairs ``((((), "items"), 3)``."""
    keys = []
    while where:
        where, key = where
        keys.append(key)
    parts = "".join(f"[{json.dumps(key, default=str)}]" for key in reversed(keys))
    return "result" + parts
