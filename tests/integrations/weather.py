"""What every framework's agent tests share: a weather tool behind a constraint, the text a
denied call reaches the model as, and the plan a scripted fake model follows.

No framework is imported here, so every integration venv (CrewAI's too) uses it; the fake chat
models of the LangChain family are in ``langchain_fakes.py``.
"""

from __future__ import annotations

from typing import Any

from corral import SandboxTool, create_sandbox_tool

DENIED = "CapabilityError: get_weather denied: city in ['SF', 'Paris'] failed (city = 'Tokyo')\n"
"""What the sandbox tool returns for ``get_weather({city: 'Tokyo'})``."""


def get_weather(city: str) -> dict[str, Any]:
    """Current weather for a city."""
    return {"city": city, "temp": {"SF": 64, "Paris": 71}.get(city, 60)}


def weather_tool(**options: Any) -> SandboxTool:
    """A JavaScript sandbox tool whose code may ask the weather of SF and Paris only."""
    return create_sandbox_tool(
        tools=[get_weather], constraints={"get_weather": {"city": ["SF", "Paris"]}}, **options
    )


class Script:
    """A scripted model's plan: call the ``sandbox`` tool with each of ``calls`` in turn, then
    answer with every tool result it read, joined by `` | ``."""

    def __init__(self, *calls: dict[str, Any]) -> None:
        self.calls = list(calls)
        self.results: list[str] = []

    @property
    def step(self) -> int:
        """How many tool results the model has read."""
        return len(self.results)

    def read(self, result: str) -> None:
        """The model read a tool result."""
        self.results.append(result)

    def next_call(self) -> dict[str, Any] | None:
        """The arguments of the model's next call, or None when it answers."""
        return self.calls[self.step] if self.step < len(self.calls) else None

    def answer(self) -> str:
        """The final answer: every result read, in order."""
        return " | ".join(self.results)
