"""corral: run code written by AI agents in a WebAssembly sandbox, with checked tool calls.

>>> from corral import create_sandbox_tool
>>> create_sandbox_tool().run('return "hello"')
'hello'

The public names are imported on first use (PEP 562): ``import corral`` alone loads nothing
else, and ``corral.Sandbox`` loads what a sandbox needs, not the tool converters, tokens or
the SandboxTool wrappers (a fresh process's first sandbox pays only for what it uses).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing: ~2 ms of a fresh process
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping
    from typing import Any

    from ._calls import ApprovalRequest
    from ._module import configure_runtime, load, precompile_module
    from .audit import AuditCollector, AuditConfig, AuditEntry, AuditLog, AuditRecord
    from .capabilities import CapabilityError, ConstraintSet, MethodCapability, Param
    from .fs import FileStat, SandboxFS
    from .limits import Limits
    from .protocol import SandboxClosedError
    from .results import ErrorKind, ExecutionResult, ToolCall
    from .sandbox import Sandbox, replay, replay_all
    from .sandbox_tool import SandboxTool, create_bash_tool, create_sandbox_tool
    from .tokens import CapabilityToken, TokenError
    from .tools import (
        ToolDefinition,
        tool_from_function,
        tools_from_anthropic,
        tools_from_langchain,
        tools_from_openai,
    )
    from .trace import ReplayDivergence, Trace

_HOMES = {
    "_calls": ("ApprovalRequest",),
    "_module": ("configure_runtime", "load", "precompile_module"),
    "audit": ("AuditCollector", "AuditConfig", "AuditEntry", "AuditLog", "AuditRecord"),
    "capabilities": ("CapabilityError", "ConstraintSet", "MethodCapability", "Param"),
    "fs": ("FileStat", "SandboxFS"),
    "limits": ("Limits",),
    "protocol": ("SandboxClosedError",),
    "results": ("ErrorKind", "ExecutionResult", "ToolCall"),
    "sandbox": ("Sandbox", "replay", "replay_all"),
    "sandbox_tool": ("SandboxTool", "create_bash_tool", "create_sandbox_tool"),
    "tokens": ("CapabilityToken", "TokenError"),
    "tools": (
        "ToolDefinition",
        "tool_from_function",
        "tools_from_anthropic",
        "tools_from_langchain",
        "tools_from_openai",
    ),
    "trace": ("ReplayDivergence", "Trace"),
}

__all__ = [
    "ApprovalRequest",
    "AuditCollector",
    "AuditConfig",
    "AuditEntry",
    "AuditLog",
    "AuditRecord",
    "CapabilityError",
    "CapabilityToken",
    "ConstraintSet",
    "ErrorKind",
    "ExecutionResult",
    "FileStat",
    "Limits",
    "MethodCapability",
    "Param",
    "ReplayDivergence",
    "Sandbox",
    "SandboxClosedError",
    "SandboxFS",
    "SandboxTool",
    "TokenError",
    "ToolCall",
    "ToolDefinition",
    "Trace",
    "configure_runtime",
    "create_bash_tool",
    "create_sandbox_tool",
    "load",
    "precompile_module",
    "replay",
    "replay_all",
    "tool_from_function",
    "tools_from_anthropic",
    "tools_from_langchain",
    "tools_from_openai",
]

__version__ = "0.1.0"


def _lazy_names(
    namespace: dict[str, Any], homes: Mapping[str, Iterable[str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The PEP 562 ``__getattr__`` and ``__dir__`` of the package whose ``globals()`` is
    ``namespace``: each public name in ``homes`` (``{relative module: names}``) is imported
    from its module on first use, then kept in the package. Here, not in a module of its
    own, so that ``import corral`` loads nothing else; :mod:`corral.capabilities` uses it too.
    """
    home_of = {name: module for module, names in homes.items() for name in names}
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:  # noqa: N807 - the name PEP 562 looks up
        module = home_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        # __import__, not importlib.import_module: importing importlib costs a fresh process.
        value = getattr(__import__(module, namespace, None, [name], 1), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:  # noqa: N807 - the name PEP 562 looks up
        return sorted({*namespace, *home_of})

    return __getattr__, __dir__


__getattr__, __dir__ = _lazy_names(globals(), _HOMES)
