"""The shell against the machine's real bash: the same script, the same stdout and status.

Cases live in ``tests/differential/*.cases``: a line ``#### name`` starts a case, the lines
after it are the script. Each case runs in a fresh sandbox and in ``bash --norc --noprofile``
in an empty scratch directory (with GNU coreutils, grep and sed; ``awk`` there is GNU awk,
whatever the machine's default awk is, and jq and bc are the real ones: a case that needs an
oracle the machine lacks is skipped, naming the package to install). Known
deviations are listed with their reasons in ``tests/differential/deviations.txt``; such a case
must still differ, so a fixed deviation fails until it is removed from the list.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from corral import Limits, Sandbox

HERE = Path(__file__).parent / "differential"
BASH = shutil.which("bash")
# The oracles beside bash and coreutils: the command a case names -> the real program.
ORACLES = {"awk": shutil.which("gawk"), "jq": shutil.which("jq"), "bc": shutil.which("bc")}
PACKAGES = {"awk": "gawk", "jq": "jq", "bc": "bc"}


def _jq_version() -> tuple[int, ...]:
    """The oracle jq's version (``jq-1.7.1`` -> ``(1, 7, 1)``), or ``()``."""
    if ORACLES["jq"] is None:
        return ()
    jq = subprocess.run([ORACLES["jq"], "--version"], capture_output=True, text=True, check=False)
    out = jq.stdout
    return tuple(int(n) for n in re.findall(r"\d+", out)[:3])


# jq-conformance.cases holds jq 1.8 behaviour: an older oracle cannot judge it (the cases'
# recorded jq 1.8.2 outputs are checked by tests/test_jq_conformance.py everywhere).
JQ_18 = _jq_version() >= (1, 8)


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


def missing_oracles(script: str) -> list[str]:
    """The oracle commands ``script`` names that this machine does not have."""
    named = {m.group(1) for m in re.finditer(r"(?<![\w./-])(awk|jq|bc)(?![\w.-])", script)}
    return sorted(name for name in named if ORACLES[name] is None)


@pytest.fixture(scope="session")
def oracle_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory put first on the oracle's PATH: ``awk`` there is GNU awk."""
    bin_dir = tmp_path_factory.mktemp("oracle-bin")
    for name, program in ORACLES.items():
        if program is not None:
            (bin_dir / name).symlink_to(program)
    return bin_dir


def run_bash(
    script: str, scratch: Path, timeout: float = 20, oracle_bin: Path | None = None
) -> tuple[str, int]:
    prefix = f"{oracle_bin}:" if oracle_bin is not None else ""
    env = {
        "HOME": str(scratch),
        "PATH": prefix + "/usr/local/bin:/usr/bin:/bin",
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


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_same_as_bash(case: Case, sandbox: Sandbox, tmp_path: Path, oracle_bin: Path) -> None:
    missing = missing_oracles(case.script)
    if missing:
        packages = " ".join(PACKAGES[name] for name in missing)
        pytest.skip(f"no oracle for {', '.join(missing)} here: apt-get install {packages}")
    if case.name.startswith("jq-conformance/") and not JQ_18:
        pytest.skip("the machine's jq is older than 1.8: install jq 1.8 to compare these")
    clean(sandbox)
    result = sandbox.execute(case.script, language="shell")
    ours = (result.stdout, result.exit_code)
    theirs = run_bash(case.script, tmp_path, oracle_bin=oracle_bin)
    if case.name in DEVIATIONS:
        assert ours != theirs, f"deviation fixed, remove it from deviations.txt: {case.name}"
    else:
        assert ours == theirs, f"stderr: {result.stderr}"


def test_scratch_environment_is_sane(tmp_path: Path) -> None:
    assert run_bash("echo hi; exit 3", tmp_path) == ("hi\n", 3)
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(ORACLES["awk"] is None, reason="no GNU awk here: apt-get install gawk")
def test_oracle_awk_is_gnu_awk(tmp_path: Path, oracle_bin: Path) -> None:
    # mawk, Debian's default awk, formats and orders differently: the cases are GNU awk's.
    out, status = run_bash("awk --version | head -1", tmp_path, oracle_bin=oracle_bin)
    assert (out.startswith("GNU Awk"), status) == (True, 0)


def test_missing_oracles_are_found_by_command_name() -> None:
    script = "echo 1 | awk '{print}' | jq . > out.jq; bc.txt; gawk_x; ./bc"
    assert missing_oracles(script) == sorted(n for n in ("awk", "jq") if ORACLES[n] is None)
