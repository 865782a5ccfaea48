"""The Python half of the live shell demo: runs inside Pyodide in the page's Web Worker.

``worker.js`` installs the corral wheel with micropip, imports this module and drives one
:class:`DemoApp`: a :class:`corral.Sandbox` with two demo tools under constraints, whose every
tool call is posted to the page as it is decided (through the sandbox's audit log). Nothing here
knows it runs in a browser: ``post`` is any callable that takes one JSON string, so the same
code runs natively in the tests.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
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
)

__all__ = ["CSV_EXAMPLE", "DemoApp", "get_weather", "sales_records"]

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


class LiveAudit(AuditLog):
    """An audit log that also posts every tool call to the page as it is decided."""

    def __init__(self, post: Post) -> None:
        super().__init__()
        self._post = post

    def record(self, entry: AuditRecord) -> AuditRecord:
        entry = super().record(entry)
        if entry.kind == "tool_call":
            self._post(json.dumps({"type": "toolcall", "entry": json.loads(entry.to_json())}))
        return entry


class DemoApp:
    """One sandbox for the page, with what the panels need; every method answers in JSON.

    Args:
        post: Sends a JSON message to the page (live tool calls).
        timeout: The sandbox's per-execution time limit, in seconds.
        snapshot: Start from this :meth:`corral.Sandbox.snapshot` (after a restart): bytes,
            or a ``Uint8Array`` in the browser.
    """

    def __init__(self, post: Post, timeout: float = 30.0, snapshot: Any = None) -> None:
        options: dict[str, Any] = {
            "tools": [sales_records, get_weather],
            "capabilities": list(CAPABILITIES),
            "limits": Limits(timeout=timeout),
            "audit_sink": LiveAudit(post),
        }
        if snapshot is not None:
            self.sandbox = Sandbox.from_snapshot(_as_bytes(snapshot), **options)
        else:
            self.sandbox = Sandbox(**options)
        self.last: ExecutionResult | None = None

    def run(self, code: str, language: str = "shell") -> str:
        """Execute ``code``; the result as JSON."""
        self.last = self.sandbox.execute(code, language)
        return json.dumps(_result_json(self.last), default=str)

    def snapshot(self) -> bytes:
        """The files and shell session, to survive a restart of the worker."""
        return self.sandbox.snapshot()

    def replay(self) -> str:
        """Run the sandbox's trace again (no tool called, no clock read) and compare the last
        execution's output with the original."""
        if self.last is None:
            return json.dumps({"error": "nothing to replay yet: run a command first"})
        trace = self.sandbox.trace
        again = replay(trace)
        fields = ("stdout", "stderr", "exit_code", "return_value", "error")
        identical = all(getattr(again, f) == getattr(self.last, f) for f in fields)
        return json.dumps(
            {
                "identical": identical,
                "executions": trace.executions,
                "result": _result_json(again),
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
