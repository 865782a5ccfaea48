"""Background jobs in the shell (`cmd &`, `wait`, `kill`, `jobs`) through the public API:
tool calls started with `&` reach the host together, and limits, denials and replay hold."""

from __future__ import annotations

import asyncio
from typing import Any

from corral import Limits, MethodCapability, Param, Sandbox, replay

barrier = {"b": asyncio.Barrier(3)}


async def fetch(city: str) -> dict[str, Any]:
    """Fetch a city; returns only when three fetches are in flight at once."""
    await asyncio.wait_for(barrier["b"].wait(), timeout=2)
    return {"city": city, "temp": len(city)}


def pay(amount: int) -> str:
    """Pay."""
    return f"paid {amount}"


def box(**kwargs: Any) -> Sandbox:
    kwargs.setdefault("tools", [fetch, pay])
    kwargs.setdefault("limits", Limits(timeout=5))
    return Sandbox(**kwargs)


def test_tool_calls_started_with_ampersand_run_at_the_same_time() -> None:
    barrier["b"] = asyncio.Barrier(3)
    sandbox = box()
    code = """
    for city in SF Paris Oslo; do
        tool fetch --city "$city" > "$city.json" &
    done
    wait
    cat SF.json Paris.json Oslo.json | jq -c '[.city, .temp]'
    """
    result = sandbox.execute(code, language="shell")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == '["SF",2]\n["Paris",5]\n["Oslo",4]\n'
    assert [call.method for call in result.tool_calls] == ["fetch"] * 3


def test_one_after_another_the_same_calls_time_out_on_the_barrier() -> None:
    # The control for the test above: without `&` the barrier never fills.
    barrier["b"] = asyncio.Barrier(3)
    result = box().execute("tool fetch --city SF", language="shell")
    assert result.exit_code == 1
    assert "TimeoutError" in result.stderr


def test_a_denied_call_in_a_job_reports_through_wait() -> None:
    sandbox = box(capabilities=[MethodCapability("pay", [Param("amount") <= 10])])
    code = 'tool pay --amount 50 & p=$!; tool pay --amount 5 & wait $p; echo "job $?"; wait'
    result = sandbox.execute(code, language="shell")
    assert sorted(result.stdout.splitlines()) == ['"paid 5"', "job 1"]
    assert "amount <= 10 failed (amount = 50)" in result.stderr
    assert [(c.params["amount"], c.allowed) for c in result.tool_calls] == [
        (50, False),
        (5, True),
    ]


def test_a_job_that_never_ends_times_out_and_the_sandbox_stays_usable() -> None:
    sandbox = box(limits=Limits(timeout=0.5))
    sandbox.fs.write("/workspace/keep.txt", b"kept\n")
    result = sandbox.execute("while :; do :; done & echo started", language="shell")
    assert result.error_kind == "timeout"
    assert result.stdout == "started\n"
    after = sandbox.execute("cat keep.txt; jobs; echo $?", language="shell")
    assert (after.stdout, after.exit_code) == ("kept\n0\n", 0)


def test_kill_ends_a_job_and_the_execution_goes_on() -> None:
    code = 'while :; do :; done & kill %1; wait %1; echo "status $?"; jobs'
    result = box().execute(code, language="shell")
    assert (result.stdout, result.exit_code) == ("status 143\n", 0)


def test_replay_of_background_tool_calls_is_exact() -> None:
    sandbox = box(tools=[pay])
    code = "for a in 1 2 3; do tool pay --amount $a & done; wait; echo done $!"
    original = sandbox.execute(code, language="shell")
    assert original.exit_code == 0, original.stderr
    lines = sorted(original.stdout.splitlines())
    assert lines == ['"paid 1"', '"paid 2"', '"paid 3"', "done 1003"]
    assert replay(sandbox.trace) == original


def test_javascript_shell_exec_runs_jobs_too() -> None:
    barrier["b"] = asyncio.Barrier(3)
    code = (
        "const r = await shell.exec("
        "'for c in a bb ccc; do tool fetch --city $c | jq -c .temp & done; wait');"
        "return r.stdout.split('\\n').filter(Boolean).sort().join(',')"
    )
    result = box().execute(code)
    assert result.stdout == "1,2,3", result.stderr


def test_a_killed_jobs_sleep_does_not_hold_the_execution() -> None:
    # The time limit is shorter than the job's sleep: waiting for it would be a timeout.
    sandbox = box(limits=Limits(timeout=1))
    code = "sleep 5 & sleep 0.05; kill %1; wait; echo done; sleep 30 & kill $!"
    result = sandbox.execute(code, language="shell")
    assert (result.stdout, result.exit_code, result.error_kind) == ("done\n", 0, None)
    assert replay(sandbox.trace) == result


def test_a_short_sleep_ends_before_a_long_one_started_with_it() -> None:
    sandbox = box(limits=Limits(timeout=1))
    code = "{ sleep 5; echo late; } & sleep 0.05; echo early; kill %1"
    result = sandbox.execute(code, language="shell")
    assert (result.stdout, result.error_kind) == ("early\n", None)
