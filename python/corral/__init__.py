"""corral: run code written by AI agents in a WebAssembly sandbox, with checked tool calls.

>>> from corral import create_sandbox_tool
>>> create_sandbox_tool().run('return "hello"')
'hello'
"""

from __future__ import annotations

from ._calls import ApprovalRequest
from ._module import configure_runtime, load, precompile_module
from .audit import AuditCollector, AuditConfig, AuditEntry, AuditLog, AuditRecord
from .capabilities import (
    CapabilityError,
    ConstraintSet,
    MethodCapability,
    Param,
)
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
