"""Values in rules and in calls: rendering for messages, JSON-ish kinds (bool is never a
number), literals and their JSON form, finiteness, and parameter paths."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

_MAX_SHOWN: Final = 80  # longest rendering of a guest value inside a message


def _show(value: object) -> str:
    """Render a (possibly hostile, possibly huge) value for a message, bounded in length."""
    return _bounded(repr(value))


def _show_name(name: object) -> str:
    """Render a rejected name with non-ASCII escaped, so lookalikes and invisibles show."""
    return _bounded(ascii(name))


def _bounded(text: str) -> str:
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


_KIND_NOUNS: Final = {
    "None": "None",
    "bool": "a bool",
    "number": "a number",
    "str": "a str",
    "list": "a list",
    "dict": "a dict",
    "other": "a JSON value",
}


def _kind(value: object) -> str:
    """The JSON-ish kind of a value; bool is never a number and a numeric str is a str."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "str"
    if isinstance(value, (list, tuple)):
        return "list"
    if isinstance(value, Mapping):
        return "dict"
    return "other"


def _type_phrase(value: object) -> str:
    """``a str``, ``an int``... the Python type of a value with its article."""
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiou' else 'a'} {name}"


def _mismatch(path: str, value: object, expected: Iterable[str]) -> str:
    """Failure detail for a wrong kind: ``amount = '5' is a str, not a number``."""
    nouns = [_KIND_NOUNS[kind] for kind in expected]
    wanted = nouns[0] if len(nouns) == 1 else ", ".join(nouns[:-1]) + " or " + nouns[-1]
    if value is None:
        return f"{path} is None, not {wanted}"
    return f"{path} = {_show(value)} is {_type_phrase(value)}, not {wanted}"


def _same(left: object, right: object) -> bool:
    """Strict JSON equality: kinds must agree, so ``True != 1`` and ``'1' != 1``."""
    kind = _kind(left)
    if kind != _kind(right) or kind == "other":
        return False
    if kind == "list":
        return _same_lists(left, right)  # type: ignore[arg-type]
    if kind == "dict":
        return _same_dicts(left, right)  # type: ignore[arg-type]
    return left == right


def _same_lists(left: Sequence[object], right: Sequence[object]) -> bool:
    return len(left) == len(right) and all(_same(a, b) for a, b in zip(left, right, strict=True))


def _same_dicts(left: Mapping[object, object], right: Mapping[object, object]) -> bool:
    return left.keys() == right.keys() and all(_same(left[key], right[key]) for key in left)


def _got(value: object) -> str:
    """What a JSON field holds instead, for a message: ``None`` or ``a list``..."""
    return "None" if value is None else _type_phrase(value)


def _check_json_value(value: object, what: str) -> None:
    """Constraint literals must be JSON values (finite numbers), or they could never be
    satisfied and would have no JSON form."""
    if _kind(value) == "other":
        raise ValueError(f"{what} must be a JSON value, not {type(value).__name__}")
    if not _finite(value):
        raise ValueError(f"{what} must be finite, not {_show(value)}; JSON has no NaN or Infinity")


def _finite(value: object) -> bool:
    """Whether ``value`` holds no NaN or infinity, at any depth (numbers from a guest are
    finite after strict decoding; from the host they may not be)."""
    pending, seen = [value], set()
    while pending:
        item = pending.pop()
        if isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, (list, tuple, Mapping)) and id(item) not in seen:
            seen.add(id(item))
            pending.extend(item.values() if isinstance(item, Mapping) else item)
    return True


def _non_finite_failure(path: str, value: object) -> str | None:
    """``amount = -inf is not a finite number``: numeric rules deny NaN and infinities, which
    would slip past them (``-inf <= 100``, ``nan != 0``)."""
    if _finite(value):
        return None
    if isinstance(value, float):
        return f"{path} = {_show(value)} is not a finite number"
    return f"{path} = {_show(value)} holds a number that is not finite"


def _plain(value: Any) -> Any:
    """A private copy of a literal with plain containers (tuples → lists, mappings → dicts).

    Constraints keep their own copy, so a caller mutating its list cannot change a rule, and
    the JSON round trip gives back an equal constraint.
    """
    kind = _kind(value)
    if kind == "list":
        return [_plain(item) for item in value]
    if kind == "dict":
        return {key: _plain(item) for key, item in value.items()}
    return value


_MAX_JSON_DEPTH: Final = 32  # deepest literal a token may carry (JSON from tokens is hostile)


def _json_literal(value: object, depth: int = _MAX_JSON_DEPTH) -> Any:
    """A JSON copy of a literal, or ValueError if it has no JSON form or is nested too deeply."""
    if depth < 0:
        raise ValueError(f"a value is nested more than {_MAX_JSON_DEPTH} levels deep")
    kind = _kind(value)
    if kind == "list":
        return [_json_literal(item, depth - 1) for item in value]  # type: ignore[attr-defined]
    if kind == "dict":
        return _json_object_literal(value, depth)  # type: ignore[arg-type]
    if kind == "other":
        raise ValueError(f"{_type_phrase(value)} is not a JSON value")
    return value


def _json_object_literal(value: Mapping[object, object], depth: int) -> dict[str, Any]:
    result = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise ValueError(f"object keys must be str, not {_show(key)}")
        result[key] = _json_literal(item, depth - 1)
    return result


def _canonical_json(data: object) -> str:
    """The one JSON spelling of ``data`` (sorted keys, no spaces, ASCII), for comparisons."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


class _Missing:
    """Marker for a parameter path that does not resolve."""

    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Final = _Missing()


def _split_path(path: str) -> list[str]:
    """Split and check a parameter path such as ``body/user/email`` or ``items/0``."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"invalid parameter path {_show(path)}: it must be a non-empty str")
    segments = path.split("/")
    if "" in segments:
        raise ValueError(f"invalid parameter path {path!r}: it has an empty segment")
    return segments


def _resolve(params: object, path: str) -> object:
    """The value at ``path`` in ``params``, or ``_MISSING``; list indexes are decimal digits."""
    current = params
    for segment in path.split("/"):
        current = _step(current, segment)
        if current is _MISSING:
            break
    return current


def _step(container: object, segment: str) -> object:
    """One step of a path: a key of a mapping or an index of a list."""
    if isinstance(container, Mapping):
        return container.get(segment, _MISSING)
    if isinstance(container, (list, tuple)) and segment.isdigit() and segment.isascii():
        index = int(segment)
        return container[index] if index < len(container) else _MISSING
    return _MISSING
