"""The shell through the public API: sessions, tools, JavaScript's shell(), recovery."""

from __future__ import annotations

import pytest

from corral import Limits, MethodCapability, Param, Sandbox, create_bash_tool


def get_weather(city: str, days: int = 1) -> dict[str, object]:
    """Get weather for a city."""
    return {"city": city, "temp": 72, "days": days}


def transfer_money(amount: float, currency: str) -> str:
    """Move money."""
    return f"sent {amount} {currency}"


@pytest.fixture
def sandbox() -> Sandbox:
    return Sandbox(
        tools=[get_weather, transfer_money],
        capabilities=[
            MethodCapability("get_weather"),
            MethodCapability("transfer_money", [Param("amount") <= 1000]),
        ],
        limits=Limits(timeout=2),
    )


def sh(sandbox: Sandbox, code: str, stdin: str | None = None) -> tuple[str, str, int]:
    result = sandbox.execute(code, language="shell", stdin=stdin)
    return result.stdout, result.stderr, result.exit_code


def test_echo_and_status(sandbox: Sandbox) -> None:
    assert sh(sandbox, "echo hello world") == ("hello world\n", "", 0)
    assert sh(sandbox, "exit 3") == ("", "", 3)
    assert sh(sandbox, "nosuchcommand") == (
        "",
        "bash: line 1: nosuchcommand: command not found\n",
        127,
    )


def test_echo_the_builtin_writes_as_the_applet_and_reports_as_bash() -> None:
    sandbox = Sandbox(limits=Limits(max_file_size=100))
    # The builtin writes what /bin/echo (the applet) writes, raw bytes and -e's bytes alike.
    for args in [
        "-e 'a\\tb\\c' x",
        "-nE '\\t'",
        "-x -- y",
        "$'\\xff' -e '\\x41'",
        "-e '\\xf4\\x8f\\xbe\\x80'",
        "-e $'\\xce' '\\xce'",
    ]:
        script = f"echo {args} | od -An -tx1; /bin/echo {args} | od -An -tx1"
        first, second = sh(sandbox, script)[0].split("\n", 1)
        assert (first + "\n", sh(sandbox, "type -t echo")[0]) == (second, "builtin\n"), args
    # A write that fails is reported as bash reports it, with status 1.
    assert sh(sandbox, "echo hi >&-; echo $?") == (
        "1\n",
        "bash: line 1: echo: write error: Bad file descriptor\n",
        0,
    )
    assert sh(sandbox, "echo hi 2>&1 >&- | cat") == (
        "bash: line 1: echo: write error: Bad file descriptor\n",
        "",
        0,
    )
    assert sh(sandbox, "echo $(seq 100) > big; echo $?") == (
        "1\n",
        "bash: line 1: echo: write error: File too large\n",
        0,
    )


def test_the_session_persists_between_executions(sandbox: Sandbox) -> None:
    sh(sandbox, 'cd /tmp; X=5; export Y=6; f() { echo "f:$1"; }')
    assert sh(sandbox, "pwd; echo $X $Y; f a") == ("/tmp\n5 6\nf:a\n", "", 0)
    sandbox.reset_shell()
    assert sh(sandbox, 'pwd; echo "[$X]"') == ("/workspace\n[]\n", "", 0)


def test_an_exit_trap_ends_with_its_execution(sandbox: Sandbox) -> None:
    # One set by the EXIT trap itself runs neither then (as in bash) nor after the next one.
    script = "trap 'trap \"echo inner\" EXIT; echo outer' EXIT; echo body"
    assert sh(sandbox, script) == ("body\nouter\n", "", 0)
    assert sh(sandbox, "echo next; trap -p EXIT") == ("next\n", "", 0)


def test_descriptors_kept_open_end_with_the_execution(sandbox: Sandbox) -> None:
    assert sh(sandbox, "f() { exec 3>a.txt; }; f; : {fd}>b.txt; echo $fd; exec 1>&-") == (
        "10\n",
        "",
        0,
    )
    assert sh(sandbox, "echo out; echo three >&3; echo ten >&10") == (
        "out\n",
        "bash: line 1: 3: Bad file descriptor\nbash: line 1: 10: Bad file descriptor\n",
        1,
    )


def test_stdin_reaches_the_script(sandbox: Sandbox) -> None:
    assert sh(sandbox, 'read -r a b; echo "$b-$a"', stdin="one two\n") == ("two-one\n", "", 0)


def test_tool_from_the_shell(sandbox: Sandbox) -> None:
    out, err, status = sh(sandbox, "tool get_weather --city SF --days 3")
    assert (out, err, status) == (
        '{\n  "city": "SF",\n  "temp": 72,\n  "days": 3\n}\n',
        "",
        0,
    )
    assert sh(sandbox, "tool transfer_money --amount 5000 --currency USD") == (
        "",
        "tool: transfer_money denied: amount <= 1000 failed (amount = 5000)\n",
        1,
    )
    result = sandbox.execute("tool transfer_money --amount 5000 --currency USD", language="shell")
    (call,) = result.tool_calls
    assert (call.method, call.allowed, call.params) == (
        "transfer_money",
        False,
        {"amount": 5000, "currency": "USD"},
    )


def test_tool_arguments_from_stdin(sandbox: Sandbox) -> None:
    weather = '{\n  "city": "Oslo",\n  "temp": 72,\n  "days": 2\n}\n'
    assert sh(sandbox, """echo '{"city": "Oslo", "days": 2}' | tool get_weather""") == (
        weather,
        "",
        0,
    )
    # `--json -` reads the object from stdin, and flags after it still add to it.
    piped = """echo '{"city": "Oslo"}' | tool get_weather --json - --days 2"""
    assert sh(sandbox, piped) == (weather, "", 0)
    assert sh(sandbox, """tool get_weather --json='{"city": "Oslo", "days": 2}'""") == (
        weather,
        "",
        0,
    )
    assert sh(sandbox, "echo '[1]' | tool get_weather --json -") == (
        "",
        "tool: get_weather: stdin must hold a JSON object of arguments\n",
        1,
    )
    assert sh(sandbox, "echo '{' | tool get_weather --json -") == (
        "",
        "tool: get_weather: stdin: invalid JSON: EOF while parsing an object at line 2 column 0\n",
        1,
    )


def test_javascript_shell_functions(sandbox: Sandbox) -> None:
    sh(sandbox, "cd /tmp")
    code = """
    const here = shell('pwd');
    const weather = await shell.exec('tool get_weather --city LA');
    let failure;
    try { shell('exit 4') } catch (e) { failure = [e.exitCode, e.message] }
    fs.writeFileSync('from-js.txt', 'x');
    return [here, JSON.parse(weather.stdout).city, weather.exitCode, failure];
    """
    assert sandbox.execute(code).return_value == [
        "/tmp\n",
        "LA",
        0,
        [4, "command failed with exit code 4: exit 4"],
    ]
    assert sandbox.fs.read_text("/tmp/from-js.txt") == "x"
    error = sandbox.execute("shell('tool get_weather --city X')").error
    assert error == (
        "Error: shell(cmd) cannot wait for tools or sleep; use `await shell.exec(cmd)` "
        "for this command"
    )


def test_javascript_shell_output_past_the_capture_limit_says_why() -> None:
    sandbox = Sandbox(limits=Limits(timeout=60))
    limit = (
        "shell: the output passed 16777216 bytes, the most one capture holds; write it to a "
        "file (cmd > /tmp/out.txt) and read that with fs.readFile\n"
    )
    sync = "try { shell('yes | head -c 17000000') } catch (e) { return e.stderr }"
    assert sandbox.execute(sync).return_value == limit
    exec_ = "return (await shell.exec('yes | head -c 17000000')).stderr"
    assert sandbox.execute(exec_).return_value == limit


def test_javascript_shell_runs_yes_past_its_yield_point() -> None:
    sandbox = Sandbox(limits=Limits(timeout=60))
    # yes yields every 4 MiB; that yield used to be a host call, which synchronous shell()
    # cannot make ("cannot wait for tools or sleep").
    code = (
        "return [shell('yes | head -c 9000000 | wc -c'), "
        "shell('yes x | head -c 5000000 | tail -c 4')]"
    )
    assert sandbox.execute(code).return_value == ["9000000\n", "x\nx\n"]


@pytest.mark.parametrize(
    ("language", "code"),
    [("shell", "yes > /dev/null"), ("javascript", "shell('yes > /dev/null')")],
)
def test_yes_into_a_sink_that_never_pushes_back_stops_at_the_time_limit(
    language: str, code: str
) -> None:
    sandbox = Sandbox(limits=Limits(timeout=1))
    result = sandbox.execute(code, language)
    assert result.error_kind == "timeout", result.error
    assert sandbox.execute("echo fresh", "shell").stdout == "fresh\n"


def test_shell_timeout_and_recovery_keep_the_session(sandbox: Sandbox) -> None:
    sh(sandbox, "KEEP=yes; cd /tmp")
    result = sandbox.execute("while true; do :; done", language="shell")
    assert (result.exit_code, result.error_kind) == (124, "timeout")
    assert sh(sandbox, "echo $KEEP; pwd") == ("yes\n/tmp\n", "", 0)


def test_recovery_keeps_the_session_of_the_last_shell_code_after_javascript(
    sandbox: Sandbox,
) -> None:
    # JavaScript that runs no shell code sends no session: the one kept is the shell's.
    sh(sandbox, "KEEP=yes; cd /tmp")
    assert sandbox.execute("return 1").return_value == 1
    result = sandbox.execute("const f = () => f() + 1; return f()")
    assert (result.error_kind, sandbox.execute("return 2").return_value) == ("stack_overflow", 2)
    assert sh(sandbox, "echo $KEEP; pwd") == ("yes\n/tmp\n", "", 0)


# Everything a session holds, `$_` first set to a known word.
DUMP = ": x; declare -p; declare -f; readonly -f; trap -p; pwd; dirs; set -o; shopt -p; umask; "
DUMP += 'echo "$0 $# $*"'


@pytest.mark.parametrize(
    "change",
    [
        "read -r V <<< 'from read'",
        "declare -i N=7; declare -l L=MiXed",
        "(( N += 5 )); let 'M = N * 2'",
        "f() { echo one; }; f() { echo two; }",
        "W=1; unset W; unset -f f",
        "cd /tmp && pushd / >/dev/null",
        "set -o pipefail; shopt -s nullglob",
        "shopt -s autocd; shopt -u sourcepath globskipdots",
        "f() { echo one; }; readonly -f f",
        "umask 027",
        "trap 'echo bye' INT USR1",
        "A=(a b c); A[1]=B; declare -A H=([k]=v); H[k]=w; unset 'A[2]'",
        "(S=leak; cd /; set -e; g() { :; }); echo $BASHPID",
        "set -- p q r; PATH=$PATH:/x; export SHLVL",
    ],
)
def test_each_change_reaches_the_saved_session(sandbox: Sandbox, change: str) -> None:
    # The session saved after each execution (what recovery restores, as fork copies) is
    # rebuilt from its parts cached since the last save: none may be stale.
    sh(sandbox, "N=1; f() { echo one; }; V=old; A=(x); declare -A H=([k]=u)")
    before, _, _ = sh(sandbox, DUMP)
    assert sh(sandbox, change)[1] == ""
    after, _, _ = sh(sandbox, DUMP)
    if change.startswith("(S="):
        assert after == before  # a subshell's changes stay in the subshell
    else:
        assert after != before
    fork = sandbox.fork()
    result = sandbox.execute("const f = () => f() + 1; return f()")
    assert result.error_kind == "stack_overflow"  # a new instance, the saved session restored
    assert (sh(sandbox, DUMP)[0], sh(fork, DUMP)[0]) == (after, after)


def test_snapshot_and_fork_carry_the_session(sandbox: Sandbox) -> None:
    sh(sandbox, "NAME=kept; cd /tmp; echo data > f")
    fork = sandbox.fork()
    assert sh(fork, "echo $NAME; pwd; cat f") == ("kept\n/tmp\ndata\n", "", 0)


def test_a_restored_session_keeps_its_options_over_bash_defaults(sandbox: Sandbox) -> None:
    sh(sandbox, "shopt -s nullglob autocd; shopt -u globskipdots sourcepath; umask 077")
    fork = sandbox.fork()
    names = "nullglob autocd globskipdots sourcepath"
    expected = "shopt -s nullglob\nshopt -s autocd\nshopt -u globskipdots\nshopt -u sourcepath\n"
    options = "autocd:checkwinsize:cmdhist:complete_fullquote:extquote:force_fignore:"
    options += "globasciiranges:hostcomplete:interactive_comments:nullglob:patsub_replacement:"
    options += "progcomp:promptvars\n"
    assert sh(fork, f"shopt -p {names}; echo $BASHOPTS") == (expected + options, "", 0)
    assert sh(fork, "echo x > f; stat -c %a f") == ("600\n", "", 0)


def test_a_read_only_function_stays_read_only_in_a_restored_session(sandbox: Sandbox) -> None:
    sh(sandbox, "f() { echo one; }; readonly -f f")
    fork = sandbox.fork()
    assert sh(fork, "f() { echo two; }; f") == (
        "one\n",
        "bash: line 1: f: readonly function\n",
        0,
    )


def test_bash_tool_picks_the_language() -> None:
    tool = create_bash_tool(tools=[get_weather])
    assert tool.run("echo auto") == "auto\n"
    assert tool.run("return 7") == "7"
    assert tool.run("tool get_weather --city SF | head -c 1") == "{"


def test_a_child_keeps_the_order_of_its_streams_when_they_are_one_place(sandbox: Sandbox) -> None:
    # busybox, env, timeout and xargs forward a child's output: with 2>&1 through one pipe.
    child = "sh -c 'echo o1; echo e1 >&2; echo o2'"
    script = f"busybox {child} 2>&1; env {child} 2>&1; echo x | xargs {child} 2>&1 >/dev/null"
    assert sh(sandbox, script) == ("o1\ne1\no2\n" * 2 + "e1\n", "", 0)


def test_busybox_runs_the_applet_even_where_a_function_has_its_name(sandbox: Sandbox) -> None:
    script = "tr() { echo function; }; echo x | busybox tr x y; busybox printf '%s-' a b; echo"
    assert sh(sandbox, script) == ("y\na-b-\n", "", 0)
    assert sh(sandbox, "busybox test a = b; echo $?; busybox [ 1 -lt 2 ] && echo yes") == (
        "1\nyes\n",
        "",
        0,
    )
    assert sh(sandbox, "busybox ../tr; echo $?") == ("127\n", "../tr: applet not found\n", 0)


def test_busybox_answers_its_own_options_as_busybox_does(sandbox: Sandbox) -> None:
    # BusyBox's busybox.tests: an unknown name is "applet not found", `--help APPLET` is the
    # applet's help, no applet at all is the help (status 0), `--list` names the applets.
    script = "busybox nope; echo $?; busybox --help nope; echo $?; busybox --help cat > h"
    assert sh(sandbox, script) == (
        "127\n127\n",
        "nope: applet not found\nnope: applet not found\n",
        0,
    )
    assert sh(sandbox, "cat --help | cmp - h && head -c 10 h") == ("Usage: cat", "", 0)
    assert sh(sandbox, "busybox > a; busybox --help > b; cmp a b && head -1 a") == (
        "Usage: busybox APPLET [ARG]...\n",
        "",
        0,
    )
    listed = sh(sandbox, "busybox --list")[0].split()
    assert listed == sorted(listed)
    assert {"[", "awk", "jq", "test", "xargs"} <= set(listed)
