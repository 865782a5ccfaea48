"""The framework-free examples in examples/ run and print exactly what they promise.

Each runs as a program (``python examples/NAME.py``) and its whole output is compared; in
csv_summary.py the measured times are replaced by ``<t>``.
"""

from __future__ import annotations

import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs_native("runs each example as a subprocess")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
FRAMEWORK_EXAMPLES = (
    "langgraph_agent.py",
    "codeact_agent.py",
    "deep_agents.py",
    "mcp_server.py",
    "mcp_client.py",
    "openai_agents.py",
    "pydantic_ai_agent.py",
    "smolagents_agent.py",
    "llamaindex_agent.py",
    "crewai_agent.py",
)
TIMES = re.compile(r"\d+\.\d\d s")

OUTPUT = {
    "approvals": """\
  approval asked: send_email {'to': 'client@example.com', 'subject': 'report'} -> True
  approval asked: send_email {'to': 'x@attacker.test', 'subject': 'report'} -> False
sent 'report' to ops@corp.example
sent 'report' to client@example.com
send_email denied: approval refused
""",
    "async_tools": """\
user1, user2, user3, user4, user5
5 calls of 0.2 s took less than 1 s: concurrent
['user0', 'user1', 'user2']
user9
""",
    "audit_logging": """\
charge {'card': '****4242', 'amount': 30} allowed - charge where amount <= 100
charge {'card': '****4242', 'amount': 500} denied - amount <= 100 failed (amount = 500)
['execution_start', 'tool_call', 'tool_call', 'execution_end']
""",
    "constraints": """\
sent 500 EUR to acct-1
CapabilityError: transfer denied: amount <= 1000 failed (amount = 5000)
allowed
denied: currency in ['USD', 'EUR'] failed (currency = 'JPY')
denied: to starts_with 'acct-' or to == 'treasury' failed (to = 'mallory')
CapabilityError: transfer denied: amount <= 1000 failed (amount = 2000)
""",
    "csv_summary": """\
wrote 50.0 MB, 1649445 rows into the sandbox
1649446
west 1649448 14020299.00
south 1649442 14020293.00
central 1649442 14020281.00
timings: write <t> s, pipeline <t> s
""",
    "customer_support": """\
turn 1: Alice (gold): order o7, $149.99
turn 2: CapabilityError: refund denied: amount <= 50 failed (amount = 149.99)
turn 3: refunded $50; ticket for c1 escalated: refund the remaining $99.99
refunds made: [('o7', 50)]
""",
    "error_handling": """\
exception: exit 1, kind exception
  Error: bad input
syntax: exit 1, kind exception
  SyntaxError: expecting '
denied: exit 1, kind exception
  CapabilityError: divide denied: b != 0 failed (b = 0)
bad argument: exit 1, kind exception
  TypeError: divide: unknown parameter 'c' (parameters: a, b)
caught: exit 0, kind None
  handled: CapabilityError
timeout: exit 124, kind timeout
  TimeoutError: execution exceeded the 0.5 s time limit and was stopped
shell exit: exit 2, kind None
  grep: /workspace/missing.txt: No such file or directory
2
""",
    "multi_tenant": """\
Q3 plan
CapabilityError: read_document denied: tenant == 'acme' failed (tenant = 'beta')
CapabilityError: delete_document denied: no capability matches 'delete_document'
calls left: {'read_document': 5}
widening refused: capability 'read_document' is not within any capability of the token it narrows
other key refused: token signature does not match (forged or tampered)
""",
    "quick_start": """\
Paris: 18C
Lima: 24C
24
a,b,c
remembered
""",
    "replay_debugging": """\
production: TypeError: cannot read property 'toFixed' of null
replayed:   TypeError: cannot read property 'toFixed' of null
same result: True
tool results seen: [9.5, 9.5, None, None]
""",
    "shell_pipelines": """\
# errors
2
# lines per level
      3 INFO
      2 ERROR
      1 WARN
# api calls per path
      3 /orders
      2 /users
# slowest call per api path
/orders 88
/users 15
# orders per status, with jq
{"open":5,"paid":42}
# a loop
INFO=3
ERROR=2
# the first error's time
2024-05-01 10:00:02
""",
    "tools": """\
{'customer': 'string', 'status': ['open', 'shipped'], 'limit': 'integer'}
c42-0,c42-1 1.1 2 shipped
viewed ['page', 'user']
['search_orders', 'fetch_rate', 'crm/notes/add', 'log_event']
TypeError: search_orders: parameter 'status' must be one of "open", "shipped", got "lost"
""",
    "vfs_operations": """\
['users.json'] 34
2 names
Ada
Lin
bash: line 1: /etc/x: Permission denied
after remove: False
after restore: ['names.txt', 'users.json']
fork: ['names.txt', 'only-in-fork.txt', 'users.json']
original: ['names.txt', 'users.json']
""",
}


def run(name: str) -> str:
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / f"{name}.py")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return TIMES.sub("<t> s", result.stdout)


@pytest.mark.parametrize("name", sorted(OUTPUT))
def test_example_prints_what_it_promises(name: str) -> None:
    assert run(name) == OUTPUT[name]


def test_every_offline_example_is_tested() -> None:
    mine = {path.stem for path in EXAMPLES.glob("*.py")} - {
        Path(name).stem for name in FRAMEWORK_EXAMPLES
    }
    assert mine == set(OUTPUT)


def test_the_readme_lists_every_example() -> None:
    readme = (EXAMPLES / "README.md").read_text()
    listed = set(re.findall(r"\]\(([\w/]+\.py|[\w]+/)\)", readme))
    present = {path.name for path in EXAMPLES.glob("*.py")} | {"pyodide_page/"}
    assert present <= listed
    assert set(FRAMEWORK_EXAMPLES) <= listed


def test_the_docs_page_lists_every_example() -> None:
    page = (EXAMPLES.parent / "docs" / "examples.rst").read_text()
    listed = set(re.findall(r"^``([\w/]+\.py|\w+/)``$", page, re.MULTILINE))
    present = {path.name for path in EXAMPLES.glob("*.py")} | {"pyodide_page/"}
    assert listed == present | set(FRAMEWORK_EXAMPLES)


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.seen: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen.append(tag)
        if tag not in {"meta", "link", "br", "img", "input"}:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open.pop() == tag, f"</{tag}> closes nothing open"


def test_the_pyodide_page_is_well_formed() -> None:
    page = EXAMPLES / "pyodide_page"
    tags = _Tags()
    tags.feed((page / "index.html").read_text())
    assert (tags.open, tags.seen[:2]) == ([], ["html", "head"])
    assert 'new Worker("worker.js")' in (page / "index.html").read_text()
    worker = (page / "worker.js").read_text()
    assert "micropip.install(WHEEL)" in worker and "aexecute" in worker
    assert "micropip" in (page / "README.md").read_text()
