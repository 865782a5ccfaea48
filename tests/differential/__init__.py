"""The one home of the tests against real bash and GNU tools: the ``.cases`` format, and the
way the oracle (bash 5.2 with GNU coreutils, grep, sed, gawk, jq, bc) is run.

A ``.cases`` file is a list of cases. A line ``#### name`` starts a case; the lines after it
are the script, up to the next case or the first section of this one. Sections start with a
line ``---- KIND [flags]``:

``---- stdin``
    what the script reads on its standard input (empty when absent);
``---- file PATH [executable]``
    a file the case starts with, relative to the working directory;
``---- env NAME=VALUE``
    a variable set for the oracle (bash and the GNU tools) on top of its usual environment,
    which has ``LC_ALL=C``: ``---- env LC_ALL=C.UTF-8`` makes GNU tools count characters as
    the sandbox does (and quote names in their messages with curly quotes, which it does not);
``---- stdout``, ``---- stderr``, ``---- status N``
    what the oracle did, as written by ``record.py``. A case with a recorded status is
    compared with its recording (stderr too when it is recorded); a case without one is
    compared with the oracle run live, on stdout and status.

Files and variables given before the first case belong to every case of the ``.cases``
file. A text section ends with a newline unless its marker says ``nonl``. A section whose
text holds control characters (other than tab and newline) or a line that would read as a
marker says ``escaped``: backslash is written ``\\\\`` and such characters ``\\xNN``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
from dataclasses import dataclass, field, replace
from pathlib import Path

HERE = Path(__file__).parent
BASH = shutil.which("bash")
# The oracles beside bash and coreutils: the command a case names -> the real program.
ORACLES = {"awk": shutil.which("gawk"), "jq": shutil.which("jq"), "bc": shutil.which("bc")}
PACKAGES = {"awk": "gawk", "jq": "jq", "bc": "bc"}
# What the sandbox's shell shows as its working directory and home.
WORKSPACE = "/workspace"

# Controls other than tab and newline, and a line that would read as a case or a section.
_NEEDS_ESCAPE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]|^(?:####|----) ", re.M)
_ESCAPE = re.compile(r"[\\\x00-\x08\x0b-\x1f\x7f]|^[-#](?=[-#]{3} )", re.M)
_UNESCAPE = re.compile(r"\\(\\|x[0-9a-f]{2})")


@dataclass(frozen=True)
class File:
    """A file a case starts with."""

    path: str
    text: str
    executable: bool = False


@dataclass(frozen=True)
class Case:
    """One script, what it starts with, and what the oracle did (when recorded)."""

    name: str
    script: str
    stdin: str = ""
    files: tuple[File, ...] = ()
    env: tuple[str, ...] = ()
    stdout: str | None = None
    stderr: str | None = None
    status: int | None = None

    @property
    def recorded(self) -> bool:
        return self.status is not None


@dataclass
class CaseFile:
    """A ``.cases`` file: the fixture all its cases share, and the cases (with their own
    files, without the shared ones)."""

    path: Path
    shared: tuple[File, ...] = ()
    env: tuple[str, ...] = ()
    cases: list[Case] = field(default_factory=list)

    def full(self, case: Case) -> Case:
        """``case`` named ``stem/name``, with the shared files and variables and its own."""
        name = f"{self.path.stem}/{case.name}"
        return replace(case, name=name, files=self.shared + case.files, env=self.env + case.env)


def escape(text: str) -> str:
    r"""Text written so that it survives a ``.cases`` file.

    >>> escape("a\\b\x00\n---- x\n")
    'a\\\\b\\x00\n\\x2d--- x\n'
    """
    return _ESCAPE.sub(lambda m: "\\\\" if m[0] == "\\" else f"\\x{ord(m[0]):02x}", text)


def unescape(text: str) -> str:
    r"""The inverse of :func:`escape`.

    >>> unescape(escape("a\\b\x00\r\n#### y")) == "a\\b\x00\r\n#### y"
    True
    """
    return _UNESCAPE.sub(lambda m: "\\" if m[1] == "\\" else chr(int(m[1][1:], 16)), text)


def section(marker: str, text: str) -> str:
    """The lines of one text section."""
    flags = ""
    if _NEEDS_ESCAPE.search(text):
        text, flags = escape(text), " escaped"
    if text and not text.endswith("\n"):
        text, flags = text + "\n", flags + " nonl"
    return f"---- {marker}{flags}\n{text}"


def _body(lines: list[str], flags: list[str]) -> str:
    text = "\n".join(lines) + ("\n" if lines and "nonl" not in flags else "")
    return unescape(text) if "escaped" in flags else text


def parse(path: Path) -> CaseFile:
    """Read one ``.cases`` file."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    result = CaseFile(path)
    case: dict[str, object] | None = None
    marker: list[str] = ["script"]
    body: list[str] = []

    def close() -> None:
        kind, flags = marker[0], marker[1:]
        if kind == "file":
            executable = "executable" in flags
            flags = [f for f in flags[1:] if f != "executable"]
            made = File(marker[1], _body(body, flags), executable)
            if case is None:
                result.shared += (made,)
            else:
                case["files"] = (*case.get("files", ()), made)  # type: ignore[misc]
        elif kind == "env":
            if case is None:
                result.env += (marker[1],)
            else:
                case["env"] = (*case.get("env", ()), marker[1])  # type: ignore[misc]
        elif case is not None and kind == "status":
            case["status"] = int(flags[0])
        elif case is not None:
            # The script keeps its lines as they are: a ``.cases`` file has always read so.
            case[kind] = "\n".join(body) + "\n" if kind == "script" else _body(body, flags)

    for number, line in enumerate(lines, 1):
        if line.startswith("#### ") or line.startswith("---- "):
            close()
            body = []
            if line.startswith("#### "):
                if case is not None:
                    result.cases.append(Case(**case))  # type: ignore[arg-type]
                case, marker = {"name": line[5:].strip()}, ["script"]
            else:
                marker = _marker(line, f"{path}:{number}")
        else:
            body.append(line)
    close()
    if case is not None:
        result.cases.append(Case(**case))  # type: ignore[arg-type]
    return result


_SECTIONS = {"stdin": 0, "stdout": 0, "stderr": 0, "file": 1, "env": 1, "status": 1}


def _marker(line: str, where: str) -> list[str]:
    """The words of a section's marker line, checked."""
    marker = line[5:].split()
    kind = marker[0] if marker else ""
    # A file's path comes first, whatever its name; the flags follow.
    fixed = marker[1:2] if kind == "file" else []
    flags = marker[1 + len(fixed) :]
    args = fixed + [word for word in flags if word not in ("nonl", "escaped", "executable")]
    if kind not in _SECTIONS or len(args) != _SECTIONS[kind]:
        raise ValueError(
            f"{where}: {line!r} is not a section; write '---- stdin', '---- file PATH', "
            "'---- env NAME=VALUE', '---- stdout', '---- stderr' or '---- status N' "
            "(with 'nonl' or 'escaped' after a text section's name)"
        )
    if kind == "status" and not args[0].lstrip("-").isdigit():
        raise ValueError(f"{where}: the status must be a number: {line!r}")
    return marker


def dump(cases: CaseFile) -> str:
    """The text of ``cases`` as a ``.cases`` file (:func:`parse` reads it back)."""
    out = [f"---- env {v}\n" for v in cases.env] + [_file_section(f) for f in cases.shared]
    for case in cases.cases:
        out.append(f"#### {case.name}\n{case.script}")
        if case.stdin:
            out.append(section("stdin", case.stdin))
        out.extend(f"---- env {v}\n" for v in case.env)
        out.extend(_file_section(f) for f in case.files)
        if case.stdout is not None:
            out.append(section("stdout", case.stdout))
        if case.stderr is not None:
            out.append(section("stderr", case.stderr))
        if case.status is not None:
            out.append(f"---- status {case.status}\n")
    return "".join(out)


def _file_section(f: File) -> str:
    return section(f"file {f.path}" + (" executable" if f.executable else ""), f.text)


def case_files() -> list[CaseFile]:
    return [parse(path) for path in sorted(HERE.glob("*.cases"))]


def load_cases() -> list[Case]:
    """Every case, named ``file/name``, with the files it starts with."""
    return [cf.full(case) for cf in case_files() for case in cf.cases]


def load_deviations() -> dict[str, str]:
    """The cases where corral differs from the oracle on purpose, and why."""
    deviations: dict[str, str] = {}
    for line in (HERE / "deviations.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(":")
            deviations[name.strip()] = reason.strip()
    return deviations


def missing_oracles(script: str) -> list[str]:
    """The oracle commands ``script`` names that this machine does not have."""
    named = {m.group(1) for m in re.finditer(r"(?<![\w./-])(awk|jq|bc)(?![\w.-])", script)}
    return sorted(name for name in named if ORACLES[name] is None)


def oracle_bin(directory: Path) -> Path:
    """Fill ``directory`` with links that make ``awk`` GNU awk (and jq, bc the real ones)."""
    for name, program in ORACLES.items():
        if program is not None and not (directory / name).exists():
            (directory / name).symlink_to(program)
    return directory


def prepare(scratch: Path, files: tuple[File, ...]) -> None:
    """Write a case's files into ``scratch``, in reverse name order: on a tmpfs, a directory
    then lists its entries by name, as the sandbox does."""
    for f in sorted(files, key=lambda f: f.path, reverse=True):
        path = scratch / f.path
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f.text.encode())
        if f.executable:
            path.chmod(0o755)


def run_bash(
    script: str,
    scratch: Path,
    timeout: float = 20,
    oracle: Path | None = None,
    stdin: str = "",
    env: tuple[str, ...] = (),
) -> tuple[str, str, int]:
    """Run ``script`` in real bash in ``scratch``: stdout, stderr, status. Paths under
    ``scratch`` read as the sandbox's ``/workspace``; ``oracle`` goes first on PATH; ``env``
    holds ``NAME=VALUE`` settings on top of the usual ones."""
    prefix = f"{oracle}:" if oracle is not None else ""
    environ = {
        "HOME": str(scratch),
        "PATH": prefix + "/usr/local/bin:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TERM": "dumb",
        "TZ": "UTC",
        "USER": "user",
        **dict(v.split("=", 1) for v in env),
    }
    bash = subprocess.Popen(
        ["bash", "--norc", "--noprofile", "-c", script],
        executable=BASH,
        cwd=scratch,
        env=environ,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        stdout, stderr = bash.communicate(stdin.encode(), timeout=timeout)
    finally:
        # The case's background jobs end with it, even when bash timed out: a stray
        # `while :; do :; done &` would otherwise hold a core for good.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bash.pid, signal.SIGKILL)
        bash.wait()

    def text(data: bytes) -> str:
        return data.decode("utf-8", "replace").replace(str(scratch), WORKSPACE)

    errors = text(stderr).replace("bash: -c: line", "bash: line")
    return text(stdout), errors, bash.returncode
