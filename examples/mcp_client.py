"""The tools of an MCP server, called from code in the sandbox (code mode over MCP).

``Sandbox(mcp_servers=[...])`` connects to each server, lists its tools and makes each one a
sandbox tool named ``SERVER/TOOL``: JavaScript calls ``await github.create_issue({...})``, the
shell ``tool github/create_issue --title ...``. Every call still goes through the sandbox's
capabilities (``github/create_*`` below), and the trace records the answers, so the run replays
without the server. A server can be a command (``StdioServerParameters``), a URL (streamable
HTTP) or, as here so that it runs offline, an ``MCPServer`` in this process.
Needs ``pip install 'corral[mcp]'``.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

from corral import MethodCapability, Param, Sandbox, replay

github = MCPServer("github")
ISSUES: list[dict[str, object]] = []


@github.tool()
def create_issue(title: str, body: str = "") -> dict[str, object]:
    """Open an issue."""
    issue = {"number": len(ISSUES) + 1, "title": title, "body": body}
    ISSUES.append(issue)
    return issue


@github.tool()
def list_issues() -> list[dict[str, object]]:
    """Every open issue."""
    return ISSUES


@github.tool()
def delete_repo(name: str) -> str:
    """Delete a repository (the code is not allowed to)."""
    return f"deleted {name}"


CODE = """
const titles = ["bug: login fails", "bug: typo on the home page"];
const created = await Promise.all(titles.map((title) => github.create_issue({title})));
console.log("created", created.map((issue) => `#${issue.number}`).sort().join(" "));
try {
  await github.delete_repo({name: "corral"});
} catch (e) {
  console.log(`${e.name}: ${e.message}`);
}
return (await github.list_issues({})).length;
"""


def main() -> None:
    with Sandbox(  # closing the sandbox closes its MCP sessions
        mcp_servers=[github],  # or {"gh": StdioServerParameters(...)}, or a URL
        capabilities=[
            MethodCapability("github/create_*", Param("title").starts_with("bug:")),
            MethodCapability("github/list_issues"),
        ],
    ) as sandbox:
        print("tools:", ", ".join(sandbox.tools))
        result = sandbox.execute(CODE)
        print(result.stdout)
        shell = sandbox.execute("tool github/list_issues | jq -r '.[].title' | sort", "shell")
        print(shell.stdout, end="")
        print("replayed without the server:", replay(sandbox.trace) == shell)


if __name__ == "__main__":
    main()
