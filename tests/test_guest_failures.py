"""Failures inside the guest that used to be unclear (a bare ``null``, a silent truncation, a
restart): each ends with an error that names the limit and what to do instead, and leaves the
same sandbox usable with its files."""

from __future__ import annotations

import pytest

from corral import Limits, Sandbox

MiB = 1024 * 1024

# The guest's own bounds (guest/src/js/mod.rs, guest/src/shell/interp/state.rs).
MAX_RETURN = 16 * MiB
MAX_VALUE = 16 * MiB
MAX_EXPORT = 128 * 1024
MAX_SESSION = 24 * MiB

RETURN_ADVICE = (
    "return a summary, or write the data to a file "
    "(fs.writeFileSync('/workspace/result.json', JSON.stringify(data))) and return its path"
)


def with_file() -> Sandbox:
    """A sandbox holding one file, to show that a failure leaves the files alone."""
    sandbox = Sandbox(limits=Limits(timeout=20, memory=16 * MiB))
    sandbox.fs.write("keep.txt", b"kept")
    return sandbox


def assert_usable(sandbox: Sandbox, instance: object) -> None:
    """The same instance (no restart) runs both languages, and the file is still there."""
    assert sandbox._driver.instance is instance
    assert sandbox.execute("return fs.readFileSync('keep.txt', 'utf8')").return_value == "kept"
    shell = sandbox.execute("cat keep.txt; echo ok", language="shell")
    assert (shell.stdout, shell.exit_code) == ("keptok\n", 0)


def test_out_of_memory_in_a_map_names_the_limit_instead_of_null() -> None:
    sandbox = with_file()
    instance = sandbox._driver.instance
    code = "const m = new Map(); for (let i = 0; ; i++) m.set(i, 'x'.repeat(100))"
    result = sandbox.execute(code)
    assert (result.exit_code, result.error_kind, result.error) == (
        1,
        "exception",
        f"InternalError: out of memory: the code used all of the {16 * MiB}-byte JavaScript "
        "heap (Limits.memory); keep less in memory at once (process the data in parts, write "
        "intermediate results to files) or raise Limits(memory=...)",
    )
    assert_usable(sandbox, instance)


def test_a_thrown_null_is_still_reported_as_null() -> None:
    result = with_file().execute("throw null")
    assert (result.stderr, result.error) == ("Uncaught null\n", "Uncaught null")


def test_a_caught_out_of_memory_error_keeps_its_short_message() -> None:
    code = "try { 'x'.repeat(2 ** 25) } catch (e) { return `${e.name}: ${e.message}` }"
    assert with_file().execute(code).return_value == "InternalError: out of memory"


def test_a_return_value_over_the_limit_is_an_error_not_a_restart() -> None:
    sandbox = Sandbox(limits=Limits(timeout=20))
    sandbox.fs.write("keep.txt", b"kept")
    instance = sandbox._driver.instance
    result = sandbox.execute("return 'x'.repeat(MAX + 1)".replace("MAX", str(MAX_RETURN)))
    message = (
        f"RangeError: the return value is too large: its JSON is more than the {MAX_RETURN} "
        f"bytes a return value may have; {RETURN_ADVICE}"
    )
    assert (result.exit_code, result.error_kind, result.error, result.stdout) == (
        1,
        "exception",
        message,
        "",
    )
    assert result.return_value is None
    assert_usable(sandbox, instance)


def test_a_return_value_that_does_not_fit_the_heap_twice_is_an_error_not_a_restart() -> None:
    sandbox = with_file()
    instance = sandbox._driver.instance
    result = sandbox.execute("return 'x'.repeat(10 * 2 ** 20)")  # its JSON does not fit too
    assert (result.exit_code, result.error_kind, result.error) == (
        1,
        "exception",
        "RangeError: the return value is too large: converting it to JSON needs more than the "
        f"{16 * MiB}-byte JavaScript heap (Limits.memory); {RETURN_ADVICE}",
    )
    assert_usable(sandbox, instance)


def test_a_return_value_at_the_limit_arrives_whole_and_its_printed_copy_is_capped() -> None:
    sandbox = Sandbox(limits=Limits(timeout=20, max_output=100))
    result = sandbox.execute(f"return 'x'.repeat({MAX_RETURN - 2})")
    assert result.return_value == "x" * (MAX_RETURN - 2)
    assert result.stdout == "x" * 100 + (
        "\n[output truncated: more than 100 bytes; print less or return a summary]\n"
    )


def test_a_command_substitution_past_the_limit_fails_instead_of_truncating() -> None:
    sandbox = with_file()
    instance = sandbox._driver.instance
    result = sandbox.execute(
        'x=$(yes | head -c 100000000); echo "status $? length ${#x}"', language="shell"
    )
    assert (result.stdout, result.stderr) == (
        "status 1 length 0\n",
        f"bash: line 1: $(...): value too large (more than {MAX_VALUE} bytes); keep large data "
        "in a file (cmd > /tmp/data.txt) and pass commands its name\n",
    )
    assert_usable(sandbox, instance)


def test_a_variable_past_the_limit_is_refused_at_assignment() -> None:
    sandbox = with_file()
    code = f'x=$(head -c {MAX_VALUE // 2} /dev/zero | tr "\\0" x); x+="$x"; x+=y'
    result = sandbox.execute(code, language="shell")
    assert (result.exit_code, result.stderr) == (
        1,
        f"bash: line 1: x: value too large (more than {MAX_VALUE} bytes); keep large data in a "
        "file (cmd > /tmp/data.txt) and pass commands its name\n",
    )
    result = sandbox.execute('echo "${#x}"', language="shell")
    assert (result.stdout, result.exit_code) == (f"{MAX_VALUE}\n", 0)


BIG = "$(head -c 200000 /dev/zero | tr '\\0' x)"


@pytest.mark.parametrize(
    ("code", "who", "left"),
    [
        (f"export BIG={BIG}", "export: ", 0),
        (f"BIG={BIG}; export BIG", "export: ", 0),
        (f"declare -x BIG={BIG}", "declare: ", 0),
        (f"set -a; BIG={BIG}", "", 0),
        (f"export BIG=small; BIG={BIG}", "", len("small\n")),  # the old value stays
    ],
)
def test_a_large_exported_variable_is_refused_and_later_commands_stay_fast(
    code: str, who: str, left: int
) -> None:
    sandbox = with_file()
    instance = sandbox._driver.instance
    result = sandbox.execute(code, language="shell")
    assert (result.exit_code, result.stderr) == (
        1,
        f"bash: line 1: {who}BIG: value too large to export (more than {MAX_EXPORT} bytes, as "
        "on Linux); keep large data in a file, or in a variable that is not exported\n",
    )
    for _ in range(5):
        result = sandbox.execute("printenv BIG | wc -c; echo ok", language="shell")
        assert (result.stdout, result.exit_code) == (f"{left}\nok\n", 0)
    assert_usable(sandbox, instance)


def test_variables_past_the_session_limit_are_dropped_with_an_error() -> None:
    sandbox = with_file()
    instance = sandbox._driver.instance
    fill = "$(head -c 12000000 /dev/zero | tr '\\0' {})"
    code = f"a={fill.format('a')}; b={fill.format('b')}; c={fill.format('c')}; small=1"
    result = sandbox.execute(code, language="shell")
    assert (result.exit_code, result.stderr) == (
        1,
        f"bash: the session's variables took more than {MAX_SESSION} bytes (saved as JSON), the "
        "most kept between executions; unset c (12000064 bytes); keep large data in files "
        "(cmd > /tmp/data.txt)\n",
    )
    result = sandbox.execute('echo "${#a} ${#b} ${#c} $small"', language="shell")
    assert (result.stdout, result.exit_code) == ("12000000 12000000 0 1\n", 0)
    assert_usable(sandbox, instance)


LONG_LINE = (
    "a line longer than 16 MiB (corral's limit on one line from a pipe or a device): split the "
    "input into lines first (tr, fold), read bytes (head -c, dd), or write it to a file and "
    "name the file"
)


@pytest.mark.parametrize(
    ("code", "stderr"),
    [
        ("sort /dev/zero", f"sort: {LONG_LINE}\n"),
        ("cat /dev/zero | sort", f"sort: {LONG_LINE}\n"),
        ("cat /dev/zero | awk 1", f"awk: {LONG_LINE}\n"),
        # A whole input as one record (RS="^$"), or a paragraph (RS=""), stops there too.
        ("cat /dev/zero | awk -v RS='^$' 1", f"awk: {LONG_LINE}\n"),
        ("cat /dev/zero | awk -v RS= 'END { print NR }'", f"0\nawk: {LONG_LINE}\n"),
        ("tail -n1 /dev/zero", f"tail: {LONG_LINE}\n"),
        ("cat /dev/zero | jq .", f"jq: {LONG_LINE}\n"),
        ("cat /dev/zero | tac", f"tac: {LONG_LINE}\n"),
        ("read x </dev/zero", f"bash: line 1: read: {LONG_LINE}\n"),
        ("mapfile x </dev/zero", f"bash: line 1: mapfile: {LONG_LINE}\n"),
        ("xargs </dev/zero", "xargs: argument line too long\n"),
    ],
)
def test_an_endless_line_fails_the_command_instead_of_exhausting_memory(
    code: str, stderr: str
) -> None:
    sandbox = with_file()
    instance = sandbox._driver.instance
    result = sandbox.execute(code, language="shell")
    assert (result.stdout + result.stderr, result.exit_code, result.error_kind) == (
        stderr,
        1,
        None,
    )
    assert_usable(sandbox, instance)


def test_long_lines_from_a_file_and_many_lines_from_a_pipe_are_read_whole() -> None:
    sandbox = with_file()
    # 20 MB in a file, one line: files are exempt (they are in memory already).
    make = "head -c 20000000 /dev/zero | tr '\\0' a > /tmp/long; echo >> /tmp/long"
    code = f"{make}; awk '{{ print length }}' /tmp/long; sort /tmp/long | wc -c; "
    # Through a pipe the limit is on one line (or record): 22.9 MB of short lines pass.
    code += "seq 3000000 | tac | head -1; seq 1000000 | awk -v RS='^$' '{ print length }'"
    result = sandbox.execute(code, language="shell")
    assert (result.stdout, result.stderr) == ("20000000\n20000001\n3000000\n6888896\n", "")


def test_read_takes_a_long_line_in_little_more_memory_than_the_line() -> None:
    # `read` kept 8 bytes a character while it split: an 8 MB line needed 64 MB more and
    # exhausted a sandbox this small (restarted it).
    sandbox = Sandbox(limits=Limits(timeout=20, memory=16 * MiB, max_fs_bytes=MiB))
    instance = sandbox._driver.instance
    code = "head -c 8000000 /dev/zero | tr '\\0' a | { read -r x; echo ${#x}; }; "
    code += "printf 'a\\\\ b c d\\n' | { read p q; echo \"[$p] [$q]\"; }"
    result = sandbox.execute(code, language="shell")
    assert (result.stdout, result.stderr, result.error_kind) == ("8000000\n[a b] [c d]\n", "", None)
    assert sandbox._driver.instance is instance
