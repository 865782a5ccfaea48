"""Authority from the shell: every denial path of `tool`, with the exact line the model sees,
and exact replay of shell executions (pipelines, tools, `date`, `$RANDOM`, `sleep`)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from corral import (
    CapabilityToken,
    Limits,
    MethodCapability,
    Param,
    Sandbox,
    Trace,
    replay,
    replay_all,
)

KEY = b"k" * 32
calls = {"n": 0}


def pay(amount: int, to: str = "bob") -> str:
    """Pay someone."""
    calls["n"] += 1
    return f"paid {amount} to {to}"


def lookup(key: str) -> dict[str, Any]:
    """Look something up (answers change from call to call, so replay must not call it)."""
    calls["n"] += 1
    rows = [{"region": "eu", "v": 2}, {"region": "us", "v": 3}]
    return {"key": key, "n": calls["n"], "rows": rows}


def boom(x: int = 0) -> str:
    """Always fails."""
    raise RuntimeError("the backend is down")


def sandbox(**kwargs: Any) -> Sandbox:
    kwargs.setdefault("tools", [pay, lookup, boom])
    kwargs.setdefault("limits", Limits(timeout=5))
    return Sandbox(**kwargs)


def sh(box: Sandbox, code: str) -> tuple[str, str, int]:
    result = box.execute(code, language="shell")
    return result.stdout, result.stderr, result.exit_code


CAPS = [
    MethodCapability("pay", [Param("amount") <= 10], max_calls=2),
    MethodCapability("boom"),
]


@pytest.mark.parametrize(
    ("code", "stderr"),
    [
        ("tool lookup --key x", "tool: lookup denied: no capability matches 'lookup'\n"),
        ("tool pay --amount 50", "tool: pay denied: amount <= 10 failed (amount = 50)\n"),
        (
            "tool pay",
            "tool: pay: missing required parameter 'amount' (call as tool pay --amount ...)\n",
        ),
        (
            """tool pay --json '{"amount": "5"}'""",
            """tool: pay: parameter 'amount' must be an integer, got a string ("5")\n""",
        ),
        ("tool pay --amount abc", "tool: pay: --amount: expected an integer, got 'abc'\n"),
        ("tool nosuch --a 1", "tool: unknown tool 'nosuch' (try tool --list)\n"),
        ("tool boom", "tool: boom failed: RuntimeError: the backend is down\n"),
    ],
)
def test_denials_and_errors_print_one_line_and_exit_1(code: str, stderr: str) -> None:
    box = sandbox(capabilities=CAPS)
    before = calls["n"]
    assert sh(box, code) == ("", stderr, 1)
    assert calls["n"] == before  # nothing ran


def test_budget_denial_from_the_shell() -> None:
    box = sandbox(capabilities=CAPS)
    out, err, status = sh(box, "tool pay --amount 5; tool pay --amount 6; tool pay --amount 7")
    assert out == '"paid 5 to bob"\n"paid 6 to bob"\n'
    assert err == "tool: pay denied: max_calls=2 for 'pay' exhausted (2 calls made)\n"
    assert status == 1
    assert box.remaining_calls() == {"pay": 0, "boom": None}


def test_execution_budget_and_approval_from_the_shell() -> None:
    box = sandbox(capabilities=[MethodCapability("pay")], limits=Limits(max_tool_calls=1))
    assert sh(box, "tool pay --amount 1; tool pay --amount 2") == (
        '"paid 1 to bob"\n',
        "tool: pay denied: execution max_calls=1 exhausted (1 call made)\n",
        1,
    )
    refusing = sandbox(
        capabilities=[MethodCapability("pay", requires_approval=True)], approve=lambda call: False
    )
    assert sh(refusing, "tool pay --amount 1") == ("", "tool: pay denied: approval refused\n", 1)


def test_token_limits_and_expiry_apply_to_the_shell() -> None:
    token = CapabilityToken.mint(KEY, [MethodCapability("pay", [Param("to") == "bob"])])
    box = sandbox(token=token, key=KEY)
    assert sh(box, "tool pay --amount 3 --to bob")[0] == '"paid 3 to bob"\n'
    out, err, status = sh(box, "tool pay --amount 3")  # fail closed: `to` is not given
    assert (out, status) == ("", 1)
    assert err.startswith("tool: pay denied: to == 'bob' failed") and "missing" in err
    assert sh(box, "tool pay --amount 3 --to eve") == (
        "",
        "tool: pay denied: to == 'bob' failed (to = 'eve')\n",
        1,
    )
    short = CapabilityToken.mint(KEY, [MethodCapability("pay")], expires_in=0.2)
    expiring = sandbox(token=short, key=KEY)
    time.sleep(0.3)
    out, err, status = sh(expiring, "tool pay --amount 1")
    assert (out, status) == ("", 1)
    assert err.startswith("tool: pay denied: ") and "expired" in err, err


def test_a_denial_inside_a_pipeline_and_under_set_e() -> None:
    box = sandbox(capabilities=CAPS)
    out, err, status = sh(box, 'set -o pipefail; tool lookup --key x | jq .key; echo "status $?"')
    assert (out, status) == ("status 1\n", 0)
    assert err == "tool: lookup denied: no capability matches 'lookup'\n"
    out, err, status = sh(box, "set -e; tool pay --amount 99; echo never")
    assert (out, status) == ("", 1)


def test_denied_shell_calls_are_audited_with_their_rule() -> None:
    box = sandbox(capabilities=CAPS)
    result = box.execute("tool pay --amount 50; tool pay --amount 5", language="shell")
    denied, allowed = result.tool_calls
    assert (denied.allowed, denied.rule) == (False, "amount <= 10 failed (amount = 50)")
    assert allowed.allowed
    decisions = [(e.method, e.decision) for e in box.audit(kind="tool_call")]
    assert decisions == [("pay", "denied"), ("pay", "allowed")]


def test_replay_of_a_shell_pipeline_with_tools_date_random_and_sleep() -> None:
    box = sandbox(capabilities=[MethodCapability("**")])
    code = """
    tool lookup --key a | jq -r '.rows[] | "\\(.region),\\(.v)"' > rows.csv
    tool lookup --key b | jq .n
    sort -t, -k2 -rn rows.csv | head -n 1
    echo "random $RANDOM $RANDOM"
    date +%s.%N
    sleep 0.01
    date -u +%Y-%m-%dT%H:%M:%S
    """
    original = box.execute(code, language="shell")
    assert original.exit_code == 0, original.stderr
    assert original.stdout.splitlines()[1] == "us,3"
    before = calls["n"]
    replayed = replay(Trace.from_jsonl(box.trace.to_jsonl()))
    assert replayed == original
    assert calls["n"] == before


def test_replay_of_a_shell_session_and_js_shell_mix() -> None:
    box = sandbox(capabilities=[MethodCapability("**")])
    results = [
        box.execute("X=$RANDOM; cd /tmp; echo $X > x", language="shell"),
        box.execute("cat x; echo $PWD; tool lookup --key k | jq .n", language="shell"),
        box.execute(
            "const r = await shell.exec('tool lookup --key j | jq .n');"
            "return [r.stdout, Math.random()]"
        ),
    ]
    assert replay_all(box.trace) == results


def test_random_is_seeded_from_the_host() -> None:
    code = "echo $RANDOM $RANDOM $RANDOM"
    one = sandbox(seed=7).execute(code, language="shell").stdout
    two = sandbox(seed=7).execute(code, language="shell").stdout
    other = sandbox(seed=8).execute(code, language="shell").stdout
    assert one == two
    assert one != other
    # the clock does not seed it: a fixed seed with different clocks gives the same numbers
    late = sandbox(seed=7, clock=2_000_000_000.0).execute(code, language="shell").stdout
    assert late == one


def test_mktemp_and_urandom_are_seeded_and_replay_exactly() -> None:
    code = "mktemp; mktemp -d -p . XXXXXX; head -c 12 /dev/urandom | od -An -tx1"
    one = sandbox(seed=7).execute(code, language="shell").stdout
    two = sandbox(seed=7).execute(code, language="shell").stdout
    other = sandbox(seed=8).execute(code, language="shell").stdout
    assert one == two != other
    names = one.splitlines()
    assert names[0].startswith("/tmp/tmp.") and len(names[0]) == len("/tmp/tmp.") + 10
    assert len(names[2].split()) == 12
    box = sandbox()
    results = [box.execute(code, language="shell") for _ in range(2)]
    assert results[0].stdout != results[1].stdout
    assert replay_all(box.trace) == results
