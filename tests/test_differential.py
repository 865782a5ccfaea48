"""The shell, its applets and their GNU originals: the same script, the same outcome.

Cases live in ``tests/differential/*.cases`` (the format is described in
``tests/differential/__init__.py``). Each case runs in a fresh sandbox (restored from a
snapshot holding its files) and is compared either with the outcome ``record.py`` recorded
from real bash 5.2 and GNU tools, or, when none is recorded, with ``bash --norc --noprofile``
run now in a scratch directory (``awk`` there is GNU awk, whatever the machine's default awk
is; jq and bc are the real ones: a case that needs an oracle the machine lacks is skipped,
naming the package to install). Known deviations are listed with their reasons in
``tests/differential/deviations.txt``; such a case must still differ, so a fixed deviation
fails until it is removed from the list.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from corral import Limits, Sandbox
from differential import (
    BASH,
    ORACLES,
    PACKAGES,
    Case,
    CaseFile,
    File,
    case_files,
    dump,
    load_cases,
    load_deviations,
    missing_oracles,
    oracle_bin,
    parse,
    prepare,
    run_bash,
)


def _jq_version() -> tuple[int, ...]:
    """The oracle jq's version (``jq-1.7.1`` -> ``(1, 7, 1)``), or ``()``."""
    if ORACLES["jq"] is None:
        return ()
    jq = subprocess.run([ORACLES["jq"], "--version"], capture_output=True, text=True, check=False)
    return tuple(int(n) for n in re.findall(r"\d+", jq.stdout)[:3])


# jq-conformance.cases holds jq 1.8 behaviour: an older oracle cannot judge it (the cases'
# recorded jq 1.8.2 outputs are checked by tests/test_jq_conformance.py everywhere).
JQ_18 = _jq_version() >= (1, 8)

pytestmark = pytest.mark.needs_native("runs the machine's real bash in a subprocess")

CASES = load_cases()
DEVIATIONS = load_deviations()


@pytest.fixture(scope="session")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory put first on the oracle's PATH: ``awk`` there is GNU awk."""
    return oracle_bin(tmp_path_factory.mktemp("oracle-bin"))


class Sandboxes:
    """One sandbox, restored before each case to a snapshot holding that case's files."""

    def __init__(self) -> None:
        self.sandbox = Sandbox(limits=Limits(timeout=10))
        self.empty = self.sandbox.snapshot()
        self.snapshots: dict[tuple[File, ...], bytes] = {}

    def fresh(self, files: tuple[File, ...]) -> Sandbox:
        if files not in self.snapshots:
            self.sandbox.restore(self.empty)
            for f in files:
                parent = f.path.rpartition("/")[0]
                if parent:
                    self.sandbox.fs.mkdir(parent, parents=True)
                self.sandbox.fs.write(f.path, f.text)
            self.snapshots[files] = self.sandbox.snapshot()
        self.sandbox.restore(self.snapshots[files])
        return self.sandbox


@pytest.fixture(scope="module")
def sandboxes() -> Iterator[Sandboxes]:
    made = Sandboxes()
    yield made
    made.sandbox.close()


def test_bash_background_jobs_end_with_their_case(tmp_path: Path) -> None:
    marker = f"stray-job-{os.getpid()}"
    with pytest.raises(subprocess.TimeoutExpired):
        run_bash(f"while :; do : {marker}; done & sleep 30", tmp_path, timeout=0.5)
    # SIGKILL is delivered at once but a loaded machine may take a moment to reap the job.
    deadline = time.monotonic() + 10
    while (alive := running_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert alive == []


def running_with(marker: str) -> list[str]:
    """Live (not zombie) processes whose command line holds ``marker``."""
    alive = []
    for proc in Path("/proc").glob("[0-9]*"):
        with contextlib.suppress(OSError):
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
            if state != "Z" and marker.encode() in (proc / "cmdline").read_bytes():
                alive.append(proc.name)
    return alive


def test_cases_are_named_uniquely() -> None:
    names = [case.name for case in CASES]
    assert len(names) == len(set(names))
    assert set(DEVIATIONS) <= set(names), "deviations.txt names cases that do not exist"


def test_recorded_files_read_back_as_written() -> None:
    # record.py rewrites files with dump(): it must give back every file it can hold.
    for cases in case_files():
        if any(case.recorded for case in cases.cases):
            assert dump(cases) == cases.path.read_text(), cases.path.name


def test_sections_survive_any_text(tmp_path: Path) -> None:
    odd = "a\\b\x00\r\n#### not a case\n---- not a section\nno newline"
    files = (File("d/f", odd, executable=True),)
    case = Case("odd", "cat\n", stdin=odd, files=files, stdout=odd, stderr="", status=3)
    path = tmp_path / "odd.cases"
    path.write_text(dump(CaseFile(path, cases=[case])))
    assert parse(path).cases == [case]


@pytest.mark.parametrize("line", ["---- stout", "---- file", "---- status x", "---- env"])
def test_a_bad_section_says_what_to_write(tmp_path: Path, line: str) -> None:
    path = tmp_path / "bad.cases"
    path.write_text(f"#### a\necho hi\n{line}\n")
    with pytest.raises(ValueError, match=r"bad\.cases:3: .*(write|must be a number)"):
        parse(path)


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_as_bash(case: Case, sandboxes: Sandboxes, tmp_path: Path, oracle: Path) -> None:
    sandbox = sandboxes.fresh(case.files)
    result = sandbox.execute(case.script, language="shell", stdin=case.stdin)
    if case.recorded:
        ours: tuple[object, ...] = (result.stdout, result.exit_code)
        theirs: tuple[object, ...] = (case.stdout, case.status)
        if case.stderr is not None:
            ours, theirs = (*ours, result.stderr), (*theirs, case.stderr)
    else:
        missing = missing_oracles(case.script)
        if missing:
            packages = " ".join(PACKAGES[name] for name in missing)
            pytest.skip(f"no oracle for {', '.join(missing)} here: apt-get install {packages}")
        if case.name.startswith("jq-conformance/") and not JQ_18:
            pytest.skip("the machine's jq is older than 1.8: install jq 1.8 to compare these")
        prepare(tmp_path, case.files)
        out, _, status = run_bash(
            case.script, tmp_path, oracle=oracle, stdin=case.stdin, env=case.env
        )
        ours, theirs = (result.stdout, result.exit_code), (out, status)
    if case.name in DEVIATIONS:
        assert ours != theirs, f"deviation fixed, remove it from deviations.txt: {case.name}"
    else:
        assert ours == theirs, f"stderr: {result.stderr}"


def test_scratch_environment_is_sane(tmp_path: Path) -> None:
    assert run_bash("echo hi; pwd >&2; exit 3", tmp_path) == ("hi\n", "/workspace\n", 3)
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(ORACLES["awk"] is None, reason="no GNU awk here: apt-get install gawk")
def test_oracle_awk_is_gnu_awk(tmp_path: Path, oracle: Path) -> None:
    # mawk, Debian's default awk, formats and orders differently: the cases are GNU awk's.
    out, _, status = run_bash("awk --version | head -1", tmp_path, oracle=oracle)
    assert (out.startswith("GNU Awk"), status) == (True, 0)


def test_missing_oracles_are_found_by_command_name() -> None:
    script = "echo 1 | awk '{print}' | jq . > out.jq; bc.txt; gawk_x; ./bc"
    assert missing_oracles(script) == sorted(n for n in ("awk", "jq") if ORACLES[n] is None)
