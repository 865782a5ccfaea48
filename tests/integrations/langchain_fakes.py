"""Offline chat models for the LangChain, LangGraph, CodeAct and Deep Agents tests.

LangChain's fake chat models do not implement ``bind_tools``, which ``create_agent`` always
calls; :class:`ScriptedChatModel` is ``GenericFakeChatModel`` with a ``bind_tools`` that keeps
the script, and it records every list of messages it was called with. A reply may be a function
of the messages so far (:func:`answer_from_last`), so a final answer can carry what corral
returned instead of a text fixed in advance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

pytest.importorskip("langchain_core", reason="needs pip install 'corral[langchain]'")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

Reply = AIMessage | Callable[[list[BaseMessage]], AIMessage]


class ScriptedChatModel(GenericFakeChatModel):
    """Answers with ``replies`` in order; ``seen`` holds the messages of each call."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def __init__(self, replies: Sequence[Reply]) -> None:
        super().__init__(messages=iter(replies))

    def bind_tools(self, tools: Any, *, tool_choice: Any = None, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        reply = next(self.messages)
        message = reply(messages) if callable(reply) else reply
        return ChatResult(generations=[ChatGeneration(message=message)])


def answer_from_last(template: str) -> Callable[[list[BaseMessage]], AIMessage]:
    """A reply that fills ``{}`` in ``template`` with the last message's text, stripped."""
    return lambda messages: AIMessage(content=template.format(str(messages[-1].content).strip()))


def code_call(code: str, call_id: str = "call_1", name: str = "sandbox", **args: Any) -> AIMessage:
    """An AI message that calls the tool ``name`` with ``code`` (and any other arguments)."""
    call = {"name": name, "args": {"code": code, **args}, "id": call_id, "type": "tool_call"}
    return AIMessage(content="", tool_calls=[call])


def transcript(messages: Sequence[BaseMessage]) -> list[tuple[str, str]]:
    """``(type, content)`` of each message, to assert a whole conversation at once."""
    return [
        (m.type, m.content if isinstance(m.content, str) else repr(m.content)) for m in messages
    ]
