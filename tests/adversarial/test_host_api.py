"""Misuse of the host API (threat class T-API): wrong types, impossible limits, tampered
snapshots, traces and tokens, reentrancy. Each misuse raises at once a clear error of the
documented type (never an AttributeError or a hang), and leaves the sandbox usable with its
files intact."""

from __future__ import annotations

import asyncio
import base64
import json
import math
import threading
from collections.abc import Callable
from typing import Any

import pytest

from corral import (
    CapabilityToken,
    Limits,
    MethodCapability,
    Param,
    Sandbox,
    TokenError,
    ToolDefinition,
    replay,
)

CANARY = b"canary\n"
EMPTY = {"type": "object", "properties": {}}
KEY = b"a root key of at least 16 bytes!"


def tampered(data: bytes) -> bytes:
    flipped = bytearray(data)
    flipped[len(flipped) // 2] ^= 0xFF
    return bytes(flipped)


def forged_token() -> str:
    """A real token whose bound was widened from 10 to 10,000 after signing."""
    token = CapabilityToken.mint(KEY, [MethodCapability("pay", [Param("amount") <= 10])])
    document = json.loads(base64.urlsafe_b64decode(token.serialize() + "=="))
    document["links"][0]["capabilities"][0]["constraints"][0]["value"] = 10_000
    text = json.dumps(document, sort_keys=True, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(text).rstrip(b"=").decode()


# (id, what the host does to the sandbox, the error it must raise, a phrase of its message)
MISUSES: list[tuple[str, Callable[[Sandbox], Any], type[BaseException], str]] = [
    ("API-001", lambda sb: sb.execute(None), TypeError, "str"),  # type: ignore[arg-type]
    ("API-002", lambda sb: sb.execute(5), TypeError, "str"),  # type: ignore[arg-type]
    ("API-003", lambda sb: sb.execute(b"return 1"), TypeError, "str"),  # type: ignore[arg-type]
    ("API-004", lambda sb: sb.execute("1", language=5), TypeError, "language"),  # type: ignore[arg-type]
    ("API-005", lambda sb: sb.execute("1", language="python"), ValueError, "javascript"),
    ("API-006", lambda sb: sb.execute("cat", language="shell", stdin=5), TypeError, "stdin"),  # type: ignore[arg-type]
    ("API-007", lambda sb: sb.fs.write("/etc/x", b"x"), PermissionError, "/etc/x"),
    ("API-008", lambda sb: sb.fs.read("missing"), FileNotFoundError, "missing"),
    ("API-009", lambda sb: sb.fs.listdir("nope"), FileNotFoundError, "nope"),
    ("API-010", lambda sb: sb.restore(b"garbage"), ValueError, "snapshot"),
    ("API-011", lambda sb: sb.restore(b""), ValueError, "snapshot"),
    ("API-012", lambda sb: sb.restore(tampered(sb.snapshot())), ValueError, "snapshot"),
    ("API-013", lambda sb: replay("garbage"), ValueError, "trace"),
    ("API-014", lambda sb: replay('{"kind": "nothing"}\n'), ValueError, "trace"),
    ("API-015", lambda sb: Limits(timeout=math.inf), ValueError, "timeout"),
    ("API-016", lambda sb: Limits(timeout=1e300), ValueError, "timeout"),
    ("API-017", lambda sb: Limits(timeout=True), TypeError, "timeout"),
    ("API-018", lambda sb: Limits(timeout=math.nan), ValueError, "timeout"),
    ("API-019", lambda sb: Limits(timeout=-1), ValueError, "timeout"),
    ("API-020", lambda sb: Limits(memory=1024), ValueError, "memory"),
    ("API-021", lambda sb: Limits(max_output=0), ValueError, "max_output"),
    ("API-022", lambda sb: Param("amount") <= math.nan, ValueError, "nan"),  # noqa: PLW0177
    ("API-023", lambda sb: Param("amount") > math.inf, ValueError, "inf"),
    ("API-024", lambda sb: MethodCapability("a//b"), ValueError, "empty segment"),
    ("API-025", lambda sb: MethodCapability("a", max_calls=-1), ValueError, "max_calls"),
    ("API-026", lambda sb: Sandbox(tools=[object()]), TypeError, "tool"),  # type: ignore[list-item]
    ("API-027", lambda sb: Sandbox(tools=[lambda x: x]), ValueError, "name"),
    (
        "API-028",
        lambda sb: Sandbox(
            tools=[
                ToolDefinition("a/b", "", EMPTY, lambda: 1),
                ToolDefinition("a_b", "", EMPTY, lambda: 1),
            ]
        ),
        ValueError,
        "a_b",
    ),
    ("API-029", lambda sb: Sandbox(token="garbage", key=KEY), TokenError, "token"),
    ("API-030", lambda sb: Sandbox(token=forged_token(), key=KEY), TokenError, "signature"),
    ("API-031", lambda sb: Sandbox(tools=[], key=b"short"), ValueError, "key"),
    (
        "API-032",
        lambda sb: Sandbox(
            capabilities=[MethodCapability("pay", [Param("amount") <= 10])], key=KEY
        ).delegate([MethodCapability("pay", [Param("amount") <= 1000])]),
        TokenError,
        "not within",
    ),
    ("API-033", lambda sb: sb.fs.write("big", b"x" * (9 * 1024 * 1024)), OSError, "big"),
]


@pytest.fixture
def sandbox() -> Sandbox:
    box = Sandbox(limits=Limits(timeout=2, max_file_size=8 * 1024 * 1024))
    box.fs.write("canary.txt", CANARY)
    return box


def still_whole(sandbox: Sandbox) -> None:
    assert sandbox.fs.read("canary.txt") == CANARY
    assert sandbox.execute("return 6 * 7").return_value == 42


@pytest.mark.parametrize(
    ("misuse", "error", "phrase"),
    [pytest.param(m, e, p, id=i) for i, m, e, p in MISUSES],
)
def test_misuse_raises_a_clear_error(
    sandbox: Sandbox, misuse: Callable[[Sandbox], Any], error: type[BaseException], phrase: str
) -> None:
    with pytest.raises(error) as raised:
        misuse(sandbox)
    assert phrase.lower() in str(raised.value).lower()
    still_whole(sandbox)


def test_api_034_language_none_is_a_type_error(sandbox: Sandbox) -> None:
    with pytest.raises(TypeError, match="language must be a str"):
        sandbox.execute("return 1", language=None)  # type: ignore[arg-type]
    still_whole(sandbox)


def test_api_035_reentrant_execute_is_refused_at_once() -> None:
    holder: list[Sandbox] = []

    def again() -> Any:
        """Runs code in its own sandbox."""
        return holder[0].execute("return 1").return_value

    sandbox = Sandbox(tools=[again], limits=Limits(timeout=2))
    holder.append(sandbox)
    result = sandbox.execute("try { await again({}) } catch (e) { return e.message }")
    assert "this sandbox's own execution" in str(result.return_value)


@pytest.mark.needs_native("starts threads")
def test_api_036_two_threads_share_one_sandbox(sandbox: Sandbox) -> None:
    results: list[Any] = []

    def run(n: int) -> None:
        results.append(sandbox.execute(f"return {n}").return_value)

    threads = [threading.Thread(target=run, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(results) == list(range(8))
    still_whole(sandbox)


def test_api_037_a_cancelled_aexecute_leaves_the_sandbox_whole(sandbox: Sandbox) -> None:
    async def main() -> None:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(
                sandbox.aexecute("await new Promise(r => setTimeout(r, 5000))"), 0.2
            )

    asyncio.run(main())
    still_whole(sandbox)


def test_api_038_huge_code_is_an_error_not_a_crash(sandbox: Sandbox) -> None:
    result = sandbox.execute("//" + "x" * (8 * 1024 * 1024) + "\nreturn 1")
    assert result.return_value == 1 or result.error is not None
    still_whole(sandbox)
