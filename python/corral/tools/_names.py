"""The names the guest calls a tool by: the flat JavaScript name and the namespace path."""

from __future__ import annotations

import re


def js_name(name: str) -> str:
    """The flat JavaScript function name of a tool: each of ``. / - :`` becomes ``_``.

    >>> js_name("stripe/charges/create"), js_name("mcp:fs.read")
    ('stripe_charges_create', 'mcp_fs_read')
    """
    return re.sub(r"[./:-]", "_", name)


def js_namespace_path(name: str) -> list[str]:
    """The namespace path of a tool in JavaScript: its name split on ``/``, ``.`` and ``:``,
    with ``-`` turned into ``_`` (the guest mounts the tool there too).

    >>> js_namespace_path("stripe/charges/create")
    ['stripe', 'charges', 'create']
    >>> js_namespace_path("mcp:fs.read-file")
    ['mcp', 'fs', 'read_file']
    """
    return [part.replace("-", "_") for part in re.split(r"[/.:]", name) if part]
