"""Signed capability tokens: authority that can be handed on, narrowed, and checked offline.

A :class:`CapabilityToken` is a chain of links, each a list of
:class:`~corral.capabilities.MethodCapability` with an optional expiry and sandbox binding.
It is signed like a macaroon, with HMAC-SHA256 from the standard library (so it works in
Pyodide too)::

    sig_0 = HMAC(root_key, canonical_json(link_0))
    sig_i = HMAC(sig_{i-1}, canonical_json(link_i))

and carries every link but only the last signature. Whoever holds a token can therefore
append a link (that is how a sub-agent gets a narrower token, without the root key), but
cannot remove or alter one. Since a holder can append *any* link, :meth:`~CapabilityToken.verify`
checks, besides the signature, that every link is within the one before it
(:func:`~corral.capabilities.is_attenuation`), every expiry, and every sandbox binding.

>>> from corral.capabilities import Param
>>> key = bytes(range(32))  # use generate_key() and keep it on the host
>>> root = CapabilityToken.mint(key, [MethodCapability("stripe/**", [Param("amount") <= 1000])])
>>> child = root.attenuate([MethodCapability("stripe/charges/create", [Param("amount") <= 50])])
>>> text = child.serialize()
>>> [cap.describe() for cap in CapabilityToken.parse(text).verify(key)]
['stripe/charges/create where amount <= 50']
>>> root.attenuate([MethodCapability("github/**")])  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
corral.tokens.TokenError: cannot attenuate: capability 'github/**' is not within any capability ...

Budgets in a token are per :class:`~corral.capabilities.Authorizer` (per sandbox that uses
it): bind a token to a sandbox (``sandbox_id``) when a budget must not be reused elsewhere.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import math
import re
import secrets
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from . import _json
from .capabilities import MethodCapability, is_attenuation

__all__ = [
    "MAX_LINKS",
    "MAX_TOKEN_SIZE",
    "MIN_KEY_SIZE",
    "CapabilityToken",
    "TokenError",
    "TokenLink",
    "canonical_json",
    "generate_key",
]

MAX_TOKEN_SIZE: Final = 64 * 1024
"""Longest serialised token :meth:`CapabilityToken.parse` accepts, in characters."""

MAX_LINKS: Final = 32
"""Most links a token may have (each one is checked against the one before it)."""

MIN_KEY_SIZE: Final = 16
"""Shortest root key accepted, in bytes; :func:`generate_key` makes 32."""

_VERSION: Final = 1
_MAX_SANDBOX_ID: Final = 256
_MAX_SHOWN: Final = 80
_NONCE: Final = re.compile(r"[0-9a-f]{32}")
_SIGNATURE: Final = re.compile(r"[0-9a-f]{64}")
_BASE64URL: Final = re.compile(r"[A-Za-z0-9_-]*={0,2}")
_NOT_BASE64URL: Final = re.compile(r"[^A-Za-z0-9_=-]")
_LINK_KEYS: Final = ("capabilities", "expires_at", "sandbox_id", "nonce")
_TOKEN_KEYS: Final = ("v", "links", "sig")


class TokenError(ValueError):
    """A token that cannot be parsed, verified or narrowed as asked.

    Raised to the host: when a sandbox is built from a token, or a token is attenuated. It
    never reaches the guest; calls made under a verified token are denied at call time with a
    :class:`~corral.capabilities.CapabilityError`, like any other. A ``ValueError``, since
    the token is a bad value.

    Attributes:
        reason: What is wrong, e.g. ``token signature does not match (forged or tampered)``.
    """

    def __init__(self, reason: str) -> None:
        """Build the error for ``reason``."""
        super().__init__(reason)
        self.reason = reason


def canonical_json(data: object) -> str:
    """The one JSON spelling of ``data`` that signatures cover.

    >>> canonical_json({"b": [1, 2.5], "a": "é"})
    '{"a":"\\\\u00e9","b":[1,2.5]}'
    """
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def generate_key() -> bytes:
    """A new random 32-byte root key. Keep it on the host; the guest never sees it."""
    return secrets.token_bytes(32)


def _shown(value: object) -> str:
    """A bounded rendering of a (possibly hostile) value for a message."""
    text = repr(value)
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def _iso(moment: float) -> str:
    """A unix time as ISO 8601 in UTC (or as a number, if it is out of range)."""
    try:
        return datetime.fromtimestamp(moment, tz=UTC).isoformat()
    except (OverflowError, ValueError, OSError):
        return f"{moment!r} (unix time)"


def _check_key(key: object) -> bytes:
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"a token key must be bytes, not {type(key).__name__}")
    if len(key) < MIN_KEY_SIZE:
        raise ValueError(f"a token key must have at least {MIN_KEY_SIZE} bytes, not {len(key)}")
    return bytes(key)


def _check_time(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{what} must be a finite number, not {_shown(value)}")
    return value


# --------------------------------------------------------------------------------------------
# Links


@dataclass(frozen=True)
class TokenLink:
    """One link of a token: the capabilities it grants, until when, and to which sandbox.

    Attributes:
        capabilities: What the token allows from this link on (each link narrows the last).
        expires_at: Unix time after which the token is refused, or None.
        sandbox_id: The only sandbox that may use the token, or None.
        nonce: 16 random bytes in hex, so that equal links still differ.
    """

    capabilities: tuple[MethodCapability, ...]
    expires_at: float | None = None
    sandbox_id: str | None = None
    nonce: str = field(default_factory=lambda: secrets.token_hex(16))
    _json: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        """Check every field, and keep the canonical JSON that the signature covers.

        Raises:
            ValueError: for a field out of range, or a capability without a JSON form.
            TypeError: for a capability that is not a MethodCapability.
        """
        object.__setattr__(self, "capabilities", _capability_tuple(self.capabilities))
        if self.expires_at is not None:
            _check_time(self.expires_at, "expires_at")
        _check_sandbox_id(self.sandbox_id)
        if not isinstance(self.nonce, str) or not _NONCE.fullmatch(self.nonce):
            raise ValueError(f"nonce must be 32 lowercase hex digits, not {_shown(self.nonce)}")
        object.__setattr__(self, "_json", canonical_json(self.to_json()))

    def to_json(self) -> dict[str, Any]:
        """``{"capabilities": [...], "expires_at": ..., "sandbox_id": ..., "nonce": ...}``."""
        return {
            "capabilities": [capability.to_json() for capability in self.capabilities],
            "expires_at": self.expires_at,
            "sandbox_id": self.sandbox_id,
            "nonce": self.nonce,
        }

    @classmethod
    def from_json(cls, data: object) -> TokenLink:
        """The link whose JSON form (:meth:`to_json`) is ``data``; every key is required.

        Raises:
            ValueError: naming the problem.
        """
        if not isinstance(data, dict):
            raise ValueError(f"a link must be a JSON object, not {type(data).__name__}")
        _check_keys(data, "a link", _LINK_KEYS)
        items = data["capabilities"]
        if not isinstance(items, list):
            raise ValueError(f"'capabilities' must be a list, not {type(items).__name__}")
        capabilities = [_capability_from_json(index, item) for index, item in enumerate(items)]
        return cls(tuple(capabilities), data["expires_at"], data["sandbox_id"], data["nonce"])

    def signed(self, key: bytes) -> bytes:
        """``HMAC-SHA256(key, canonical_json(self.to_json()))``."""
        return hmac.new(key, self._json.encode("ascii"), hashlib.sha256).digest()


def _capability_tuple(capabilities: Iterable[MethodCapability]) -> tuple[MethodCapability, ...]:
    if isinstance(capabilities, (str, bytes, MethodCapability)):
        raise TypeError("capabilities must be a list of MethodCapability")
    result = tuple(capabilities)
    for capability in result:
        if not isinstance(capability, MethodCapability):
            raise TypeError(f"expected a MethodCapability, got {_shown(capability)}")
    return result


def _check_sandbox_id(sandbox_id: object) -> None:
    if sandbox_id is None:
        return
    if not isinstance(sandbox_id, str) or not 0 < len(sandbox_id) <= _MAX_SANDBOX_ID:
        raise ValueError(
            f"sandbox_id must be a str of 1 to {_MAX_SANDBOX_ID} characters or None, "
            f"not {_shown(sandbox_id)}"
        )


def _check_keys(data: dict[str, Any], what: str, keys: tuple[str, ...]) -> None:
    for key in data:
        if key not in keys:
            raise ValueError(f"{what} has an unexpected key {_shown(key)}")
    for key in keys:
        if key not in data:
            raise ValueError(f"{what} is missing {key!r}")


def _capability_from_json(index: int, data: object) -> MethodCapability:
    try:
        return MethodCapability.from_json(data)
    except ValueError as error:
        raise ValueError(f"capability {index + 1}: {error}") from None


# --------------------------------------------------------------------------------------------
# Tokens


@dataclass(frozen=True)
class CapabilityToken:
    """An immutable, serialisable, signed chain of :class:`TokenLink`.

    Make one with :meth:`mint` (needs the root key), narrow it with :meth:`attenuate` (no
    key needed), send it as :meth:`serialize` text, read it back with :meth:`parse`, and
    check it with :meth:`verify` (needs the root key) before trusting its capabilities.

    Attributes:
        links: The links, root first (read-only).
        signature: The last link's signature in hex. Not shown by ``repr``: together with
            the links it is the bearer credential.
    """

    links: tuple[TokenLink, ...]
    signature: str = field(repr=False)

    def __post_init__(self) -> None:
        """Check the shape (not the signature: that is :meth:`verify`'s job).

        Raises:
            TokenError: for no links, too many, or a signature that is not 64 hex digits.
        """
        links = tuple(self.links)
        if not links or len(links) > MAX_LINKS:
            raise TokenError(f"a token has 1 to {MAX_LINKS} links, not {len(links)}")
        if not all(isinstance(link, TokenLink) for link in links):
            raise TokenError("every link of a token must be a TokenLink")
        if not isinstance(self.signature, str) or not _SIGNATURE.fullmatch(self.signature):
            raise TokenError("a token's signature must be 64 lowercase hex digits")
        object.__setattr__(self, "links", links)

    # --- making and narrowing -----------------------------------------------------------

    @classmethod
    def mint(
        cls,
        key: bytes,
        capabilities: Iterable[MethodCapability],
        *,
        expires_in: float | None = None,
        sandbox_id: str | None = None,
        now: float | None = None,
    ) -> CapabilityToken:
        """A root token granting ``capabilities``, signed with the root ``key``.

        Args:
            key: The root key (at least 16 bytes; see :func:`generate_key`).
            capabilities: What the token allows.
            expires_in: Seconds from ``now`` until the token is refused (None: never).
            sandbox_id: The only sandbox that may use it (None: any).
            now: The current unix time (default: ``time.time()``).

        Raises:
            TokenError: if the token would be too large to parse back.
            TypeError, ValueError: for a bad key, argument, or a capability with a
                constraint of your own (which has no JSON form).
        """
        link = _new_link(capabilities, expires_in, sandbox_id, now)
        return _parseable(cls((link,), link.signed(_check_key(key)).hex()))

    def attenuate(
        self,
        capabilities: Iterable[MethodCapability],
        *,
        expires_in: float | None = None,
        sandbox_id: str | None = None,
        now: float | None = None,
    ) -> CapabilityToken:
        """This token with one more link, which may only narrow it; no key is needed.

        Every capability must be within the current ones
        (:func:`~corral.capabilities.is_attenuation`); ``expires_in`` may not reach past
        the current expiry (without it, the link adds none: the current one still applies);
        ``sandbox_id`` binds the token, and may not re-bind it to another sandbox.

        Raises:
            TokenError: naming what would widen the token, or if it has too many links.
        """
        if len(self.links) >= MAX_LINKS:
            raise TokenError(f"cannot attenuate: a token has at most {MAX_LINKS} links")
        link = _new_link(capabilities, expires_in, sandbox_id, now)
        problem = is_attenuation(link.capabilities, self.links[-1].capabilities)
        if problem is None:
            problem = self._extension_problem(link)
        if problem is not None:
            raise TokenError(f"cannot attenuate: {problem}")
        signature = link.signed(bytes.fromhex(self.signature)).hex()
        return _parseable(CapabilityToken((*self.links, link), signature))

    def _extension_problem(self, link: TokenLink) -> str | None:
        """How ``link`` would extend the expiry or re-bind the sandbox, or None."""
        current, bound = self.expires_at, self.sandbox_id
        if link.expires_at is not None and current is not None and link.expires_at > current:
            return f"expiry {_iso(link.expires_at)} is later than the token's {_iso(current)}"
        if link.sandbox_id is not None and bound is not None and not within(link.sandbox_id, bound):
            return (
                f"the token is bound to sandbox {_shown(bound)}; it can only be re-bound to a "
                f"sandbox within it ({_shown(bound + '/...')}), not {_shown(link.sandbox_id)}"
            )
        return None

    # --- text form ----------------------------------------------------------------------

    def serialize(self) -> str:
        """URL-safe base64 (unpadded) of ``{"v": 1, "links": [...], "sig": "<hex>"}``."""
        document = {
            "v": _VERSION,
            "links": [link.to_json() for link in self.links],
            "sig": self.signature,
        }
        encoded = base64.urlsafe_b64encode(canonical_json(document).encode("ascii"))
        return encoded.rstrip(b"=").decode("ascii")

    @classmethod
    def parse(cls, text: str) -> CapabilityToken:
        """The token :meth:`serialize` wrote as ``text`` (not yet verified).

        Raises:
            TokenError: for anything that is not a well-formed token of version 1 of at most
                :data:`MAX_TOKEN_SIZE` characters, naming the problem.
        """
        document = _decode(text)
        if not isinstance(document, dict):
            raise TokenError(f"token JSON must be an object, not {type(document).__name__}")
        version = document.get("v")
        if type(version) is not int or version != _VERSION:
            raise TokenError(f"unsupported token version {_shown(version)} (expected 1)")
        try:
            _check_keys(document, "the token", _TOKEN_KEYS)
        except ValueError as error:
            raise TokenError(str(error)) from None
        return cls(_links_from_json(document["links"]), _signature_from_json(document["sig"]))

    # --- checking -----------------------------------------------------------------------

    def verify(
        self, key: bytes, *, sandbox_id: str | None = None, now: float | None = None
    ) -> list[MethodCapability]:
        """Check the token and return its effective capabilities (the last link's).

        Checks, in order: the signature chain against the root ``key``; that each link is
        within the one before it; every link's expiry against ``now`` (default
        ``time.time()``); that every sandbox binding is ``sandbox_id``.

        Raises:
            TokenError: naming the first failed check, e.g.
                ``token signature does not match (forged or tampered)``,
                ``link 2 widens link 1: ...``, ``token expired at <ISO time>``,
                ``token is bound to sandbox 'a', not 'b'``.
            TypeError, ValueError: for a bad key or ``now`` (a host error, not the token's).
        """
        root = _check_key(key)
        moment = time.time() if now is None else _check_time(now, "now")
        if not hmac.compare_digest(self._chain(root), bytes.fromhex(self.signature)):
            raise TokenError("token signature does not match (forged or tampered)")
        for number in range(1, len(self.links)):
            problem = is_attenuation(
                self.links[number].capabilities, self.links[number - 1].capabilities
            )
            if problem is not None:
                raise TokenError(f"link {number + 1} widens link {number}: {problem}")
        self._check_expiry(moment)
        self._check_binding(sandbox_id)
        return list(self.links[-1].capabilities)

    def _chain(self, key: bytes) -> bytes:
        signature = key
        for link in self.links:
            signature = link.signed(signature)
        return signature

    def _check_expiry(self, moment: float) -> None:
        expires_at = self.expires_at
        if expires_at is not None and moment >= expires_at:
            raise TokenError(f"token expired at {_iso(expires_at)}")

    def _check_binding(self, sandbox_id: str | None) -> None:
        for link in self.links:
            if link.sandbox_id is None or (sandbox_id and within(sandbox_id, link.sandbox_id)):
                continue
            if sandbox_id is None:
                raise TokenError(
                    f"token is bound to sandbox {_shown(link.sandbox_id)}, but no sandbox id "
                    "was given"
                )
            raise TokenError(
                f"token is bound to sandbox {_shown(link.sandbox_id)}, not {_shown(sandbox_id)}"
            )

    # --- effective values ---------------------------------------------------------------

    @property
    def expires_at(self) -> float | None:
        """The earliest expiry of any link (unix time), or None if none expires."""
        times = [link.expires_at for link in self.links if link.expires_at is not None]
        return min(times) if times else None

    @property
    def sandbox_id(self) -> str | None:
        """The sandbox the token is bound to (the last, narrowest binding), or None."""
        bindings = [link.sandbox_id for link in self.links if link.sandbox_id]
        return bindings[-1] if bindings else None


def within(sandbox_id: str, bound: str) -> bool:
    """Whether ``sandbox_id`` is the sandbox ``bound`` or one delegated from it: sandbox ids
    are paths (``parent/child/grandchild``), so a binding covers its descendants."""
    return sandbox_id == bound or sandbox_id.startswith(bound + "/")


def _new_link(
    capabilities: Iterable[MethodCapability],
    expires_in: float | None,
    sandbox_id: str | None,
    now: float | None,
) -> TokenLink:
    expires_at = None
    if expires_in is not None:
        if _check_time(expires_in, "expires_in") < 0:
            raise ValueError(f"expires_in must not be negative, not {expires_in!r}")
        start = time.time() if now is None else _check_time(now, "now")
        expires_at = start + expires_in
    return TokenLink(_capability_tuple(capabilities), expires_at, sandbox_id)


def _parseable(token: CapabilityToken) -> CapabilityToken:
    """``token`` if its text form parses back (size, nesting), else TokenError."""
    try:
        CapabilityToken.parse(token.serialize())
    except TokenError as error:
        raise TokenError(f"this token could not be read back: {error.reason}") from None
    return token


def _decode(text: object) -> object:
    """The JSON document inside a serialised token."""
    if not isinstance(text, str):
        raise TokenError(f"a token must be a str, not {type(text).__name__}")
    if len(text) > MAX_TOKEN_SIZE:
        raise TokenError(f"token is longer than {MAX_TOKEN_SIZE} characters")
    text = text.strip(" \t\r\n")
    bad = _NOT_BASE64URL.search(text)
    if bad is not None:
        raise TokenError(f"token is not URL-safe base64: {_shown(bad[0])} at index {bad.start()}")
    if not _BASE64URL.fullmatch(text):
        raise TokenError("token is not URL-safe base64: '=' before its end")
    body = text.rstrip("=")
    if len(body) % 4 == 1:
        raise TokenError("token is not URL-safe base64: its length is impossible")
    try:
        raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
        return _json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise TokenError(f"token is not base64 of JSON ({type(error).__name__})") from None


def _links_from_json(items: object) -> tuple[TokenLink, ...]:
    if not isinstance(items, list) or not 0 < len(items) <= MAX_LINKS:
        raise TokenError(f"'links' must be a list of 1 to {MAX_LINKS} links")
    links = []
    for index, item in enumerate(items):
        try:
            links.append(TokenLink.from_json(item))
        except (ValueError, TypeError, RecursionError) as error:
            raise TokenError(f"link {index + 1}: {error}") from None
    return tuple(links)


def _signature_from_json(signature: object) -> str:
    if not isinstance(signature, str) or not _SIGNATURE.fullmatch(signature):
        raise TokenError("'sig' must be 64 lowercase hex digits")
    return signature
