"""Capabilities: the one host-side check point for every tool call.

Every call a guest makes is checked here, on the host, against the canonical tool name and the
actual parameters; the guest is never trusted to enforce anything. The model reads denial
messages, so each one names the rule that denied the call and the value that broke it::

    >>> from corral.capabilities import Authorizer, MethodCapability, Param, is_attenuation
    >>> cap = MethodCapability("transfer_money", [Param("amount") <= 1000], max_calls=10)
    >>> auth = Authorizer([cap])
    >>> auth.authorize("transfer_money", {"amount": 500}).allowed
    True
    >>> auth.authorize("transfer_money", {"amount": 5000}).message
    'transfer_money denied: amount <= 1000 failed (amount = 5000)'

Method patterns match canonical tool names whose segments are separated by ``/``: ``a/b/c``
matches exactly, ``*`` matches exactly one segment, ``**`` matches zero or more segments, and a
``*`` inside a segment (``*_create``, ``charges_*``) matches any run of characters within that
segment. A pattern ``mcp:NAME`` also matches the tool ``NAME`` (a compatibility spelling).

Capabilities have a JSON form (:meth:`MethodCapability.to_json`, :func:`constraint_from_json`)
and a subset relation (:func:`pattern_covers`, :meth:`Constraint.implies`,
:meth:`MethodCapability.is_subset_of`, :func:`is_attenuation`), which signed tokens
(:mod:`corral.tokens`) use to check that a delegated capability only narrows its parent::

    >>> small = MethodCapability("stripe/charges/create", [Param("amount") <= 50])
    >>> small.is_subset_of(MethodCapability("stripe/**", [Param("amount") <= 1000]))
    True
    >>> is_attenuation([MethodCapability("github/**")], [MethodCapability("stripe/**")])
    "capability 'github/**' is not within any capability of the token it narrows"
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import _lazy_names

if TYPE_CHECKING:
    from ._authorizer import Authorizer, CapabilityError, Decision, raise_for
    from ._capability import (
        ConstraintSet,
        MethodCapability,
        backtracking_risk,
        is_attenuation,
    )
    from ._constraints import (
        AllOf,
        AnyOf,
        Comparison,
        Constraint,
        Contains,
        EndsWith,
        Exists,
        IsIn,
        Length,
        Matches,
        NotExists,
        NotIn,
        Param,
        StartsWith,
    )
    from ._dict_form import SPEC_FORMS as SPEC_FORMS
    from ._dict_form import capabilities_from_dict, constraint_from_spec
    from ._json_form import constraint_from_json
    from ._patterns import MAX_NAME_LENGTH as MAX_NAME_LENGTH
    from ._patterns import match_pattern, validate_pattern, validate_tool_name
    from ._subsets import pattern_covers

# Each name is imported from its module on first use (PEP 562), so that a sandbox imports only
# the parts it uses: one without capabilities never defines the constraint classes.
_HOMES = {
    "_authorizer": ("Authorizer", "CapabilityError", "Decision", "raise_for"),
    "_capability": ("ConstraintSet", "MethodCapability", "backtracking_risk", "is_attenuation"),
    "_constraints": (
        "AllOf",
        "AnyOf",
        "Comparison",
        "Constraint",
        "Contains",
        "EndsWith",
        "Exists",
        "IsIn",
        "Length",
        "Matches",
        "NotExists",
        "NotIn",
        "Param",
        "StartsWith",
    ),
    "_dict_form": ("SPEC_FORMS", "capabilities_from_dict", "constraint_from_spec"),
    "_json_form": ("constraint_from_json",),
    "_patterns": ("MAX_NAME_LENGTH", "match_pattern", "validate_pattern", "validate_tool_name"),
    "_subsets": ("pattern_covers",),
}


__getattr__, __dir__ = _lazy_names(globals(), _HOMES)

__all__ = [
    "AllOf",
    "AnyOf",
    "Authorizer",
    "CapabilityError",
    "Comparison",
    "Constraint",
    "ConstraintSet",
    "Contains",
    "Decision",
    "EndsWith",
    "Exists",
    "IsIn",
    "Length",
    "Matches",
    "MethodCapability",
    "NotExists",
    "NotIn",
    "Param",
    "StartsWith",
    "backtracking_risk",
    "capabilities_from_dict",
    "constraint_from_json",
    "constraint_from_spec",
    "is_attenuation",
    "match_pattern",
    "pattern_covers",
    "raise_for",
    "validate_pattern",
    "validate_tool_name",
]
