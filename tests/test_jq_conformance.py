"""jq's own test suite (jq 1.8.2's ``tests/*.test``, vendored in ``tests/conformance/jq`` with
their NOTICE) run through corral's ``jq`` applet, judged as jq's ``--run-tests`` judges them.

A case is a program line, an input line and the expected outputs, up to a blank line; ``#``
lines are comments. Outputs are compared as JSON values, in order, with nothing missing or
superfluous (a run-time error ends the outputs, as it ends ``jq_next``). A ``%%FAIL`` case must
fail to compile with jq's message (the last ``jq: error`` message, all its lines); ``%%FAIL
IGNORE MSG`` only must fail to compile. Modules come from ``tests/conformance/jq/modules``,
given to jq with ``-L`` as jq's test script does.

The fixes made to pass these cases are also differential cases,
``tests/differential/jq-conformance.cases``, each with jq 1.8.2's output (from the vendored test
it names) in ``# stdout:`` lines, checked here whatever jq the machine has.

The cases corral's jq still fails are listed in ``known-failures.txt`` with the reason; a listed
case that starts passing fails the test until it is removed from the list. Run this file as a
script to print every failing case with what differed and the pass rate.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from corral import Limits, Sandbox

HERE = Path(__file__).parent / "conformance" / "jq"
RECORDED = Path(__file__).parent / "differential" / "jq-conformance.cases"
MODULES = "/tmp/jq-tests/modules"  # where the sandbox sees HERE/modules
FAIL_MARKS = ("%%FAIL", "%%FAIL IGNORE MSG")


@dataclass(frozen=True)
class Case:
    """One test: where it is, its program, and the lines after it up to the blank line."""

    file: str
    line: int
    program: str
    lines: tuple[str, ...]
    fail: str | None  # "%%FAIL" (check the message), "%%FAIL IGNORE MSG", or None

    @property
    def name(self) -> str:
        return f"{self.file}:{self.line}"


def _skipped(line: str) -> bool:
    """Blank lines and comments, as jq's runner's ``skipline``."""
    rest = line.lstrip(" \t")
    return rest == "" or rest.startswith("#")


def parse_tests(path: Path) -> list[Case]:
    """The cases of one ``.test`` file, in order."""
    lines = path.read_text(encoding="utf-8").split("\n")
    cases: list[Case] = []
    fail: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if _skipped(line):
            continue
        if line in FAIL_MARKS:
            fail = line
            continue
        start = i
        while i < len(lines) and not _skipped(lines[i]):
            i += 1
        cases.append(Case(path.name, start, line, tuple(lines[start:i]), fail))
        fail = None
    return cases


def load_cases() -> list[Case]:
    return [case for path in sorted(HERE.glob("*.test")) for case in parse_tests(path)]


def load_known_failures() -> dict[str, str]:
    """``file:line: reason`` lines; ``#`` starts a comment."""
    known: dict[str, str] = {}
    for line in (HERE / "known-failures.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            file, line_no, reason = line.split(":", 2)
            known[f"{file.strip()}:{line_no.strip()}"] = reason.strip()
    return known


def _value(text: str) -> Any:
    """A JSON text as a value that compares as jq's ``jv_equal`` does: numbers by value
    (exactly, as jq 1.8 compares number literals), never equal to booleans."""
    return _tagged(json.loads(text, parse_float=Decimal, parse_int=Decimal))


def _tagged(v: Any) -> Any:
    if isinstance(v, dict):
        return ("object", frozenset((k, _tagged(x)) for k, x in v.items()))
    if isinstance(v, list):
        return ("array", tuple(_tagged(x) for x in v))
    return (type(v).__name__, v)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _last_error(stderr: str) -> str:
    """The last ``jq: error`` message with the lines that follow it (jq's runner keeps the
    last one its error callback saw), without the ``jq: N compile errors`` summary."""
    lines = stderr.rstrip("\n").split("\n")
    if lines and lines[-1].startswith("jq: ") and "compile error" in lines[-1]:
        lines.pop()
    starts = [i for i, line in enumerate(lines) if line.startswith("jq: error")]
    return "\n".join(lines[starts[-1] :]) if starts else ""


def run_case(sb: Sandbox, case: Case) -> str | None:
    """None when the case passes, else what differed."""
    # jq's tests/mantest runs the manual's examples with PAGER=less (for `$ENV.PAGER`).
    command = f"PAGER=less jq -c -L {MODULES} {_quote(case.program)}"
    if case.fail is not None:
        result = sb.execute(command + " </dev/null", language="shell")
        if result.exit_code != 3:
            return f"compiled (status {result.exit_code}); jq refuses it"
        got = _last_error(result.stderr)
        want = "\n".join(case.lines)
        if case.fail == "%%FAIL" and got != want:
            return f"message {got!r}, jq says {want!r}"
        return None
    if not case.lines:
        return "the case has no input line"
    result = sb.execute(command, language="shell", stdin=case.lines[0] + "\n")
    if result.exit_code == 3:
        return f"does not compile: {result.stderr.strip()}"
    try:
        # one value a line; not splitlines(), which also splits at U+0085 and U+2028 in strings
        got = [_value(line) for line in result.stdout.split("\n")[:-1]]
    except ValueError:
        return f"output is not JSON: {result.stdout!r}"
    want = [_value(line) for line in case.lines[1:]]
    if got != want:
        return f"output {result.stdout.strip()!r} {result.stderr.strip()!r}"
    return None


def new_sandbox() -> Sandbox:
    sb = Sandbox(limits=Limits(timeout=20))
    sb.fs.mkdir(MODULES, parents=True)
    for path in sorted((HERE / "modules").rglob("*")):
        target = f"{MODULES}/{path.relative_to(HERE / 'modules').as_posix()}"
        if path.is_dir():
            sb.fs.mkdir(target, parents=True)
        else:
            sb.fs.write(target, path.read_bytes())
    return sb


def run_all(cases: list[Case]) -> dict[str, str]:
    """What differed, by case name, for every case that fails."""
    failures: dict[str, str] = {}
    sb = new_sandbox()
    for case in cases:
        problem = run_case(sb, case)
        if problem is not None:
            failures[case.name] = problem
    return failures


def test_parser_reads_jq_format(tmp_path: Path) -> None:
    path = tmp_path / "x.test"
    path.write_text(
        '# comment\n.a\n{"a":1}\n1\n\n%%FAIL\n{(0):1}\njq: error: x\n    {(0):1}\n\n'
        "%%FAIL IGNORE MSG\n%::wat\nwhatever\n\n  # indented comment\n.[]\n[1,2]\n1\n2\n"
    )
    assert parse_tests(path) == [
        Case("x.test", 2, ".a", ('{"a":1}', "1"), None),
        Case("x.test", 7, "{(0):1}", ("jq: error: x", "    {(0):1}"), "%%FAIL"),
        Case("x.test", 12, "%::wat", ("whatever",), "%%FAIL IGNORE MSG"),
        Case("x.test", 16, ".[]", ("[1,2]", "1", "2"), None),
    ]


def test_values_compare_as_jq_does() -> None:
    assert _value("1.0") == _value("1")
    assert _value('{"a":[1,2],"b":null}') == _value('{"b":null,"a":[1.0,2]}')
    assert _value("true") != _value("1")
    assert _value("100000000000000000001") != _value("100000000000000000000")
    assert _value("[1,2]") != _value("[2,1]")


def test_known_failures_name_real_cases() -> None:
    names = {case.name for case in load_cases()}
    assert sorted(set(load_known_failures()) - names) == []


@pytest.mark.needs_native("runs all 879 cases: minutes under Pyodide")
def test_jq_suite(capsys: pytest.CaptureFixture[str]) -> None:
    cases = load_cases()
    failures = run_all(cases)
    known = load_known_failures()
    with capsys.disabled():
        passed = len(cases) - len(failures)
        print(f"\njq 1.8.2's tests: {passed}/{len(cases)} pass ({100 * passed / len(cases):.1f} %)")
    new = {name: problem for name, problem in failures.items() if name not in known}
    fixed = sorted(name for name in known if name not in failures)
    assert new == {}, "cases that fail and are not in known-failures.txt"
    assert fixed == [], "known failures that now pass: remove them from known-failures.txt"


def load_recorded() -> list[tuple[str, str, str]]:
    """The cases of ``jq-conformance.cases``: name, script, and jq 1.8.2's stdout."""
    cases: list[tuple[str, str, str]] = []
    for block in RECORDED.read_text(encoding="utf-8").split("\n#### ")[1:]:
        name, _, script = block.partition("\n")
        expected = [
            line.removeprefix("# stdout: ").removeprefix("# stdout:")
            for line in script.splitlines()
            if line.startswith("# stdout:")
        ]
        cases.append((name.strip(), script, "".join(line + "\n" for line in expected)))
    return cases


RECORDED_CASES = load_recorded()


@pytest.mark.parametrize("case", RECORDED_CASES, ids=[case[0] for case in RECORDED_CASES])
def test_recorded_jq_18_outputs(case: tuple[str, str, str]) -> None:
    _, script, expected = case
    with Sandbox(limits=Limits(timeout=20)) as sb:
        result = sb.execute(script, language="shell")
    assert (result.stdout, result.exit_code) == (expected, 0), result.stderr


def main() -> int:
    cases = load_cases()
    by_name = {case.name: case for case in cases}
    failures = run_all(cases)
    known = load_known_failures()
    for name, problem in failures.items():
        mark = "known" if name in known else "NEW"
        print(f"{mark} {name}: {by_name[name].program}\n    {problem[:300]}")
    for name in known:
        if name not in failures:
            print(f"FIXED {name}: {by_name[name].program}")
    passed = len(cases) - len(failures)
    print(f"{passed}/{len(cases)} pass ({100 * passed / len(cases):.1f} %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
