"""``sort`` reading a pipe: the input is kept in blocks of whole lines (a line may cross the
chunks the pipe hands over, and one may be longer than a block), sorted as a file would be,
without the spare room of one buffer doubled up to the input's size."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from corral import Limits, Sandbox

MIB = 1 << 20


def _lines(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return [
        f"{rng.choice(['cat', 'dog', 'x'])}{rng.randrange(10**6)} {rng.randrange(-500, 500)}"
        for _ in range(count)
    ]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ("", sorted),
        ("-r", lambda ls: sorted(ls, reverse=True)),
        ("-u", lambda ls: sorted(set(ls))),
        # numeric on the second field (none: 0); ties by the whole line, as GNU sort does
        ("-t' ' -k2n", lambda ls: sorted(ls, key=lambda x: (int([*x.split(), "0"][1]), x))),
    ],
)
def test_sort_from_a_pipe_sorts_as_from_a_file(
    args: str, expected: Callable[[list[str]], list[str]]
) -> None:
    lines = _lines(40_000, seed=3)
    lines.append("z" * (300 * 1024))  # longer than one of sort's blocks
    text = "\n".join(lines)  # the last line has no newline
    sb = Sandbox(limits=Limits(max_file_size=16 * MIB))
    sb.fs.write("in.txt", text)
    piped = sb.execute(f"cat in.txt | sort {args}", language="shell")
    direct = sb.execute(f"sort {args} in.txt", language="shell")
    assert piped.exit_code == direct.exit_code == 0, piped.stderr
    assert piped.stdout == "\n".join(expected(lines)) + "\n"
    assert piped.stdout == direct.stdout


def test_sort_from_a_pipe_holds_little_more_than_its_input() -> None:
    rng = random.Random(5)
    text = "".join(f"cat{rng.randrange(10**6):06d}\n" for _ in range(600_000))
    sb = Sandbox(limits=Limits(max_file_size=64 * MIB, max_fs_bytes=128 * MIB))
    sb.fs.write("c.txt", text)
    sb.execute("echo b a | sort | cat > /dev/null", language="shell")
    before = sb.memory_bytes
    result = sb.execute("cat c.txt | sort | tail -1", language="shell")
    assert result.exit_code == 0, result.stderr
    grown = sb.memory_bytes - before
    # The lines (1x) and sort's 16-byte entry per 10-byte line (1.6x): 2.7x. One buffer
    # doubled up to the input's size while reading the pipe took 4.4x.
    assert grown < 3.2 * len(text), grown / len(text)
