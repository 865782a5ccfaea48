"""Tokens, delegation, approvals and budgets, enforced by a sandbox on every call."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

from corral import (
    ApprovalRequest,
    CapabilityToken,
    Limits,
    MethodCapability,
    Param,
    Sandbox,
    TokenError,
)

KEY = b"k" * 32


def pay(amount: int, to: str = "bob") -> str:
    """Pay someone."""
    return f"paid {amount} to {to}"


def refund(amount: int) -> str:
    """Refund."""
    return f"refunded {amount}"


def error_of(sandbox: Sandbox, code: str) -> str | None:
    return sandbox.execute(code).error


def test_sandbox_enforces_a_token() -> None:
    token = CapabilityToken.mint(KEY, [MethodCapability("pay", [Param("amount") <= 100])])
    sandbox = Sandbox(tools=[pay, refund], token=token.serialize(), key=KEY)
    assert sandbox.execute("return await pay({amount: 5})").return_value == "paid 5 to bob"
    assert error_of(sandbox, "await pay({amount: 500})") == (
        "CapabilityError: pay denied: amount <= 100 failed (amount = 500)"
    )
    assert error_of(sandbox, "await refund({amount: 1})") == (
        "CapabilityError: refund denied: no capability matches 'refund'"
    )


def _tamper(text: str, change: Any) -> str:
    padded = text + "=" * (-len(text) % 4)
    data = json.loads(base64.urlsafe_b64decode(padded))
    change(data)
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _widen(data: dict[str, Any]) -> None:
    data["links"][0]["capabilities"][0]["pattern"] = "**"


def _resign(data: dict[str, Any]) -> None:
    data["sig"] = "0" * 64


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (_widen, "signature does not match"),
        (_resign, "signature does not match"),
        (lambda data: data["links"].pop(), "signature does not match"),
    ],
)
def test_tampered_tokens_are_refused(change: Any, reason: str) -> None:
    token = CapabilityToken.mint(KEY, [MethodCapability("pay", [Param("amount") <= 5])])
    token = token.attenuate([MethodCapability("pay", [Param("amount") <= 1])])
    with pytest.raises(TokenError, match=reason):
        Sandbox(tools=[pay], token=_tamper(token.serialize(), change), key=KEY)
    with pytest.raises(TokenError, match="token"):
        Sandbox(tools=[pay], token=token.serialize()[:-6], key=KEY)


def test_wrong_key_expired_and_foreign_bound_tokens_are_refused() -> None:
    token = CapabilityToken.mint(KEY, [MethodCapability("pay")])
    with pytest.raises(TokenError, match="signature does not match"):
        Sandbox(tools=[pay], token=token, key=b"x" * 32)
    expired = CapabilityToken.mint(KEY, [MethodCapability("pay")], expires_in=10, now=1000.0)
    with pytest.raises(TokenError, match="expired"):
        Sandbox(tools=[pay], token=expired, key=KEY)
    bound = CapabilityToken.mint(KEY, [MethodCapability("pay")], sandbox_id="a")
    with pytest.raises(TokenError, match="bound to sandbox 'a'"):
        Sandbox(tools=[pay], token=bound, key=KEY)
    assert (
        Sandbox(tools=[pay], token=bound, key=KEY, sandbox_id="a")
        .execute("return await pay({amount: 1})")
        .ok
    )


def test_token_needs_a_key_and_excludes_capabilities() -> None:
    token = CapabilityToken.mint(KEY, [MethodCapability("pay")])
    with pytest.raises(TokenError, match="key="):
        Sandbox(tools=[pay], token=token)
    with pytest.raises(ValueError, match="either capabilities"):
        Sandbox(tools=[pay], token=token, key=KEY, capabilities=[MethodCapability("pay")])


def test_a_token_that_expires_while_in_use_denies_calls() -> None:
    token = CapabilityToken.mint(KEY, [MethodCapability("pay")], expires_in=0.3)
    sandbox = Sandbox(tools=[pay], token=token, key=KEY)
    assert sandbox.execute("return await pay({amount: 1})").ok
    import time

    time.sleep(0.35)
    error = error_of(sandbox, "await pay({amount: 1})")
    assert error is not None
    assert error.startswith("CapabilityError: pay denied: the capability token expired at ")
    assert not sandbox.can_call("pay", {"amount": 1})


def test_delegate_narrows_and_never_widens() -> None:
    parent = Sandbox(
        tools=[pay, refund],
        capabilities=[
            MethodCapability("pay", [Param("amount") <= 100]),
            MethodCapability("refund"),
        ],
        key=KEY,
    )
    child = parent.delegate([MethodCapability("pay", [Param("amount") <= 10])])
    assert child.execute("return await pay({amount: 10})").ok
    assert error_of(child, "await pay({amount: 50})") == (
        "CapabilityError: pay denied: amount <= 10 failed (amount = 50)"
    )
    assert error_of(child, "await refund({amount: 1})") == (
        "CapabilityError: refund denied: no capability matches 'refund'"
    )
    with pytest.raises(TokenError):
        parent.delegate([MethodCapability("pay", [Param("amount") <= 1000])])
    with pytest.raises(TokenError):
        child.delegate([MethodCapability("refund")])
    grandchild = child.delegate([MethodCapability("pay", [Param("amount") <= 1])])
    assert grandchild.execute("return await pay({amount: 1})").ok
    # The child's token is bound to the child: it does not work in another sandbox.
    assert child.token is not None
    with pytest.raises(TokenError, match="bound to sandbox"):
        Sandbox(tools=[pay], token=child.token, key=KEY)
    # Delegated sandboxes share the parent's audit trail.
    assert {e.sandbox_id for e in parent.audit(kind="tool_call")} >= {child.id, grandchild.id}


def test_delegate_without_a_key_signs_with_one_of_its_own() -> None:
    parent = Sandbox(tools=[pay])
    child = parent.delegate([MethodCapability("pay", [Param("amount") <= 1])])
    assert child.execute("return await pay({amount: 1})").ok
    assert child.execute("await pay({amount: 2})").error == (
        "CapabilityError: pay denied: amount <= 1 failed (amount = 2)"
    )
    assert child.token is not None
    with pytest.raises(TokenError, match="signature does not match"):
        Sandbox(tools=[pay], token=child.token, key=KEY, sandbox_id=child.id)


def test_approval_sync_async_refused_and_missing() -> None:
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request)
        return request.params["amount"] < 50

    caps = [MethodCapability("pay", requires_approval=True, max_calls=5)]
    sandbox = Sandbox(tools=[pay], capabilities=caps, approve=approve)
    assert sandbox.execute("return await pay({amount: 10})").return_value == "paid 10 to bob"
    result = sandbox.execute("await pay({amount: 90})")
    assert result.error == "CapabilityError: pay denied: approval refused"
    assert [r.params["amount"] for r in asked] == [10, 90]
    assert asked[0].rule == "pay (max_calls=5) (requires approval)"
    assert sandbox.remaining_calls() == {"pay": 4}  # a refused call uses no budget
    (record,) = result.tool_calls
    assert (record.allowed, record.rule) == (False, "approval refused")

    async def approve_async(request: ApprovalRequest) -> bool:
        await asyncio.sleep(0)
        return True

    async_box = Sandbox(tools=[pay], capabilities=caps, approve=approve_async)
    assert async_box.execute("return await pay({amount: 99})").ok
    assert asyncio.run(async_box.aexecute("return await pay({amount: 98})")).ok

    no_approver = Sandbox(tools=[pay], capabilities=caps)
    assert error_of(no_approver, "await pay({amount: 1})") == (
        "CapabilityError: pay denied: requires approval but no approver"
    )

    def broken(request: ApprovalRequest) -> bool:
        raise RuntimeError("approver down")

    assert error_of(
        Sandbox(tools=[pay], capabilities=caps, approve=broken), "await pay({amount: 1})"
    ) == ("CapabilityError: pay denied: approval refused")


def test_sandbox_tool_and_execution_budgets() -> None:
    sandbox = Sandbox(
        tools=[pay, refund],
        max_calls=4,
        max_calls_per_tool={"refund": 1},
        limits=Limits(max_tool_calls=2),
    )
    result = sandbox.execute(
        "for (let i = 0; i < 3; i++) {"
        " try { await pay({amount: i}) } catch (e) { return e.message } }"
    )
    assert result.return_value == "pay denied: execution max_calls=2 exhausted (2 calls made)"
    assert sandbox.execute("return await refund({amount: 1})").ok
    assert error_of(sandbox, "await refund({amount: 1})") == (
        "CapabilityError: refund denied: max_calls=1 for tool 'refund' exhausted (1 call made)"
    )
    assert sandbox.execute("return await pay({amount: 1})").ok
    assert error_of(sandbox, "await pay({amount: 1})") == (
        "CapabilityError: pay denied: sandbox max_calls=4 exhausted (4 calls made)"
    )


def test_every_js_spelling_reaches_the_one_canonical_check() -> None:
    seen: list[str] = []

    def handler(name: str, params: dict[str, Any]) -> str:
        seen.append(name)
        return name

    sandbox = Sandbox(
        tools=[{"name": "stripe/charges/create"}],
        tool_handler=handler,
        capabilities=[MethodCapability("stripe/charges/*", [Param("amount") <= 5])],
    )
    for spelling in ("stripe_charges_create", "stripe.charges.create"):
        assert sandbox.execute(f"return await {spelling}({{amount: 1}})").ok
        assert error_of(sandbox, f"await {spelling}({{amount: 9}})") == (
            "CapabilityError: stripe/charges/create denied: amount <= 5 failed (amount = 9)"
        )
    assert seen == ["stripe/charges/create"] * 2
