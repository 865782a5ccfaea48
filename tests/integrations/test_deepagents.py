"""corral as a Deep Agents backend: the protocol on the sandbox's files, and a whole agent run."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("deepagents", reason="needs pip install 'corral[deepagents]'")

from deepagents import create_deep_agent
from deepagents.backends.protocol import (
    DeleteResult,
    EditResult,
    ExecuteResponse,
    FileDownloadResponse,
    FileUploadResponse,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)
from langchain_core.messages import AIMessage
from langchain_fakes import ScriptedChatModel, answer_from_last, transcript

from corral import Limits, Sandbox, create_bash_tool
from corral.integrations.deepagents import CorralBackend


def price(sku: str) -> dict[str, object]:
    """Price of a product."""
    return {"sku": sku, "price": {"A1": 12, "B2": 30}[sku]}


def call(name: str, args: dict[str, object], n: int) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": f"c{n}"}])


@pytest.fixture
def backend() -> CorralBackend:
    backend = CorralBackend(Sandbox())
    backend.fs.mkdir("/workspace/src/lib", parents=True)
    backend.fs.write("/workspace/src/main.js", "// TODO: main\nrun()\n")
    backend.fs.write("/workspace/src/lib/util.js", "export const x = 1 // TODO\n")
    backend.fs.write("/workspace/README.md", "one\ntwo\nthree\n")
    return backend


def test_execute_runs_the_shell_with_stdout_then_stderr(backend: CorralBackend) -> None:
    assert backend.execute("echo out; echo err >&2; exit 3") == ExecuteResponse("out\nerr\n", 3)
    assert backend.execute("wc -l < README.md", timeout=5) == ExecuteResponse("3\n", 0)


def test_execute_reports_truncated_output() -> None:
    backend = CorralBackend(Sandbox(limits=Limits(max_output=16)))
    response = backend.execute("seq 1 100")
    assert response.truncated
    marker = "[output truncated: more than 9 bytes; x]"
    assert CorralBackend(Sandbox()).execute(f"echo '{marker}'") == ExecuteResponse(marker + "\n", 0)


def test_read_windows_keep_the_protocols_invariants(backend: CorralBackend) -> None:
    window = backend.read("/workspace/README.md", offset=1, limit=1)
    assert window == ReadResult(
        file_data={"content": "two\n", "encoding": "utf-8"},
        total_lines=3,
        start_line=2,
        end_line=2,
        next_offset=2,
    )
    last = backend.read("/workspace/README.md", offset=2)
    assert (last.start_line, last.end_line, last.next_offset) == (3, 3, None)
    assert backend.read("/workspace/README.md", offset=9).error == (
        "Line offset 9 exceeds file length (3 lines)"
    )
    assert backend.read("/workspace/README.md", limit=0).no_lines_requested
    assert backend.read("/workspace/nope").error == "File '/workspace/nope' not found"
    assert backend.read("/workspace/src").error == (
        "Error reading file '/workspace/src': Is a directory"
    )
    backend.fs.write("/workspace/blob", b"\xff\x00")
    assert backend.read("/workspace/blob").file_data == {"content": "/wA=", "encoding": "base64"}


def test_write_edit_delete(backend: CorralBackend) -> None:
    assert backend.write("/workspace/new/deep/a.txt", "x = 1\nx = 1\n") == WriteResult(
        path="/workspace/new/deep/a.txt"
    )
    assert backend.edit("/workspace/new/deep/a.txt", "x = 1", "y") == EditResult(
        error="Error: String 'x = 1' appears 2 times in file. Use replace_all=True to replace "
        "all instances, or provide a more specific string with surrounding context."
    )
    assert backend.edit("/workspace/new/deep/a.txt", "x = 1", "y", True) == EditResult(
        path="/workspace/new/deep/a.txt", occurrences=2
    )
    assert backend.fs.read_text("/workspace/new/deep/a.txt") == "y\ny\n"
    assert backend.write("/etc/passwd", "root") == WriteResult(
        error="Error writing file '/etc/passwd': permission denied: write under /workspace, "
        "/tmp, /state or /cache (everything else is read-only)"
    )
    assert backend.delete("/workspace/new") == DeleteResult(path="/workspace/new")
    assert backend.delete("/workspace/new") == DeleteResult(
        error="Error: '/workspace/new' not found"
    )


def test_ls_lists_entries_with_directories_marked(backend: CorralBackend) -> None:
    listing = backend.ls("/workspace")
    assert [(e["path"], e["is_dir"], e["size"]) for e in listing.entries or []] == [
        ("/workspace/README.md", False, 14),
        ("/workspace/src/", True, 4096),
    ]
    assert backend.ls("/workspace/none") == LsResult(error="Path '/workspace/none': path_not_found")
    assert backend.ls("/workspace/README.md") == LsResult(
        error="Path '/workspace/README.md': not_a_directory"
    )


def test_grep_is_literal_and_honours_glob_and_max_count(backend: CorralBackend) -> None:
    todo = backend.grep("TODO")
    assert sorted((m["path"], m["line"], m["text"]) for m in todo.matches or []) == [
        ("/workspace/src/lib/util.js", 1, "export const x = 1 // TODO"),
        ("/workspace/src/main.js", 1, "// TODO: main"),
    ]
    assert backend.grep("run()", "/workspace/src", "main.*") == GrepResult(
        matches=[{"path": "/workspace/src/main.js", "line": 2, "text": "run()"}]
    )
    assert backend.grep("TODO", max_count=1).truncated
    assert (
        backend.grep("x", glob="../*").error == "Path traversal not allowed in glob pattern '../*'"
    )


def test_glob_follows_the_shared_contract(backend: CorralBackend) -> None:
    def paths(pattern: str, path: str | None = None) -> list[str]:
        return sorted(info["path"] for info in backend.glob(pattern, path).matches or [])

    assert paths("*.js") == ["/workspace/src/lib/util.js", "/workspace/src/main.js"]
    assert paths("src/*.js") == ["/workspace/src/main.js"]
    assert paths("/*.md") == ["/workspace/README.md"]
    assert paths("*.js", "/workspace/src/lib") == ["/workspace/src/lib/util.js"]
    assert paths("*.py") == []


def test_upload_and_download_use_the_standard_errors(backend: CorralBackend) -> None:
    assert backend.upload_files([("/workspace/up/a.bin", b"\x00\x01"), ("/bin/x", b"")]) == [
        FileUploadResponse(path="/workspace/up/a.bin"),
        FileUploadResponse(path="/bin/x", error="permission_denied"),
    ]
    assert backend.download_files(["/workspace/up/a.bin", "/workspace/no", "/workspace/up"]) == [
        FileDownloadResponse(path="/workspace/up/a.bin", content=b"\x00\x01"),
        FileDownloadResponse(path="/workspace/no", error="file_not_found"),
        FileDownloadResponse(path="/workspace/up", error="is_directory"),
    ]


def test_async_twins_run_concurrently_without_clashing(backend: CorralBackend) -> None:
    # Each operation touches its own file: they may run in any order, one at a time.
    async def main() -> list[object]:
        return list(
            await asyncio.gather(
                backend.aexecute("sleep 0.05; echo slept"),
                backend.aread("/workspace/README.md", 0, 1),
                backend.awrite("/workspace/b.txt", "b"),
                backend.agrep("three"),
                backend.aglob("*.md"),
                backend.als("/workspace/src"),
                backend.aedit("/workspace/src/main.js", "run()", "go()"),
                backend.adownload_files(["/workspace/src/lib/util.js"]),
            )
        )

    out = asyncio.run(main())
    assert out[0] == ExecuteResponse("slept\n", 0)
    assert out[1].file_data == {"content": "one\n", "encoding": "utf-8"}
    assert out[2] == WriteResult(path="/workspace/b.txt")
    assert [m["text"] for m in out[3].matches] == ["three"]
    assert [m["path"] for m in out[4].matches] == ["/workspace/README.md"]
    assert [e["path"] for e in out[5].entries] == ["/workspace/src/lib/", "/workspace/src/main.js"]
    assert out[6] == EditResult(path="/workspace/src/main.js", occurrences=1)
    assert out[7] == [
        FileDownloadResponse(
            path="/workspace/src/lib/util.js", content=b"export const x = 1 // TODO\n"
        )
    ]
    assert backend.fs.read_text("/workspace/b.txt") == "b"


def test_a_deep_agent_works_in_the_sandbox() -> None:
    model = ScriptedChatModel(
        [
            call("write_file", {"file_path": "/workspace/notes.md", "content": "a\nb TODO\n"}, 1),
            call("read_file", {"file_path": "/workspace/notes.md"}, 2),
            call(
                "edit_file",
                {"file_path": "/workspace/notes.md", "old_string": "TODO", "new_string": "ok"},
                3,
            ),
            call("execute", {"command": "tool price --sku A1 | jq .price; cat notes.md"}, 4),
            call("execute", {"command": "tool price --sku B2"}, 5),
            call("write_file", {"file_path": "/etc/x", "content": "no"}, 6),
            AIMessage(content="A1 costs 12."),
        ]
    )
    sandbox = create_bash_tool(tools=[price], constraints={"price": {"sku": ["A1"]}})
    agent = create_deep_agent(model=model, backend=CorralBackend(sandbox))
    state = agent.invoke({"messages": [("user", "Price of A1?")]})
    tools = [content for kind, content in transcript(state["messages"]) if kind == "tool"]
    assert tools == [
        "Updated file /workspace/notes.md",
        "@@ lines 1-2 of 2 @@\na\nb TODO",
        "Successfully replaced 1 instance(s) of the string in '/workspace/notes.md'",
        "12\na\nb ok\n\n[Command succeeded with exit code 0]",
        "tool: price denied: sku in ['A1'] failed (sku = 'B2')\n\n"
        "[Command failed with exit code 1]",
        "Error writing file '/etc/x': permission denied: write under /workspace, /tmp, /state "
        "or /cache (everything else is read-only)",
    ]
    assert state["messages"][-1].content == "A1 costs 12."


def test_a_deep_agent_runs_async() -> None:
    model = ScriptedChatModel(
        [call("execute", {"command": "echo hi > f; cat f"}, 1), answer_from_last("Said: {}")]
    )
    backend = CorralBackend(Sandbox())
    agent = create_deep_agent(model=model, backend=backend)
    state = asyncio.run(agent.ainvoke({"messages": [("user", "go")]}))
    assert transcript(state["messages"])[2:] == [
        ("tool", "hi\n\n[Command succeeded with exit code 0]"),
        ("ai", "Said: hi\n\n[Command succeeded with exit code 0]"),
    ]
    assert backend.fs.read_text("/workspace/f") == "hi\n"


def test_links_that_loop_or_dangle_break_nothing(backend: CorralBackend) -> None:
    backend.execute("ln -s /workspace src/lib/up; ln -s nowhere dangling")
    assert [e["path"] for e in backend.ls("/workspace").entries or []] == [
        "/workspace/README.md",
        "/workspace/dangling",
        "/workspace/src/",
    ]
    assert sorted(m["path"] for m in backend.glob("*.js").matches or []) == [
        "/workspace/src/lib/util.js",
        "/workspace/src/main.js",
    ]
    assert [m["path"] for m in backend.grep("three").matches or []] == ["/workspace/README.md"]
