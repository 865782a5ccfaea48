"""The guest's JavaScript environment, through the public API."""

from __future__ import annotations

import pytest

from corral import Sandbox


def out(sandbox: Sandbox, code: str) -> str:
    """stdout + stderr of one execution."""
    result = sandbox.execute(code)
    return result.stdout + result.stderr


@pytest.mark.parametrize(
    ("code", "stdout", "value"),
    [
        ('return "hello"', "hello", "hello"),
        ("return {a: 1, b: 2}", '{"a":1,"b":2}', {"a": 1, "b": 2}),
        ("return [1, 'x', null]", '[1,"x",null]', [1, "x", None]),
        ("return 1 + 2", "3", 3),
        ("return null", "null", None),
        ("return true", "true", True),
        ("const x = 42;", "", None),
        ("return undefined", "", None),
        ("return await Promise.resolve(7)", "7", 7),
        ("return new Map([['a', 1]])", '{"a":1}', {"a": 1}),
    ],
)
def test_return_value_is_printed_and_decoded(
    sandbox: Sandbox, code: str, stdout: str, value: object
) -> None:
    result = sandbox.execute(code)
    assert (result.stdout, result.return_value, result.exit_code) == (stdout, value, 0)


def test_console_streams_and_formatting(sandbox: Sandbox) -> None:
    code = """
    console.log("a", 1, {b: [2, 3]}, [undefined], null, undefined);
    console.info("info"); console.debug("debug");
    console.warn("warn"); console.error("err", new Error("e1"));
    """
    result = sandbox.execute(code)
    assert result.stdout == 'a 1 {"b":[2,3]} [null] null undefined\ninfo\ndebug\n'
    assert result.stderr == "warn\nerr Error: e1\n    at <anonymous> (code.js:4:52)\n"


def test_console_log_is_cycle_safe(sandbox: Sandbox) -> None:
    code = "const a = {name: 'a'}; a.self = a; const b = [a, a]; console.log(a, b)"
    assert sandbox.execute(code).stdout == (
        '{"name":"a","self":"[Circular]"} '
        '[{"name":"a","self":"[Circular]"},{"name":"a","self":"[Circular]"}]\n'
    )


def test_uncaught_exception_goes_to_stderr_with_stack(sandbox: Sandbox) -> None:
    result = sandbox.execute("function f() {\n  throw new RangeError('bad');\n}\nf();")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (
        "RangeError: bad\n    at f (code.js:2:13)\n    at <anonymous> (code.js:4:1)\n"
    )
    assert (result.error, result.error_kind) == ("RangeError: bad", "exception")


def test_throwing_a_non_error(sandbox: Sandbox) -> None:
    assert out(sandbox, "throw 'oops'") == 'Uncaught "oops"\n'
    assert out(sandbox, "throw {code: 5}") == 'Uncaught {"code":5}\n'


def test_syntax_error_reports_location(sandbox: Sandbox) -> None:
    result = sandbox.execute("let x = ;")
    assert result.exit_code == 1
    assert result.stderr.startswith("SyntaxError: unexpected token in expression: ';'\n")
    assert "code.js:1" in result.stderr


def test_top_level_await_and_sloppy_mode(sandbox: Sandbox) -> None:
    assert sandbox.execute("y = await 5; return y * 2").return_value == 10


def test_each_execution_starts_with_fresh_globals_and_keeps_the_files(sandbox: Sandbox) -> None:
    code = "globalThis.counter = 1; leaked = 2; fs.writeFileSync('n.txt', '3')"
    assert sandbox.execute(code).exit_code == 0
    code = "return [typeof counter, typeof leaked, fs.readFileSync('n.txt', 'utf8')]"
    assert sandbox.execute(code).return_value == ["undefined", "undefined", "3"]


# Each poisons something a later execution relies on; the later one must not notice.
POISONS = [
    "Promise.prototype.then = function () {}",
    "Promise.resolve = () => null; Promise.all = () => null",
    "Array.prototype.map = null; Array.prototype.filter = () => []",
    "JSON.parse = () => 'poisoned'; JSON.stringify = () => '\"poisoned\"'",
    "Object.defineProperty(globalThis, 'console', {value: {log() {}}, configurable: false})",
    "delete globalThis.console",
    "delete globalThis.fs",
    "fs.writeFileSync = () => {}",
    "Object.defineProperty(globalThis, 'fs', {get() { throw new Error('no fs') }})",
    "globalThis.get_weather = async () => ({city: 'fake', temp: -1})",
    "Object.defineProperty(globalThis, 'get_weather', {value: null, writable: false})",
    "delete globalThis.get_weather; delete globalThis.listTools",
    "Array.prototype[Symbol.iterator] = function* () {}",
    "Object.prototype.toJSON = () => 'poisoned'",
    "Object.prototype.city = 'poisoned'",
    "Function.prototype.call = null; Function.prototype.apply = null",
    "Math.random = () => 4; Date.now = () => 0",
    "Error.prototype.toString = () => 'poisoned'; Object.freeze(Error.prototype)",
    "String.prototype.split = null; String.prototype.replace = null",
    "Object.freeze(Object.prototype); Object.freeze(Array.prototype)",
    "globalThis.setTimeout = (f) => 0",
    "globalThis.require = () => ({}); globalThis.readStdin = () => 'poisoned'",
]

AFTER_POISON = """
const doubled = [1, 2].map((x) => x * 2).filter(() => true);
const weather = await get_weather({city: 'Oslo'});
fs.writeFileSync('/tmp/a.txt', JSON.stringify({doubled}));
const back = JSON.parse(fs.readFileSync('/tmp/a.txt', 'utf8'));
const [slept] = await Promise.all([new Promise((ok) => setTimeout(() => ok('slept'), 1))]);
console.log('logged', [...new Set([1, 1, 2])].length, Math.random() < 1);
const caught = (() => { try { null.x } catch (e) { return e instanceof TypeError } })();
return {back, weather, slept, caught, stdin: readStdin(), tools: listTools().length};
"""


@pytest.mark.parametrize("poison", POISONS)
def test_tampering_with_builtins_does_not_reach_the_next_execution(
    sandbox: Sandbox, poison: str
) -> None:
    sandbox.execute(poison)
    result = sandbox.execute(AFTER_POISON, stdin="in")
    assert (result.stdout, result.stderr, result.exit_code) == (
        'logged 2 true\n{"back":{"doubled":[2,4]},"weather":{"city":"Oslo","temp":72},'
        '"slept":"slept","caught":true,"stdin":"in","tools":1}',
        "",
        0,
    )
    assert [call.method for call in result.tool_calls] == ["get_weather"]


def test_the_poisoning_execution_itself_still_ends_cleanly(sandbox: Sandbox) -> None:
    # The sandbox's own bookkeeping keeps the originals of what it uses.
    result = sandbox.execute("Promise.prototype.then = function () {}; return 1 + 2")
    assert (result.return_value, result.error) == (3, None)
    result = sandbox.execute("Array.prototype.filter = null; throw new Error('boom')")
    assert (result.exit_code, result.error) == (
        1,
        "Error: the result of the execution could not be described (the JavaScript heap is "
        "full, or the code replaced a built-in that describing it needs)",
    )
    assert sandbox.execute("return 1 + 2").return_value == 3


def test_calls_and_timers_do_not_go_through_the_codes_map(sandbox: Sandbox) -> None:
    # The prelude's tables of pending calls and timers are its own: replacing Map's methods
    # (which they used, once) changes nothing for them.
    code = """
    for (const name of ["set", "get", "has", "delete"]) {
      Map.prototype[name] = () => { throw new Error(`Map.prototype.${name} replaced`); };
    }
    const ticks = [];
    clearTimeout(setTimeout(() => ticks.push("cleared"), 1));
    clearTimeout("no such timer");
    const every = setInterval(() => { ticks.push("tick"); clearInterval(every); }, 1);
    const weather = await Promise.all([get_weather({city: "Oslo"}), get_weather({city: "Rome"})]);
    await new Promise((ok) => setTimeout(ok, 5));
    return [weather.map((w) => w.city), ticks];
    """
    result = sandbox.execute(code)
    assert (result.return_value, result.error) == ([["Oslo", "Rome"], ["tick"]], None)


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (
            "require('lodash')",
            'ReferenceError: require("lodash") is not available: this sandbox has no modules. '
            "Tools are global async functions taking one object e.g. "
            "await get_weather({city: <string>}); listTools() lists them.",
        ),
        (
            "require('node:fs')",
            'ReferenceError: require("node:fs") is not available: use the global fs object '
            "instead (fs.readFileSync, await fs.readFile, fs.promises...).",
        ),
        (
            "await fetch('https://example.com')",
            "ReferenceError: fetch() is not available: this sandbox has no network. "
            "Tools are global async functions taking one object e.g. "
            "await get_weather({city: <string>}); listTools() lists them.",
        ),
        (
            "process.env.HOME",
            "ReferenceError: process.env is not available in this sandbox: there is no "
            "environment, argv or exit; print with console.log and end with `return value`.",
        ),
        (
            "Buffer.from('x')",
            "ReferenceError: Buffer.from is not available in this sandbox: use strings, "
            "Uint8Array or JSON instead.",
        ),
    ],
)
def test_node_isms_say_what_to_use_instead(sandbox: Sandbox, code: str, message: str) -> None:
    result = sandbox.execute(code)
    assert (result.exit_code, result.error) == (1, message)


def test_node_isms_are_catchable(sandbox: Sandbox) -> None:
    code = "try { require('os') } catch (e) { return e.name }"
    assert sandbox.execute(code).return_value == "ReferenceError"


def test_awaiting_a_promise_that_never_settles(sandbox: Sandbox) -> None:
    result = sandbox.execute("await new Promise(() => {})")
    assert (result.exit_code, result.error_kind) == (1, "deadlock")
    assert "can never settle" in result.stderr
    assert sandbox.execute("return 1").return_value == 1


def test_unicode_round_trips(sandbox: Sandbox) -> None:
    result = sandbox.execute("console.log('héllo ✓ 🐍'); return 'ü'")
    assert (result.stdout, result.return_value) == ("héllo ✓ 🐍\nü", "ü")


def test_large_code_and_output(sandbox: Sandbox) -> None:
    code = "const data = " + repr(list(range(100_000))) + ";\nreturn data.length"
    assert sandbox.execute(code).return_value == 100_000


def test_unsupported_language_is_a_clear_error(sandbox: Sandbox) -> None:
    with pytest.raises(ValueError, match="unsupported language 'cobol'"):
        sandbox.execute("x", language="cobol")


def test_read_stdin(sandbox: Sandbox) -> None:
    result = sandbox.execute("return readStdin().split('\\n').length", stdin="a\nb\nc")
    assert result.return_value == 3
    assert sandbox.execute("return readStdin()").return_value == ""
    assert sandbox.execute("return readStdin()", stdin=b"\xc3\xa9").return_value == "é"


def test_set_timeout_waits_on_the_host_and_fires_in_order(sandbox: Sandbox) -> None:
    import time

    code = """
    const order = [];
    setTimeout(() => order.push('b'), 50);
    setTimeout((x) => order.push(x), 10, 'a');
    const cancelled = setTimeout(() => order.push('never'), 20);
    clearTimeout(cancelled);
    await new Promise((resolve) => setTimeout(resolve, 60));
    return order;
    """
    started = time.monotonic()
    result = sandbox.execute(code)
    assert result.return_value == ["a", "b"]
    assert time.monotonic() - started >= 0.06
    assert result.tool_calls == ()


def test_a_tool_result_does_not_wait_for_a_timer_and_a_cleared_timer_ends_nothing() -> None:
    from corral import Limits, replay

    def fast(x: int) -> int:
        """Answers at once."""
        return x

    # The time limit is shorter than the timer: waiting for it would be a timeout.
    sandbox = Sandbox(tools=[fast], limits=Limits(timeout=1))
    code = """
    let timer;
    const timeout = (ms) => new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timed out')), ms);
    });
    const value = await Promise.race([fast({x: 7}), timeout(5000)]);
    clearTimeout(timer);
    return value;
    """
    result = sandbox.execute(code)
    assert (result.return_value, result.error) == (7, None)
    # Sleeps end on their own: the short timer fires while the long one is still running.
    order = sandbox.execute(
        "const seen = [];"
        "const long = setTimeout(() => seen.push('long'), 5000);"
        "await new Promise((r) => setTimeout(() => { seen.push('short'); r(); }, 20));"
        "clearTimeout(long); return seen"
    )
    assert (order.return_value, order.error) == (["short"], None)
    assert replay(sandbox.trace) == order


def test_set_interval_repeats_until_cleared() -> None:
    from corral import Limits, replay

    sandbox = Sandbox(limits=Limits(timeout=2))
    code = """
    const ticks = [];
    const handle = setInterval((label) => {
        ticks.push(label + ticks.length);
        if (ticks.length === 3) clearInterval(handle);
    }, 10, 't');
    await new Promise((resolve) => setTimeout(resolve, 100));
    return ticks;
    """
    result = sandbox.execute(code)
    assert (result.return_value, result.error) == (["t0", "t1", "t2"], None)
    assert replay(sandbox.trace) == result
    forever = Sandbox(limits=Limits(timeout=0.3)).execute("setInterval(() => {}, 50); return 1")
    assert forever.error_kind == "timeout"  # as in Node, a live interval keeps it running
    bad = sandbox.execute("setInterval(1, 1)")
    assert (
        bad.error == "TypeError: setInterval(callback, ms) needs a function as its first argument"
    )


def test_set_timeout_replays_and_respects_the_deadline() -> None:
    from corral import Limits, replay

    sandbox = Sandbox(limits=Limits(timeout=0.3))
    assert sandbox.execute("await new Promise(r => setTimeout(r, 5000))").error_kind == "timeout"
    ok = sandbox.execute("await new Promise(r => setTimeout(r, 10)); return 'done'")
    assert replay(sandbox.trace) == ok
    bad = sandbox.execute("setTimeout('not a function', 1)")
    assert bad.error == (
        "TypeError: setTimeout(callback, ms) needs a function as its first argument"
    )
