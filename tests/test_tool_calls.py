"""Tool calls from JavaScript: naming, arguments, errors, concurrency and the capability check."""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import Any

import pytest

from corral import (
    CapabilityError,
    Limits,
    MethodCapability,
    Param,
    Sandbox,
    SandboxTool,
    ToolDefinition,
    create_sandbox_tool,
)


def get_weather(city: str) -> dict[str, Any]:
    """Get weather for a city."""
    return {"city": city, "temp": 72}


def transfer_money(amount: float, currency: str) -> dict[str, Any]:
    """Move money.

    Args:
        amount: How much.
        currency: ISO code.
    """
    return {"sent": amount, "currency": currency}


def test_issue_examples_exactly() -> None:
    sandbox = create_sandbox_tool(tools=[get_weather])
    code = "const w = await get_weather({city: 'SF'}); console.log(w);"
    assert sandbox.run(code, language="javascript") == '{"city":"SF","temp":72}\n'
    assert sandbox.run('return "hello"', language="javascript") == "hello"
    assert sandbox.run("return {a: 1, b: 2}", language="javascript") == '{"a":1,"b":2}'
    assert sandbox.run("const x = 42;", language="javascript") == ""


def test_constraints_and_budget_from_the_dict_form() -> None:
    tool = create_sandbox_tool(
        tools=[transfer_money],
        constraints={"transfer_money": {"amount": "<=1000", "currency": ["USD", "EUR"]}},
        max_calls={"transfer_money": 10},
    )
    call = "return await transfer_money({amount: %s, currency: %r})"
    assert tool.run(call % (500, "USD")) == '{"sent":500,"currency":"USD"}'
    assert tool.run(call % (5000, "USD")) == (
        "CapabilityError: transfer_money denied: amount <= 1000 failed (amount = 5000)\n"
    )
    assert tool.run(call % (5, "GBP")) == (
        "CapabilityError: transfer_money denied: currency in ['USD', 'EUR'] failed "
        "(currency = 'GBP')\n"
    )
    for _ in range(9):
        assert tool.run(call % (1, "EUR")).startswith('{"sent":1')
    assert tool.run(call % (500, "USD")) == (
        "CapabilityError: transfer_money denied: max_calls=10 for 'transfer_money' "
        "exhausted (10 calls made)\n"
    )
    assert tool.sandbox.remaining_calls() == {"transfer_money": 0}


def test_bad_constraint_spec_fails_at_construction() -> None:
    with pytest.raises(ValueError, match="transfer_money"):
        create_sandbox_tool(
            tools=[transfer_money], constraints={"transfer_money": {"amount": "~5"}}
        )


def test_denial_is_a_catchable_capability_error() -> None:
    sandbox = Sandbox(
        tools=[transfer_money],
        capabilities=[MethodCapability("transfer_money", [Param("amount") <= 10])],
    )
    code = """
    try { await transfer_money({amount: 11, currency: "USD"}); }
    catch (e) { return [e.name, e instanceof CapabilityError, e instanceof Error, e.message]; }
    """
    assert sandbox.execute(code).return_value == [
        "CapabilityError",
        True,
        True,
        "transfer_money denied: amount <= 10 failed (amount = 11)",
    ]
    (record,) = sandbox.execute("await transfer_money({amount: 11, currency: 'X'})").tool_calls
    assert (record.allowed, record.rule, record.result) == (
        False,
        "amount <= 10 failed (amount = 11)",
        None,
    )


def test_tool_not_covered_by_any_capability_is_denied() -> None:
    sandbox = Sandbox(tools=[get_weather, transfer_money], capabilities=[MethodCapability("get_*")])
    result = sandbox.execute("await transfer_money({amount: 1, currency: 'USD'})")
    assert result.error == (
        "CapabilityError: transfer_money denied: no capability matches 'transfer_money'"
    )
    assert sandbox.execute("return (await get_weather({city: 'X'})).temp").return_value == 72


def test_tool_exception_becomes_tool_error() -> None:
    def lookup(key: str) -> str:
        """Look a key up."""
        raise KeyError(key)

    sandbox = Sandbox(tools=[lookup])
    code = "try { await lookup({key: 'k'}) } catch (e) { return [e.name, e.message] }"
    assert sandbox.execute(code).return_value == ["ToolError", "lookup failed: KeyError: 'k'"]
    result = sandbox.execute("await lookup({key: 'k'})")
    assert (result.exit_code, result.error) == (1, "ToolError: lookup failed: KeyError: 'k'")


def test_positional_argument_throws_type_error_with_call_form(sandbox: Sandbox) -> None:
    result = sandbox.execute("await get_weather('SF')")
    assert result.error == (
        'TypeError: get_weather() takes one object argument, not "SF"; '
        "call it as await get_weather({city: <string>})"
    )
    result = sandbox.execute("await get_weather({city: 'a'}, 2)")
    assert result.error is not None and "not 2 arguments" in result.error
    assert result.tool_calls == ()


def test_a_tool_returns_a_promise_and_rejects_it_rather_than_throwing(sandbox: Sandbox) -> None:
    # As from an async function, even when the code has replaced Promise's statics.
    code = """
    Promise.reject = Promise.resolve = () => "replaced";
    const bad = get_weather("SF"), cyclic = {}; cyclic.self = cyclic;
    const shapes = [bad, get_weather({city: "Oslo"})].map((p) => p instanceof Promise);
    const failure = await bad.then(() => "resolved", (e) => e.name);
    return [shapes, failure, (await get_weather(cyclic).catch((e) => e)).name];
    """
    result = sandbox.execute(code)
    assert (result.return_value, result.error) == ([[True, True], "TypeError", "TypeError"], None)


def test_bad_arguments_are_rejected_before_the_tool_runs(sandbox: Sandbox) -> None:
    result = sandbox.execute("await get_weather({town: 'SF'})")
    assert result.error_kind == "exception"
    assert result.error is not None and result.error.startswith("TypeError: get_weather")
    (record,) = result.tool_calls
    assert not record.allowed


def test_names_map_and_namespaces() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    def handler(name: str, params: dict[str, Any]) -> Any:
        seen.append((name, params))
        return name

    tools = [
        {"name": "stripe/charges/create", "description": "Create a charge."},
        {"name": "mcp:fs.read-file", "description": "Read."},
    ]
    sandbox = Sandbox(tools=tools, tool_handler=handler)
    code = """
    return [await stripe_charges_create({n: 1}), await stripe.charges.create({n: 2}),
            await mcp_fs_read_file({}), typeof mcp.fs]
    """
    assert sandbox.execute(code).return_value == [
        "stripe/charges/create",
        "stripe/charges/create",
        "mcp:fs.read-file",
        "object",
    ]
    assert [name for name, _ in seen] == ["stripe/charges/create"] * 2 + ["mcp:fs.read-file"]


def test_list_tools_shows_names_descriptions_schemas(sandbox: Sandbox) -> None:
    assert sandbox.execute("return listTools()").return_value == [
        {
            "name": "get_weather",
            "jsName": "get_weather",
            "description": "Get weather for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "description": "City name."}},
                "required": ["city"],
                "additionalProperties": False,
            },
        }
    ]


def test_async_tools_issued_together_run_concurrently() -> None:
    started = 0
    all_started = asyncio.Event()

    async def slow(i: int) -> int:
        """Wait until every call has started: only possible if they run concurrently."""
        nonlocal started
        started += 1
        if started == 20:
            all_started.set()
        await asyncio.wait_for(all_started.wait(), timeout=2)
        return i * 2

    sandbox = Sandbox(tools=[slow])
    code = "return await Promise.all(Array.from({length: 20}, (_, i) => slow({i})))"
    result = sandbox.execute(code)
    assert result.return_value == [i * 2 for i in range(20)]
    assert len(result.tool_calls) == 20


def test_aexecute_runs_async_tools_on_the_callers_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def where() -> str:
        """Record the loop."""
        loops.append(asyncio.get_running_loop())
        return "here"

    async def main() -> tuple[Any, asyncio.AbstractEventLoop]:
        sandbox = Sandbox(tools=[where])
        result = await sandbox.aexecute("return await where()")
        return result.return_value, asyncio.get_running_loop()

    value, loop = asyncio.run(main())
    assert value == "here"
    assert loops == [loop]


def test_execute_inside_a_running_loop_still_runs_async_tools() -> None:
    async def twice(x: int) -> int:
        """Double."""
        return 2 * x

    async def main() -> Any:
        return Sandbox(tools=[twice]).execute("return await twice({x: 4})").return_value

    assert asyncio.run(main()) == 8


@pytest.mark.skipif(
    sys.platform != "emscripten", reason="calls JavaScript functions of the page: Pyodide only"
)
def test_tools_that_call_javascript_functions_of_the_page() -> None:
    import js
    from pyodide.code import run_js

    run_js("globalThis.jsDouble = async (x) => { await null; return x * 2 }")
    run_js("globalThis.jsPlace = (city) => ({city, country: city === 'Oslo' ? 'NO' : '?'})")

    async def double(x: int) -> int:
        """Double a number in JavaScript."""
        return int(await js.jsDouble(x))

    def place(city: str) -> dict[str, str]:
        """Where a city is, according to the page."""
        return dict(js.jsPlace(city).to_py())

    sandbox = Sandbox(tools=[double, place])
    code = "return [await double({x: 21}), await place({city: 'Oslo'})]"
    expected = [42, {"city": "Oslo", "country": "NO"}]
    assert asyncio.run(sandbox.aexecute(code)).return_value == expected
    assert sandbox.execute(code).return_value == expected  # sync, waiting on the JS promise


def test_tool_handler_and_definitions_without_functions() -> None:
    definition = ToolDefinition(
        name="db/query",
        description="Run a query.",
        parameters={"type": "object", "properties": {"sql": {"type": "string"}}},
    )
    sandbox = Sandbox(tools=[definition], tool_handler=lambda name, params: [params["sql"]])
    assert sandbox.execute("return await db.query({sql: 'select 1'})").return_value == ["select 1"]
    unhandled = Sandbox(tools=[definition]).execute("await db.query({sql: 'select 1'})")
    assert unhandled.error == (
        "ToolError: db/query failed: RuntimeError: tool 'db/query' has nothing to run it on the "
        "host: give it a function (handler=... when you build the tools) or pass "
        "tool_handler=... to the Sandbox"
    )


def test_results_that_are_not_plain_json() -> None:
    import dataclasses
    import datetime

    @dataclasses.dataclass
    class Point:
        x: int
        y: int

    def shapes() -> Any:
        """Odd values."""
        return {"p": Point(1, 2), "s": (1, 2), "d": datetime.date(2026, 1, 2)}

    assert Sandbox(tools=[shapes]).execute("return await shapes()").return_value == {
        "p": {"x": 1, "y": 2},
        "s": [1, 2],
        "d": "2026-01-02",
    }


def test_tool_call_records(sandbox: Sandbox) -> None:
    result = sandbox.execute("await get_weather({city: 'A'}); await get_weather({city: 'B'})")
    assert [(c.method, c.params, c.allowed, c.result) for c in result.tool_calls] == [
        ("get_weather", {"city": "A"}, True, {"city": "A", "temp": 72}),
        ("get_weather", {"city": "B"}, True, {"city": "B", "temp": 72}),
    ]
    assert all(c.duration_ms >= 0 for c in result.tool_calls)


def test_sync_tools_are_called_on_the_executing_thread(sandbox: Sandbox) -> None:
    threads: list[threading.Thread] = []

    def who() -> str:
        """Record the thread."""
        threads.append(threading.current_thread())
        return "me"

    Sandbox(tools=[who]).execute("await who()")
    assert threads == [threading.current_thread()]


def test_sandbox_tool_from_functions_and_description() -> None:
    tool = SandboxTool.from_functions(
        [get_weather], capabilities=[MethodCapability("get_weather", max_calls=1)]
    )
    assert tool.run("return (await get_weather({city: 'SF'})).city") == "SF"
    assert tool.run("await get_weather({city: 'SF'})") == (
        "CapabilityError: get_weather denied: max_calls=1 for 'get_weather' exhausted "
        "(1 call made)\n"
    )
    assert tool.description.endswith(
        "/**\n"
        " * Get weather for a city.\n"
        " * 0 calls left.\n"
        " */\n"
        "declare function get_weather(args: {city: string}): Promise<Record<string, unknown>>;"
    )
    assert tool.parameters["required"] == ["code"]


def test_timeout_covers_time_spent_in_tools() -> None:
    async def sleepy() -> str:
        """Sleep too long."""
        await asyncio.sleep(5)
        return "late"

    async def main() -> Any:
        sandbox = Sandbox(tools=[sleepy], limits=Limits(timeout=0.3))
        return await sandbox.aexecute("return await sleepy()")

    result = asyncio.run(main())
    assert (result.exit_code, result.error_kind) == (124, "timeout")


def test_capability_error_is_exported() -> None:
    error = CapabilityError("t", "rule")
    assert str(error) == "t denied: rule"


def test_execute_bounds_async_tools_by_the_deadline_and_records_them() -> None:
    async def hang() -> str:
        """Never finishes in time."""
        await asyncio.sleep(10)
        return "late"

    sandbox = Sandbox(tools=[hang], limits=Limits(timeout=0.3))
    result = sandbox.execute("return await hang()")
    assert (result.exit_code, result.error_kind) == (124, "timeout")
    (record,) = result.tool_calls
    assert (record.allowed, record.error) == (
        True,
        "cancelled: the execution's time limit passed while the tool ran",
    )
    assert sandbox.execute("return 1").return_value == 1


def test_a_result_larger_than_the_memory_limit_is_a_tool_error() -> None:
    def huge() -> str:
        """Too much."""
        return "x" * (20 * 1024 * 1024)

    sandbox = Sandbox(tools=[huge], limits=Limits(memory=16 * 1024 * 1024))
    result = sandbox.execute("return (await huge()).length")
    assert result.error == (
        "ToolError: huge failed: ValueError: its result is 20971522 bytes of JSON, more than "
        "the sandbox's 16777216-byte memory limit; return less data"
    )


def test_a_result_that_does_not_fit_in_the_heap_rejects_the_call_and_keeps_the_sandbox() -> None:
    def big() -> str:
        """Under the memory limit as JSON, too large for the heap as a string."""
        return "x" * (14 * 1024 * 1024)

    sandbox = Sandbox(tools=[big], limits=Limits(memory=16 * 1024 * 1024))
    sandbox.fs.write("kept.txt", "still here")
    caught = sandbox.execute(
        "try { await big() } catch (e) { return [e.name, e.message] }; return 'no error'"
    )
    assert (caught.error, caught.return_value) == (None, ["InternalError", "out of memory"])
    uncaught = sandbox.execute("return (await big()).length")
    assert uncaught.error is not None
    assert uncaught.error.startswith("InternalError: out of memory: the code used all of the")
    assert "restarted" not in uncaught.error
    assert sandbox.fs.read_text("kept.txt") == "still here"
    assert sandbox.execute("return 1").return_value == 1


# --- non-finite numbers from a guest that replaces JSON.stringify ---------------------------

amount = Param("amount")
TAMPERED = "JSON.stringify = () => '{\"amount\": %s}'; return await pay({amount: 1})"
NOT_JSON = {
    "-1e999": "-1e999 is too large for a JSON number here (the largest is about 1.8e308)",
    "1e999": "1e999 is too large for a JSON number here (the largest is about 1.8e308)",
    "-Infinity": "-Infinity is not a JSON number (JSON numbers are finite)",
    "Infinity": "Infinity is not a JSON number (JSON numbers are finite)",
    "NaN": "NaN is not a JSON number (JSON numbers are finite)",
    "[NaN]": "NaN is not a JSON number (JSON numbers are finite)",
}
RULES = [amount < 100, amount <= 100, amount > 0, amount >= 0, amount == 1, amount != 0]
RULES += [amount.is_in([1, 2]), amount.not_in([0])]


def pay(amount: Any) -> str:
    """Pay."""
    return f"paid {amount}"


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.describe())
def test_non_finite_arguments_from_a_replaced_stringify_never_reach_a_check(
    rule: Any,
) -> None:
    sandbox = Sandbox(tools=[pay], capabilities=[MethodCapability("pay", [rule])])
    assert sandbox.execute("return await pay({amount: 1})").return_value == "paid 1"
    for literal, reason in NOT_JSON.items():
        result = sandbox.execute(TAMPERED % literal)
        error = (
            f"TypeError: pay: the arguments are not valid JSON ({reason}); pass plain JSON "
            "values (a replaced JSON.stringify cannot send NaN or Infinity)"
        )
        assert (result.exit_code, result.error, result.return_value) == (1, error, None)
        [call] = result.tool_calls
        assert (call.params, call.allowed, call.result) == (None, False, None)


def test_non_finite_arguments_are_refused_with_the_dict_form_and_from_the_shell() -> None:
    def charge(amount: float) -> str:
        """Charge."""
        return f"charged {amount}"

    tool = create_sandbox_tool(tools=[charge], constraints={"charge": {"amount": "<=100"}})
    tampered = "JSON.stringify = () => '{\"amount\": -Infinity}'; return await charge({})"
    assert tool.run(tampered) == (
        "TypeError: charge: the arguments are not valid JSON (-Infinity is not a JSON number "
        "(JSON numbers are finite)); pass plain JSON values (a replaced JSON.stringify cannot "
        "send NaN or Infinity)\n"
    )
    # The shell's `tool` writes its JSON in Rust: a non-finite number cannot even be sent.
    not_a_number = "tool: charge: parameter 'amount' must be a number, got null\n"
    shell = {
        "tool charge --amount -1e999": not_a_number,
        "tool charge --amount -inf": not_a_number,
        "tool charge --amount NaN": not_a_number,
        """tool charge --json '{"amount": -1e999}'""": (
            "tool: charge: --json: invalid JSON: number out of range at line 1 column 17\n"
        ),
        "tool charge --amount 5": '"charged 5"\n',
        "tool charge --amount 500": ("tool: charge denied: amount <= 100 failed (amount = 500)\n"),
    }
    assert {code: tool.run(code, language="shell") for code in shell} == shell
    calls = [(e.method, e.decision) for e in tool.sandbox.audit(kind="tool_call")]
    assert calls == [("charge", "denied")] * 4 + [("charge", "allowed"), ("charge", "denied")]


def test_a_returned_value_that_is_not_strict_json_is_an_exception_not_a_crash() -> None:
    sandbox = Sandbox()
    for text, reason in {
        "[-Infinity]": "-Infinity is not a JSON number (JSON numbers are finite)",
        "1e999": "1e999 is too large for a JSON number here (the largest is about 1.8e308)",
        "{": "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
    }.items():
        result = sandbox.execute(f"JSON.stringify = () => '{text}'; return 1")
        message = (
            f"TypeError: the returned value is not valid JSON ({reason}); return plain data, "
            "and leave JSON.stringify as it is"
        )
        assert (result.exit_code, result.error_kind, result.error) == (1, "exception", message)
        assert (result.return_value, result.stdout, result.stderr) == (None, text, message + "\n")


def test_a_tools_arguments_are_copied_as_plain_json_once() -> None:
    # Plain objects take a faster copy in the prelude: the same values, each getter read once.
    seen: list[dict[str, Any]] = []

    def keep(v: Any = None, w: Any = None, n: Any = None) -> None:
        """Keep the arguments."""
        seen.append({"v": v, "w": w, "n": n})

    code = """
    let gets = 0;
    const loop = {a: 1}; loop.self = loop;
    const bare = Object.create(null); bare.k = "bare";
    const v = {s: "x", t: true, z: null, i: 3, f: 1.5, nan: NaN, inf: -Infinity, big: 10n,
      u: undefined, fn() {}, sym: Symbol("s"), nested: {deep: [1, NaN, undefined, {q: 2}]},
      date: new Date(0), map: new Map([["m", 1]]), set: new Set([1, 2]),
      err: new RangeError("r"), loop, bare, get lazy() { gets += 1; return gets; },
      typed: new Uint8Array([7, 8])};
    await keep({v});
    const n = {__proto__: {inherited: 1}, own: 2};
    await keep({w: [v.nested, {toJSON() { return "own"; }}], n});
    return gets;
    """
    result = Sandbox(tools=[keep]).execute(code)
    assert (result.return_value, result.stderr) == (1, "")
    nested = {"deep": [1, None, None, {"q": 2}]}
    assert seen == [
        {
            "v": {
                "s": "x", "t": True, "z": None, "i": 3, "f": 1.5, "nan": None, "inf": None,
                "big": "10", "nested": nested, "date": "1970-01-01T00:00:00.000Z",
                "map": {"m": 1}, "set": [1, 2], "err": {"name": "RangeError", "message": "r"},
                "loop": {"a": 1, "self": "[Circular]"}, "bare": {"k": "bare"}, "lazy": 1,
                "typed": [7, 8],
            },
            "w": None,
            "n": None,
        },
        {"v": None, "w": [nested, "own"], "n": {"own": 2}},
    ]  # fmt: skip
