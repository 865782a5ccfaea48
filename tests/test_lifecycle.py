"""Lifetimes: a closed, dropped or trapped guest instance leaves nothing behind; a sandbox's own
tools cannot deadlock it; a closed sandbox says so."""

from __future__ import annotations

import asyncio
import gc
import subprocess
import sys
import textwrap
import weakref
from collections.abc import Callable
from typing import Any

import pytest

from corral import (
    Limits,
    Sandbox,
    SandboxClosedError,
    SandboxTool,
    configure_runtime,
    create_bash_tool,
)
from corral.runtime import get_backend

MiB = 1024 * 1024
CLOSED = (
    "this sandbox is closed (Sandbox.close(), or its with-block ended): create a new Sandbox, "
    "or close this one only when you are done with it"
)
TRAP = "function f() { return f() + 1 } f()"  # a stack overflow: the instance is replaced
native = pytest.mark.needs_native("reads /proc/self/status and wasmtime's address space")


def status() -> dict[str, int]:
    """This process's VmSize and VmRSS in bytes."""
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return {key: int(fields[key].split()[0]) * 1024 for key in ("VmSize", "VmRSS")}


def baseline() -> dict[str, int]:
    """:func:`status` once the runtime is warm (its module loaded, its epoch thread started)."""
    Sandbox().execute("return 1")
    gc.collect()
    return status()


def reentry(action: str) -> str:
    return (
        f"Sandbox.{action}() was called from inside this sandbox's own execution (by one of its "
        "tools) and would wait for itself forever; a tool may run code in another sandbox (a "
        "new Sandbox(), or sandbox.fork() before the execution)"
    )


# --- close and with-blocks ------------------------------------------------------------------


def test_with_block_closes_and_every_later_use_says_the_sandbox_is_closed() -> None:
    with Sandbox() as sandbox:
        sandbox.fs.write("/workspace/a.txt", b"a")
        assert sandbox.execute("return 1 + 1").return_value == 2
        assert not sandbox.closed
    assert sandbox.closed
    uses: list[Callable[[], Any]] = [
        lambda: sandbox.execute("return 1"),
        lambda: asyncio.run(sandbox.aexecute("return 1")),
        lambda: sandbox.fs.read("/workspace/a.txt"),
        lambda: sandbox.fs.write("/workspace/b.txt", b"b"),
        sandbox.snapshot,
        sandbox.fork,
        sandbox.reset_shell,
        lambda: sandbox.memory_bytes,
    ]
    for use in uses:
        with pytest.raises(SandboxClosedError) as caught:
            use()
        assert str(caught.value) == CLOSED
    assert [entry.kind for entry in sandbox.audit()] == ["execution_start", "execution_end"]
    sandbox.close()  # idempotent


def test_sandbox_tool_closes_its_sandbox() -> None:
    with create_bash_tool() as tool:
        assert tool.run("echo hi") == "hi\n"
    assert tool.sandbox.closed
    other = SandboxTool(Sandbox())
    other.close()
    with pytest.raises(SandboxClosedError):
        other.run("return 1")


@native
def test_close_releases_the_address_space_at_once() -> None:
    before = baseline()["VmSize"]
    sandbox = Sandbox()
    sandbox.execute("return 1")
    assert status()["VmSize"] > before + 64 * MiB  # a guest reserves its memory up front
    sandbox.close()
    assert status()["VmSize"] < before + 8 * MiB


@native
def test_a_dropped_sandbox_is_freed_without_the_garbage_collector() -> None:
    before = baseline()["VmSize"]
    gc.disable()  # no cycle may keep it: dropping the last reference frees it
    try:
        sandbox = Sandbox()
        sandbox.fs.write("/workspace/x", b"x")
        sandbox.execute("return 1")
        alive = weakref.ref(sandbox)
        del sandbox
        assert alive() is None
        assert status()["VmSize"] < before + 8 * MiB
    finally:
        gc.enable()


@native
def test_each_trap_releases_the_instance_it_replaces() -> None:
    sandbox = Sandbox()
    sandbox.fs.write("/workspace/kept.txt", b"kept")
    sandbox.execute(TRAP)
    gc.collect()
    one_instance = status()["VmSize"]
    for _ in range(5):
        assert sandbox.execute(TRAP).error_kind == "stack_overflow"
    assert status()["VmSize"] < one_instance + 8 * MiB
    assert sandbox.fs.read("/workspace/kept.txt") == b"kept"


@native
def test_soak_1000_sandboxes_and_200_traps_leave_nothing_behind() -> None:
    # About 25 s on a loaded 2-core machine; bench/lifecycle.py soak prints the same figures.
    before = baseline()
    for _ in range(1000):
        sandbox = Sandbox()
        assert sandbox.execute("return 1 + 1").return_value == 2
        del sandbox
    sandbox = Sandbox()
    sandbox.fs.write("/workspace/kept.txt", b"kept")
    for _ in range(200):
        assert sandbox.execute(TRAP).error_kind == "stack_overflow"
    assert sandbox.fs.read("/workspace/kept.txt") == b"kept"
    del sandbox
    gc.collect()
    after = status()
    assert after["VmRSS"] - before["VmRSS"] < 10 * MiB
    assert after["VmSize"] - before["VmSize"] < 8 * MiB


def run_limited(script: str, address_space: int | None) -> subprocess.CompletedProcess[str]:
    """Run ``script`` in a fresh interpreter whose address space is capped (``ulimit -v``)
    from the start, if ``address_space`` is given."""
    preamble = "import resource\n"
    if address_space is not None:
        preamble += f"resource.setrlimit(resource.RLIMIT_AS, ({address_space},) * 2)\n"
    return subprocess.run(
        [sys.executable, "-c", preamble + textwrap.dedent(script)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@native
def test_crash_recovery_keeps_working_under_an_address_space_limit() -> None:
    # The case: with the fast 4 GiB reservation under a 6 GB limit, the second
    # recovery failed (`mmap failed to reserve`) because replaced instances were never freed.
    script = """
        from corral import Sandbox
        from corral.runtime import get_backend
        from corral._module import wasm_bytes
        get_backend().load(wasm_bytes())
        sandbox = Sandbox()  # the engine exists before the limit: it reserves 4 GiB each
        resource.setrlimit(resource.RLIMIT_AS, (6 * 10**9,) * 2)
        kinds = [sandbox.execute("function f() { return f() + 1 } f()").error_kind
                 for _ in range(5)]
        print(kinds, sandbox.execute("return 'alive'").return_value)
    """
    done = run_limited(script, None)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "['stack_overflow', 'stack_overflow', 'stack_overflow', 'stack_overflow', "
        "'stack_overflow'] alive\n",
        "",
    )


@native
def test_under_an_address_space_limit_instances_reserve_little_by_default() -> None:
    script = """
        from corral import Sandbox
        from corral.runtime import get_backend
        print(get_backend().memory)
        sandboxes = [Sandbox() for _ in range(8)]  # 8 x 4 GiB would not fit in 3 GB
        for sandbox in sandboxes:
            assert sandbox.execute("function f() { return f() + 1 } f()").error_kind
        print(sum(s.execute("return 1").return_value for s in sandboxes))
    """
    done = run_limited(script, 3 * 10**9)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "{'memory_reservation': 0, 'memory_reservation_for_growth': 67108864}\n8\n",
        "",
    )


@native
def test_explicit_memory_settings_become_the_engine_configuration() -> None:
    from corral.runtime._wasmtime import memory_settings

    assert memory_settings(256 * MiB, 2 * MiB) == {
        "memory_reservation": 256 * MiB,
        "memory_reservation_for_growth": 64 * MiB,  # else every growth past it copies
        "memory_guard_size": 2 * MiB,
    }
    assert memory_settings(4096 * MiB, None) == {"memory_reservation": 4096 * MiB}


def test_configure_runtime_is_refused_once_the_runtime_has_started() -> None:
    Sandbox().close()
    with pytest.raises(RuntimeError) as caught:
        configure_runtime(memory_reservation=256 * MiB)
    assert str(caught.value) == (
        "the runtime has started already (a Sandbox exists, or a module was loaded): call "
        "corral.configure_runtime() once, before the first Sandbox()"
    )
    configure_runtime()  # the settings in force: nothing to change
    with pytest.raises(ValueError, match=r"^memory_guard_size must be from 0 to 2\*\*48 bytes"):
        configure_runtime(memory_guard_size=-1)
    assert get_backend() is get_backend()


# --- a sandbox's own tools cannot deadlock it -------------------------------------------------


def guest_error(sandbox: Sandbox, tool: str) -> str:
    code = f"try {{ return await {tool}({{}}) }} catch (e) {{ return e.name + ': ' + e.message }}"
    result = sandbox.execute(code)
    assert result.error is None, result.error
    value: str = result.return_value
    return value


def test_a_tool_that_runs_its_own_sandbox_gets_an_error_at_once() -> None:
    holder: list[Sandbox] = []

    def again() -> object:
        """Run code in the same sandbox."""
        return holder[0].execute("return 1").return_value

    def snapshot() -> int:
        """Snapshot the same sandbox."""
        return len(holder[0].snapshot())

    def close() -> None:
        """Close the same sandbox."""
        holder[0].close()

    sandbox = Sandbox(tools=[again, snapshot, close], limits=Limits(timeout=5))
    holder.append(sandbox)
    for tool, action in [("again", "execute"), ("snapshot", "snapshot"), ("close", "close")]:
        assert guest_error(sandbox, tool) == (
            f"ToolError: {tool} failed: RuntimeError: {reentry(action)}"
        )
    assert sandbox.execute("return 'still usable'").return_value == "still usable"


def test_an_async_tool_that_awaits_its_own_sandbox_gets_an_error_at_once() -> None:
    sandbox, expected = async_reentry()
    code = "try { return await again({}) } catch (e) { return e.name + ': ' + e.message }"
    assert asyncio.run(sandbox.aexecute(code)).return_value == expected
    assert guest_error(sandbox, "again") == expected  # sync execute(), async tool


@pytest.mark.needs_native("a sync execute() in a running loop runs async tools in a thread")
def test_an_async_tool_in_a_helper_thread_still_cannot_run_its_own_sandbox() -> None:
    sandbox, expected = async_reentry()

    async def main() -> object:
        # A sync execute() inside a running loop runs async tools on a loop in a helper thread.
        return guest_error(sandbox, "again")

    assert asyncio.run(main()) == expected


def async_reentry() -> tuple[Sandbox, str]:
    """A sandbox whose async tool ``again`` awaits the same sandbox, and the guest's error."""
    holder: list[Sandbox] = []

    async def again() -> object:
        """Run code in the same sandbox."""
        return (await holder[0].aexecute("return 1")).return_value

    holder.append(Sandbox(tools=[again], limits=Limits(timeout=5)))
    return holder[0], f"ToolError: again failed: RuntimeError: {reentry('aexecute')}"


def test_a_tool_may_run_code_in_another_sandbox() -> None:
    helper = Sandbox()

    def elsewhere() -> object:
        """Run code in another sandbox."""
        return helper.execute("return 6 * 7").return_value

    async def aelsewhere() -> object:
        """Run code in another sandbox, asynchronously."""
        return (await helper.aexecute("return 6 * 7")).return_value

    sandbox = Sandbox(tools=[elsewhere, aelsewhere])
    code = "return [await elsewhere({}), await aelsewhere({})]"
    assert sandbox.execute(code).return_value == [42, 42]
    assert asyncio.run(sandbox.aexecute(code)).return_value == [42, 42]


def test_concurrent_aexecute_calls_on_one_sandbox_take_turns() -> None:
    sandbox = Sandbox()

    async def main() -> list[object]:
        runs = [sandbox.aexecute(f"await null; return {i}") for i in range(3)]
        return [r.return_value for r in await asyncio.gather(*runs)]

    assert asyncio.run(main()) == [0, 1, 2]


# --- an execution interrupted from the host ----------------------------------------------------


class Interrupt(BaseException):
    """Stands for Ctrl-C (KeyboardInterrupt, which asyncio.run handles apart) arriving while
    the host answers a call or sleeps for the guest."""


def ctrl_c() -> str:
    """Raises :class:`Interrupt`."""
    raise Interrupt


@pytest.mark.parametrize("run", ["sync", "async"])
def test_an_interrupted_execution_leaves_the_last_completed_state_while_its_error_lives(
    run: str,
) -> None:
    """The interrupt propagates; the next execution runs with the files and shell
    session of the last completed one, even while the interrupt (and so its traceback, which
    holds the interrupted run) is still referenced, as a REPL or Pyodide's error object keeps
    it."""
    sandbox = Sandbox(tools=[ctrl_c])
    sandbox.execute("cd /tmp && echo kept > f && x=5", "shell")
    with pytest.raises(Interrupt) as interrupted:
        code = "echo lost > f; x=6; tool ctrl_c"
        if run == "sync":
            sandbox.execute(code, "shell")
        else:
            asyncio.run(sandbox.aexecute(code, "shell"))
    assert interrupted.value.__traceback__ is not None  # still alive, and the run with it
    # The half-run instance is gone; its replacement waits for the next use (the interrupt
    # returns at once: the page's Ctrl-C gives the prompt back before the new instance).
    assert sandbox._driver._instance is None
    result = sandbox.execute("echo $x; cat f", "shell")
    assert (result.stdout, result.error) == ("5\nkept\n", None)
