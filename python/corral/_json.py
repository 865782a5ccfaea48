"""Strict JSON decoding with a bound on nesting, for data from outside the host (the guest,
tokens).

Strict: JSON has no ``NaN`` or ``Infinity``, and a number too large for a float (``1e999``) is
not silently made infinite. Python's decoder accepts all three, and a non-finite number slips
past comparisons (``-inf <= 100`` holds, and so does ``nan != 0``), so the host refuses them
before any check sees them:

>>> loads("[1.5, -0.0, 1e308]")
[1.5, -0.0, 1e+308]
>>> loads('{"amount": -Infinity}')
Traceback (most recent call last):
    ...
ValueError: -Infinity is not a JSON number (JSON numbers are finite)
>>> loads("[1e999]")
Traceback (most recent call last):
    ...
ValueError: 1e999 is too large for a JSON number here (the largest is about 1.8e308)

Bounded: CPython's decoder recurses in C once per nesting level. Natively that ends in a
``RecursionError``; under Pyodide the same recursion can exhaust the JavaScript stack first,
which is fatal to the whole interpreter. So untrusted JSON is checked before it is decoded, and
anything nested deeper than :data:`MAX_DEPTH` raises ``RecursionError`` on every platform.

>>> loads(b'{"a": [1, [2]]}')
{'a': [1, [2]]}
>>> loads("[" * 600 + "]" * 600)
Traceback (most recent call last):
    ...
RecursionError: JSON nested deeper than 512 levels
"""

from __future__ import annotations

import math

from . import _lean

try:  # CPython's C accelerator, used directly: ``json`` imports ``re`` and ``enum`` (~2.5 ms
    import _json as _accelerator  # of a fresh process), only needed here for errors
except ImportError:  # pragma: no cover - a Python without it: the json package's own code
    _accelerator = None  # type: ignore[assignment]

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, NoReturn

__all__ = ["MAX_DEPTH", "encoder", "loads", "too_deep"]

MAX_DEPTH = 512
# Everything but brackets and quotes, deleted before the depth count.
_NOT_STRUCTURE = bytes(sorted(set(range(256)) - set(b'[]{}"')))
# A JSON number overflows a float only if its integer digits plus its exponent pass 308: so
# with an exponent of three digits or more, or 200 integer digits or more (JSON has no leading
# zeros in the integer part, and a two-digit exponent would need 210). Looked for with every
# digit read as 0; a match inside a string only costs the slower check.
_DIGITS_AS_ZERO = bytes.maketrans(b"0123456789E", b"0000000000e")
_OVERFLOW_SIGNS = (b"e000", b"e+000", b"0" * 200)
_ONE_BRACKET = bytes.maketrans(b"{}", b"[]")
# A text that starts with one of these bytes (or is empty) may be UTF-16 or -32, or start with
# a byte order mark: ``json.detect_encoding`` decides. (A set: ``in`` on bytes costs ~0.5 µs.)
_MAYBE_NOT_UTF8 = frozenset({b"", b"\x00", b"\xef", b"\xfe", b"\xff"})
# Texts up to this many bytes have each float checked as it is decoded (see ``loads``): at
# worst ~100 floats, a Python call each.
_SHORT = 256
_QUICK_PASSES = 16  # deeper data is measured bracket by bracket


def loads(data: str | bytes | bytearray, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads(data)``, but ``ValueError`` for ``NaN``, ``Infinity`` and numbers that
    overflow a float, and ``RecursionError`` when arrays and objects nest deeper than
    ``max_depth``."""
    if isinstance(data, str):
        text: str | None = data
        raw = data.encode()
    else:
        text, raw = None, bytes(data)
    if too_deep(raw, max_depth):
        raise RecursionError(f"JSON nested deeper than {max_depth} levels")
    # Checking each float costs a Python call per number: in a long text only when one could
    # overflow. A short one has few floats, if any: checking them costs less than looking.
    careful = len(raw) <= _SHORT or _may_overflow(raw)
    if text is None:
        # As json.loads decodes bytes; UTF-8 unless the first two bytes say otherwise.
        if raw[:1] in _MAYBE_NOT_UTF8 or raw[1:2] == b"\x00":
            return _json_package_loads(raw, careful)
        text = raw.decode("utf-8", "surrogatepass")
    # What ``JSONDecoder.decode`` does, without its two whitespace matches when the value
    # spans the whole text (the guest's JSON always does). Anything else (whitespace around
    # the value, a byte order mark, any error) is decoded again by the json package's own
    # decoder, so that results and errors read the same: without ``json.decoder`` imported,
    # Python 3.11's scanner cannot raise its ``JSONDecodeError`` (a ``SystemError`` instead).
    try:
        value, end = (_CAREFUL if careful else _DECODER)(text, 0)
    except (StopIteration, SystemError, ValueError):
        end = -1
    return value if end == len(text) else _json_package_loads(text, careful)


def _json_package_loads(text: str | bytes, careful: bool) -> Any:
    """What :func:`loads` decodes with the json package itself (imported here, once), as
    ``json.loads`` does: a ``str`` must not start with a byte order mark, ``bytes`` are
    decoded as their first bytes say."""
    import json

    if isinstance(text, bytes):
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    elif text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return _package_decoders()[careful].decode(text)


def _may_overflow(raw: bytes) -> bool:
    shape = raw.translate(_DIGITS_AS_ZERO)
    exponent, signed, digits = _OVERFLOW_SIGNS
    return exponent in shape or signed in shape or digits in shape  # no generator: faster


@_lean.lru_cache(None)
def _package_decoders() -> tuple[Any, Any]:
    """The json package's decoders, plain and careful (made once)."""
    import json

    return (
        json.JSONDecoder(parse_constant=_refuse_constant),
        json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float),
    )


def too_deep(raw: bytes, max_depth: int = MAX_DEPTH) -> bool:
    """Whether the JSON text ``raw`` nests arrays and objects deeper than ``max_depth``."""
    return (
        len(raw) > max_depth
        and raw.count(b"[") + raw.count(b"{") > max_depth
        and _depth(raw) > max_depth
    )


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number (JSON numbers are finite)")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(
            f"{text} is too large for a JSON number here (the largest is about 1.8e308)"
        )
    return value


class _Options:
    """What a ``json.JSONDecoder`` tells its C scanner: the same options, as attributes."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_int = int

    def __init__(self, parse_float: Callable[[str], float]) -> None:
        self.parse_float = parse_float
        self.parse_constant = _refuse_constant
        self.memo: dict[str, str] = {}


def _scanner(parse_float: Callable[[str], float]) -> Callable[[str, int], tuple[Any, int]]:
    if _accelerator is None:  # pragma: no cover - a Python without the C accelerator
        import json.scanner

        return json.scanner.make_scanner(_Options(parse_float))
    # The stubs say its context is a scanner: it is anything with a decoder's attributes.
    return _accelerator.make_scanner(_Options(parse_float))  # type: ignore[arg-type]


# Made once: ``json.loads`` with any option builds a new decoder on every call.
_DECODER = _scanner(float)
_CAREFUL = _scanner(_finite_float)


def _depth(raw: bytes) -> int:
    """The deepest nesting of brackets outside strings (only called for bracket-heavy data).

    Backslashes occur only inside strings: removing escaped backslashes, then escaped quotes,
    leaves quotes that open or close strings, so every second piece between quotes is outside
    them. (Input that is not JSON can be miscounted only after the point where the decoder
    stops with an error, so the bound still holds for what it decodes.)
    """
    unescaped = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    structure = unescaped.translate(_ONE_BRACKET, _NOT_STRUCTURE)  # { and } count as [ and ]
    # Two adjacent quotes hold no bracket between them (an empty string, or two strings that
    # touch): dropping them first leaves few pieces to split.
    outside = b"".join(structure.replace(b'""', b"").split(b'"')[::2])
    # Shallow data (most of it): each pass removes the innermost level of every group, so a
    # well-nested sequence is empty after exactly as many passes as it is deep (in C, not
    # one Python step per bracket). Anything else is counted bracket by bracket.
    rest = outside
    for passes in range(_QUICK_PASSES):
        if not rest:
            return passes
        shallower = rest.replace(b"[]", b"")
        if len(shallower) == len(rest):
            break  # brackets that do not pair up: not JSON
        rest = shallower
    depth = deepest = 0
    for byte in outside:
        if byte == ord("["):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def encoder(
    *, ensure_ascii: bool = True, allow_nan: bool = True, separators: tuple[str, str] = (", ", ": ")
) -> Callable[[Any], str]:
    """``json.JSONEncoder(...).encode`` with the same options, its C encoder made once per
    thread: ``encode`` builds one on every call, about half the time of encoding a small
    value. Cycles are still refused (each thread has its own record of the containers being
    encoded, emptied when an encoding fails).

    >>> encoder(separators=(",", ":"))({"a": [1.5, None, True]})
    '{"a":[1.5,null,true]}'
    >>> compact = encoder()
    >>> loop = []; loop.append(loop); compact(loop)
    Traceback (most recent call last):
        ...
    ValueError: Circular reference detected
    >>> items = [1, object()]; compact(items)
    Traceback (most recent call last):
        ...
    TypeError: Object of type object is not JSON serializable
    >>> _ = items.pop(); compact(items)  # what the failure was encoding is no cycle
    '[1]'
    """
    if _accelerator is None:  # pragma: no cover - a Python without the C accelerator
        import json

        options = {"ensure_ascii": ensure_ascii, "allow_nan": allow_nan, "separators": separators}
        return json.JSONEncoder(**options).encode
    make = _accelerator.make_encoder
    escape = (
        _accelerator.encode_basestring_ascii if ensure_ascii else _accelerator.encode_basestring
    )
    mine = _lean.local()

    def encode(value: Any) -> str:
        try:
            c_encode, markers = mine.encoder
        except AttributeError:
            markers = {}
            c_encode = make(
                markers, _not_serializable, escape, None, separators[1], separators[0],
                False, False, allow_nan,
            )  # fmt: skip
            mine.encoder = c_encode, markers
        try:
            return "".join(c_encode(value, 0))
        except BaseException:
            markers.clear()
            raise

    return encode


def _not_serializable(value: object) -> NoReturn:
    """``json.JSONEncoder.default``: what is not JSON is refused, with the json package's
    message."""
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")
