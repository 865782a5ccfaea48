"""The subjects of the benchmark: corral and its peers, each behind one small adapter.

Every adapter answers the same questions (which ``.wasm`` it ships, how it loads that module,
how it creates a sandbox) and opens a :class:`Session` that runs the same four JavaScript
workloads. A subject that cannot do something raises :class:`~harness.UnavailableError` with
the reason, which the report prints as "n/a".

The peers are driven only through their documented public API (README, docstrings).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, ClassVar

import wasmtime

from harness import Timed, UnavailableError, installed_version

__all__ = ["ADAPTERS", "Adapter", "RawWasm", "Session", "batch_js"]


def echo(x: int) -> dict[str, int]:
    """Return its argument (the benchmark's tool)."""
    return {"x": x}


async def aecho(x: int) -> dict[str, int]:
    """Return its argument, asynchronously (the benchmark's async tool)."""
    return {"x": x}


def batch_js(fn: str, n: int) -> str:
    """The expression that issues ``n`` concurrent calls of tool ``fn`` and yields the count."""
    calls = f"Array.from({{length: {n}}}, (_, i) => {fn}({{x: i}}))"
    return f"(await Promise.all({calls})).length"


class Session(ABC):
    """A ready sandbox running the four workloads; each returns the value the code produced."""

    @abstractmethod
    def simple(self) -> Any:
        """Run ``1+2`` (expected 3)."""

    @abstractmethod
    def tool(self) -> Any:
        """Make one tool call, ``echo({x: 1})`` (expected ``{"x": 1}``)."""

    @abstractmethod
    def batch(self, n: int) -> Any:
        """``Promise.all`` of ``n`` calls of a sync tool (expected ``n``)."""

    @abstractmethod
    def abatch(self, n: int) -> Any:
        """``Promise.all`` of ``n`` calls of an async tool (expected ``n``)."""

    @abstractmethod
    def close(self) -> None:
        """Release the sandbox."""


class Adapter(ABC):
    """One subject of the benchmark."""

    name: ClassVar[str]
    dist: ClassVar[str]
    notes: ClassVar[dict[str, str]] = {}
    """Per-measurement footnotes on how this subject does it (keyed by measurement id)."""

    def version(self) -> str:
        """The installed version of the subject's distribution."""
        return installed_version(self.dist)

    @abstractmethod
    def engine_wasm(self) -> Path:
        """The ``.wasm`` that runs JavaScript."""

    def shipped_wasm(self) -> list[Path]:
        """Every ``.wasm`` the package ships."""
        return [self.engine_wasm()]

    @abstractmethod
    def cold_load(self) -> Timed:
        """First load of the module through the subject's own API, with no cache to help."""

    @abstractmethod
    def disk_load(self) -> Timed:
        """Load from the subject's disk cache into a fresh engine, through its own API."""

    @abstractmethod
    def memory_load(self) -> Timed:
        """A second load in the same process, through its own API."""

    @abstractmethod
    def create(self) -> Timed:
        """Create one sandbox, the module being loaded already."""

    def first_sandbox(self) -> Timed:
        """A fresh Python process's first sandbox and execution, timed in that process."""
        raise UnavailableError("not measured")

    @abstractmethod
    def session(self) -> Session:
        """A ready sandbox with the ``echo`` and ``aecho`` tools."""


def _env_setter(name: str, value: str) -> Callable[[], None]:
    """A ``before`` hook that sets an environment variable."""

    def before() -> None:
        os.environ[name] = value

    return before


# --- corral -----------------------------------------------------------------------------------


class CorralSession(Session):
    """``corral.Sandbox`` with a sync ``echo`` and an async ``aecho`` tool."""

    def __init__(self) -> None:
        from corral import Sandbox

        self.sandbox = Sandbox(tools=[echo, aecho])
        self.loop = asyncio.new_event_loop()

    def _run(self, code: str) -> Any:
        result = self.sandbox.execute(code)
        if not result.ok:
            raise RuntimeError(result.error or result.stderr)
        return result.return_value

    def simple(self) -> Any:
        return self._run("return 1+2")

    def tool(self) -> Any:
        return self._run("return await echo({x: 1})")

    def batch(self, n: int) -> Any:
        return self._run(f"return {batch_js('echo', n)}")

    def abatch(self, n: int) -> Any:
        result = self.loop.run_until_complete(
            self.sandbox.aexecute(f"return {batch_js('aecho', n)}")
        )
        if not result.ok:
            raise RuntimeError(result.error or result.stderr)
        return result.return_value

    def close(self) -> None:
        self.loop.close()


class CorralAdapter(Adapter):
    """corral, from this repository (``PYTHONPATH=python``) or installed."""

    name = "corral"
    dist = "corral"
    notes: ClassVar[dict[str, str]] = {
        "load_cold": "corral: a fresh `WasmtimeBackend` (its own engine) loads with "
        "`CORRAL_CACHE_DIR` pointing at an empty directory: compile + write the disk cache.",
        "load_disk": "corral: a fresh `WasmtimeBackend` loads from a warm `CORRAL_CACHE_DIR` "
        "(hash the module, deserialize the cached `.cwasm`).",
        "load_memory": "corral: `get_backend().load(wasm)` again (in-process module cache).",
        "abatch": "corral: `await Sandbox.aexecute(...)` with an `async def` tool.",
    }

    def __init__(self) -> None:
        import corral

        self._version = corral.__version__
        self._tmp = tempfile.TemporaryDirectory(prefix="corral-bench-")
        self._saved_cache_dir = os.environ.get("CORRAL_CACHE_DIR")

    def version(self) -> str:
        return self._version

    def engine_wasm(self) -> Path:
        from corral._module import wasm_path

        return wasm_path()

    def _restore_env(self, _: object = None) -> None:
        if self._saved_cache_dir is None:
            os.environ.pop("CORRAL_CACHE_DIR", None)
        else:
            os.environ["CORRAL_CACHE_DIR"] = self._saved_cache_dir

    def cold_load(self) -> Timed:
        from corral._module import wasm_bytes
        from corral.runtime._wasmtime import WasmtimeBackend

        wasm = wasm_bytes()

        def before() -> None:
            os.environ["CORRAL_CACHE_DIR"] = tempfile.mkdtemp(dir=self._tmp.name)

        return Timed(
            lambda: WasmtimeBackend().load(wasm),
            before=before,
            after=self._restore_env,
            warmup=False,
        )

    def disk_load(self) -> Timed:
        from corral._module import wasm_bytes
        from corral.runtime._wasmtime import WasmtimeBackend

        wasm = wasm_bytes()
        warm = str(Path(self._tmp.name) / "warm")
        _env_setter("CORRAL_CACHE_DIR", warm)()
        WasmtimeBackend().precompile(wasm)
        self._restore_env()
        return Timed(
            lambda: WasmtimeBackend().load(wasm),
            before=_env_setter("CORRAL_CACHE_DIR", warm),
            after=self._restore_env,
        )

    def memory_load(self) -> Timed:
        from corral._module import wasm_bytes
        from corral.runtime import get_backend

        backend = get_backend()
        backend.load(wasm_bytes())
        return Timed(lambda: backend.load(wasm_bytes()))

    def create(self) -> Timed:
        from corral import Sandbox

        return Timed(lambda: Sandbox(tools=[echo]))

    def first_sandbox(self) -> Timed:
        return Timed(_in_fresh_process(CORRAL_FIRST_SANDBOX), reported=True)

    def session(self) -> Session:
        return CorralSession()


CORRAL_FIRST_SANDBOX = """
import corral
assert corral.Sandbox().execute("return 1+2").return_value == 3
"""


def _in_fresh_process(script: str) -> Callable[[], int]:
    """A call that runs ``script`` in a fresh Python process (this interpreter, this
    environment) and returns the nanoseconds it took there, the interpreter's own start-up
    excluded. The processes run with bytecode caches, as an installed package has them:
    corral's are written first, and ``PYTHONDONTWRITEBYTECODE`` is dropped so that the
    first process writes any other that is missing (without them every process would
    compile the modules it imports again)."""
    import compileall

    import corral

    compileall.compile_dir(Path(corral.__file__).parent, quiet=1)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    timed = (
        "import time\n_start = time.perf_counter_ns()\n"
        f"{script}\nprint(time.perf_counter_ns() - _start)\n"
    )

    def run() -> int:
        done = subprocess.run(
            [sys.executable, "-c", timed], capture_output=True, text=True, check=True, env=env
        )
        return int(done.stdout.split()[-1])

    return run


# --- amla-sandbox -----------------------------------------------------------------------------


def _amla_handler(method: str, params: dict[str, Any]) -> dict[str, int]:
    return echo(**params)


async def _amla_ahandler(method: str, params: dict[str, Any]) -> dict[str, int]:
    return await aecho(**params)


class AmlaSession(Session):
    """Two ``amla_sandbox.Sandbox`` objects: one sync tool handler, one async (it takes one)."""

    def __init__(self) -> None:
        self.sandbox = AmlaAdapter.new_sandbox(echo, _amla_handler)
        self.async_sandbox = AmlaAdapter.new_sandbox(aecho, _amla_ahandler)
        self.loop = asyncio.new_event_loop()

    @staticmethod
    def _value(stdout: str) -> Any:
        """amla prints a returned value on stdout (``execute`` returns stdout)."""
        return json.loads(stdout)

    def simple(self) -> Any:
        return self._value(self.sandbox.execute("return 1+2"))

    def tool(self) -> Any:
        return self._value(self.sandbox.execute("return await echo({x: 1})"))

    def batch(self, n: int) -> Any:
        return self._value(self.sandbox.execute(f"return {batch_js('echo', n)}"))

    def abatch(self, n: int) -> Any:
        code = f"return {batch_js('aecho', n)}"
        return self._value(self.loop.run_until_complete(self.async_sandbox.execute_async(code)))

    def close(self) -> None:
        for sandbox in (self.sandbox, self.async_sandbox):
            sandbox.__exit__(None, None, None)
        self.loop.close()


class AmlaAdapter(Adapter):
    """amla-sandbox (PyPI), driven through its public ``Sandbox`` API."""

    name = "amla-sandbox"
    dist = "amla-sandbox"
    notes: ClassVar[dict[str, str]] = {
        "load_cold": "amla-sandbox: `precompile_module()`, which compiles the bundled module "
        "and writes its disk cache.",
        "create": "amla-sandbox: `Sandbox(tools=[...], capabilities=[ToolCallCap('**')], "
        "tool_handler=...)` (unlimited calls, like corral's default).",
        "simple": "amla-sandbox: `Sandbox.execute` returns stdout; a returned value is printed "
        "there and parsed back with `json.loads`.",
        "abatch": "amla-sandbox: `await Sandbox.execute_async(...)` with an async tool_handler.",
    }

    def __init__(self) -> None:
        import amla_sandbox

        self.amla = amla_sandbox

    @staticmethod
    def new_sandbox(func: Callable[..., Any], handler: Callable[..., Any]) -> Any:
        """A sandbox with one tool (``func``'s signature) served by ``handler``, no call cap."""
        import amla_sandbox as amla

        return amla.Sandbox(
            tools=[amla.tool_from_function(func)],
            capabilities=[amla.ToolCallCap(method_pattern="**")],
            tool_handler=handler,
        )

    def engine_wasm(self) -> Path:
        from amla_sandbox.runtime.wasm import default_wasm_path

        return Path(default_wasm_path())

    def cold_load(self) -> Timed:
        return Timed(self.amla.precompile_module, warmup=False)

    def disk_load(self) -> Timed:
        raise UnavailableError(
            "its compiled-module cache is held in private module state; no public API loads "
            "the disk cache into a fresh engine"
        )

    def memory_load(self) -> Timed:
        raise UnavailableError(
            "no public API loads the module apart from creating a Sandbox (see Sandbox() row)"
        )

    def create(self) -> Timed:
        self.new_sandbox(echo, _amla_handler).__exit__(None, None, None)  # load the module
        return Timed(
            lambda: self.new_sandbox(echo, _amla_handler),
            after=lambda sandbox: sandbox.__exit__(None, None, None),  # type: ignore[attr-defined]
        )

    def session(self) -> Session:
        return AmlaSession()


# --- quickjs-rs -------------------------------------------------------------------------------


def _qjs_echo(args: dict[str, Any]) -> dict[str, Any]:
    return {"x": args["x"]}


async def _qjs_aecho(args: dict[str, Any]) -> dict[str, Any]:
    return {"x": args["x"]}


class QuickjsRsSession(Session):
    """One ``quickjs_rs`` Runtime and Context with ``echo`` (sync) and ``aecho`` (async)."""

    def __init__(self) -> None:
        import quickjs_rs

        self.runtime = quickjs_rs.Runtime()
        self.context = self.runtime.new_context()
        self.context.register("echo", _qjs_echo)
        self.context.register("aecho", _qjs_aecho)
        self.loop = asyncio.new_event_loop()

    def simple(self) -> Any:
        return self.context.eval("1+2")

    def tool(self) -> Any:
        return self.context.eval("echo({x: 1})")

    def batch(self, n: int) -> Any:
        return self.loop.run_until_complete(self.context.eval_async(batch_js("echo", n)))

    def abatch(self, n: int) -> Any:
        return self.loop.run_until_complete(self.context.eval_async(batch_js("aecho", n)))

    def close(self) -> None:
        self.context.close()
        self.runtime.close()
        self.loop.close()


class QuickjsRsAdapter(Adapter):
    """quickjs-rs (PyPI): QuickJS-ng via rquickjs on wasmtime; no tool/capability layer."""

    name = "quickjs-rs"
    dist = "quickjs-rs"
    notes: ClassVar[dict[str, str]] = {
        "size": "quickjs-rs: `_guest.wasm` runs JS; it also ships `_transform.wasm` "
        "(TypeScript stripping), counted in the next row.",
        "load_cold": "quickjs-rs: the first `Runtime().new_context()` of the process (compile "
        "+ instantiate + context set-up; no public API separates them, and with no disk cache "
        "only the first one in a process is cold, so n=1).",
        "create": "quickjs-rs: `Runtime()` + `new_context()` + `register` two functions "
        "(each Context is its own wasm instance).",
        "simple": "quickjs-rs: `Context.eval('1+2')` (script eval: no `return`).",
        "tool": "quickjs-rs: `Context.eval('echo({x: 1})')` with a registered sync Python "
        "function (a plain host call: no capability check).",
        "batch": "quickjs-rs: `await Context.eval_async(...)` of the same `Promise.all`, "
        "calling a sync registered function.",
        "abatch": "quickjs-rs: `await Context.eval_async(...)` with an async registered function.",
    }

    def __init__(self) -> None:
        import quickjs_rs

        self.qjs = quickjs_rs
        self._contexts_made = False

    def engine_wasm(self) -> Path:
        return Path(str(resources.files("quickjs_rs") / "_guest.wasm"))

    def shipped_wasm(self) -> list[Path]:
        root = Path(str(resources.files("quickjs_rs")))
        return sorted(root.glob("*.wasm"))

    def _first_context(self) -> object:
        self._contexts_made = True
        runtime = self.qjs.Runtime()
        return runtime, runtime.new_context()

    def cold_load(self) -> Timed:
        if self._contexts_made:
            raise UnavailableError("a context was already created in this process")
        return Timed(self._first_context, after=_close_qjs, max_runs=1, warmup=False)

    def disk_load(self) -> Timed:
        raise UnavailableError("no disk cache: every new process compiles (see first-load row)")

    def memory_load(self) -> Timed:
        raise UnavailableError(
            "no public API loads the module apart from creating a context (see Sandbox() row)"
        )

    def _new(self) -> object:
        self._contexts_made = True
        runtime = self.qjs.Runtime()
        context = runtime.new_context()
        context.register("echo", _qjs_echo)
        context.register("aecho", _qjs_aecho)
        return runtime, context

    def create(self) -> Timed:
        _close_qjs(self._new())  # load the module
        return Timed(self._new, after=_close_qjs)

    def session(self) -> Session:
        self._contexts_made = True
        return QuickjsRsSession()


def _close_qjs(pair: Any) -> None:
    """Close a ``(Runtime, Context)`` pair."""
    runtime, context = pair
    context.close()
    runtime.close()


ADAPTERS: dict[str, tuple[str, Callable[[], Adapter]]] = {
    "corral": ("corral", CorralAdapter),
    "amla-sandbox": ("amla_sandbox", AmlaAdapter),
    "quickjs-rs": ("quickjs_rs", QuickjsRsAdapter),
}
"""Subject name -> (import name, adapter factory)."""


class RawWasm:
    """Plain wasmtime on one subject's module, default engine configuration: the same
    procedure for every subject, so these rows compare the modules and not the wrappers."""

    def __init__(self, name: str, wasm: bytes, workdir: Path) -> None:
        self.wasm = wasm
        self.path = workdir / f"{name}.cwasm"
        self._compiled: wasmtime.Module | None = None
        self._engine = wasmtime.Engine()

    def _keep(self, module: object) -> None:
        assert isinstance(module, wasmtime.Module)
        self._compiled = module

    def compile(self) -> Timed:
        """Compile the bytes in a fresh default engine (no cache anywhere)."""
        return Timed(
            lambda: wasmtime.Module(wasmtime.Engine(), self.wasm), after=self._keep, warmup=False
        )

    def _fresh_engine(self) -> None:
        self._engine = wasmtime.Engine()

    def deserialize(self) -> Timed:
        """Deserialize the compiled form from a file into a fresh engine (made untimed)."""
        module = self._compiled or wasmtime.Module(wasmtime.Engine(), self.wasm)
        self.path.write_bytes(module.serialize())
        self._compiled = None
        return Timed(
            lambda: wasmtime.Module.deserialize_file(self._engine, str(self.path)),
            before=self._fresh_engine,
        )
