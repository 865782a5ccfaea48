"""The shell against the machine's real bash: the same script, the same stdout and status.

Cases live in ``tests/differential/*.cases``: a line ``#### name`` starts a case, the lines
after it are the script. Each case runs in a fresh sandbox and in ``bash --norc --noprofile``
in an empty scratch directory (with GNU coreutils, grep, sed, gawk, jq and bc). Known
deviations are listed with their reasons in ``tests/differential/deviations.txt``; such a case
must still differ, so a fixed deviation fails until it is removed from the list.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from corral import Limits, Sandbox

HERE = Path(__file__).parent / "differential"
BASH = shutil.which("bash")


@dataclass(frozen=True)
class Case:
    name: str
    script: str


def load_cases() -> list[Case]:
    cases: list[Case] = []
    for path in sorted(HERE.glob("*.cases")):
        name, lines = None, []
        for line in path.read_text().splitlines():
            if line.startswith("#### "):
                if name is not None:
                    cases.append(Case(name, "\n".join(lines) + "\n"))
                name, lines = f"{path.stem}/{line[5:].strip()}", []
            elif name is not None:
                lines.append(line)
        if name is not None:
            cases.append(Case(name, "\n".join(lines) + "\n"))
    return cases


def load_deviations() -> dict[str, str]:
    deviations: dict[str, str] = {}
    for line in (HERE / "deviations.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(":")
            deviations[name.strip()] = reason.strip()
    return deviations


pytestmark = pytest.mark.needs_native("runs the machine's real bash in a subprocess")

CASES = load_cases()
DEVIATIONS = load_deviations()


def run_bash(script: str, scratch: Path, timeout: float = 20) -> tuple[str, int]:
    env = {
        "HOME": str(scratch),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "LC_ALL": "C",
        "TZ": "UTC",
        "USER": "user",
    }
    bash = subprocess.Popen(
        [BASH or "bash", "--norc", "--noprofile", "-c", script],
        cwd=scratch,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, _ = bash.communicate(timeout=timeout)
    finally:
        # The case's background jobs end with it, even when bash timed out: a stray
        # `while :; do :; done &` would otherwise hold a core for good.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bash.pid, signal.SIGKILL)
        bash.wait()
    return stdout.decode("utf-8", "replace"), bash.returncode


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    return Sandbox(limits=Limits(timeout=10))


def clean(sandbox: Sandbox) -> None:
    sandbox.reset_shell()
    for name in sandbox.fs.listdir("."):
        sandbox.fs.remove(name, recursive=True)
    for name in sandbox.fs.listdir("/tmp"):
        sandbox.fs.remove("/tmp/" + name, recursive=True)


def test_bash_background_jobs_end_with_their_case(tmp_path: Path) -> None:
    marker = f"stray-job-{os.getpid()}"
    with pytest.raises(subprocess.TimeoutExpired):
        run_bash(f"while :; do : {marker}; done & sleep 30", tmp_path, timeout=0.5)
    alive = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if marker.encode() in cmdline.read_bytes():
                alive.append(cmdline.parent.name)
    assert alive == []


def test_cases_are_named_uniquely() -> None:
    names = [case.name for case in CASES]
    assert len(names) == len(set(names))
    assert set(DEVIATIONS) <= set(names), "deviations.txt names cases that do not exist"


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_as_bash(case: Case, sandbox: Sandbox, tmp_path: Path) -> None:
    clean(sandbox)
    result = sandbox.execute(case.script, language="shell")
    ours = (result.stdout, result.exit_code)
    theirs = run_bash(case.script, tmp_path)
    if case.name in DEVIATIONS:
        assert ours != theirs, f"deviation fixed, remove it from deviations.txt: {case.name}"
    else:
        assert ours == theirs, f"stderr: {result.stderr}"


def test_scratch_environment_is_sane(tmp_path: Path) -> None:
    assert run_bash("echo hi; exit 3", tmp_path) == ("hi\n", 3)
    assert os.listdir(tmp_path) == []
