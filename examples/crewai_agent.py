"""corral in CrewAI: an agent whose tool runs code against checked tools.

The crew's analyst gets corral as a CrewAI ``BaseTool``. Its first action is a JavaScript
program that reads two inventory levels in one run; its second asks for a warehouse it may not
read, and the denial comes back as the observation. The final answer uses both.

Needs ``pip install 'corral[crewai]'`` (CrewAI pins mcp<2, so it is not part of
``corral[all]``). It runs offline: a ``BaseLLM`` subclass replays the model's ReAct turns (give
``llm="gpt-..."`` and an API key for a real one).

Prints::

    observation: widget: 12, gadget: 0
    observation: CapabilityError: stock denied: warehouse in ['east'] failed (warehouse = 'west')
    crew answer: Reorder gadget; west warehouse is not mine to read.
"""

from __future__ import annotations

import os
from typing import Any

os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
os.environ.setdefault("OTEL_SDK_DISABLED", "true")

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM

from corral import create_sandbox_tool
from corral.integrations.crewai import as_crewai_tool

STOCK = {"widget": 12, "gadget": 0}
TURNS = [
    'Thought: read both levels at once\nAction: sandbox\nAction Input: {"code": '
    '"const items = [\\"widget\\", \\"gadget\\"];\\n'
    "const levels = await Promise.all(items.map((item) => stock({warehouse: 'east', item})));\\n"
    "return items.map((item, i) => `${item}: ${levels[i]}`).join(', ')\"}",
    "Thought: and the other warehouse\nAction: sandbox\nAction Input: "
    "{\"code\": \"return await stock({warehouse: 'west', item: 'gadget'})\"}",
    "Thought: I now know the final answer\n"
    "Final Answer: Reorder gadget; west warehouse is not mine to read.",
]


def stock(warehouse: str, item: str) -> int:
    """Units of an item in stock at a warehouse."""
    return STOCK.get(item, 0)


class ReplayLLM(BaseLLM):  # type: ignore[misc]
    """Answers each call with the next of TURNS, printing the observation it was sent."""

    def __init__(self) -> None:
        super().__init__(model="replay")
        self._turn = 0

    def call(self, messages: Any, *args: Any, **kwargs: Any) -> str:
        if self._turn:
            last = [m for m in messages if m["role"] == "assistant"][-1]["content"]
            print("observation:", last.split("\nObservation: ", 1)[1].strip())
        self._turn += 1
        return TURNS[self._turn - 1]

    def supports_function_calling(self) -> bool:
        return False


def main() -> None:
    sandbox = create_sandbox_tool(tools=[stock], constraints={"stock": {"warehouse": ["east"]}})
    analyst = Agent(
        role="inventory analyst",
        goal="Say what to reorder",
        backstory="Reads stock levels through code.",
        tools=[as_crewai_tool(sandbox)],
        llm=ReplayLLM(),
        verbose=False,
    )
    task = Task(description="What should we reorder?", expected_output="advice", agent=analyst)
    print("crew answer:", Crew(agents=[analyst], tasks=[task], verbose=False).kickoff())


if __name__ == "__main__":
    main()
