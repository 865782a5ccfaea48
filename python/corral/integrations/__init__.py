"""Adapters that put corral inside agent frameworks, one module per framework.

Each module is imported on its own (``from corral.integrations.langchain import ...``) and
needs its framework, installed as an optional extra (``pip install 'corral[langchain]'``);
``import corral`` never imports a framework. The adapters only translate: every tool call
still goes through the sandbox's capabilities, and guest failures come back as text the
model can act on, never as exceptions that would abort an agent run.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require"]


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise ImportError naming the pip command that installs it.

    >>> require("json", "none").__name__
    'json'
    >>> require("not_installed_here", "langchain")
    Traceback (most recent call last):
    ...
    ImportError: this corral integration needs 'not_installed_here': pip install 'corral[langchain]'
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(
            f"this corral integration needs {module!r}: pip install 'corral[{extra}]'"
        ) from error
