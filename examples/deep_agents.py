"""A Deep Agents agent whose files and shell are a corral sandbox (runs offline).

    pip install 'corral[deepagents]'
    python examples/deep_agents.py

``CorralBackend`` gives the agent's file tools (write_file, read_file, edit_file, ls, grep,
glob) the sandbox's own files, and its ``execute`` tool corral's bash-like shell, where
``tool NAME --key value`` calls your Python tools under the sandbox's capabilities. Nothing
touches the host's disk; only /workspace and /tmp are writable.

A scripted chat model stands in for a real one, so this runs with no API key.
"""

from __future__ import annotations

from typing import Any

from deepagents import create_deep_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from corral import create_bash_tool
from corral.integrations.deepagents import CorralBackend


def stock(sku: str) -> dict[str, Any]:
    """Units in stock for a product."""
    return {"sku": sku, "units": {"A1": 4, "B2": 0, "C3": 17}[sku]}


class ScriptedModel(GenericFakeChatModel):
    """Replies with the given messages in order (LangChain's fake model, plus bind_tools)."""

    def __init__(self, replies: list[AIMessage]) -> None:
        super().__init__(messages=iter(replies))

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def use(tool: str, n: int, **args: Any) -> AIMessage:
    """What a model sends to call one of the agent's tools."""
    return AIMessage(content="", tool_calls=[{"name": tool, "args": args, "id": f"call_{n}"}])


REPORT = (
    "for s in A1 B2 C3; do tool stock --sku $s | jq -r '\"\\(.sku) \\(.units)\"'; done > stock.txt"
)
model = ScriptedModel(
    [
        use("write_file", 1, file_path="/workspace/skus.txt", content="A1\nB2\nC3\n"),
        use("execute", 2, command=REPORT + "; awk '$2 == 0 {print $1 \" is out\"}' stock.txt"),
        use("grep", 3, pattern=" 0", path="/workspace"),
        use("write_file", 4, file_path="/etc/motd", content="hello"),
        AIMessage(content="B2 is out of stock."),
    ]
)
sandbox = create_bash_tool(tools=[stock], max_calls=10)
agent = create_deep_agent(model=model, backend=CorralBackend(sandbox))
state = agent.invoke({"messages": [("user", "Which products are out of stock?")]})

# Prints each tool result the agent read, then the files it left in the sandbox:
#   write_file: Updated file /workspace/skus.txt
#   execute: B2 is out / [Command succeeded with exit code 0]
#   grep: /workspace/stock.txt
#   write_file: Error writing file '/etc/motd': permission denied: write under /workspace ...
#   answer: B2 is out of stock.
#   files: ['skus.txt', 'stock.txt']
#   stock.txt: A1 4 | B2 0 | C3 17
for message in state["messages"]:
    if message.type == "tool":
        print(f"{message.name}: {' / '.join(filter(None, message.content.splitlines()))}")
print(f"answer: {state['messages'][-1].content}")
print(f"files: {sandbox.sandbox.fs.listdir('/workspace')}")
print(f"stock.txt: {' | '.join(sandbox.sandbox.fs.read_text('stock.txt').splitlines())}")
