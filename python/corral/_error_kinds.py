"""The two kinds of failure, :class:`corral.results.ErrorKind` and
:class:`corral.protocol.CallErrorKind`: ``str`` enums, defined here and made on first use.

A module that defines an enum imports :mod:`enum` (~1.5 ms of a fresh process with the two
classes), and an execution that succeeds needs neither: ``corral.results`` and
``corral.protocol`` hand them out through their ``__getattr__``, and the modules a first
sandbox loads import them where a failure is handled.
"""

from __future__ import annotations

import enum

__all__ = ["CallErrorKind", "ErrorKind"]


class ErrorKind(enum.StrEnum):
    """How an execution failed: :attr:`~corral.results.ExecutionResult.error_kind`.

    A ``str``, so it compares equal to (and prints, and serialises to JSON, as) its value:
    ``result.error_kind == "timeout"`` holds.

    >>> ErrorKind("timeout") == "timeout", ErrorKind.TIMEOUT.exit_code
    (True, 124)
    >>> ErrorKind.DEADLOCK
    'deadlock'
    """

    #: An uncaught exception, including a rejected tool call and a syntax error.
    EXCEPTION = "exception"
    #: The time limit passed, in the code, in tools, or inside a builtin (the backstop).
    TIMEOUT = "timeout"
    #: The code awaits something that can never happen.
    DEADLOCK = "deadlock"
    #: The WebAssembly stack overflowed (recursion); the instance was replaced.
    STACK_OVERFLOW = "stack_overflow"
    #: The guest ran out of linear memory; the instance was replaced.
    OUT_OF_MEMORY = "out_of_memory"
    #: The guest refused a message or sent a malformed reply; the instance was replaced.
    PROTOCOL = "protocol"
    #: Any other trap; the instance was replaced.
    TRAP = "trap"
    #: The guest called ``proc_exit``; the instance was replaced.
    EXIT = "exit"

    @property
    def exit_code(self) -> int:
        """The exit code of an execution that failed this way.

        124 for a timeout (the one ``timeout(1)`` uses), else 1.
        """
        return 124 if self is ErrorKind.TIMEOUT else 1

    def __repr__(self) -> str:
        # As the plain string it replaces: results print as they always have.
        return repr(self.value)


class CallErrorKind(enum.StrEnum):
    """Why a tool call failed, as the guest is told: the kind picks the error the code sees."""

    #: The call was denied by a capability, a budget or an approval (``CapabilityError``).
    CAPABILITY = "capability"
    #: The arguments do not fit the tool's schema (``TypeError``).
    ARGUMENT = "argument"
    #: The tool is unknown, raised, or returned what cannot be sent (``ToolError``).
    TOOL = "tool"
