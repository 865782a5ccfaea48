"""corral in smolagents: a ToolCallingAgent whose tool runs shell pipelines and JavaScript.

The sandbox holds a web server's access log (written from the host with ``sandbox.fs``). The
model counts the errors with a shell pipeline, then asks a capability-checked Python tool for a
page outside its allowed path prefix: the denial comes back as the observation, and the agent
goes on to its final answer.

Needs ``pip install 'corral[smolagents]'``. It runs offline: a ``smolagents.models.Model``
subclass replays the model's turns (use ``InferenceClientModel`` or ``LiteLLMModel`` for a real
one).

Prints::

    observation: 2 /api/orders
    observation: 1 /api/users
    observation: tool: fetch_page denied: path starts_with '/docs/' failed (path = '/admin')
    final answer: 3 server errors, most on /api/orders; /admin is off limits.
"""

from __future__ import annotations

from typing import Any

from smolagents import ToolCallingAgent
from smolagents.models import (
    ChatMessage,
    ChatMessageToolCall,
    ChatMessageToolCallFunction,
    MessageRole,
    Model,
)

from corral import create_bash_tool
from corral.integrations.smolagents import as_smolagents_tool

LOG = """\
GET /api/orders 500
GET /api/users 200
GET /api/orders 500
GET /api/users 503
GET /docs/intro 200
"""
TURNS: list[tuple[str, dict[str, Any]]] = [
    ("sandbox", {"code": "grep ' 50[0-9]$' access.log | awk '{print $2}' | sort | uniq -c"}),
    ("sandbox", {"code": "tool fetch_page --path /admin", "language": "shell"}),
    ("final_answer", {"answer": "3 server errors, most on /api/orders; /admin is off limits."}),
]


def fetch_page(path: str) -> str:
    """Fetch a page of the site."""
    return f"<html>{path}</html>"


class ReplayModel(Model):  # type: ignore[misc]
    """Answers each turn with the next of TURNS as a tool call."""

    def __init__(self) -> None:
        super().__init__(model_id="replay")
        self.turn = 0

    def generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> ChatMessage:
        if messages[-1].role == MessageRole.TOOL_RESPONSE:
            text = messages[-1].content[0]["text"].removeprefix("Observation:\n")
            for line in text.strip().splitlines():
                print("observation:", line.strip())
        name, arguments = TURNS[self.turn]
        self.turn += 1
        function = ChatMessageToolCallFunction(name=name, arguments=arguments)
        call = ChatMessageToolCall(id=f"c{self.turn}", type="function", function=function)
        return ChatMessage(role=MessageRole.ASSISTANT, content="", tool_calls=[call])


def main() -> None:
    bash = create_bash_tool(
        tools=[fetch_page], constraints={"fetch_page": {"path": "startswith:/docs/"}}
    )
    bash.sandbox.fs.write("/workspace/access.log", LOG)
    agent = ToolCallingAgent(tools=[as_smolagents_tool(bash)], model=ReplayModel())
    agent.logger.level = -1  # quiet: this example prints what the model reads
    print("final answer:", agent.run("How many server errors, and what is on /admin?"))


if __name__ == "__main__":
    main()
