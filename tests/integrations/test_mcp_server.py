"""``corral mcp`` through the MCP SDK's own client: in-process, over stdio, over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.metadata
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="needs the mcp extra: pip install 'corral[mcp]'")
if int(importlib.metadata.version("mcp").split(".")[0]) < 2:  # crewai's environment has mcp 1
    pytest.skip("needs mcp 2: pip install 'corral[mcp]'", allow_module_level=True)

from mcp import Client, StdioServerParameters

from corral import Limits, MethodCapability, Param, Sandbox
from corral.cli import main
from corral.integrations.mcp_config import ConfigError, ServerConfig, load_config, parse_config
from corral.integrations.mcp_server import SandboxServer, tools_from_module

pytestmark = pytest.mark.needs_native("the MCP SDK runs servers in threads and subprocesses")

TOOLS_MODULE = '''\
"""Tools for the test server."""
from json import dumps  # imported: not a tool


def transfer(amount: float, currency: str) -> dict:
    """Send money."""
    return {"sent": amount, "currency": currency}


def get_weather(city: str) -> dict:
    """Weather for a city."""
    return {"city": city, "temp": 21}


def _helper() -> None:
    pass
'''

CONFIG = """\
[limits]
timeout = 5

[session]
max_calls = 10

[[capabilities]]
method = "transfer"
constraints = { amount = "<=100", currency = ["EUR"] }
max_calls = 2

[[capabilities]]
method = "get_weather"
"""


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def call(client: Client, tool: str, **args: Any) -> tuple[bool, str]:
    """(is_error, text) of one tool call."""
    result = await client.call_tool(tool, args)
    assert len(result.content) == 1
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]


@contextlib.asynccontextmanager
async def connected(server: SandboxServer) -> AsyncIterator[Client]:
    """An in-process client session (the handshake: see test_modern_in_process_is_refused)."""
    async with Client(server.server, mode="legacy") as client:
        yield client


# --- in-process --------------------------------------------------------------------------


def test_lists_five_tools_and_describes_what_the_code_can_call() -> None:
    async def main() -> None:
        async with connected(SandboxServer([add])) as client:
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert list(tools) == [
                "run_javascript",
                "run_shell",
                "read_file",
                "write_file",
                "list_files",
            ]
            template = Sandbox([add])
            from corral import SandboxTool

            assert tools["run_javascript"].description == (
                SandboxTool(template).description
                + "\n\nFiles in /workspace and /tmp persist from call to call within this session."
            )
            assert str(tools["run_shell"].description).endswith(
                "/** Add two numbers. */\n"
                "declare function add(args: {a: number; b: number}): Promise<number>;\n\n"
                "Files in /workspace and /tmp persist from call to call within this session."
            )
            assert tools["run_shell"].input_schema == {
                "type": "object",
                "properties": {"code": {"type": "string", "description": "The script to run."}},
                "required": ["code"],
                "additionalProperties": False,
            }

    asyncio.run(main())


def test_runs_code_that_calls_tools_and_keeps_files_in_the_session() -> None:
    async def main() -> None:
        async with connected(SandboxServer([add])) as client:
            assert await call(client, "run_javascript", code="return await add({a: 2, b: 3})") == (
                False,
                "5",
            )
            assert await call(client, "write_file", path="notes.txt", content="héllo\n") == (
                False,
                "wrote 7 bytes to notes.txt",
            )
            assert await call(
                client, "run_shell", code="cat notes.txt; tool add --a 1 --b 2; mkdir d"
            ) == (False, "héllo\n3\n")
            assert await call(client, "list_files") == (False, "d/\nnotes.txt (7 bytes)")
            assert await call(client, "read_file", path="/workspace/notes.txt") == (
                False,
                "héllo\n",
            )

    asyncio.run(main())


def test_guest_failures_are_error_results_with_the_guest_text() -> None:
    server = SandboxServer(
        [add], capabilities=[MethodCapability("add", Param("a") <= 10)], limits=Limits(timeout=1)
    )

    async def main() -> None:
        async with connected(server) as client:
            assert await call(client, "run_javascript", code="return await add({a: 50, b: 1})") == (
                True,
                "CapabilityError: add denied: a <= 10 failed (a = 50)\n",
            )
            assert await call(client, "run_shell", code="tool add --a 50 --b 1") == (
                True,
                "tool: add denied: a <= 10 failed (a = 50)\n",
            )
            assert await call(client, "run_javascript", code="throw new Error('boom')") == (
                True,
                "Error: boom\n    at <anonymous> (code.js:1:11)\n",
            )
            assert await call(client, "run_shell", code="exit 3") == (True, "[exit code 3]\n")
            assert await call(client, "read_file", path="missing.txt") == (
                True,
                "missing.txt: No such file or directory",
            )
            assert await call(client, "write_file", path="/etc/x", content="") == (
                True,
                "/etc/x: Permission denied",
            )
            assert await call(client, "run_shell") == (
                True,
                "the argument 'code' is missing: pass it as a string",
            )
            assert await call(client, "deploy") == (
                True,
                "unknown tool 'deploy' (available: run_javascript, run_shell, read_file, "
                "write_file, list_files)",
            )

    asyncio.run(main())


def test_read_file_shows_at_most_max_output_bytes() -> None:
    server = SandboxServer(limits=Limits(max_output=10))

    async def main() -> None:
        async with connected(server) as client:
            await call(client, "write_file", path="big.txt", content="é" * 8)
            assert await call(client, "read_file", path="big.txt") == (
                False,
                "ééééé\n[file truncated: 16 bytes, more than 10; read parts of it with "
                "run_shell, e.g. sed -n '1,100p' big.txt]\n",
            )

    asyncio.run(main())


def test_sessions_are_isolated_and_released_when_they_end() -> None:
    server = SandboxServer(max_calls=None)

    async def main() -> None:
        async with connected(server) as first, connected(server) as second:
            await call(first, "write_file", path="mine.txt", content="first")
            assert await call(second, "list_files") == (False, "/workspace is empty")
            assert await call(first, "list_files") == (False, "mine.txt (5 bytes)")
            assert len(server.sessions) == 2
        assert server.sessions == {}

    asyncio.run(main())


def test_budgets_are_per_session() -> None:
    server = SandboxServer([add], max_calls=1)
    code = "return await add({a: 1, b: 1})"

    async def main() -> None:
        for _ in range(2):  # a new session starts with a full budget
            async with connected(server) as client:
                assert await call(client, "run_javascript", code=code) == (False, "2")
                denied, text = await call(client, "run_javascript", code=code)
                assert denied
                assert text.startswith("CapabilityError: add denied: ")

    asyncio.run(main())


def test_modern_in_process_is_refused_with_what_to_do() -> None:
    async def main() -> None:
        async with Client(SandboxServer().server) as client:  # mode="auto": 2026-07-28
            assert await call(client, "run_shell", code="echo hi") == (
                True,
                "this server keeps a sandbox per session, and a 2026-07-28 connection has no "
                "session: connect with the initialize handshake (mcp.Client(..., mode='legacy'))",
            )

    asyncio.run(main())


# --- configuration -------------------------------------------------------------------------


def test_config_file_sets_limits_budgets_and_capabilities(tmp_path: Path) -> None:
    path = tmp_path / "corral.toml"
    path.write_text(CONFIG)
    config = load_config(path)
    assert config.limits == Limits(timeout=5)
    assert config.max_calls == 10
    assert [cap.describe() for cap in config.capabilities or ()] == [
        "transfer where amount <= 100 and currency in ['EUR'] (max_calls=2)",
        "get_weather",
    ]


def test_compact_constraints_and_budgets() -> None:
    config = parse_config(
        {"constraints": {"transfer": {"amount": "<=5"}}, "max_calls": {"get_weather": 3}}
    )
    assert [cap.describe() for cap in config.capabilities or ()] == [
        "transfer where amount <= 5",
        "get_weather (max_calls=3)",
    ]
    assert parse_config({}) == ServerConfig()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[limits]\ntimeout = -1\n",
            "limits.timeout: must be > 0 and at most 86400 seconds (one day), got -1",
        ),
        ('[limits]\nmemory = "1G"\n', "limits.memory: must be a number, not a string"),
        ('[limits]\ntimeout = "5"\n', "limits.timeout: must be a number, not a string"),
        (
            "[limits]\ntimout = 5\n",
            "limits.timout: unknown key (known here: timeout, memory, max_output, "
            "max_tool_calls, max_fs_bytes, max_files, max_file_size)",
        ),
        (
            "[[capabilities]]\nmax_calls = 2\n",
            'capabilities[0].method: is required: a method pattern such as "payments/*"',
        ),
        (
            '[[capabilities]]\nmethod = "pay"\nconstraints = { amount = "<=x" }\n',
            "capabilities[0].constraints.amount: ",
        ),
        (
            '[[capabilities]]\nmethod = "pay"\n[max_calls]\npay = 1\n',
            "max_calls: cannot be used together with [[capabilities]]: write the constraints "
            "and budget inside each [[capabilities]] entry instead",
        ),
        ("[session]\nmax_calls = -1\n", "session.max_calls: must be an integer >= 0, not -1"),
        ('tools = "mod"\n', 'tools: must be a list of strings, e.g. ["pkg.module"], not a string'),
        (
            "[mcp_servers.gh]\nargs = []\n",
            "mcp_servers.gh.command: is required (or url = ...): the program to launch",
        ),
        (
            "[sandbox]\n",
            "sandbox: unknown key (known here: tools, limits, session, capabilities, "
            "constraints, max_calls, mcp_servers)",
        ),
        ("[limits\n", "(syntax): not valid TOML: "),
    ],
)
def test_bad_config_names_the_key_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = tmp_path / "corral.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value).startswith(f"{path}: {message}")
    assert main(["mcp", "--config", str(path)]) == 2
    assert capsys.readouterr().err == f"corral: {caught.value}\n"


def test_tools_module_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "mcp_plain_tools.py").write_text(TOOLS_MODULE)
    (tmp_path / "mcp_listed_tools.py").write_text(TOOLS_MODULE + "\n\nTOOLS = [get_weather]\n")
    (tmp_path / "mcp_no_tools.py").write_text("from json import dumps\n")
    assert [t.name for t in tools_from_module("mcp_plain_tools")] == ["transfer", "get_weather"]
    assert [t.name for t in tools_from_module("mcp_listed_tools")] == ["get_weather"]
    with pytest.raises(ValueError, match=r"^module 'mcp_no_tools' defines no public function"):
        tools_from_module("mcp_no_tools")


def test_a_tools_module_that_cannot_be_used_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mcp_empty_tools.py").write_text("from json import dumps\n")
    assert main(["mcp", "--tools", "mcp_missing_tools"]) == 2
    assert main(["mcp", "--tools", "mcp_empty_tools"]) == 2
    assert capsys.readouterr().err == (
        "corral: cannot import the tools module 'mcp_missing_tools' (No module named "
        "'mcp_missing_tools'); give its dotted name, importable from the current directory or "
        "the environment\n"
        "corral: module 'mcp_empty_tools' defines no public function and no TOOLS list\n"
    )


# --- as a process ---------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with a tool module and a config, as a user would have."""
    (tmp_path / "bank_tools.py").write_text(TOOLS_MODULE)
    (tmp_path / "corral.toml").write_text(CONFIG)
    return tmp_path


def corral_mcp(project: Path, *extra: str) -> list[str]:
    return ["-m", "corral", "mcp", "--tools", "bank_tools", "--config", "corral.toml", *extra]


async def exercise(client: Client) -> list[tuple[bool, str]]:
    """One session's calls: a tool, a denied call, files that persist, the budget."""
    return [
        await call(client, "run_shell", code="ls; tool get_weather --city Oslo"),
        await call(
            client,
            "run_javascript",
            code="return (await transfer({amount: 50, currency: 'EUR'})).sent",
        ),
        await call(client, "run_javascript", code="await transfer({amount: 500, currency: 'EUR'})"),
        await call(client, "write_file", path="a.txt", content="kept"),
        await call(client, "run_shell", code="cat a.txt"),
    ]


EXPECTED = [
    (False, '{\n  "city": "Oslo",\n  "temp": 21\n}\n'),
    (False, "50"),
    (True, "CapabilityError: transfer denied: amount <= 100 failed (amount = 500)\n"),
    (False, "wrote 4 bytes to a.txt"),
    (False, "kept"),
]


def test_stdio_subprocess(project: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=corral_mcp(project), cwd=project)

    async def main() -> None:
        for _ in range(2):  # each session is a process with a sandbox of its own
            async with Client(params) as client:
                assert await exercise(client) == EXPECTED

    asyncio.run(main())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def http_server(project: Path) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, *corral_mcp(project, "--http", str(port))], cwd=project
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert process.poll() is None, "corral mcp --http exited"
                assert time.monotonic() < deadline, "corral mcp --http did not listen in 30 s"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_http_sessions_are_isolated(project: Path) -> None:
    async def main(url: str) -> None:
        async with Client(url) as first, Client(url) as second:
            assert first.protocol_version == "2025-11-25"  # a session: see run_http
            assert await exercise(first) == EXPECTED
            assert await exercise(second) == EXPECTED  # its own files and budgets

    with http_server(project) as url:
        asyncio.run(asyncio.wait_for(main(url), timeout=60))


def test_http_sessions_are_released_when_they_end() -> None:
    server = SandboxServer()
    port = free_port()

    async def main() -> None:
        serving = asyncio.create_task(server.run_http(port))
        url = f"http://127.0.0.1:{port}/mcp"
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                break
            except OSError:
                await asyncio.sleep(0.05)
        async with Client(url) as first, Client(url) as second:
            await call(first, "write_file", path="mine.txt", content="first")
            assert await call(second, "list_files") == (False, "/workspace is empty")
            assert len(server.sessions) == 2
        while server.sessions:  # the client ends its session with a DELETE
            await asyncio.sleep(0.05)
        serving.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await serving

    asyncio.run(asyncio.wait_for(main(), timeout=60))


def test_http_server_as_the_tools_of_a_sandbox(project: Path) -> None:
    """The MCP client bridge over streamable HTTP: corral's server's tools in a sandbox."""
    with http_server(project) as url:
        sandbox = Sandbox(mcp_servers={"box": url})
        result = sandbox.execute(
            "await box.write_file({path: 'x', content: 'hi'});"
            "return await box.run_shell({code: 'cat x; echo'})"
        )
        assert (result.return_value, result.stderr) == ("hi\n", "")
        sandbox.close()


GITHUB_SERVER = """\
from mcp.server.mcpserver import MCPServer

server = MCPServer("github")


@server.tool()
def create_issue(title: str) -> dict:
    \"\"\"Open an issue.\"\"\"
    return {"number": 1, "title": title}


@server.tool()
def delete_repo(name: str) -> str:
    \"\"\"Delete a repository.\"\"\"
    return "deleted"


server.run()
"""


def test_tools_of_other_mcp_servers_from_the_config(tmp_path: Path) -> None:
    (tmp_path / "github_mcp.py").write_text(GITHUB_SERVER)
    path = tmp_path / "corral.toml"
    path.write_text(
        f"[mcp_servers.gh]\ncommand = {json.dumps(sys.executable)}\n"
        f"args = [{json.dumps(str(tmp_path / 'github_mcp.py'))}]\n"
        '[[capabilities]]\nmethod = "gh/create_*"\n'
    )
    server = SandboxServer.from_config(load_config(path))
    try:

        async def main() -> list[tuple[bool, str]]:
            async with connected(server) as client:
                return [
                    await call(
                        client, "run_javascript", code="return await gh.create_issue({title: 'x'})"
                    ),
                    await call(client, "run_shell", code="tool gh/delete_repo --name corral"),
                ]

        assert asyncio.run(main()) == [
            (False, '{"number":1,"title":"x"}'),
            (True, "tool: gh/delete_repo denied: no capability matches 'gh/delete_repo'\n"),
        ]
    finally:
        server.close()
