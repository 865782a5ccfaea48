"""corral: run code written by AI agents in a WebAssembly sandbox, with checked tool calls.

>>> from corral import create_sandbox_tool
>>> create_sandbox_tool().run('return "hello"')
'hello'
"""

from __future__ import annotations

from ._module import precompile_module
from .capabilities import (
    CapabilityError,
    ConstraintSet,
    MethodCapability,
    Param,
)
from .limits import Limits
from .sandbox import (
    ExecutionResult,
    Sandbox,
    SandboxTool,
    ToolCall,
    create_bash_tool,
    create_sandbox_tool,
)
from .tools import ToolDefinition, tool_from_function

__all__ = [
    "CapabilityError",
    "ConstraintSet",
    "ExecutionResult",
    "Limits",
    "MethodCapability",
    "Param",
    "Sandbox",
    "SandboxTool",
    "ToolCall",
    "ToolDefinition",
    "create_bash_tool",
    "create_sandbox_tool",
    "precompile_module",
    "tool_from_function",
]

__version__ = "0.1.0"
