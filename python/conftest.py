"""pytest's doctest collection of the package: an integration module whose framework is not
installed cannot be imported (it subclasses the framework's classes), so it is not collected.
``nox -s integrations`` installs the frameworks and collects them all."""

from __future__ import annotations

import importlib.util

# Integration module -> the framework package it imports at module level.
FRAMEWORKS = {
    "langchain": "langchain",
    "codeact": "langchain",
    "deepagents": "deepagents",
}

collect_ignore = [
    f"corral/integrations/{module}.py"
    for module, package in FRAMEWORKS.items()
    if importlib.util.find_spec(package) is None
]
