"""The authorizer: every call decided against the capabilities and budgets, and the
error a denied call raises."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ._capability import MethodCapability, _check_max_calls
from ._patterns import _name_problem, validate_tool_name
from ._values import _show, _show_name, _type_phrase


class CapabilityError(Exception):
    """A tool call denied by a capability check.

    Attributes:
        method: The canonical tool name that was called.
        rule: The human-readable rule that denied the call.

    ``str(error)`` is the message the model sees, e.g.
    ``transfer_money denied: amount <= 1000 failed (amount = 5000)``.
    """

    def __init__(self, method: str, rule: str) -> None:
        """Build the error for a denied call of ``method`` by ``rule``."""
        super().__init__(f"{_name_for_message(method)} denied: {rule}")
        self.method = method
        self.rule = rule

    def __reduce__(self) -> tuple[Any, ...]:
        # The default reduce would re-create the error from the message alone.
        return (type(self), (self.method, self.rule))


def _name_for_message(method: object) -> str:
    """A method as it appears before ``denied:``; invalid names are quoted so they cannot lie."""
    if isinstance(method, str) and _name_problem(method) is None:
        return method
    return _show_name(method)


@dataclass(frozen=True)
class Decision:
    """The outcome of :meth:`Authorizer.authorize`.

    Attributes:
        allowed: Whether the call may go ahead.
        rule: When denied, the rule that denied it; when allowed, the allowing capability.
        capability: The capability that allowed the call, or (when denied) the first matching
            capability, or None when none matched.
        method: The tool name that was called.
        requires_approval: Whether the allowing capability wants a human to approve the call
            before it runs (always False for a denial). The authorizer asks no one itself.
    """

    allowed: bool
    rule: str
    capability: MethodCapability | None
    method: str
    requires_approval: bool = False

    @property
    def message(self) -> str:
        """``<method> denied: <rule>`` or ``<method> allowed: <rule>``."""
        verdict = "allowed" if self.allowed else "denied"
        return f"{_name_for_message(self.method)} {verdict}: {self.rule}"

    def error(self) -> CapabilityError:
        """The :class:`CapabilityError` for a denied decision.

        Raises:
            ValueError: if the decision allowed the call.
        """
        if self.allowed:
            raise ValueError(f"{self.message}; there is no error to raise")
        return CapabilityError(self.method, self.rule)


def raise_for(decision: Decision) -> None:
    """Raise the decision's :class:`CapabilityError` if it denied the call; else do nothing."""
    if not decision.allowed:
        raise decision.error()


@dataclass
class _Budget:
    """One call budget: its limit (None = unlimited), the calls charged, its name in messages."""

    label: str
    limit: int | None
    used: int = 0

    def denial(self) -> str | None:
        """``<label> exhausted (<n> calls made)`` once the budget is spent, else None."""
        if self.limit is None or self.used < self.limit:
            return None
        calls = "call" if self.used == 1 else "calls"
        return f"{self.label} exhausted ({self.used} {calls} made)"

    def remaining(self) -> int | None:
        """Calls left (None = unlimited)."""
        return None if self.limit is None else self.limit - self.used


def _sandbox_budget(limit: int | None) -> _Budget:
    return _Budget(f"sandbox max_calls={limit}", _check_max_calls(limit, "the sandbox"))


def _execution_budget(limit: int | None) -> _Budget:
    return _Budget(f"execution max_calls={limit}", _check_max_calls(limit, "the execution"))


def _tool_budgets(limits: Mapping[str, int] | None) -> dict[str, _Budget]:
    if limits is None:
        return {}
    if not isinstance(limits, Mapping):
        raise TypeError(f"max_calls_per_tool must map tool names to ints, not {_show(limits)}")
    budgets = {}
    for name, limit in limits.items():
        validate_tool_name(name)
        checked = _check_max_calls(limit, f"tool {name!r}")
        if checked is not None:
            budgets[name] = _Budget(f"max_calls={checked} for tool {name!r}", checked)
    return budgets


class Authorizer:
    """Decides every tool call of one sandbox, and keeps its call budgets.

    For a call, the capabilities whose pattern matches are tried in order; the first that
    allows it wins and is charged one call. If none matches the call is denied with
    ``no capability matches '<method>'``; if all matching ones deny, the first one's reason is
    reported. Budgets are checked before constraints (once one is spent, fixing the arguments
    cannot help), and charged only when a call is allowed: ``max_calls`` for the whole
    sandbox, ``max_calls_per_tool`` per canonical tool name (however many capabilities cover
    it), the budget of the current execution (:meth:`start_execution`) and each capability's
    own. Any error while checking denies the call (fail closed).

    >>> auth = Authorizer([MethodCapability("get_*")], max_calls=1)
    >>> auth.authorize("get_a", {}).allowed
    True
    >>> auth.authorize("get_b", {}).message
    'get_b denied: sandbox max_calls=1 exhausted (1 call made)'
    """

    def __init__(
        self,
        capabilities: Iterable[MethodCapability],
        max_calls: int | None = None,
        max_calls_per_tool: Mapping[str, int] | None = None,
    ) -> None:
        """Keep ``capabilities`` in order, each with an unused budget.

        Raises:
            TypeError: if a capability is not a :class:`MethodCapability`.
            ValueError: for a budget that is not an int >= 0 or None, or an invalid tool name.
        """
        self._capabilities = tuple(capabilities)
        for capability in self._capabilities:
            if not isinstance(capability, MethodCapability):
                raise TypeError(f"expected a MethodCapability, got {_show(capability)}")
        self._budgets = [
            _Budget(f"max_calls={cap.max_calls} for {cap.method_pattern!r}", cap.max_calls)
            for cap in self._capabilities
        ]
        # Worked out once, not per call: what each capability says when it allows a call,
        # and which capabilities match each tool name called so far (capabilities are
        # immutable, and a sandbox calls the same few tools over and over).
        self._descriptions = [cap.describe() for cap in self._capabilities]
        self._matching: dict[str, tuple[int, ...]] = {}
        # The decision allowing a call of a name under a capability is the same every time
        # (decisions are immutable): made once, for the names that are remembered.
        self._allowed: dict[tuple[str, int], Decision] = {}
        self._sandbox = _sandbox_budget(max_calls)
        self._tools = _tool_budgets(max_calls_per_tool)
        self._execution = _execution_budget(None)
        # Tool calls may be authorised from several threads (the native host runs tools there).
        self._lock = threading.Lock()

    @property
    def capabilities(self) -> tuple[MethodCapability, ...]:
        """The capabilities, in the order they are tried."""
        return self._capabilities

    def start_execution(self, max_calls: int | None = None) -> None:
        """Begin a new execution: its own budget of ``max_calls`` calls (None = unlimited)."""
        with self._lock:
            if max_calls is None and self._execution.limit is None:
                self._execution.used = 0  # the same budget, made anew (the common case)
            else:
                self._execution = _execution_budget(max_calls)

    def authorize(self, method: str, params: Mapping[str, Any]) -> Decision:
        """Decide a call of ``method`` with ``params``; charge the budgets if it is allowed."""
        with self._lock:
            decision, index = self._decide(method, params)
            if index is not None:
                self._charge(index, method)
        return decision

    def admit(self, method: str, params: Mapping[str, Any]) -> Decision:
        """Decide a call once; charge the budgets now unless it waits for approval.

        An allowed call that needs approval is charged later, by :meth:`authorize` once it is
        approved, so a refused approval costs nothing.
        """
        with self._lock:
            decision, index = self._decide(method, params)
            if index is not None and not decision.requires_approval:
                self._charge(index, method)
        return decision

    def check(self, method: str, params: Mapping[str, Any]) -> Decision:
        """The decision :meth:`authorize` would make now, without charging any budget."""
        with self._lock:
            return self._decide(method, params)[0]

    def can_call(self, method: str, params: Mapping[str, Any]) -> bool:
        """Whether :meth:`authorize` would allow the call now, without charging any budget."""
        return self.check(method, params).allowed

    def remaining_calls(self) -> dict[str, int | None]:
        """Calls left per pattern (None = unlimited); repeated patterns are summed."""
        with self._lock:
            return self._per_pattern()

    def remaining_per_capability(self) -> list[int | None]:
        """Calls left under each capability, in :attr:`capabilities` order (None = unlimited);
        unlike :meth:`remaining_calls`, capabilities with the same pattern stay apart."""
        with self._lock:
            return [budget.remaining() for budget in self._budgets]

    def remaining_budgets(self) -> dict[str, int | None]:
        """Calls left in every budget (None = unlimited).

        Keys: ``"sandbox"``, ``"execution"``, ``"tool:<name>"`` for each tool with a budget
        and ``"capability:<pattern>"`` for each pattern (repeated patterns summed).
        """
        with self._lock:
            remaining = {
                "sandbox": self._sandbox.remaining(),
                "execution": self._execution.remaining(),
            }
            for name, budget in self._tools.items():
                remaining[f"tool:{name}"] = budget.remaining()
            for pattern, left in self._per_pattern().items():
                remaining[f"capability:{pattern}"] = left
        return remaining

    def _per_pattern(self) -> dict[str, int | None]:
        remaining: dict[str, int | None] = {}
        for capability, budget in zip(self._capabilities, self._budgets, strict=True):
            left = budget.remaining()
            previous = remaining.get(capability.method_pattern, 0)
            both = None if left is None or previous is None else left + previous
            remaining[capability.method_pattern] = both
        return remaining

    def _charge(self, index: int, method: str) -> None:
        for budget in (self._budgets[index], self._sandbox, self._execution):
            budget.used += 1
        tool = self._tools.get(method)
        if tool is not None:
            tool.used += 1

    def _decide(self, method: str, params: Mapping[str, Any]) -> tuple[Decision, int | None]:
        """The decision, and the index of the capability to charge (None when denied)."""
        problem = _request_problem(method, params)
        if problem is not None:
            return Decision(False, problem, None, method), None
        matching = self._matching_indices(method)
        if not matching:
            return Decision(False, f"no capability matches {method!r}", None, method), None
        shared = self._shared_denial(method)
        if shared is not None:
            return Decision(False, shared, self._capabilities[matching[0]], method), None
        denials = []
        for index in matching:
            capability = self._capabilities[index]
            reason = self._denial_reason(index, params)
            if reason is None:
                return self._allowing(method, index), index
            denials.append(Decision(False, reason, capability, method))
        return denials[0], None

    def _allowing(self, method: str, index: int) -> Decision:
        """The decision allowing a call of ``method`` under capability ``index``."""
        allowed = self._allowed.get((method, index))
        if allowed is None:
            capability = self._capabilities[index]
            description = self._descriptions[index]
            allowed = Decision(True, description, capability, method, capability.requires_approval)
            if method in self._matching:  # a remembered name (there are at most MATCHES_KEPT)
                self._allowed[method, index] = allowed
        return allowed

    def _matching_indices(self, method: str) -> tuple[int, ...]:
        """The indices of the capabilities whose pattern matches ``method`` (a valid name),
        remembered for up to :data:`MATCHES_KEPT` names."""
        matching = self._matching.get(method)
        if matching is None:
            caps = self._capabilities
            matching = tuple(i for i, cap in enumerate(caps) if cap.matches(method))
            if len(self._matching) < MATCHES_KEPT:
                self._matching[method] = matching
        return matching

    def _shared_denial(self, method: str) -> str | None:
        """Why the sandbox, tool or execution budget denies any call of ``method``, or None."""
        for budget in (self._sandbox, self._tools.get(method), self._execution):
            denial = None if budget is None else budget.denial()
            if denial is not None:
                return denial
        return None

    def _denial_reason(self, index: int, params: Mapping[str, Any]) -> str | None:
        """Why capability ``index`` denies the call (budget first), or None if it allows it."""
        capability = self._capabilities[index]
        exhausted = self._budgets[index].denial()
        if exhausted is not None:
            return exhausted
        try:
            return capability.check(params)
        except Exception as error:  # noqa: BLE001 - any surprise while checking must deny
            kind = type(error).__name__
            return f"{capability.constraints.describe()} failed (error while checking: {kind})"


MATCHES_KEPT = 4096
"""How many tool names an :class:`Authorizer` remembers the matching capabilities of."""


@functools.lru_cache(maxsize=4096)
def _known_name_problem(name: str) -> str | None:
    """:func:`_name_problem`, remembered: a sandbox calls the same few tools over and over."""
    return _name_problem(name)


def _request_problem(method: object, params: object) -> str | None:
    """Why a call request is malformed before any capability is consulted, or None."""
    problem = _known_name_problem(method) if isinstance(method, str) else _name_problem(method)
    if problem is not None:
        return f"invalid tool name: {problem}"
    if type(params) is not dict and not isinstance(params, Mapping):  # a dict: no ABC check
        return f"parameters must be an object, not {_type_phrase(params)}"
    return None
