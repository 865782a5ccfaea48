"""What code written for amla-sandbox relies on, in corral's own terms (docs/migration.rst)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from corral import (
    CapabilityError,
    ExecutionResult,
    MethodCapability,
    Param,
    Sandbox,
    create_sandbox_tool,
)
from corral.capabilities import Constraint, ConstraintSet


def out(code: str, sandbox: Sandbox | None = None) -> str:
    """What the JavaScript ``code`` printed (stdout then stderr)."""
    return str((sandbox or Sandbox()).execute(code))


# --- fs.readFile without an encoding --------------------------------------------------------


def test_read_file_gives_bytes_that_read_as_utf8_text() -> None:
    code = """
        await fs.writeFile('/workspace/c.json', JSON.stringify({city: "Zürich"}));
        const data = await fs.readFile('/workspace/c.json');
        console.log(data instanceof Uint8Array, data.length, data[0]);
        console.log(JSON.parse(data).city, `${data}`.length, data.toString().length);
        console.log(data.toString('hex').slice(0, 6), data.toString('base64'));
        console.log(data.subarray(2, 6).toString(), data.trim().split(':')[0]);
        console.log(data);
    """
    assert out(code) == (
        "true 18 123\n"
        "Zürich 17 17\n"
        "7b2263 eyJjaXR5IjoiWsO8cmljaCJ9\n"
        'city {"city"\n'
        '{"city":"Zürich"}\n'
    )


def test_read_file_buffer_reaches_a_tool_and_the_result_as_text() -> None:
    def echo(text: str) -> str:
        """Echo."""
        return text

    sandbox = Sandbox(tools=[echo])
    code = """
        await fs.writeFile('/workspace/id.txt', 'order-7');
        const id = await fs.readFile('/workspace/id.txt');
        console.log(await echo({text: id}));
        return id;
    """
    result = sandbox.execute(code)
    assert (result.stdout, result.return_value) == ("order-7\norder-7", "order-7")


def test_read_file_buffer_refuses_an_unknown_encoding() -> None:
    code = """
        await fs.writeFile('/workspace/a', 'x');
        try { (await fs.readFile('/workspace/a')).toString('utf16') }
        catch (e) { console.log(e.name, e.message) }
    """
    assert out(code) == "TypeError Unknown encoding: utf16 (use utf8, base64, hex or latin1)\n"


def test_read_file_with_an_encoding_and_stat_methods_are_unchanged() -> None:
    code = """
        await fs.writeFile('/workspace/a', 'hi');
        const text = await fs.readFile('/workspace/a', 'utf8');
        const stat = await fs.stat('/workspace');
        console.log(typeof text, text, typeof stat.isDirectory, stat.isDirectory());
    """
    assert out(code) == "string hi function true\n"


def test_atob_and_btoa() -> None:
    code = """
        console.log(btoa('Hello'), btoa(''), btoa('a'), btoa('ab'), atob('SGVsbG8='), atob('YQ'));
        try { btoa('é€') } catch (e) { console.log(e.name) }
        try { atob('a') } catch (e) { console.log(e.name, e.message) }
    """
    assert out(code) == (
        "SGVsbG8=  YQ== YWI= Hello a\n"
        "InvalidCharacterError\n"
        "InvalidCharacterError atob: the string is not valid base64\n"
    )


# --- shell ----------------------------------------------------------------------------------


def test_shell_run_is_shell_in_javascript() -> None:
    assert out("console.log(shell.run('echo hi | tr a-z A-Z'))") == "HI\n\n"


def test_sandbox_shell_runs_a_command_line() -> None:
    sandbox = Sandbox()
    sandbox.shell("cd /tmp && X=1")
    result = sandbox.shell("pwd; echo $X; exit 3")
    assert (result.stdout, result.exit_code) == ("/tmp\n1\n", 3)


# --- results read as text -------------------------------------------------------------------


def test_a_result_reads_as_the_text_a_model_reads() -> None:
    result = ExecutionResult(stdout=" hi\n", stderr="oops\n", exit_code=1)
    assert (str(result), "hi" in result, result.strip(), result.splitlines()) == (
        " hi\noops\n",
        True,
        "hi\noops",
        [" hi", "oops"],
    )


def test_a_result_has_no_other_attributes_of_str() -> None:
    with pytest.raises(AttributeError, match="'ExecutionResult' object has no attribute 'stdot'"):
        _ = ExecutionResult(stdout="", stderr="", exit_code=0).stdot  # type: ignore[attr-defined]


def test_execute_async_is_aexecute() -> None:
    result = asyncio.run(Sandbox().execute_async("return 6 * 7"))
    assert result.return_value == 42


# --- capabilities ---------------------------------------------------------------------------


def test_constraint_builders_are_the_param_dsl() -> None:
    pairs = [
        (Constraint.eq("a", 1), Param("a") == 1),
        (Constraint.ne("a", 1), Param("a") != 1),
        (Constraint.lt("a", 1), Param("a") < 1),
        (Constraint.le("a", 1), Param("a") <= 1),
        (Constraint.gt("a", 1), Param("a") > 1),
        (Constraint.ge("a", 1), Param("a") >= 1),
        (Constraint.is_in("a", [1]), Param("a").is_in([1])),
        (Constraint.not_in("a", [1]), Param("a").not_in([1])),
        (Constraint.starts_with("a", "x"), Param("a").starts_with("x")),
        (Constraint.ends_with("a", "x"), Param("a").ends_with("x")),
        (Constraint.contains("a", "x"), Param("a").contains("x")),
        (Constraint.exists("a"), Param("a").exists()),
        (Constraint.not_exists("a"), Param("a").not_exists()),
        (
            Constraint.or_(
                [Constraint.lt("a", 1), Constraint.and_([Param("b") == 2, Param("c").exists()])]
            ),
            (Param("a") < 1) | ((Param("b") == 2) & Param("c").exists()),
        ),
    ]
    assert [built for built, _ in pairs] == [expected for _, expected in pairs]


def test_validate_call_key_and_dict_form() -> None:
    cap = MethodCapability("pay/*", [Param("amount") <= 10], max_calls=3)
    cap.validate_call("pay/card", {"amount": 5})
    errors = []
    for method, params in [("pay/card", {"amount": 50}), ("refund", {"amount": 1})]:
        with pytest.raises(CapabilityError) as caught:
            cap.validate_call(method, params)
        errors.append(str(caught.value))
    assert errors == [
        "pay/card denied: amount <= 10 failed (amount = 50)",
        "refund denied: pattern 'pay/*' does not match",
    ]
    assert cap.key() == "cap:method:pay/*"
    assert MethodCapability.from_dict(cap.to_dict()) == cap


def test_constraint_set_evaluate_and_is_empty() -> None:
    rules = ConstraintSet([Param("currency").is_in(["usd"])])
    rules.evaluate({"currency": "usd"})
    with pytest.raises(ValueError, match=r"^currency in \['usd'\] failed \(currency = 'eur'\)$"):
        rules.evaluate({"currency": "eur"})
    assert (rules.is_empty(), ConstraintSet().is_empty()) == (False, True)


def handler(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"method": method}


def budgeted() -> Sandbox:
    tools = [{"name": "data/read", "description": "Read."}]
    caps = [MethodCapability("data/read", max_calls=2), MethodCapability("logs/**")]
    return Sandbox(tools=tools, capabilities=caps, tool_handler=handler)


def test_budget_accessors_by_capability_key() -> None:
    sandbox = budgeted()
    sandbox.execute("await data.read({})")
    assert (
        sandbox.get_remaining_calls("cap:method:data/read"),
        sandbox.get_remaining_calls("logs/**"),
        sandbox.get_call_counts(),
        sandbox.can_call("data/read"),
        [cap.key() for cap in sandbox.get_capabilities()],
        sandbox.capabilities == tuple(sandbox.get_capabilities()),
    ) == (
        1,
        None,
        {"cap:method:data/read": 1},
        True,
        ["cap:method:data/read", "cap:method:logs/**"],
        True,
    )


def test_an_unknown_capability_key_names_the_keys() -> None:
    with pytest.raises(KeyError) as caught:
        budgeted().get_remaining_calls("cap:method:data/write")
    assert caught.value.args[0] == (
        "no capability has the key 'cap:method:data/write'; the keys are "
        "'cap:method:data/read', 'cap:method:logs/**'"
    )


def test_delegate_without_a_key_narrows_with_an_ephemeral_one() -> None:
    parent = budgeted()
    child = parent.delegate([MethodCapability("data/read", max_calls=1)])
    first = child.execute("return (await data.read({})).method")
    second = child.execute("await data.read({})")
    assert (first.return_value, second.error) == (
        "data/read",
        "CapabilityError: data/read denied: max_calls=1 for 'data/read' exhausted (1 call made)",
    )
    assert child.token is not None and parent.token is not None
    with pytest.raises(Exception, match="not within"):
        parent.delegate([MethodCapability("admin/**")])


# --- tools ----------------------------------------------------------------------------------


def test_a_tool_with_kwargs_takes_a_free_form_object() -> None:
    def log_event(name: str, **fields: Any) -> dict[str, Any]:
        """Log an event with any fields."""
        return {"name": name, **fields}

    tool = create_sandbox_tool(tools=[log_event])
    assert tool.sandbox.tools["log_event"].parameters == {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": True,
    }
    assert tool.run("return await log_event({name: 'x', user: 7})") == '{"name":"x","user":7}'
