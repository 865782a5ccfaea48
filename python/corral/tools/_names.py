"""The names the guest calls a tool by: the flat JavaScript name and the namespace path."""

from __future__ import annotations

import re
from typing import Final

# The globals of the guest's JavaScript (the language's and the sandbox's own): a tool whose
# flat name is one of them would replace it or be replaced, and a namespace rooted at one is
# not mounted. tests/test_tools.py checks that the guest defines no global missing here.
_GLOBAL_NAMES: Final = """
    AggregateError Array ArrayBuffer AsyncDisposableStack Atomics BigInt BigInt64Array
    BigUint64Array Boolean Buffer CapabilityError DOMException DataView Date DisposableStack
    Error EvalError FinalizationRegistry Float16Array Float32Array Float64Array Function
    Infinity Int16Array Int32Array Int8Array InternalError Intl Iterator JSON Map Math NaN
    Number Object Promise Proxy RangeError ReferenceError Reflect RegExp SandboxError Set
    SharedArrayBuffer String SuppressedError Symbol SyntaxError TextDecoder TextEncoder
    ToolError TypeError URIError URL URLSearchParams Uint16Array Uint32Array Uint8Array
    Uint8ClampedArray WeakMap WeakRef WeakSet atob btoa clearInterval clearTimeout console
    crypto decodeURI decodeURIComponent encodeURI encodeURIComponent escape eval fetch fs
    globalThis isFinite isNaN listTools parseFloat parseInt performance print process
    queueMicrotask readStdin require setInterval setTimeout shell structuredClone undefined
    unescape
"""
JS_GLOBALS: Final = frozenset(_GLOBAL_NAMES.split())


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
