"""Choosing between the shell and JavaScript when the caller does not say.

The rule, in order (deterministic, documented, and overridden by any explicit ``language=``):

1. ``#!`` on the first line: the shell if it names a shell (``sh``, ``bash``), else JavaScript.
2. A line that starts with ``#`` (a shell comment; JavaScript has none): the shell.
3. The first code line starts with a JavaScript word (``const``, ``var``, ``await``,
   ``async``, ``class``, ``try``, ``throw``, ``new``, ``import``, ``yield``, ``return``,
   ``let name``, ``export default|const|function|class|{``), or with ``if (``, ``for (``,
   ``while (``, ``switch (`` or ``function name(args``: JavaScript.
4. It starts with an assignment ``NAME=value`` (no spaces around ``=``): the shell.
5. Its first word is a shell command: an applet (``ls``, ``grep``...), a builtin (``cd``,
   ``export``...), a keyword (``if``, ``for``, ``while``, ``case``, ``[[``...) or ``tool``: the
   shell.
6. Anything else (``console.log(...)``, ``x = f()``, ``get_weather({...})``...): JavaScript.
"""

from __future__ import annotations

import re
from collections.abc import Collection

__all__ = ["detect_language"]

SHELL_KEYWORDS = frozenset(
    {"if", "for", "while", "until", "case", "select", "function", "{", "(", "((", "[[", "[", "!"}
)
_JS_WORDS = frozenset(
    {"const", "var", "await", "async", "class", "try", "throw", "new", "import", "yield", "return"}
)
# Patterns, compiled on first use by ``re``'s own cache (compiling them at import cost a fresh
# process's first sandbox about a millisecond).
_JS_LET = r"let\s+[\w$\[{]"
_JS_EXPORT = r"export\s+(default|const|let|var|function|class|async|\{)"
_JS_CONTROL = r"(if|for|while|switch)\s*\("
_JS_FUNCTION = r"function\s*\*?\s*[\w$]*\s*\(\s*[^)\s]"
_ASSIGNMENT = r"[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?="
_WORD = r"\(\(|\[\[|[^\s;|&<>()]+|\("


def detect_language(code: str, commands: Collection[str]) -> str:
    """``shell`` or ``javascript`` for ``code`` (see the module docstring for the rule);
    ``commands`` are the names the shell knows (applets, builtins)."""
    lines = [line.strip() for line in code.splitlines() if line.strip()]
    if not lines:
        return "javascript"
    if lines[0].startswith("#!"):
        return "shell" if re.search(r"\b(ba)?sh\b", lines[0]) else "javascript"
    if any(line.startswith("#") for line in lines):
        return "shell"
    first = lines[0]
    word_match = re.match(_WORD, first)
    word = word_match.group(0) if word_match else ""
    if word in _JS_WORDS or re.match(_JS_LET, first) or re.match(_JS_EXPORT, first):
        return "javascript"
    if re.match(_JS_CONTROL, first) or re.match(_JS_FUNCTION, first):
        return "javascript"
    if re.match(_ASSIGNMENT, first):
        return "shell"
    if word in SHELL_KEYWORDS or word in commands or word == "tool":
        return "shell"
    return "javascript"
