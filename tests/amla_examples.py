"""amla-sandbox's examples, run with corral: the table of every example and how to run one.

The examples (MIT, with their NOTICE) live beside this repository in
``../shared/compat/amla-examples``; nothing of them is copied into this tree. Each run copies
the folder into a temporary directory, replaces ``amla_sandbox`` by ``corral`` in the import
lines only, and runs the example as a program. An example's ``expect`` lines must appear in
its output in that order; its ``deviations`` are lines where corral knowingly differs from
what the example's comments promise, each with the reason (a deviation that goes away fails
the test, so that the list stays true).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT.parent / "shared" / "compat" / "amla-examples"
IMPORT = re.compile(r"^(\s*)(from|import)(\s+)amla_sandbox\b", re.MULTILINE)
TIMEOUT = 300


@dataclass(frozen=True)
class Deviation:
    """An output line where corral differs from the example's promise, and why."""

    line: str
    reason: str


@dataclass(frozen=True)
class Example:
    """One example: ``offline`` (runs in the normal suite), ``framework`` (needs a framework:
    tests/integrations) or ``api-key`` (needs a model provider's key), with the reason."""

    status: str
    expect: tuple[str, ...] = ()
    deviations: tuple[Deviation, ...] = ()
    reason: str = ""
    fails_with: Deviation | None = None
    """The last line of stderr where corral knowingly stops the example, and why."""
    needs: str = ""
    """The module a ``framework`` example needs (it is skipped where that is not installed)."""


EXAMPLES: dict[str, Example] = {
    "async_tools.py": Example(
        "offline",
        expect=(
            "  10 + 32 = 42",
            '  Weather: {"city":"London","temperature":22,"units":"celsius","condition":"sunny"}',
            "  Got users: User_100 and User_101",
            "  Caught error: divide failed: ValueError: Cannot divide by zero",
            "  Users: 3 Orders: 3",
            "  Alice: 2 orders, $300",
            # Written to and read back from /cache, the agent layout's cache directory.
            "  Loaded from cache: Alice, Bob, Charlie",
            "  Found 3 products",
        ),
    ),
    "audit_logging.py": Example(
        "offline",
        expect=(
            "  capture_binary: False",
            "AuditCollector created: 0 entries",
            "  tool: calculator.add",
            "  tool_call: 2 entries",
            "Final turn_id: 3",
            "  Turn 2: 3 entries",
            "  3. type=demo_event, agent_id=file-demo",
            "  pod: agent-worker-7b8c9d",
            "  audit_collector.turn_id: 0",
            "Execution result: Hello from sandbox!",
            # The execution's start and end, from the sandbox's own trail.
            "Audit entries collected: 2",
            "Sandbox closed, audit collector cleaned up",
        ),
    ),
    "capabilities.py": Example(
        "offline",
        expect=(
            "  ✓ stripe/charges/list({'limit': 50})",
            "    Error: stripe/charges/list denied: limit <= 100 failed (limit = 200)",
            "    Error: stripe/charges/create denied: pattern 'stripe/*/list' does not match",
            "  ✓ stripe/charges/create({'amount': 5000, 'currency': 'usd'})",
            "    Error: stripe/charges/create denied: currency in ['usd', 'eur'] failed "
            "(currency = 'gbp')",
            "Key: cap:method:stripe/charges/create",
            "Constraints: 3 rules",
            "Restored pattern: stripe/charges/create",
        ),
    ),
    "constraints.py": Example(
        "offline",
        expect=(
            "  ✓ Passed: {'amount': 500, 'price': 10, 'count': 50, 'status': 'active', "
            "'type': 'standard'}",
            "  ✗ currency=jpy: currency in ['usd', 'eur', 'gbp'] failed (currency = 'jpy')",
            "  ✓ All nested paths validated",
            "  ✓ role=owner passes OR constraint",
            "  ✗ amount>=10000 but currency=eur fails AND constraint",
            "  ✓ Large USD payment allowed",
            "  ✗ Large EUR payment denied (must be USD)",
        ),
    ),
    "customer_support.py": Example(
        "offline",
        expect=(
            "Customer: Alice Johnson ( gold tier )",
            "Order total exceeds L1 refund limit ($50)",
            "Refund processed: 149.99",
            "Discount applied: DISC-C001-15",
            "Refund blocked: amount exceeds L1 authority ($50 max)",
            "Refund blocked: reason not in allowed list",
            "1. Partial refund: $50",
            # Written to /state, the agent layout's state directory.
            "3. Resolution notes saved",
            "4. Confirmation email sent",
            "=== Ticket Closed ===",
        ),
    ),
    "data_pipeline.py": Example(
        "offline",
        expect=(
            "Loaded: 5 to fact_sales",
            "Total sources: 2",
            "Batch 3 - total: 12",
            'Final checkpoint: {"processed":12}',
            "  Valid: 10 (100%)",
        ),
    ),
    # Its "1. Syntax Errors:" part expects run() to raise; corral reports a syntax error in
    # the result (docs/migration.rst), so that part prints nothing.
    "error_handling.py": Example(
        "offline",
        expect=(
            "   Pre-check: Call would be denied",
            "   Caught in JS: transfer denied: amount <= 1000 failed (amount = 5000)",
            "   Call 3: Success (remaining: 0)",
            "   Call 4: Caught in JS: transfer denied: max_calls=3 for 'transfer' exhausted "
            "(3 calls made)",
            "   Caught: ReferenceError - undefinedVariable is not defined",
            "   Error: divide failed: ZeroDivisionError: Cannot divide by zero",
            "Success: Finally worked!",
            "  $100: ✓ Sent (remaining: 0)",
            "    cap:method:process: 5 remaining",
            "    ✗ other_method({})",
        ),
    ),
    "framework_ingestion.py": Example(
        "framework",
        expect=(
            "  - search_database: Search records in the database",
            'Execution result: {"city":"SF","temp":72,"condition":"sunny"}',
            'Addition result: {"a":5,"b":3,"result":8}',
            "    Parameters: ['text', 'max_words']",
            "Translation result: Hola",
            "Combined execution: Data fetched and stored!",
            "All examples completed!",
        ),
        reason="its LangChain part needs langchain-core",
        needs="langchain_core",
    ),
    "insurance_claims.py": Example(
        "offline",
        expect=(
            "    - mcp:policy.lookup (budget: 100)",
            "      constraints: amount <= $3300.00",
            '  Payout result: {"claim_id":"CLM-000001","paid":330000,"status":"completed"}',
            "  can_call('payout.execute')? False",
            "  can_call(amount=$50,000)? False",
            "  Budget after first: 0",
            "  can_call(second payout)? False",
            "  cap:method:mcp:policy.lookup",
        ),
    ),
    "langgraph_agent.py": Example(
        "framework",
        expect=(
            '  Weather in Tokyo: {"city":"Tokyo","temp":25,"condition":"sunny"}',
            "WARNING: Below reorder point!",
            "  [PASS] banking.statement: denied",
            "Transfer: completed",
            # Written to and read back from /state, the agent layout's state directory.
            "  [Agent stored user profile in /state/user.json]",
            "Updated theme to: light",
            "State persisted correctly!",
            "Example production setup:",
        ),
        reason="needs langgraph",
        needs="langgraph",
        fails_with=Deviation(
            "ValueError: max_calls for 'create': no such tool in tool_names (search, create_item)",
            "its last part budgets a tool named 'create' that does not exist (the tool is "
            "create_item); corral refuses a budget that would limit nothing",
        ),
    ),
    "langgraph_codeact.py": Example("api-key", reason="needs OPENAI_API_KEY and python-dotenv"),
    "langgraph_openai.py": Example("api-key", reason="needs OPENAI_API_KEY and python-dotenv"),
    "multi_tenant.py": Example(
        "offline",
        expect=(
            "  read tenant-b doc: DENIED",
            "  read tenant-a doc: DENIED",
            "    call_external_api: DENIED",
            "    delete_document: allowed",
            "Cross-tenant access: BLOCKED (correct!)",
            "Custom template save: SUCCESS",
            "Cross-tenant save: BLOCKED (correct!)",
        ),
    ),
    "quick_start.py": Example(
        "offline",
        expect=(
            "Shell output: HELLO FROM SANDBOX!",
            'JSON processing: "Alice"',
            'JS tool call: Weather: {"city":"San Francisco","temp":18.5,"condition":"foggy"}',
            '  "city": "Tokyo",',
            "Combined: \"Result for 'important docs'\"",
            "Transfer max_calls: 5",
            "Transfer has constraints: True",
            "Done!",
        ),
    ),
    "rate_limiting.py": Example(
        "offline",
        expect=(
            "Capability: cap:method:**",
            "  Call #4: remaining=0, can_call=False",
            "Total calls made: 3",
            "  cap:method:data/write: 10 calls remaining",
            "  logs/**: None (None = unlimited)",
            "    Budget exhausted for: cap:method:**",
            "  Call #4: specific=0, broad=99",
            "  Broad: 98 (still has budget)",
            "Completed 5 of 7 operations",
        ),
    ),
    "recipes.py": Example(
        "offline",
        expect=(
            "Echo: Hello World",
            'Admins: "Alice"',
            "      2 ERROR",
            "Widget: $1125.00",
            "Total revenue: $1775.00",
            "VFS result: Total: 6",
            "Directory: Files: q1.txt, q2.txt",
            '    "error": "risky_operation failed: ValueError: Operation failed!"',
            "  > Step 3 of 3",
            "Final results: 10 items",
        ),
        deviations=(
            Deviation(
                "Result: Final counter: undefined",
                "recipe_reuse_sandbox keeps state in JavaScript globals between executions; "
                "corral runs each execution in a fresh realm (docs/javascript.rst), so state "
                "goes through files",
            ),
        ),
    ),
    "shell_pipelines.py": Example(
        "offline",
        expect=(
            "  tr: HELLO",
            "  jq: 2",
            "  ERROR: 2",
            "  Uppercase: HELLO WORLD",
        ),
        deviations=(
            Deviation(
                "  Replace chars: tr: invalid option -- '_'",
                "the example runs `tr '-_' '  '`, which GNU tr refuses in the same words",
            ),
        ),
    ),
    "streaming.py": Example(
        "offline",
        expect=(
            "  [3] Step 3: Complete!",
            "  [100.0%] Exported reports",
            "Total progress updates received: 6",
            "  Total calls: 9",
            "    data_store: 1 calls",
            "Tutorial Complete!",
        ),
    ),
    "testing.py": Example(
        "offline",
        expect=(
            "All handler unit tests passed!",
            "All capability tests passed!",
            "  ✓ VFS persists between calls",
            "All JS execution tests passed!",
            "All integration tests passed!",
            "Fixture patterns demonstrated!",
        ),
    ),
    "tools.py": Example(
        "offline",
        expect=(
            "  ✗ denied: weather/forecast({'city': 'Tokyo', 'days': 14})",
            "  ✗ denied: notes/delete({'id': 'note_123'})",
            "  - notes/create (max_calls=10)",
            'Output: Weather: {"city":"London","temperature":22,"conditions":"sunny"}',
            "Created note: note_12345",
            "  cap:method:notes/create: 9 calls remaining",
        ),
    ),
    "vfs_operations.py": Example(
        "offline",
        expect=(
            "Read file: Hello, VFS!",
            "Parsed JSON: Found 1 admin(s): Alice",
            "  Is directory: false",
            '  "turnCount": 2,',
            "Aggregated results:",
            "Decoded: Hello, this is some text to encode!",
            'As string: "Hello"',
            "  - Germany's capital is Berlin",
        ),
    ),
    "agents/code_reviewer.py": Example("api-key", reason="needs OPENAI_API_KEY and openai"),
    "agents/data_analyst.py": Example("api-key", reason="needs OPENAI_API_KEY and openai"),
    "agents/research_assistant.py": Example("api-key", reason="needs OPENAI_API_KEY and openai"),
}


def example_names() -> list[str]:
    """Every example in the shared folder, as a path relative to it."""
    return sorted(
        str(path.relative_to(FOLDER)) for path in FOLDER.rglob("*.py") if path.name != "__init__.py"
    )


def named(status: str) -> list[str]:
    """The examples with ``status``."""
    return [name for name, example in EXAMPLES.items() if example.status == status]


def require_folder() -> None:
    """Skip, saying where it should be, when the shared examples are not beside the tree."""
    if not FOLDER.is_dir():
        pytest.skip(f"amla-sandbox's examples are not at {FOLDER} (../shared beside the repo)")


def run_example(name: str, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Copy the examples into ``workdir``, rewrite their imports, and run ``name``."""
    copy = workdir / "amla-examples"
    shutil.copytree(FOLDER, copy)
    for path in copy.rglob("*.py"):
        path.write_text(IMPORT.sub(r"\1\2\3corral", path.read_text()))
    return subprocess.run(
        [sys.executable, name],
        cwd=copy,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def check_output(name: str, result: subprocess.CompletedProcess[str]) -> None:
    """The example ran to the end and printed what its table entry says."""
    example = EXAMPLES[name]
    if example.fails_with is None:
        assert result.returncode == 0, f"{name} failed:\n{result.stderr[-3000:]}"
    else:
        stop = example.fails_with
        last = result.stderr.splitlines()[-1:]
        assert (result.returncode, last) == (1, [stop.line]), (
            f"{name} no longer stops with {stop.line!r} ({stop.reason}):\n{result.stderr[-3000:]}"
        )
    lines = result.stdout.splitlines()
    position = 0
    for line in example.expect:
        assert line in lines[position:], f"{name}: {line!r} not printed (after line {position})"
        position = lines.index(line, position) + 1
    for deviation in example.deviations:
        assert deviation.line in lines, (
            f"{name}: the known deviation {deviation.line!r} ({deviation.reason}) is no longer "
            "printed: remove it"
        )
