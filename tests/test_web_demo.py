"""The web demo's Python half (``web/corral_demo.py``), natively: the same code the page runs in
Pyodide (the browser side is covered by ``playwright/``)."""

from __future__ import annotations

import _thread
import importlib.util
import json
import sys
import threading
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytestmark = pytest.mark.needs_native("web/ is not copied into the Pyodide test run")

DEMO = Path(__file__).resolve().parent.parent / "web" / "corral_demo.py"


@pytest.fixture(scope="module")
def demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("corral_demo", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(app: Any, code: str, language: str = "shell") -> dict[str, Any]:
    result: dict[str, Any] = json.loads(app.run(code, language))
    return result


def test_tool_calls_are_posted_with_their_decision(demo: ModuleType) -> None:
    posted: list[str] = []
    app = demo.DemoApp(posted.append)
    assert run(app, "tool get_weather --city Paris | jq -r .sky")["stdout"] == "cloudy\n"
    denied = run(app, "tool sales_records --region APAC")
    assert denied["exit_code"] == 1
    assert denied["stderr"] == (
        "tool: sales_records denied: region in ['EU', 'US'] failed (region = 'APAC')\n"
    )
    entries = [json.loads(p)["entry"] for p in posted]
    assert [(e["method"], e["decision"]) for e in entries] == [
        ("get_weather", "allowed"),
        ("sales_records", "denied"),
    ]
    caps = json.loads(app.capabilities())
    assert [(c["pattern"], c["remaining"]) for c in caps] == [
        ("sales_records", 50),
        ("get_weather", 19),
    ]


def test_files_snapshot_and_restart(demo: ModuleType) -> None:
    app = demo.DemoApp(lambda _: None)
    run(app, "mkdir notes && echo hi > notes/a.txt && cd notes && KEPT=1")
    app.write("/workspace/up.bin", b"\x00\x01")
    tree = json.loads(app.tree())
    assert {"path": "/workspace/notes/a.txt", "kind": "file", "size": 3} in tree
    assert json.loads(app.view("/workspace/notes/a.txt"))["text"] == "hi\n"
    assert app.read("/workspace/up.bin") == b"\x00\x01"
    again = demo.DemoApp(lambda _: None, snapshot=app.snapshot())  # what Ctrl-C does
    assert run(again, "echo $KEPT; pwd; cat a.txt")["stdout"] == "1\n/workspace/notes\nhi\n"
    app.close()  # a standby opened again from a newer snapshot releases the one it had
    assert app.sandbox.closed


def test_replay_reports_an_identical_output(demo: ModuleType) -> None:
    app = demo.DemoApp(lambda _: None)
    assert json.loads(app.replay()) == {"error": "nothing to replay yet: run a command first"}
    first = run(
        app, "const w = await get_weather({city: 'Tokyo'}); return [w, Math.random()]", "js"
    )
    replayed = json.loads(app.replay())
    assert replayed["identical"] is True
    assert replayed["result"]["stdout"] == first["stdout"]


def test_the_last_command_replays_from_the_trace_the_page_kept(demo: ModuleType) -> None:
    """What the page does: after each command it keeps new_trace()'s events; after Ctrl-C the
    new sandbox replays the old one's last command from them (the old sandbox is gone)."""
    app = demo.DemoApp(lambda _: None)
    kept = [app.new_trace()]
    run(app, "mkdir notes; echo one > notes/a.txt; N=1")
    kept.append(app.new_trace())
    app.write("/workspace/up.txt", b"uploaded\n")
    kept.append(app.new_trace())
    code = "const w = await get_weather({city: 'Paris'}); [w.sky, Math.random()]"
    last = run(app, code, "javascript")
    assert '"cloudy"' in last["stdout"]
    kept.append(app.new_trace())
    assert app.new_trace() == ""
    restarted = demo.DemoApp(lambda _: None, snapshot=app.snapshot(), used={"get_weather": 1})
    replayed = json.loads(restarted.replay("".join(kept)))
    assert replayed["identical"] is True
    assert replayed["executions"] == 2
    assert replayed["result"]["stdout"] == last["stdout"]
    assert json.loads(restarted.replay("".join(kept[:2])))["executions"] == 1
    # A trace whose recorded output is not what its code does: corral says so.
    tampered = "".join(kept).replace("w.sky", "w.city")
    assert tampered != "".join(kept)
    diverged = json.loads(restarted.replay(tampered))
    assert diverged["identical"] is False
    assert "the trace recorded" in diverged["error"]


def test_a_sandbox_opened_from_a_snapshot_hands_out_its_trace_without_the_files(
    demo: ModuleType,
) -> None:
    """After a restart the page already holds the snapshot the new sandbox was opened from:
    the first trace the worker posts names where in it the restored files are instead of
    carrying them again (a 2 MB file once made every restart post 2.7 MB of base64); replay
    puts them back from the snapshot the page passes."""
    app = demo.DemoApp(lambda _: None)
    run(app, "head -c 2000000 /dev/zero > big.bin; X=1")
    snapshot = app.snapshot()
    restarted = demo.DemoApp(lambda _: None, snapshot=snapshot)
    kept = [restarted.new_trace()]
    assert len(kept[0]) < 10_000
    last = run(restarted, "wc -c < big.bin; echo $X")
    assert last["stdout"] == "2000000\n1\n"
    kept.append(restarted.new_trace())
    again = demo.DemoApp(lambda _: None, snapshot=restarted.snapshot())
    replayed = json.loads(again.replay("".join(kept), snapshot))
    assert replayed["identical"] is True
    assert replayed["result"]["stdout"] == last["stdout"]
    missing = json.loads(again.replay("".join(kept)))
    assert "the snapshot" in missing["error"]


def test_the_csv_example_generates_50_mb_and_returns_a_summary(demo: ModuleType) -> None:
    app = demo.DemoApp(lambda _: None, timeout=120)
    generate, summarise = json.loads(app.csv_example())
    assert run(app, generate)["exit_code"] == 0
    assert app.size("sales.csv") == 50_864_032
    out = run(app, summarise)["stdout"]
    assert out.splitlines() == [
        "US      10400000 units   531440000.00",
        "LATAM   10400000 units   529360000.00",
        "APAC    10000000 units   511280000.00",
        "EU      10000000 units   508640000.00",
    ]


def test_a_restart_with_the_pages_ledger_keeps_an_exhausted_budget_exhausted(
    demo: ModuleType,
) -> None:
    posted: list[str] = []
    app = demo.DemoApp(posted.append)
    for _ in range(20):  # get_weather's budget: max_calls=20
        assert run(app, "tool get_weather --city Paris")["exit_code"] == 0
    entries = [json.loads(m)["entry"] for m in posted]
    used: dict[str, int] = {}
    for entry in entries:  # what the page's ledger counts
        used[entry["pattern"]] = used.get(entry["pattern"], 0) + 1
    assert used == {"get_weather": 20}
    restarted = demo.DemoApp(posted.append, snapshot=app.snapshot(), used=used)
    denied = run(restarted, "tool get_weather --city Paris")
    assert denied["exit_code"] == 1
    assert "exhausted" in denied["stderr"]
    remaining = {cap["pattern"]: cap["remaining"] for cap in json.loads(restarted.capabilities())}
    assert remaining == {"sales_records": 50, "get_weather": 0}
    fresh = demo.DemoApp(posted.append, snapshot=app.snapshot())  # what a restart did before
    assert run(fresh, "tool get_weather --city Paris")["exit_code"] == 0


def test_javascript_is_a_repl_that_prints_values_and_keeps_bindings(demo: ModuleType) -> None:
    app = demo.DemoApp(lambda message: None)
    lines = {
        "1 + 1": "2\n",
        "let x = 5, y = 2": "",
        "x * y": "10\n",
        "const {a, b: c} = {a: 1, b: 2}; a + c": "3\n",
        "const [m, n] = [7, 8]; m * n": "56\n",
        "function sq(v) { return v * v }\nsq(x)": "25\n",
        "class P { constructor(v) { this.v = v } }": "",
        "new P(sq(2)).v": "4\n",
        "console.log('hi'); 'text'": 'hi\n"text"\n',
        "x = x + 1; x // a comment": "6\n",
        "const w = await get_weather({city: 'Paris'}); return w.temp_c + 1": "19\n",
        "w.sky": '"cloudy"\n',
        "return 'as is'": "as is\n",
    }
    for line, shown in lines.items():
        result = run(app, line, "javascript")
        assert (result["stdout"], result["error"]) == (shown, None), line
    # After a restart the page passes its copy of the bindings to the new sandbox.
    restarted = demo.DemoApp(lambda message: None, scope=app.scope)
    assert run(restarted, "sq(x) + m", "javascript")["stdout"] == "43\n"


def test_the_repl_shows_values_json_has_no_form_for_as_javascript_does(demo: ModuleType) -> None:
    """A function, a symbol or a BigInt as the last value once printed the REPL's own envelope
    or failed in JSON.stringify; NaN, undefined in an array, a Map or a RegExp printed as JSON
    turns them (null, {})."""
    app = demo.DemoApp(lambda message: None)
    lines = {
        "Symbol('q')": "Symbol(q)\n",
        "get_weather": "[Function: get_weather]\n",
        "1n + 2n": "3n\n",
        "let big = 2n ** 64n": "",
        "big + 1n": "18446744073709551617n\n",
        "[NaN, -0, undefined, null, Infinity]": "[NaN,-0,undefined,null,Infinity]\n",
        "new Map([[1, {a: 'b'}]])": 'Map(1) {1 => {"a":"b"}}\n',
        "new Set(['x'])": 'Set(1) {"x"}\n',
        "/re/g": "/re/g\n",
        "new Date(0)": "1970-01-01T00:00:00.000Z\n",
        "const loop = {n: 1}; loop.self = loop; loop": '{"n":1,"self":[Circular]}\n',
        "({a: [1, {b: 'c'}]})": '{"a":[1,{"b":"c"}]}\n',
    }
    for line, shown in lines.items():
        result = run(app, line, "javascript")
        assert (result["stdout"], result["error"]) == (shown, None), line


def test_a_repl_entry_whose_expression_goes_on_over_lines_runs(demo: ModuleType) -> None:
    """A newline once always ended a statement, so a pasted method chain had `return (` put
    before its `.map(...)` line: a SyntaxError."""
    app = demo.DemoApp(lambda message: None)
    lines = {
        "[1, 2, 3]\n  .map((x) => x * 2)\n  .filter((x) => x > 2)": "[4,6]\n",
        "let t = 1 +\n  2": "",
        "t\n  ?.toFixed(1)": '"3.0"\n',
        "let i = 0\ni++\ni": "1\n",
        "const a = 1\nconst b = 2\na + b": "3\n",
    }
    for line, shown in lines.items():
        result = run(app, line, "javascript")
        assert (result["stdout"], result["error"]) == (shown, None), line


def test_a_repl_error_names_lines_of_the_entry(demo: ModuleType) -> None:
    """An error's stack once named lines of the program the REPL wraps an entry in (code.js:29
    for a one-line entry), and the wrapper's own frames."""
    app = demo.DemoApp(lambda message: None)
    result = run(app, "function f() {\n  return nope\n}\nf()", "javascript")
    assert result["stderr"] == (
        "ReferenceError: nope is not defined\n    at f (REPL:2:10)\n    at <anonymous> (REPL:4:1)\n"
    )
    assert run(app, "syntax error", "javascript")["stderr"].endswith("at REPL:1:8\n")


def test_tab_completion_of_commands_tools_flags_and_paths(demo: ModuleType) -> None:
    app = demo.DemoApp(lambda message: None)
    run(app, "mkdir -p notes/sub && echo > notes/a.txt")

    def complete(line: str, language: str = "shell") -> list[str]:
        answer = json.loads(app.complete(line, language))
        assert answer["start"] <= len(line)
        return [str(c) for c in answer["candidates"]]

    assert complete("ec") == ["echo"]
    assert complete("echo hi | so") == ["sort", "source"]
    assert complete("tool sa") == ["sales_records"]
    assert complete("tool sales_records --region EU --l") == ["--limit"]
    assert complete("cat no") == ["notes/"]
    assert complete("cat notes/") == ["notes/a.txt", "notes/sub/"]
    assert complete("ls /tm") == ["/tmp/"]
    assert complete("await get_w", "javascript") == ["get_weather"]
    # A name with a space is inserted escaped, as bash does (it once split into two words).
    run(app, "mkdir 'my dir' && touch 'my dir/a b.txt'")
    assert complete("cd my") == ["my\\ dir/"]
    assert complete("cat my\\ dir/a") == ["my\\ dir/a\\ b.txt"]


def test_the_recorded_agent_session_replays_exactly(demo: ModuleType) -> None:
    session = (DEMO.parent / "agent_session.json").read_text()
    answer = json.loads(demo.DemoApp(lambda message: None).agent(session))
    assert answer["identical"]
    assert answer["answer"].startswith("US sold more: EU 176 units, US 203 units.")
    decisions = [(call["method"], call["decision"]) for call in answer["calls"]]
    assert decisions == [
        ("sales_records", "allowed"),
        ("sales_records", "allowed"),
        ("get_weather", "allowed"),
        ("sales_records", "denied"),
    ]


def test_the_snapshot_key_names_pyodide_and_the_zips_the_page_imports_from(tmp_path: Path) -> None:
    """The page keeps Pyodide's memory snapshot (corral and the demo imported) under
    manifest.json's "build": a new Pyodide or new Python files (the wheel's and the demo's, the
    standard library) must never restore an old one, which holds their modules and zip
    indexes."""
    spec = importlib.util.spec_from_file_location("web_build", DEMO.parent / "build.py")
    assert spec is not None and spec.loader is not None
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    app, stdlib = tmp_path / "corral-app.zip", tmp_path / "python_stdlib.zip"
    app.write_bytes(b"app one")
    stdlib.write_bytes(b"stdlib one")
    key = build.build_key("314.0.7", app, stdlib)
    assert key == build.build_key("314.0.7", app, stdlib)
    assert len(key) == 16
    assert build.build_key("314.0.8", app, stdlib) != key
    app.write_bytes(b"app two")
    assert build.build_key("314.0.7", app, stdlib) != key
    app.write_bytes(b"app one")
    stdlib.write_bytes(b"stdlib two")
    assert build.build_key("314.0.7", app, stdlib) != key


def test_the_library_is_fetched_on_the_first_import_the_snapshot_lacks(
    demo: ModuleType, tmp_path: Path
) -> None:
    """After a restore the zips are not there; the finder has them fetched once, for the first
    module no other finder found, then leaves."""
    library = tmp_path / "library.zip"
    fetched: list[str] = []

    def fetch(name: str) -> None:
        fetched.append(name)
        with zipfile.ZipFile(library, "w") as archive:
            archive.writestr("demo_lazy_module.py", "VALUE = 42\n")

    finder = demo.FetchLibrary(fetch)
    sys.path.append(str(library))
    sys.meta_path.append(finder)
    try:
        import demo_lazy_module  # type: ignore[import-not-found]

        assert demo_lazy_module.VALUE == 42
        assert fetched == ["demo_lazy_module"]
        assert finder not in sys.meta_path
        with pytest.raises(ModuleNotFoundError):
            import demo_no_such_module  # type: ignore[import-not-found]  # noqa: F401
        assert fetched == ["demo_lazy_module"]
    finally:
        sys.path.remove(str(library))
        sys.modules.pop("demo_lazy_module", None)
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)


def test_ctrl_c_is_answered_not_raised_and_the_sandbox_goes_on(demo: ModuleType) -> None:
    """The page's Ctrl-C is a KeyboardInterrupt in Python (Pyodide's interrupt buffer): the
    answer says so, as JSON (an exception leaving for the page costs a traceback's formatting),
    and the next command runs with the shell session of the last completed one."""
    app = demo.DemoApp(lambda _: None, timeout=8)
    run(app, "x=kept; cd /tmp")
    ctrl_c = threading.Timer(0.3, _thread.interrupt_main)
    ctrl_c.start()
    try:
        # (In a host sleep: natively, an interrupt inside a guest call aborts wasmtime-py.)
        assert run(app, "x=lost; sleep 5") == {"interrupted": True}
    finally:
        ctrl_c.cancel()
    assert run(app, "echo $x; pwd")["stdout"] == "kept\n/tmp\n"
