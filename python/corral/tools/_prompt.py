"""The code-mode prompt: what a model reads about the sandbox and the tools its code can call.

The tools are TypeScript declarations (:mod:`corral.tools._typescript`); the capabilities in
force are described by the capability objects themselves
(:meth:`~corral.capabilities.ConstraintSet.describe`) and the budgets by the
:class:`~corral.capabilities.Authorizer`, so the prompt says what the host will enforce.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from ..capabilities import Authorizer, MethodCapability
from ..limits import Limits
from ._definition import ToolDefinition
from ._typescript import ts_declaration

DECLARATIONS_PATH: Final = "/tools/index.d.ts"
"""Where the guest shows the tools' declarations (read-only)."""

_JAVASCRIPT: Final = (
    "JavaScript: the code is the body of an async function: use await, print with "
    "console.log(), and `return` a value to output it (objects as JSON). No network, no "
    "require(); files through the global `fs` (Node-like: `await fs.readFile(path, 'utf8')`, "
    "`fs.writeFile`, `fs.readdir`, ...)."
)
_SHELL: Final = (
    "Shell: a bash-like shell with GNU-like tools (grep, sed, awk, jq, sort, find, ...). "
    "`tool NAME --key value` calls a tool (repeat a key for an array, `--json '{...}'` for "
    "nested values) and prints its result as JSON, e.g. `{example}`; `tool --list` lists them."
)
_INTROS: Final = {
    "javascript": "Run JavaScript in an isolated sandbox.",
    "shell": "Run a bash script in an isolated sandbox.",
    "auto": (
        "Run a bash script or JavaScript in an isolated sandbox (the language is detected "
        "per script)."
    ),
}


@dataclass(frozen=True)
class _Budgets:
    """The authorizer's capabilities and calls left, read once for all the tools."""

    capabilities: tuple[tuple[MethodCapability, int | None], ...]
    remaining: dict[str, int | None]

    @classmethod
    def of(cls, authorizer: Authorizer) -> _Budgets:
        left = authorizer.remaining_per_capability()
        pairs = tuple(zip(authorizer.capabilities, left, strict=True))
        return cls(pairs, authorizer.remaining_budgets())


def capability_notes(name: str, authorizer: Authorizer, *, left: bool = True) -> list[str]:
    """What the capabilities in force say about calls of tool ``name``: the constraints a call
    must meet, the budgets (``N calls left``, or ``at most N calls`` with ``left=False``) and
    approvals; empty when it may be called freely."""
    return _notes(name, _Budgets.of(authorizer), left)


def _notes(name: str, budgets: _Budgets, left: bool) -> list[str]:
    matching = [(cap, count) for cap, count in budgets.capabilities if cap.matches(name)]
    if not matching:
        return ["No capability allows this tool: every call is denied."]
    ways: list[str] = []
    for cap, count in matching:
        terms = [f"allowed when {cap.constraints.describe()}"] if len(cap.constraints) else []
        if count is not None:
            terms.append(_calls(count, left))
        if cap.requires_approval:
            terms.append("each call waits for a human's approval")
        if not terms:
            ways = []  # this capability allows any call
            break
        ways.append("; ".join(terms))
    notes = [" Or: ".join(way[0].upper() + way[1:] + "." for way in ways)] if ways else []
    tool_budget = budgets.remaining.get(f"tool:{name}")
    if tool_budget is not None:
        notes.append(f"This tool: {_calls(tool_budget, left)}.")
    return notes


def _calls(count: int | None, left: bool) -> str:
    plural = "call" if count == 1 else "calls"
    return f"{count} {plural} left" if left else f"at most {count} {plural}"


def declarations(tools: Iterable[ToolDefinition], authorizer: Authorizer, *, left: bool) -> str:
    """Every tool's TypeScript declaration, with the capability notes in its JSDoc."""
    budgets = _Budgets.of(authorizer)
    return "\n\n".join(ts_declaration(tool, _notes(tool.name, budgets, left)) for tool in tools)


def declarations_file(tools: Iterable[ToolDefinition], authorizer: Authorizer) -> str:
    """The text of ``/tools/index.d.ts``: the declarations with the budgets as configured
    (the file is written once, when the sandbox starts)."""
    body = declarations(tools, authorizer, left=False)
    header = (
        "// The tools this sandbox's code can call: async functions taking one object.\n"
        "// Every call is checked on the host; a denied call throws an Error saying why.\n"
    )
    return f"{header}\n{body}\n"


def code_mode_prompt(
    tools: Iterable[ToolDefinition], authorizer: Authorizer, limits: Limits, language: str
) -> str:
    """The prompt for a sandbox whose code is in ``language`` (``javascript``, ``shell`` or
    ``auto``): how code runs and prints, the limits and budgets, and the tools."""
    tools = list(tools)
    lines = [_INTROS[language]]
    if language != "shell":
        lines.append(_JAVASCRIPT)
    if language != "javascript":
        lines.append(_SHELL.replace("{example}", _shell_example(tools)))
    lines.append(
        "/workspace keeps its files between runs; /tmp is scratch. " + _limits(limits, authorizer)
    )
    if not tools:
        lines.append("No tools are available.")
        return "\n".join(lines)
    lines.append(
        "Tools: each is an async function taking one object argument; every call is checked on "
        "the host, and a denied call throws an Error saying why. Their declarations (also in "
        f"{DECLARATIONS_PATH}):"
    )
    return "\n".join(lines) + "\n\n" + declarations(tools, authorizer, left=True)


def _limits(limits: Limits, authorizer: Authorizer) -> str:
    parts = [f"{limits.timeout:g} s", f"{_bytes(limits.max_output)} of output (more is cut)"]
    if limits.max_tool_calls is not None:
        parts.append(f"{limits.max_tool_calls} tool calls")
    sandbox = authorizer.remaining_budgets()["sandbox"]
    text = f"Limits per run: {', '.join(parts)}."
    if sandbox is not None:
        text += f" Tool calls left in this sandbox: {sandbox}."
    return text


def _bytes(count: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size and count % size == 0:
            return f"{count // size} {unit}"
    return f"{count} bytes"


def _shell_example(tools: list[ToolDefinition]) -> str:
    if not tools:
        return "tool NAME --key value"
    tool = tools[0]
    required = tool.parameters.get("required") or list(tool.parameters.get("properties", {}))
    flags = "".join(f" --{key} ..." for key in required[:2])
    return f"tool {tool.js_name}{flags}"
