"""pytest's doctest collection of the package: an integration module whose framework is not
installed cannot be imported (it raises ImportError naming the extra), so it is not collected.
``nox -s integrations`` installs the frameworks and collects them all."""

from __future__ import annotations

import importlib.util

# Integration module -> the framework package it imports at module level.
FRAMEWORKS = {
    "mcp_client": "mcp",
    "mcp_server": "mcp",
    "langchain": "langchain",
    "codeact": "langchain",
    "deepagents": "deepagents",
}

collect_ignore = [
    f"python/corral/integrations/{module}.py"
    for module, package in FRAMEWORKS.items()
    if importlib.util.find_spec(package) is None
]
