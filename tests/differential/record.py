"""Record what real bash 5.2 and the GNU tools do for the cases of ``.cases`` files.

    python tests/differential/record.py FILE.cases...           # record, rewriting each file
    python tests/differential/record.py --check FILE.cases...   # say which recordings differ

Each case runs the way the tests run the oracle when nothing is recorded (``run_bash``:
``bash --norc --noprofile -c`` in a scratch directory holding the case's files, ``awk``
being GNU awk), and its stdout, stderr and status are written under it. A case recorded
without stderr keeps it unrecorded (its message is not compared). The scratch directory is
on a tmpfs when there is one, so that directories list their entries in name order (as
``grep -r`` or ``find`` in the sandbox do). Run it on a machine with GNU coreutils, grep,
sed, gawk, jq and bc; review the diff before committing it.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from differential import Case, dump, oracle_bin, parse, prepare, run_bash

TMPFS = Path("/dev/shm")


def record(case: Case, oracle: Path) -> Case:
    """``case`` with the oracle's outcome."""
    where = TMPFS if TMPFS.is_dir() else None
    with tempfile.TemporaryDirectory(dir=where) as tmp:
        # Named as the sandbox's, for the scripts that print the directory's name.
        scratch = Path(tmp, "workspace")
        scratch.mkdir()
        prepare(scratch, case.files)
        stdout, stderr, status = run_bash(
            case.script, scratch, oracle=oracle, stdin=case.stdin, env=case.env
        )
    keep_stderr = case.stderr is not None or not case.recorded
    return replace(case, stdout=stdout, stderr=stderr if keep_stderr else None, status=status)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    args = parser.parse_args(argv)
    differ = 0
    with tempfile.TemporaryDirectory() as bin_dir:
        oracle = oracle_bin(Path(bin_dir))
        for path in args.files:
            cases = parse(path)
            recorded = []
            for case in cases.cases:
                full = cases.full(case)
                new = record(full, oracle)
                if full.recorded and new != full:
                    differ += 1
                    now = (new.stdout, new.stderr, new.status)
                    print(f"{full.name}: the oracle now gives {now!r}")
                recorded.append(replace(new, name=case.name, files=case.files, env=case.env))
            if not args.check:
                cases.cases = recorded
                path.write_text(dump(cases))
            print(f"{path}: {len(recorded)} cases", file=sys.stderr)
    return 1 if args.check and differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
