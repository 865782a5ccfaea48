"""CodeAct agents on LangGraph with corral as the interpreter (extra: ``corral[codeact]``).

In a CodeAct loop the model does not call tools one by one: it writes a program in a fenced
code block, the program calls the tools, and what it prints comes back as the next message;
an answer without a code block ends the loop. Here the program is JavaScript (or a shell
script) run by corral, and the tools are corral tools: every call is checked against the
sandbox's capabilities, constraints and budgets on the host.

- :func:`create_codeact_agent` builds the sandbox from Python functions (with the constraints,
  budgets and limits of :func:`~corral.sandbox_tool.create_sandbox_tool`) and the agent.
- :func:`create_sandbox_codeact` builds the agent around a sandbox tool you configured.
- :func:`make_eval_fn` is the ``eval_fn`` for the ``langgraph-codeact`` package, for those who
  use its ``create_codeact``. That package pins ``langgraph<0.4``: install it next to
  LangGraph 1.x with ``pip install --no-deps langgraph-codeact`` (corral does not need it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..limits import Limits
from ..sandbox_tool import SandboxTool, create_bash_tool, create_sandbox_tool
from ..tools import ToolLike
from . import require

require("langchain", "codeact")  # LangChain 1.x brings LangGraph

from langchain_core.language_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage  # noqa: E402
from langchain_core.runnables import RunnableLambda  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402
from langgraph.graph.state import CompiledStateGraph  # noqa: E402

from ._code import NO_OUTPUT  # noqa: E402

__all__ = [
    "code_blocks",
    "codeact_prompt",
    "create_codeact_agent",
    "create_sandbox_codeact",
    "make_eval_fn",
]

FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.DOTALL)
FENCE_LANGUAGES = {
    "": None,
    "js": "javascript",
    "javascript": "javascript",
    "mjs": "javascript",
    "bash": "shell",
    "sh": "shell",
    "shell": "shell",
}

JAVASCRIPT_PROMPT = """\
You solve the user's task by writing JavaScript. To run code, write it in one fenced block:

```javascript
const words = ["pear", "fig", "apple"];
console.log(words.sort().join(", "));
```

The code runs in an isolated sandbox as the body of an async function; what it prints with \
console.log (and the value it returns) comes back to you in the next message. Call the tools \
listed below with await; a denied or failing call throws an Error whose message says why. \
Variables do not survive between blocks (set globalThis.name to keep one); files under \
/workspace do. When you have the answer, reply with plain text and no code block."""

SHELL_PROMPT = """\
You may also write a shell script in a ```bash block: it runs in the same sandbox, with the \
same files."""


def code_blocks(text: str, default: str = "javascript") -> list[tuple[str, str]]:
    """The fenced code blocks of a model's reply, as ``(language, code)`` in order.

    A block without a tag is in ``default``; ``js``/``javascript`` and ``bash``/``sh``/
    ``shell`` name the two languages; any other tag is kept as written, so the caller can
    say it is not available.

    >>> code_blocks("Let me look.\\n```js\\nreturn 1\\n```\\n```bash\\nls\\n```")
    [('javascript', 'return 1\\n'), ('shell', 'ls\\n')]
    >>> code_blocks("No code: the answer is 4.")
    []
    """
    blocks = []
    for tag, code in FENCE.findall(text):
        language = FENCE_LANGUAGES.get(tag.lower(), tag.lower())
        blocks.append((language or default, code))
    return blocks


def codeact_prompt(sandbox_tool: SandboxTool, base_prompt: str | None = None) -> str:
    """The CodeAct system prompt for ``sandbox_tool``: how to write and run code, then the
    tools the code can call (the sandbox tool's own description), after ``base_prompt``."""
    parts = [base_prompt] if base_prompt else []
    parts.append(JAVASCRIPT_PROMPT)
    if sandbox_tool.language != "javascript":
        parts.append(SHELL_PROMPT)
    parts.append(sandbox_tool.description)
    return "\n\n".join(parts)


def _text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    return "".join(
        part.get("text", "") if isinstance(part, dict) else str(part) for part in content
    )


def _unavailable(language: str) -> str:
    return (
        f"`{language}` cannot run here: write JavaScript in a ```javascript block "
        "(or a shell script in a ```bash block)\n"
    )


def create_sandbox_codeact(
    model: BaseChatModel | str,
    sandbox_tool: SandboxTool,
    *,
    prompt: str | None = None,
    checkpointer: Any = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """A compiled LangGraph CodeAct agent that runs the model's code in ``sandbox_tool``.

    Args:
        model: A LangChain chat model, or a ``"provider:model"`` string for
            ``init_chat_model``. It is called with the system prompt and the conversation; no
            tool binding is needed.
        sandbox_tool: The sandbox and its tools, capabilities and limits. Its files persist
            across turns and threads; make one per user.
        prompt: The system prompt; by default :func:`codeact_prompt` of ``sandbox_tool``.
        checkpointer: A LangGraph checkpointer, to keep conversations by ``thread_id``.

    Invoke it with ``{"messages": [...]}`` (``invoke`` or ``ainvoke``). Each reply with code
    blocks is followed by a user message holding the blocks' output (guest failures and
    denied calls included, as text); the first reply without a block ends the run, and
    LangGraph's ``recursion_limit`` (in the run's config) bounds the number of turns.
    """
    chat = _chat_model(model)
    system = SystemMessage(prompt if prompt is not None else codeact_prompt(sandbox_tool))
    default = "javascript" if sandbox_tool.language == "javascript" else "auto"

    def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [chat.invoke([system, *state["messages"]])]}

    async def acall_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await chat.ainvoke([system, *state["messages"]])]}

    def blocks(state: MessagesState) -> list[tuple[str, str]]:
        return code_blocks(_text(state["messages"][-1]), default)

    def run_code(state: MessagesState) -> dict[str, Any]:
        outputs = [
            sandbox_tool.sandbox.execute(code, language).text()
            if language in {"javascript", "shell", "auto"}
            else _unavailable(language)
            for language, code in blocks(state)
        ]
        return {"messages": [HumanMessage("".join(outputs) or NO_OUTPUT)]}

    async def arun_code(state: MessagesState) -> dict[str, Any]:
        outputs = []
        for language, code in blocks(state):
            if language in {"javascript", "shell", "auto"}:
                outputs.append((await sandbox_tool.sandbox.aexecute(code, language)).text())
            else:
                outputs.append(_unavailable(language))
        return {"messages": [HumanMessage("".join(outputs) or NO_OUTPUT)]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "sandbox" if isinstance(last, AIMessage) and blocks(state) else END

    graph = StateGraph(MessagesState)
    graph.add_node("agent", RunnableLambda(call_model, afunc=acall_model))
    graph.add_node("sandbox", RunnableLambda(run_code, afunc=arun_code))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["sandbox", END])
    graph.add_edge("sandbox", "agent")
    return graph.compile(checkpointer=checkpointer)


def create_codeact_agent(
    model: BaseChatModel | str,
    tools: Iterable[ToolLike] = (),
    *,
    language: str = "javascript",
    constraints: Mapping[str, Mapping[str, Any]] | None = None,
    max_calls: Mapping[str, int] | int | None = None,
    limits: Limits | None = None,
    prompt: str | None = None,
    checkpointer: Any = None,
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """A CodeAct agent whose code calls ``tools`` as capability-checked corral tools.

    ``tools``, ``constraints``, ``max_calls`` and ``limits`` are those of
    :func:`~corral.sandbox_tool.create_sandbox_tool`. ``language="javascript"`` (the
    default) runs JavaScript blocks; ``"auto"`` also runs shell blocks (tagged ``bash``), and
    an untagged block in the language it looks like. The rest is :func:`create_sandbox_codeact`.
    """
    if language not in {"javascript", "auto"}:
        raise ValueError(f"language must be 'javascript' or 'auto', not {language!r}")
    make = create_sandbox_tool if language == "javascript" else create_bash_tool
    sandbox_tool = make(tools, constraints=constraints, max_calls=max_calls, limits=limits)
    return create_sandbox_codeact(model, sandbox_tool, prompt=prompt, checkpointer=checkpointer)


def make_eval_fn(
    sandbox_tool: SandboxTool, language: str | None = None
) -> Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]:
    """An ``eval_fn`` for ``langgraph_codeact.create_codeact`` that runs the code in
    ``sandbox_tool`` (in ``language``, default the tool's own) instead of Python's ``exec``.

    ``create_codeact`` passes the Python functions of its tools; they are ignored: the code
    calls the sandbox's own tools, under its capabilities. Give ``create_codeact`` a prompt
    that asks for JavaScript, e.g. :func:`codeact_prompt`. Nothing is carried in the
    returned variables (the sandbox keeps its files itself).
    """

    def eval_fn(code: str, _locals: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return sandbox_tool.run(code, language) or NO_OUTPUT, {}

    return eval_fn


def _chat_model(model: BaseChatModel | str) -> BaseChatModel:
    if isinstance(model, str):
        chat_models = require("langchain.chat_models", "codeact")
        chat: BaseChatModel = chat_models.init_chat_model(model)
        return chat
    return model
