"""Sphinx configuration for the corral documentation.

Build (warnings are errors, no network)::

    sphinx-build -W --keep-going -b html docs docs/_build/html
    sphinx-build -W -b doctest docs docs/_build/doctest

The guides' examples are ``.. doctest::`` blocks that run against the real guest module
(``python/corral/corral.wasm``); the API reference's ``>>>`` lines are run by pytest
(``--doctest-modules``) instead.
"""

from __future__ import annotations

import doctest
import sys
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "python"))

import corral  # noqa: E402  (needs the path above)

project = "corral"
author = "The corral developers"
copyright = "The corral developers; MIT licensed"
release = corral.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx.ext.intersphinx",
    "sphinx.ext.doctest",
]

# intersphinx stays offline: no inventories are fetched, so stdlib names are not linked.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}

root_doc = "index"
exclude_patterns = ["_build"]
default_role = "code"
highlight_language = "default"
pygments_style = "sphinx"

# Every cross-reference must resolve, except to what has no inventory offline.
nitpicky = True
nitpick_ignore_regex = [
    # The standard library and wasmtime (intersphinx is offline).
    (
        r"py:(class|exc|func|mod|data|obj)",
        r"(abc|asyncio|collections\.abc|ctypes|datetime|enum|pathlib|re|threading|types|typing"
        r"|wasmtime)\..+",
    ),
    # The frameworks of the integrations (their own docs; no inventory offline).
    (r"py:(class|exc|func|mod|data|obj|attr|meth)", r"(mcp|mcp_types|anyio)(\..+)?"),
    # The private base class of the parameter constraints, shown by :show-inheritance:.
    (r"py:class", r"corral\.capabilities\._constraints\._ParamConstraint"),
    # The private init image a backend's Instance.load_image is given (corral/_image.py), and
    # the private type of the module a backend loads (corral/runtime/_base.py).
    (r"py:class", r"(InitImage|Wasm)"),
    # Standard names a module imports for the type checker only (a fresh process's first
    # sandbox imports neither pathlib nor datetime), which autodoc cannot qualify.
    (r"py:class", r"(Path|datetime)"),
    # The agent frameworks the integrations adapt (no inventories offline either).
    (
        r"py:(class|exc|func|obj)",
        r"(langchain|langchain_core|langgraph|deepagents|pydantic|pydantic_core)\..+",
    ),
    (r"py:class", r"(BaseModel|RunnableConfig)"),
]

# --- autodoc and napoleon ---------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True
autodoc_default_options = {"members": True, "show-inheritance": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_ivar = False
napoleon_use_rtype = False

# --- doctest ----------------------------------------------------------------------------------
doctest_global_setup = "import corral"
doctest_default_flags = (
    doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.DONT_ACCEPT_TRUE_FOR_1
)
# Only explicit ``.. doctest::`` blocks run here; docstrings are pytest's (see above).
doctest_test_doctest_blocks = ""

# --- HTML -------------------------------------------------------------------------------------
html_theme = "alabaster"
html_title = f"corral {release}"
html_theme_options = {
    "description": "Code mode for AI agents, in a WebAssembly sandbox",
    "fixed_sidebar": True,
    "page_width": "1100px",
    "sidebar_width": "230px",
    "show_relbars": True,
}
html_static_path: list[str] = []
html_show_sourcelink = False

# --- checks and fixes -------------------------------------------------------------------------
logger = logging.getLogger("corral.docs")


def _check_public_api(app: Sphinx, env: Any) -> None:
    """Warn (an error under -W) when a name in ``corral.__all__`` is not documented."""
    documented = env.get_domain("py").objects
    home_of = {name: module for module, names in corral._HOMES.items() for name in names}
    for name in corral.__all__:
        obj = getattr(corral, name)
        target = f"{obj.__module__}.{getattr(obj, '__qualname__', name)}"
        # Or under the module that lists it (ErrorKind is defined in corral._error_kinds).
        if target not in documented and f"corral.{home_of[name]}.{name}" not in documented:
            logger.warning("corral.%s (%s) is not in the API reference", name, target)


def _factory_defaults(  # noqa: PLR0917 - the signature of Sphinx's event
    app: Sphinx,
    what: str,
    name: str,
    obj: Any,
    options: Any,
    signature: str | None,
    return_annotation: str | None,
) -> tuple[str, str | None] | None:
    """Show a dataclass field's ``default_factory`` as ``...`` instead of ``<factory>``, which
    is not Python and makes Sphinx split the signature at every comma."""
    if not signature or "<factory>" not in signature:
        return None
    return signature.replace("<factory>", "..."), return_annotation


def _record_bases(app: Sphinx, name: str, obj: Any, options: Any, bases: list[type]) -> None:
    """Show the result and record types' private base (``corral._record.Record``, what spares
    a fresh process ``dataclasses``) as ``object``, as when they were dataclasses."""
    from corral._record import Record

    bases[:] = [object if base is Record else base for base in bases]


def setup(app: Sphinx) -> None:
    app.connect("env-check-consistency", _check_public_api)
    app.connect("autodoc-process-bases", _record_bases)
    app.connect("autodoc-process-signature", _factory_defaults)
