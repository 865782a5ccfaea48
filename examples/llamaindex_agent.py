"""corral in LlamaIndex: a FunctionAgent tool, and a CodeActAgent that writes JavaScript.

First a ``FunctionAgent`` gets corral as a ``FunctionTool``: the model's script converts an
amount with a capability-checked Python tool. Then a ``CodeActAgent`` gets corral's JavaScript
CodeAct prompt and ``code_execute_fn``: the model writes code between ``<execute>`` tags,
corral runs it, and a call outside the allowed currencies is denied with a message the model
reads.

Needs ``pip install 'corral[llamaindex]'``. It runs offline: ``MockFunctionCallingLLM`` replays
the model's turns (use ``llama_index.llms.openai.OpenAI`` or another LLM for a real one).

Prints::

    function agent: 100 USD is 92 EUR
    codeact read: 100 USD = 92 EUR; 100 USD = 79 GBP
    codeact read: CapabilityError: convert denied: to in ['EUR', 'GBP'] failed (to = 'JPY')
    codeact answer: 92 EUR or 79 GBP; JPY is not available.
"""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM

from corral import create_sandbox_tool
from corral.integrations.llamaindex import as_function_tool, create_codeact_agent

RATES = {"EUR": 0.92, "GBP": 0.79, "JPY": 155.0}
CODEACT_TURNS = [
    """Let me convert to both currencies.
<execute>
for (const to of ["EUR", "GBP"]) {
  const r = await convert({amount: 100, to});
  console.log(`100 USD = ${r.amount} ${to}`);
}
</execute>""",
    "<execute>\nawait convert({amount: 100, to: 'JPY'})\n</execute>",
    "92 EUR or 79 GBP; JPY is not available.",
]


def convert(amount: float, to: str) -> dict[str, Any]:
    """Convert US dollars to another currency."""
    return {"amount": round(amount * RATES[to]), "currency": to}


def function_calling_turns(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
    """Calls the sandbox once, then answers with what it returned."""
    if messages[-1].role == MessageRole.TOOL:
        return ChatMessage(role=MessageRole.ASSISTANT, content=f"100 USD is {messages[-1].content}")
    code = "const r = await convert({amount: 100, to: 'EUR'}); return `${r.amount} ${r.currency}`"
    call = ToolCallBlock(tool_call_id="c1", tool_name="sandbox", tool_kwargs={"code": code})
    return ChatMessage(role=MessageRole.ASSISTANT, blocks=[call])


def codeact_turns(messages: list[ChatMessage], **kwargs: Any) -> ChatMessage:
    """Writes the next CodeAct turn, printing the result of the code it was shown."""
    shown = [m for m in messages if str(m.content).startswith("Result of executing")]
    if shown:
        result = str(shown[-1].content).removeprefix("Result of executing the code given:\n\n")
        print("codeact read:", result.strip().replace("\n", "; "))
    return ChatMessage(role=MessageRole.ASSISTANT, content=CODEACT_TURNS[len(shown)])


async def main() -> None:
    sandbox = create_sandbox_tool(tools=[convert], constraints={"convert": {"to": ["EUR", "GBP"]}})
    llm = MockFunctionCallingLLM(response_generator=function_calling_turns, is_chat_model=True)
    agent = FunctionAgent(tools=[as_function_tool(sandbox)], llm=llm)
    print("function agent:", await agent.run(user_msg="What is 100 USD in EUR?"))

    llm = MockFunctionCallingLLM(response_generator=codeact_turns, is_chat_model=True)
    codeact = create_codeact_agent(sandbox, llm)
    print("codeact answer:", await codeact.run(user_msg="Convert 100 USD to EUR, GBP and JPY."))


if __name__ == "__main__":
    asyncio.run(main())  # LlamaIndex workflows need a running event loop
