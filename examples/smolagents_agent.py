"""corral in smolagents: a ToolCallingAgent whose tool runs shell pipelines and JavaScript,
and a CodeAgent that writes JavaScript instead of Python.

The sandbox holds a web server's access log (written from the host with ``sandbox.fs``). The
model counts the errors with a shell pipeline, then asks a capability-checked Python tool for a
page outside its allowed path prefix: the denial comes back as the observation, and the agent
goes on to its final answer. Then a ``CodeAgent`` built by ``create_code_agent`` answers from
the same files in two JavaScript steps, the last one returning its answer.

Needs ``pip install 'corral[smolagents]'``. It runs offline: a ``smolagents.models.Model``
subclass replays the model's turns (use ``InferenceClientModel`` or ``LiteLLMModel`` for a real
one).

Prints::

    observation: 2 /api/orders
    observation: 1 /api/users
    observation: tool: fetch_page denied: path starts_with '/docs/' failed (path = '/admin')
    final answer: 3 server errors, most on /api/orders; /admin is off limits.
    code agent step: 5 requests
    code agent answer: 60% of requests failed
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
from corral.integrations.smolagents import as_smolagents_tool, create_code_agent

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

CODE_AGENT_TURNS = [
    "Thought: count the requests first.\n<script>\n"
    "const lines = (await fs.readFile('/workspace/access.log', 'utf8')).trim().split('\\n');\n"
    "console.log(`${lines.length} requests`);\n</script>",
    "Thought: now the share of 5xx, and that is the answer.\n<script>\n"
    "const lines = (await fs.readFile('/workspace/access.log', 'utf8')).trim().split('\\n');\n"
    "const failed = lines.filter((line) => / 5\\d\\d$/.test(line)).length;\n"
    "return `${Math.round((100 * failed) / lines.length)}% of requests failed`;\n</script>",
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


class WritingModel(Model):  # type: ignore[misc]
    """Answers each CodeAgent turn with the next of CODE_AGENT_TURNS (text with a code block)."""

    def __init__(self) -> None:
        super().__init__(model_id="writing")
        self.turn = 0

    def generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> ChatMessage:
        if self.turn:
            logs = messages[-1].content[0]["text"].split("Execution logs:\n", 1)[1]
            print("code agent step:", logs.split("\nLast output", 1)[0].strip())
        self.turn += 1
        return ChatMessage(role=MessageRole.ASSISTANT, content=CODE_AGENT_TURNS[self.turn - 1])


def main() -> None:
    bash = create_bash_tool(
        tools=[fetch_page], constraints={"fetch_page": {"path": "startswith:/docs/"}}
    )
    bash.sandbox.fs.write("/workspace/access.log", LOG)
    agent = ToolCallingAgent(tools=[as_smolagents_tool(bash)], model=ReplayModel())
    agent.logger.level = -1  # quiet: this example prints what the model reads
    print("final answer:", agent.run("How many server errors, and what is on /admin?"))

    code_agent = create_code_agent(bash, WritingModel(), verbosity_level=-1)
    print("code agent answer:", code_agent.run("What share of the requests failed?"))


if __name__ == "__main__":
    main()
