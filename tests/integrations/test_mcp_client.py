"""MCP servers' tools inside a sandbox: ``Sandbox(mcp_servers=...)`` and ``tools_from_mcp``."""

from __future__ import annotations

import asyncio
import importlib.metadata
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="needs the mcp extra: pip install 'corral[mcp]'")
if int(importlib.metadata.version("mcp").split(".")[0]) < 2:  # crewai's environment has mcp 1
    pytest.skip("needs mcp 2: pip install 'corral[mcp]'", allow_module_level=True)

import anyio
from mcp import StdioServerParameters
from mcp.server.mcpserver import MCPServer

from corral import Limits, MethodCapability, Param, Sandbox, replay
from corral.integrations.mcp_client import MCPTools, tools_from_mcp

pytestmark = pytest.mark.needs_native("the MCP client runs on a background thread")


def github_server() -> MCPServer:
    """A small MCP server with two tools, like a real one (run in-process)."""
    server = MCPServer("github")
    issues: list[str] = []

    @server.tool()
    def create_issue(title: str, labels: list[str] | None = None) -> dict[str, object]:
        """Open an issue."""
        issues.append(title)
        return {"number": len(issues), "title": title, "labels": labels or []}

    @server.tool()
    def delete_repo(name: str) -> str:
        """Delete a repository."""
        return f"deleted {name}"

    @server.tool()
    def count_issues() -> int:
        """How many issues are open."""
        return len(issues)

    @server.tool()
    def fail() -> str:
        """Always fails."""
        from mcp.server.mcpserver.exceptions import ToolError

        raise ToolError("the repository is archived")

    return server


@pytest.fixture
def sandbox() -> Iterator[Sandbox]:
    sandbox = Sandbox(
        mcp_servers=[github_server()],
        capabilities=[
            MethodCapability("github/create_*", Param("title").starts_with("bug:")),
            MethodCapability("github/count_issues"),
            MethodCapability("github/fail"),
        ],
    )
    yield sandbox
    sandbox.close()


def test_tools_take_the_server_name_and_its_schemas(sandbox: Sandbox) -> None:
    assert [tool.to_json() for tool in sandbox.tools.values()][:2] == [
        {
            "name": "github/create_issue",
            "description": "Open an issue.",
            "parameters": {
                "type": "object",
                "properties": {
                    "title": {"title": "Title", "type": "string"},
                    "labels": {
                        "anyOf": [{"items": {"type": "string"}, "type": "array"}, {"type": "null"}],
                        "default": None,
                        "title": "Labels",
                    },
                },
                "required": ["title"],
                "title": "create_issueArguments",
            },
        },
        {
            "name": "github/delete_repo",
            "description": "Delete a repository.",
            "parameters": {
                "type": "object",
                "properties": {"name": {"title": "Name", "type": "string"}},
                "required": ["name"],
                "title": "delete_repoArguments",
            },
        },
    ]


def test_called_from_javascript_through_capabilities(sandbox: Sandbox) -> None:
    result = sandbox.execute(
        """
        const issue = await github.create_issue({title: "bug: crash", labels: ["p1"]});
        console.log(issue.number, issue.title, issue.labels);
        console.log(await github_count_issues({}));
        for (const call of [() => github.delete_repo({name: "corral"}),
                            () => github.create_issue({title: "feature"}),
                            () => github.fail({})]) {
          try { await call(); } catch (e) { console.log(`${e.name}: ${e.message}`); }
        }
        """
    )
    assert result.stdout == (
        '1 bug: crash ["p1"]\n'
        "1\n"
        "CapabilityError: github/delete_repo denied: no capability matches "
        "'github/delete_repo'\n"
        "CapabilityError: github/create_issue denied: title starts_with 'bug:' failed "
        "(title = 'feature')\n"
        "ToolError: github/fail failed: MCPToolError: Error executing tool fail: "
        "the repository is archived\n"
    )
    assert [(call.method, call.allowed) for call in result.tool_calls] == [
        ("github/create_issue", True),
        ("github/count_issues", True),
        ("github/delete_repo", False),
        ("github/create_issue", False),
        ("github/fail", True),
    ]


def test_called_from_the_shell(sandbox: Sandbox) -> None:
    result = sandbox.execute(
        "tool github/create_issue --title 'bug: x' | jq -c .; tool github/delete_repo --name r",
        "shell",
    )
    assert (result.stdout, result.stderr, result.exit_code) == (
        '{"number":1,"title":"bug: x","labels":[]}\n',
        "tool: github/delete_repo denied: no capability matches 'github/delete_repo'\n",
        1,
    )


def test_a_run_that_called_an_mcp_tool_replays_without_the_server(sandbox: Sandbox) -> None:
    code = "return [await github.create_issue({title: 'bug: a'}), await github.count_issues({})]"
    original = sandbox.execute(code)
    assert original.return_value == [{"number": 1, "title": "bug: a", "labels": []}, 1]
    trace = sandbox.trace
    sandbox.close()  # the server is gone: the trace holds what it answered
    assert replay(trace) == original


def test_a_fork_shares_the_sessions(sandbox: Sandbox) -> None:
    sandbox.execute("await github.create_issue({title: 'bug: 1'})")
    assert sandbox.fork().execute("return await github.count_issues({})").return_value == 1


def test_aexecute_calls_from_the_callers_event_loop(sandbox: Sandbox) -> None:
    async def main() -> object:
        result = await sandbox.aexecute(
            "const titles = [1, 2, 3].map((n) => `bug: ${n}`);"
            "return await Promise.all(titles.map((title) => github.create_issue({title})))"
        )
        return sorted(issue["number"] for issue in result.return_value)

    assert asyncio.run(main()) == [1, 2, 3]


def test_a_call_running_at_the_time_limit_is_cancelled_on_the_server() -> None:
    server = MCPServer("slow")
    finished: list[float] = []

    @server.tool()
    async def wait(seconds: float) -> str:
        """Wait, then say so."""
        await anyio.sleep(seconds)
        finished.append(seconds)
        return "done"

    sandbox = Sandbox(mcp_servers=[server], limits=Limits(timeout=0.5))
    try:
        late = sandbox.execute("return await slow.wait({seconds: 3})")
        assert (late.exit_code, late.error_kind) == (124, "timeout")
        assert sandbox.execute("return await slow.wait({seconds: 0})").return_value == "done"
        time.sleep(3)
        assert finished == [0]  # the first call was cancelled, not left running
    finally:
        sandbox.close()


def test_a_prefix_of_your_own_and_mcp_patterns() -> None:
    sandbox = Sandbox(
        mcp_servers={"mcp:gh": github_server()},
        capabilities=[MethodCapability("mcp:gh/**", Param("title").starts_with("bug"))],
    )
    try:
        result = sandbox.execute(
            "const i = await mcp.gh.create_issue({title: 'bug'});"
            "try { await mcp_gh_create_issue({title: 'x'}) } catch (e) { console.log(e.message) }"
            "return i.number"
        )
        assert (result.stdout, result.return_value) == (
            "mcp:gh/create_issue denied: title starts_with 'bug' failed (title = 'x')\n1",
            1,
        )
    finally:
        sandbox.close()


def test_tools_from_mcp_closes_its_session_and_thread() -> None:
    with tools_from_mcp(github_server(), prefix="") as tools:
        assert [tool.name for tool in tools] == [
            "create_issue",
            "delete_repo",
            "count_issues",
            "fail",
        ]
        sandbox = Sandbox(tools=tools)
        assert sandbox.execute("return await count_issues({})").return_value == 0
    assert not any(thread.name == "corral-mcp" for thread in threading.enumerate())


def test_two_servers_with_one_name_need_prefixes() -> None:
    with pytest.raises(ValueError, match=r"^two MCP tools are named 'github/create_issue'"):
        MCPTools([github_server(), github_server()])
    with MCPTools({"a": github_server(), "b": github_server()}) as tools:
        assert len(tools) == 8


def test_a_server_that_cannot_start_says_so() -> None:
    params = StdioServerParameters(command=sys.executable, args=["-c", "import sys; sys.exit(3)"])
    with pytest.raises(ConnectionError) as caught:
        MCPTools([params], connect_timeout=30)
    assert str(caught.value) == (
        f"cannot connect to the MCP server '{sys.executable} -c import sys; sys.exit(3)': "
        "MCPError: Connection closed"
    )


def test_a_server_that_does_not_answer_is_given_up_and_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    silent = "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(30)"
    params = StdioServerParameters(command=sys.executable, args=["-c", silent, str(pid_file)])
    started = time.monotonic()
    with pytest.raises(ConnectionError) as caught:
        MCPTools([params], connect_timeout=1)
    assert str(caught.value) == (
        "the MCP servers did not connect and list their tools within 1 s; check each server, "
        "or raise connect_timeout"
    )
    assert time.monotonic() - started < 10
    assert not any(thread.name == "corral-mcp" for thread in threading.enumerate())
    with pytest.raises(ProcessLookupError):  # the server process was stopped
        os.kill(int(pid_file.read_text()), 0)


def test_a_stdio_server_corral_mcp_itself() -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "corral", "mcp"])
    sandbox = Sandbox(mcp_servers={"inner": params})
    try:
        result = sandbox.execute(
            "await inner.write_file({path: 'f', content: 'nested'});"
            "return await inner.run_shell({code: 'cat f'})"
        )
        assert (result.return_value, result.stderr) == ("nested", "")
    finally:
        sandbox.close()
