"""Every JavaScript execution starts in the sandbox's realm as it was before the first one: the
guest rewinds QuickJS's heap to a snapshot after each execution (``guest/src/js/heap.rs``).
Executions cannot see each other's changes, traces replay exactly, and what an execution left
in the heap is gone once it ends."""

from __future__ import annotations

from typing import Any

from corral import Limits, Sandbox, replay_all


def _entropy_reads(sandbox: Sandbox, code: str) -> list[dict[str, Any]]:
    """The clock and random events the trace records for one execution of ``code``."""
    start = len(sandbox.trace.events)
    sandbox.execute(code)
    return [e for e in sandbox.trace.events[start:] if e["t"] in ("clock", "random")]


def test_every_execution_reads_the_clock_alike() -> None:
    # Nothing is built between executions (building a realm would read the clock).
    with Sandbox() as sandbox:
        first = _entropy_reads(sandbox, "return 1")
        for _ in range(3):
            later = _entropy_reads(sandbox, "return 1")
            assert [e["id"] for e in later] == [e["id"] for e in first]


def test_changes_to_the_built_ins_and_the_prelude_do_not_reach_the_next_execution() -> None:
    with Sandbox() as sandbox:
        changes = (
            "Array.prototype.sum = function () { return 1 }; globalThis.leak = 2;"
            "Object.setPrototypeOf(Object.getPrototypeOf(async function () {}), null);"
            "Object.preventExtensions(Math); delete globalThis.console; delete globalThis.fs;"
            "Symbol.for('kept?'); (function* () {}).constructor.prototype.prototype.next = null"
        )
        assert sandbox.execute(changes).error is None
        code = (
            "console.log(typeof [].sum, typeof leak, Object.isExtensible(Math));"
            "const g = (function* () { yield 1 })(); await (async () => 0)();"
            "return [g.next().value, typeof fs.readFileSync]"
        )
        for _ in range(3):  # the same from the same realm, every time
            result = sandbox.execute(code)
            assert result.stdout == 'undefined undefined true\n[1,"function"]'
            assert result.return_value == [1, "function"]


def test_what_an_execution_leaves_in_the_heap_is_freed_when_it_ends() -> None:
    # Each execution needs 8 MB and keeps 4 MB reachable from a global and in a cycle; without
    # the rewind the 16 MB heap would be full by the third.
    with Sandbox(limits=Limits(memory=16 << 20)) as sandbox:
        code = (
            "globalThis.keep = new Array(1 << 19).fill(0).map((_, i) => i);"
            "const a = {keep}; a.self = a; return keep.length"
        )
        for _ in range(10):
            result = sandbox.execute(code)
            assert (result.error, result.return_value) == (None, 1 << 19)


def test_an_abandoned_execution_leaves_nothing_behind() -> None:
    with Sandbox(limits=Limits(memory=16 << 20, timeout=0.3)) as sandbox:
        code = "globalThis.x = new Array(1 << 20).fill(1); await new Promise(() => {})"
        assert sandbox.execute(code).error_kind == "deadlock"
        code = "const a = []; while (true) { a.push(new Array(1000)) }"
        assert sandbox.execute(code).error_kind in ("timeout", "exception")  # or out of memory
        result = sandbox.execute("return [typeof x, new Array(1 << 20).fill(2).length]")
        assert (result.error, result.return_value) == (None, ["undefined", 1 << 20])


def test_a_trace_replays_exactly() -> None:
    with Sandbox(seed=7) as sandbox:
        for code in ("return Math.random()", "throw new Error('x')", "return Date.now()"):
            sandbox.execute(code)
        sandbox.execute("echo $RANDOM", language="shell")
        sandbox.execute("return Math.random()")
        originals = [e["result"] for e in sandbox.trace.events if e["t"] == "end"]
        replayed = replay_all(sandbox.trace)
    assert [r.to_dict() for r in replayed] == originals
