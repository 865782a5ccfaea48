"""The Python half of the live shell demo: runs inside Pyodide in the page's Web Worker.

``worker.js`` installs the corral wheel with micropip, imports this module and drives one
:class:`DemoApp`: a :class:`corral.Sandbox` with two demo tools under constraints, whose every
tool call is posted to the page as it is decided (through the sandbox's audit log). Nothing here
knows it runs in a browser: ``post`` is any callable that takes one JSON string, so the same
code runs natively in the tests.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.machinery
import json
import re
import sys
import zipimport
from collections.abc import Callable, Mapping
from typing import Any

from corral import (
    AuditLog,
    AuditRecord,
    ExecutionResult,
    Limits,
    MethodCapability,
    Param,
    Sandbox,
    replay,
    replay_all,
)
from corral.trace import ReplayDivergence, Trace

__all__ = ["CSV_EXAMPLE", "DemoApp", "FetchLibrary", "get_weather", "sales_records"]

Post = Callable[[str], None]
REGIONS = ("EU", "US", "APAC", "LATAM")
PRODUCTS = ("widget", "gadget", "gizmo", "sprocket", "doohickey")
CITIES = {"Paris": (18, "cloudy"), "London": (14, "rain"), "Tokyo": (24, "sunny")}
TREE_LIMIT = 400  # entries listed in the file tree
VIEW_LIMIT = 64 * 1024  # bytes shown in the file viewer

# The "50 MB CSV" example: 25,000 generated rows, doubled six times (1.6 M rows, ~51 MB), then
# summarised by a pipeline. Only the summary leaves the sandbox.
CSV_EXAMPLE = (
    'awk \'BEGIN { split("EU US APAC LATAM", R, " "); '
    'split("widget gadget gizmo sprocket doohickey", P, " "); '
    "for (i = 1; i <= 25000; i++) "
    'printf "2026-%02d-%02d,%s,%s,%d,%.2f\\n", i % 12 + 1, i % 28 + 1, R[i % 4 + 1], '
    "P[i % 5 + 1], i % 50 + 1, (i * 7 % 1000) / 10 + 1 }' > /tmp/rows.csv; "
    "for i in 1 2 3 4 5 6; do cat /tmp/rows.csv /tmp/rows.csv > /tmp/x.csv; "
    "mv /tmp/x.csv /tmp/rows.csv; done; "
    "echo date,region,product,units,price > sales.csv; cat /tmp/rows.csv >> sales.csv; "
    "rm /tmp/rows.csv; ls -l sales.csv",
    "awk -F, 'NR > 1 { units[$2] += $4; revenue[$2] += $4 * $5 } "
    'END { for (r in units) printf "%-6s %9d units %14.2f\\n", r, units[r], revenue[r] }\' '
    "sales.csv | sort -k4 -rn",
)


def sales_records(region: str, limit: int = 5) -> list[dict[str, Any]]:
    """Recent sales records of one region, newest first.

    Args:
        region: EU, US, APAC or LATAM.
        limit: How many records to return.
    """
    if region not in REGIONS:
        raise ValueError(f"unknown region {region!r}; use one of {', '.join(REGIONS)}")
    records = []
    for i in range(max(0, min(limit, 1000))):
        digest = hashlib.sha256(f"{region}/{i}".encode()).digest()
        records.append(
            {
                "id": f"{region}-{1000 - i}",
                "product": PRODUCTS[digest[0] % len(PRODUCTS)],
                "units": 1 + digest[1] % 40,
                "price": round(5 + digest[2] / 4, 2),
            }
        )
    return records


def get_weather(city: str) -> dict[str, Any]:
    """Current weather in a city.

    Args:
        city: The city's name, e.g. Paris.
    """
    temp, sky = CITIES.get(city, (20, "clear"))
    return {"city": city, "temp_c": temp, "sky": sky}


CAPABILITIES = (
    MethodCapability(
        "sales_records", [Param("region").is_in(["EU", "US"]), Param("limit") <= 20], max_calls=50
    ),
    MethodCapability("get_weather", [Param("city").is_in(sorted(CITIES))], max_calls=20),
)


def charged(
    capabilities: tuple[MethodCapability, ...], used: Mapping[str, int]
) -> list[MethodCapability]:
    """``capabilities`` with the calls ``used`` so far (per pattern, the page's ledger) taken
    off their budgets: a sandbox restarted in a new worker goes on with what was left."""
    return [
        cap
        if cap.max_calls is None
        else dataclasses.replace(
            cap, max_calls=max(0, cap.max_calls - used.get(cap.method_pattern, 0))
        )
        for cap in capabilities
    ]


class LiveAudit(AuditLog):
    """An audit log that also posts every tool call to the page as it is decided, with the
    pattern of the capability that allowed it (the page's ledger of calls made)."""

    def __init__(self, post: Post, capabilities: list[MethodCapability]) -> None:
        super().__init__()
        self._post = post
        self._rules = {cap.describe(): cap.method_pattern for cap in capabilities}

    def record(self, entry: AuditRecord) -> AuditRecord:
        entry = super().record(entry)
        if entry.kind == "tool_call":
            posted = json.loads(entry.to_json())
            if entry.decision == "allowed":
                posted["pattern"] = self._rules.get(entry.rule or "")
            self._post(json.dumps({"type": "toolcall", "entry": posted}))
        return entry


class DemoApp:
    """One sandbox for the page, with what the panels need; every method answers in JSON.

    Args:
        post: Sends a JSON message to the page (live tool calls).
        timeout: The sandbox's per-execution time limit, in seconds.
        snapshot: Start from this :meth:`corral.Sandbox.snapshot` (after a restart): bytes,
            or a ``Uint8Array`` in the browser.
        used: Tool calls already made per capability pattern (after a restart: the page's
            ledger), taken off the call budgets.
        scope: The JavaScript REPL's bindings (after a restart: the page's copy).
    """

    def __init__(
        self,
        post: Post,
        timeout: float = 30.0,
        snapshot: Any = None,
        used: Mapping[str, int] | None = None,
        scope: Mapping[str, Any] | None = None,
    ) -> None:
        self.scope: dict[str, Any] = dict(scope or {})  # the JavaScript REPL's bindings
        capabilities = charged(CAPABILITIES, used or {})
        options: dict[str, Any] = {
            "tools": [sales_records, get_weather],
            "capabilities": capabilities,
            "limits": Limits(timeout=timeout),
            "audit_sink": LiveAudit(post, capabilities),
        }
        # Trace events whose data is a slice of the snapshot the sandbox was opened from (the
        # restore's host requests): by index, where that slice starts and its length.
        self._in_snapshot: dict[int, tuple[int, int]] = {}
        if snapshot is not None:
            data = _as_bytes(snapshot)
            self.sandbox = Sandbox.from_snapshot(data, **options)
            for index, event in enumerate(self.sandbox.trace.events):
                start = data.find(event["data"]) if event["t"] == "fs" and event["data"] else -1
                if start >= 0:
                    self._in_snapshot[index] = (start, len(event["data"]))
        else:
            self.sandbox = Sandbox(**options)
        self.last: ExecutionResult | None = None
        self._traced = 0  # events of the sandbox's trace handed out by new_trace

    def close(self) -> None:
        """Release the sandbox (a standby worker opens a new one from a newer snapshot)."""
        self.sandbox.close()

    def run(self, code: str, language: str = "shell") -> str:
        """Execute ``code``; the result as JSON. JavaScript runs as a REPL (see
        :func:`repl_program`): the value of the last expression is printed and top-level
        bindings are kept for the next line (``scope`` in the answer, for a restart).
        Stopped by Ctrl-C (a ``KeyboardInterrupt``: the sandbox is as the last completed
        command left it), the answer is ``{"interrupted": true}``: returned, not raised,
        because Pyodide formats the traceback of an exception leaving Python for the page."""
        try:
            return self._run(code, language)
        except KeyboardInterrupt:
            return json.dumps({"interrupted": True})

    def _run(self, code: str, language: str) -> str:
        if language != "javascript":
            self.last = self.sandbox.execute(code, language)
            return json.dumps(_result_json(self.last), default=str)
        program, names = repl_program(code, self.scope)
        self.last = self.sandbox.execute(program, language)
        shown, scope = repl_result(self.last)
        if shown.stderr:
            shown = dataclasses.replace(shown, stderr=entry_positions(shown.stderr, program))
        self.scope.update(scope)
        return json.dumps({**_result_json(shown), "scope": self.scope, "names": names}, default=str)

    def complete(self, line: str, language: str = "shell", cwd: str = "/workspace") -> str:
        """Tab completion of the word that ends ``line``: ``{"start": index, "candidates":
        [...]}`` (a directory ends in ``/``). In the shell: command names (applets, builtins,
        ``tool``) in command position, tool names after ``tool``, a tool's ``--flags`` after
        ``tool NAME``, else paths (relative ones against ``cwd``); in JavaScript: the tool
        functions, the REPL's bindings and a few globals."""
        # The word starts after the last separator not escaped with a backslash (`my\ fi`).
        start = max(
            (m.end() for m in re.finditer(r"\\.|[ \t|;&()<>]", line) if m[0][0] != "\\"), default=0
        )
        word = line[start:]
        before = line[:start].split()
        if language == "javascript":
            start = len(line) - len(re.search(r"[\w$]*$", line).group())  # type: ignore[union-attr]
            word = line[start:]
            names = [t.js_name for t in self.sandbox.tools.values()]
            names += [*self.scope, "console", "JSON", "Math", "Promise", "shell", "await", "return"]
            return _completions(start, word, names)
        if before and before[-1] == "tool":
            return _completions(start, word, [*self.sandbox.tools, "--list", "--help"])
        tool = before[before.index("tool") + 1] if "tool" in before[:-1] else None
        if tool in self.sandbox.tools and word.startswith("-"):
            flags = [f"--{p}" for p in self.sandbox.tools[tool].parameters.get("properties", {})]
            return _completions(start, word, flags)
        command_position = not before or line[:start].rstrip()[-1:] in ("|", ";", "&", "(")
        if command_position and "/" not in word:
            return _completions(start, word, [*self.sandbox.commands, "tool"])
        word = re.sub(r"\\(.)", r"\1", word)  # as the shell reads it
        directory, _, prefix = word.rpartition("/")
        if word.startswith("/"):
            absolute = directory or "/"
        else:
            absolute = f"{cwd}/{directory}" if directory else cwd
        try:
            entries = self.sandbox.fs.listdir(absolute)
        except (OSError, ValueError):
            entries = []
        head = word[: len(word) - len(prefix)]
        paths = []
        for name in entries:
            if name.startswith(prefix):
                is_dir = self.sandbox.fs.stat(f"{absolute.rstrip('/')}/{name}").is_dir
                paths.append(f"{head}{name}{'/' if is_dir else ''}")
        # Inserted as typed: a space or a character the shell would read escaped.
        escape = functools.partial(re.sub, r"([^\w/.,:@%+=-])", r"\\\1")
        return _completions(start, escape(word), [escape(path) for path in paths])

    def snapshot(self) -> bytes:
        """The files and shell session, to survive a restart of the worker."""
        return self.sandbox.snapshot()

    def new_trace(self) -> str:
        """The events of the sandbox's trace since the last call, as JSON lines: the page keeps
        them (with the snapshot, after each command), so that the last command can be replayed
        after a restart has lost this sandbox. The files and shell session of the snapshot the
        sandbox was opened from are not sent back to the page, which holds that snapshot: their
        events carry ``"snapshot": [start, length]`` instead of ``data`` (see :meth:`replay`)."""
        events = self.sandbox.trace.events
        new = [
            {**event, "data": None, "snapshot": self._in_snapshot[index]}
            if index in self._in_snapshot
            else event
            for index, event in enumerate(events[self._traced :], self._traced)
        ]
        self._traced = len(events)
        return Trace(new).to_jsonl()

    def replay(self, trace: str | None = None, snapshot: Any = None) -> str:
        """Run a sandbox's trace again (no tool called, no clock read): ``trace`` (JSON lines,
        the page's copy of what :meth:`new_trace` handed out, perhaps from a sandbox a restart
        replaced, with ``snapshot``, the one that sandbox was opened from, if any), else this
        sandbox's own. Answers whether the last execution's output is the recorded one, the
        number of executions run and that output."""
        if trace is None and self.last is None:
            return json.dumps({"error": "nothing to replay yet: run a command first"})
        recorded = self.sandbox.trace if trace is None else Trace.from_jsonl(trace)
        opened_from = None if snapshot is None else _as_bytes(snapshot)
        for event in recorded.events:
            if "snapshot" in event:
                if opened_from is None:
                    return json.dumps(
                        {
                            "error": "this trace leaves out the files of the snapshot its sandbox "
                            "was opened from: pass that snapshot too"
                        }
                    )
                start, length = event.pop("snapshot")
                event["data"] = opened_from[start : start + length]
        try:
            again = replay(recorded)
        except ReplayDivergence as e:  # corral compares every execution with its recording
            return json.dumps({"identical": False, "error": str(e)})
        return json.dumps(
            {
                "identical": True,
                "executions": recorded.executions,
                "result": _result_json(repl_result(again)[0]),
            },
            default=str,
        )

    def agent(self, session: str) -> str:
        """Replay a recorded agent session (``agent_session.json``, from
        ``record_agent_session.py``) with :func:`corral.replay_all`: the script runs again in a
        fresh guest whose every tool answer, clock and random read comes from the trace, so no
        tool is called and no model is needed. Answers the task, the script, the replayed
        tool calls and answer, and whether the answer is the recorded one."""
        recorded = json.loads(session)
        result = replay_all(recorded["trace"])[-1]
        calls = [
            {
                "method": call.method,
                "params": call.params,
                "decision": "allowed" if call.allowed else "denied",
                "rule": call.rule,
                "error": call.error,
            }
            for call in result.tool_calls
        ]
        return json.dumps(
            {
                "task": recorded["task"],
                "code": recorded["code"],
                "answer": result.return_value,
                "identical": result.return_value == recorded["answer"],
                "calls": calls,
            },
            default=str,
        )

    def csv_example(self) -> str:
        """The two commands of the "50 MB CSV" example, as a JSON list."""
        return json.dumps(CSV_EXAMPLE)

    def capabilities(self) -> str:
        """The active capabilities with their remaining call budgets."""
        remaining = self.sandbox.remaining_calls()
        return json.dumps(
            [
                {
                    "pattern": cap.method_pattern,
                    "rule": cap.describe(),
                    "remaining": remaining.get(cap.method_pattern),
                }
                for cap in CAPABILITIES
            ]
        )

    def tree(self) -> str:
        """The writable part of the file system: ``[{path, kind, size}]``, depth first."""
        entries: list[dict[str, Any]] = []
        for root in ("/workspace", "/tmp"):
            entries.append({"path": root, "kind": "dir", "size": 0})
            self._walk(root, entries)
        return json.dumps(entries)

    def _walk(self, directory: str, entries: list[dict[str, Any]]) -> None:
        fs = self.sandbox.fs
        for name in fs.listdir(directory):
            if len(entries) >= TREE_LIMIT:
                return
            path = f"{directory}/{name}"
            stat = fs.stat(path)
            entries.append({"path": path, "kind": stat.kind, "size": stat.size})
            if stat.is_dir:
                self._walk(path, entries)

    def view(self, path: str) -> str:
        """The start of a file as text, for the viewer."""
        data = self.sandbox.fs.read(path)
        text = data[:VIEW_LIMIT].decode("utf-8", "replace")
        return json.dumps({"path": path, "size": len(data), "text": text})

    def read(self, path: str) -> bytes:
        """A whole file (download)."""
        return self.sandbox.fs.read(path)

    def write(self, path: str, data: Any) -> None:
        """Create or replace a file (upload)."""
        self.sandbox.fs.write(path, _as_bytes(data))

    def size(self, path: str) -> int:
        """A file's size in bytes."""
        return self.sandbox.fs.stat(path).size


# --- the JavaScript REPL ------------------------------------------------------------------------
#
# Each execution runs in a fresh JavaScript realm, so the REPL keeps its bindings on the host:
# `let x = 5` at the top level becomes an assignment to a variable of an enclosing scope that the
# program declares, and after the line ran (also after an explicit `return`) every such variable
# is saved: JSON values as they are, functions and classes as their source text, re-evaluated in
# the next line's program. Other values (a Map, a Promise) come back as their JSON form (a
# BigInt as itself, a circular object as null). A value is shown as JavaScript writes it where
# JSON has no form for it (NaN, undefined, 1n, a Map), else as JSON.

_IDENT = r"[A-Za-z_$][\w$]*"
_DECLARATION = re.compile(rf"(?:let|const|var)\s+(?={_IDENT}|[{{\[])")
_FUNCTION = re.compile(rf"(?:async\s+)?function\s*\*?\s*({_IDENT})|class\s+({_IDENT})")
_STATEMENT_KEYWORDS = re.compile(
    r"(?:if|for|while|do|switch|try|return|throw|break|continue|import|export|let|const|var"
    r"|function|async\s+function|class)\b|[{}]"
)
RETURNED = "return ("  # put before the entry's last expression (then "\n)" after it)
REPL_BODY = "const __value = await (async () => {\n"  # the entry follows, then "\n})();"
REPL_SHOW = """\
const __show = (v, seen = []) => {
  const show = (x) => __show(x, [...seen, v]);
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "function") {
    const name = v.name || "anonymous";
    return /^class\\b/.test(String(v)) ? `[class ${name}]` : `[Function: ${name}]`;
  }
  if (v === null || typeof v !== "object") return String(v);
  if (seen.includes(v)) return "[Circular]";
  if (v instanceof Date) return isNaN(v) ? "Invalid Date" : v.toISOString();
  if (v instanceof RegExp || v instanceof Error) return String(v);
  if (v instanceof Promise) return "Promise {}";
  if (typeof v.toJSON === "function") return show(v.toJSON());
  if (Array.isArray(v)) return `[${v.map(show).join(",")}]`;
  const entries = (items) => `(${v.size}) {${items.join(", ")}}`;
  if (v instanceof Map) return `Map${entries([...v].map(([k, x]) => `${show(k)} => ${show(x)}`))}`;
  if (v instanceof Set) return `Set${entries([...v].map(show))}`;
  return `{${Object.keys(v).map((k) => `${JSON.stringify(k)}:${show(v[k])}`).join(",")}}`;
};
const __json = (key, v) => typeof v === "bigint" ? `${v}n` : v;
// v if JSON.stringify takes it, else null (a circular object).
const __plain = (v) => {
  try { JSON.stringify(v, __json); return v ?? null; } catch { return null; }
};
const __keep = (v) => typeof v === "function" ? {source: String(v)}
  : typeof v === "bigint" ? {source: `${v}n`} : {json: __plain(v)};
"""


def _top_level(code: str) -> tuple[list[int], list[int]]:
    """Where the top-level statements of ``code`` start (after ``;``, a newline or a closing
    ``}`` at depth 0, outside strings and comments) and where a ``}`` closes depth 0."""
    starts, closes = [0], []
    depth, i, n = 0, 0, len(code)
    while i < n:
        c = code[i]
        if c in "'\"`":
            i += 1
            while i < n and code[i] != c:
                i += 2 if code[i] == "\\" else 1
        elif code.startswith("//", i):
            i = code.find("\n", i)
            i = n if i < 0 else i - 1
        elif code.startswith("/*", i):
            i = code.find("*/", i + 2)
            i = n if i < 0 else i + 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0 and c == "}":
                closes.append(i + 1)
        elif depth == 0 and (c == ";" or (c == "\n" and not _continues(code, i))):
            starts.append(i + 1)
        i += 1
    return starts, closes


def _continues(code: str, newline: int) -> bool:
    """Whether the expression goes on past the line break at ``newline``: the line ends in an
    operator or a comma, or the next one starts with one (``.map(...)``, ``?.``, ``+ 1``), as
    JavaScript reads it without a semicolon inserted."""
    before = code[:newline].rstrip()
    after = code[newline:].lstrip()
    steps = ("++", "--")  # `i++` ends its statement; `++i` starts one
    if not before or not after or before.endswith(steps) or after.startswith(steps):
        return False
    return before[-1] in "+-*/%&|^!=<>?:,.([{" or (
        after[0] in ".?+*/%&|^=<>:,)]}" and not after.startswith("...")
    )


def _names_in_pattern(pattern: str) -> list[str]:
    """The names a destructuring pattern binds: ``{a, b: c, ...d}`` -> a, c, d; ``[x, y]``."""
    names = []
    for part in re.split(r"[,{}\[\]]", pattern):
        name = part.split("=")[0].strip().removeprefix("...")
        if ":" in name:
            name = name.split(":")[1].strip()
        if re.fullmatch(_IDENT, name):
            names.append(name)
    return names


Edit = tuple[int, int, str]  # replace code[start:end] with the text


def _declaration(code: str, at: int, end: int, closes: list[int]) -> tuple[list[Edit], list[str]]:
    """The edits that turn the top-level statement ``code[at:end]`` from a declaration into an
    assignment to the enclosing scope, and the names it declares (none if not a declaration)."""
    text = code[at:end]
    declared = _DECLARATION.match(text)
    if declared:
        rest = text[declared.end() :]
        if rest[0] in "{[":  # destructuring: ({a, b} = value)
            braces = _top_level(rest)[1]
            pattern = rest[: braces[0]] if rest[0] == "{" and braces else rest.split("=")[0]
            return [(at, at + declared.end(), ";("), (end, end, ")")], _names_in_pattern(pattern)
        names = re.findall(rf"^\s*({_IDENT})", rest) + re.findall(rf",\s*({_IDENT})\s*=", rest)
        return [(at, at + declared.end(), ";")], names
    function = _FUNCTION.match(text)
    if not function:
        return [], []
    name = function.group(1) or function.group(2)
    edits = [(at, at, f";{name} = ")]
    close = next((c for c in closes if c > at), None)
    if close is not None:
        edits.append((close, close, ";"))
    return edits, [name]


def _rewrite(code: str) -> tuple[str, list[str], bool]:
    """``code`` with its top-level declarations made assignments and its last expression
    returned; the names it declares; whether it ends with an expression."""
    starts, closes = _top_level(code)
    edits: list[Edit] = []
    names: list[str] = []
    last, last_start = "", 0
    for start in starts:
        at = start + len(code[start:]) - len(code[start:].lstrip())
        if at >= len(code) or code[at] == ";":
            continue
        end = next((s - 1 for s in starts if s > start), len(code))
        last, last_start = code[at:end], at
        more_edits, more_names = _declaration(code, at, end, closes)
        edits += more_edits
        names += more_names
    expression = bool(last) and not _STATEMENT_KEYWORDS.match(last)
    if expression:
        end = last_start + len(last.rstrip().rstrip(";"))
        edits.append((last_start, last_start, RETURNED))
        edits.append((end, end, "\n)"))  # on its own line: the expression may end in a comment
    for start, end, replacement in sorted(edits, reverse=True):
        code = code[:start] + replacement + code[end:]
    return code, list(dict.fromkeys(names)), expression


def repl_program(code: str, scope: Mapping[str, Any]) -> tuple[str, list[str]]:
    """The program that runs one REPL line ``code`` with the bindings in ``scope``, and the
    names it declares. It returns one string (printed as the execution's last output, which
    :meth:`DemoApp.run` takes off): the value, its display and the bindings to keep."""
    body, names, expression = _rewrite(code)
    # An expression's value is shown as a REPL does; an explicit `return` as before (a string
    # as it is, nothing for undefined).
    shown = (
        "__show(__value)"
        if expression
        else "__value === undefined ? null"
        ' : typeof __value === "string" ? __value : __show(__value)'
    )
    kept = list(dict.fromkeys([*scope, *names]))
    lines = [REPL_SHOW]
    if kept:
        lines.append(f"let {', '.join(kept)};")
    for name, value in scope.items():
        restored = f"({value['source']})" if "source" in value else json.dumps(value.get("json"))
        lines.append(f"{name} = {restored};")
    lines.append(f"{REPL_BODY}{body}\n}})();")
    save = ", ".join(f"{json.dumps(name)}: __keep({name})" for name in kept)
    lines.append(
        "return JSON.stringify({value: __plain(__value), "
        f"shown: {shown}, scope: {{{save}}}}}, __json);"
    )
    return "\n".join(lines), names


def entry_positions(stderr: str, program: str) -> str:
    """An error's ``code.js:LINE:COL`` positions in a :func:`repl_program` as lines of the
    entry the visitor typed (``REPL:1:7``); the stack frames of the program around it left
    out."""
    start = program.index(REPL_BODY) + len(REPL_BODY)
    first = program.count("\n", 0, start) + 1
    last = first + program.count("\n", start, program.rindex("\n})();"))
    lines = program.split("\n")

    def entry_line(match: re.Match[str]) -> str:
        line, column = int(match[1]), int(match[2])
        returned = lines[line - 1].rfind(RETURNED)
        if 0 <= returned < column - 1:  # after the `return (` put before the last expression
            column -= len(RETURNED)
        return f"REPL:{line - first + 1}:{column}"

    kept = []
    for line in stderr.split("\n"):
        found = re.search(r"code\.js:(\d+):(\d+)", line)
        if found and not first <= int(found[1]) <= last:
            continue  # the REPL's own frame (it ran the entry)
        kept.append(re.sub(r"code\.js:(\d+):(\d+)", entry_line, line))
    return "\n".join(kept)


def repl_result(result: ExecutionResult) -> tuple[ExecutionResult, dict[str, Any]]:
    """The result of a :func:`repl_program` as the REPL shows it (the printed envelope taken
    off stdout, the value shown after the output) and the bindings to keep; any other result
    as it is."""
    envelope = result.return_value
    if not isinstance(envelope, str) or not result.stdout.endswith(envelope):
        return result, {}
    try:
        answer = json.loads(envelope)
        # (no "value" when it has no JSON form: a function, a symbol)
        value, shown, scope = answer.get("value"), answer["shown"], answer["scope"]
    except (ValueError, KeyError, TypeError):
        return result, {}  # not a REPL program's envelope
    stdout = result.stdout.removesuffix(envelope)
    if shown is not None:
        stdout += ("" if not stdout or stdout.endswith("\n") else "\n") + shown + "\n"
    return dataclasses.replace(result, stdout=stdout, return_value=value), scope


class FetchLibrary:
    """The last finder on ``sys.meta_path`` in a Python restored from the build's snapshot.

    The snapshot holds every module the page imports, so the worker fetches the zips they came
    from (the standard library and the demo's Python files) only if Python imports something
    else: on the first import no other finder found, this one calls ``fetch(name)`` (which
    writes the zips where ``sys.path`` names them), leaves ``sys.meta_path``, forgets the
    cached indexes of the zips and finds the module in them.
    """

    def __init__(self, fetch: Callable[[str], None]) -> None:
        self.fetch = fetch

    def find_spec(
        self, name: str, path: Any = None, target: Any = None
    ) -> importlib.machinery.ModuleSpec | None:
        sys.meta_path.remove(self)
        self.fetch(name)
        sys.path_importer_cache.clear()
        zipimport._zip_directory_cache.clear()  # type: ignore[attr-defined]
        return importlib.machinery.PathFinder.find_spec(name, path, target)


def _completions(start: int, word: str, names: list[str]) -> str:
    matches = sorted(
        {name for name in names if name.startswith(word) and name != word}
        or {name for name in names if name == word}
    )
    return json.dumps({"start": start, "candidates": matches})


def _as_bytes(data: Any) -> bytes:
    """Bytes from ``bytes`` or, in the browser, a JavaScript ``Uint8Array``."""
    if isinstance(data, bytes | bytearray | memoryview):
        return bytes(data)
    return bytes(data.to_bytes())  # a JsProxy of a typed array


def _result_json(result: ExecutionResult) -> dict[str, Any]:
    return {
        "stdout": result.stdout,
        "stderr": result.stderr,
        "exit_code": result.exit_code,
        "return_value": result.return_value,
        "error": result.error,
        "error_kind": result.error_kind,
        "duration_ms": result.duration_ms,
        "tool_calls": len(result.tool_calls),
    }
