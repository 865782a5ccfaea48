"""The sandbox's files through the host API: read/write/list, errors, snapshots, fork,
quotas, and rollback to the last completed execution after a crash."""

from __future__ import annotations

import pytest

from corral import Limits, Sandbox, replay_all


def test_write_read_list_stat_remove() -> None:
    sandbox = Sandbox()
    sandbox.fs.write("notes.txt", "hello")
    sandbox.fs.mkdir("data/raw", parents=True)
    sandbox.fs.write("data/raw/x.bin", b"\x00\xff")
    sandbox.fs.append("notes.txt", b" world")
    assert sandbox.fs.read_text("notes.txt") == "hello world"
    assert sandbox.fs.read("/workspace/data/raw/x.bin") == b"\x00\xff"
    assert sandbox.fs.listdir() == ["data", "notes.txt"]
    assert sandbox.fs.listdir("/") == [
        "bin",
        "cache",
        "dev",
        "etc",
        "home",
        "state",
        "tmp",
        "usr",
        "workspace",
    ]
    stat = sandbox.fs.stat("notes.txt")
    assert (stat.kind, stat.size, stat.is_file, stat.is_dir) == ("file", 11, True, False)
    assert sandbox.fs.exists("data") and not sandbox.fs.exists("nope")
    sandbox.fs.remove("data", recursive=True)
    assert sandbox.fs.listdir() == ["notes.txt"]
    sandbox.fs.write("/tmp/t", "x")
    assert sandbox.fs.read_text("/tmp/t") == "x"


@pytest.mark.parametrize(
    ("action", "error", "message"),
    [
        (lambda fs: fs.read("missing"), FileNotFoundError, "No such file or directory"),
        (lambda fs: fs.write("/etc/passwd", "x"), PermissionError, "Permission denied"),
        (lambda fs: fs.read("."), IsADirectoryError, "Is a directory"),
        (lambda fs: fs.mkdir("d"), FileExistsError, "File exists"),
        (lambda fs: fs.remove("d"), OSError, "Directory not empty"),
        (lambda fs: fs.listdir("d/f"), NotADirectoryError, "Not a directory"),
    ],
)
def test_errors_are_os_errors_with_posix_names(action, error, message) -> None:  # type: ignore[no-untyped-def]
    sandbox = Sandbox()
    sandbox.fs.mkdir("d")
    sandbox.fs.write("d/f", "x")
    with pytest.raises(error, match=message):
        action(sandbox.fs)
    assert sandbox.fs.read_text("d/f") == "x"  # nothing lost


def test_quotas_refuse_and_keep_existing_data() -> None:
    sandbox = Sandbox(limits=Limits(max_fs_bytes=1000, max_file_size=600, max_files=3))
    sandbox.fs.write("a", b"1" * 500)
    with pytest.raises(OSError, match="File too large"):
        sandbox.fs.write("b", b"2" * 700)
    with pytest.raises(OSError, match="No space left on device"):
        sandbox.fs.write("c", b"3" * 600)
    with pytest.raises(OSError, match="No space left on device"):
        sandbox.fs.write("a", b"4" * 550 + b"5" * 10) or sandbox.fs.write("c", b"6" * 500)
    assert sandbox.fs.read("a") == b"4" * 550 + b"5" * 10
    sandbox.fs.write("d", b"")
    sandbox.fs.write("e", b"")
    with pytest.raises(OSError, match="No space left on device"):
        sandbox.fs.write("f", b"")
    assert sandbox.fs.listdir() == ["a", "d", "e"]


def test_a_shell_redirect_past_a_quota_fails_loudly_and_keeps_data() -> None:
    sandbox = Sandbox(limits=Limits(max_file_size=100))
    sandbox.fs.write("small", b"keep\n")
    result = sandbox.execute("seq 100 > big; echo $?; seq 100 >> small; echo $?", language="shell")
    assert result.stdout == "1\n1\n"
    assert result.stderr == (
        "seq: write error: big: File too large\nseq: write error: small: File too large\n"
    )
    assert sandbox.fs.read("small") == b"keep\n"


def test_state_and_cache_are_writable_like_the_workspace() -> None:
    # amla-sandbox's agent layout: the code keeps turn state in /state and fetched data in /cache.
    sandbox = Sandbox(limits=Limits(max_files=3))
    js = "await fs.writeFile('/cache/u.json', '[1]');\n"
    js += "return String(await fs.readFile('/cache/u.json'))"
    assert sandbox.execute(js).return_value == "[1]"
    shell = "echo 1 > /state/turn; [ -w /state ] && [ -w /cache/u.json ] && [ ! -w /etc ] && "
    shell += "cat /state/turn"
    assert sandbox.execute(shell, "shell").stdout == "1\n"
    assert sandbox.fs.read_text("/state/turn") == "1\n"
    sandbox.fs.write("/cache/more", b"")
    with pytest.raises(OSError, match="No space left on device"):  # the quotas are shared
        sandbox.fs.write("/workspace/one-too-many", b"")
    with pytest.raises(PermissionError):
        sandbox.fs.remove("/state", recursive=True)
    copy = Sandbox.from_snapshot(sandbox.snapshot())
    assert copy.fs.listdir("/cache") == ["more", "u.json"]
    assert copy.execute("cat /state/turn", "shell").stdout == "1\n"


def test_snapshot_and_from_snapshot_and_fork() -> None:
    sandbox = Sandbox()
    sandbox.fs.write("a.txt", "one")
    snapshot = sandbox.snapshot()
    copy = Sandbox.from_snapshot(snapshot)
    assert copy.fs.read_text("a.txt") == "one"
    fork = sandbox.fork()
    fork.fs.write("a.txt", "changed")
    assert sandbox.fs.read_text("a.txt") == "one"
    assert fork.id.startswith(sandbox.id + "/fork-")
    with pytest.raises(ValueError, match="not a corral snapshot"):
        sandbox.restore(b"garbage")


def test_hard_links_through_the_host_api_and_snapshots() -> None:
    sandbox = Sandbox()
    sandbox.fs.write("a.txt", "one")
    sandbox.fs.link("a.txt", "/tmp/b.txt")
    assert sandbox.execute("ln a.txt c.txt && echo two >> c.txt", "shell").exit_code == 0
    a, b = sandbox.fs.stat("a.txt"), sandbox.fs.stat("/tmp/b.txt")
    assert (a.ino, a.nlink, a.size) == (b.ino, 3, 7)
    assert sandbox.fs.read_text("/tmp/b.txt") == "onetwo\n"
    sandbox.fs.remove("a.txt")
    assert sandbox.fs.stat("c.txt").nlink == 2
    with pytest.raises(PermissionError):
        sandbox.fs.link("/tmp", "d")
    with pytest.raises(FileExistsError):
        sandbox.fs.link("c.txt", "/tmp/b.txt")
    with pytest.raises(OSError, match="cross-device"):
        sandbox.fs.link("/dev/null", "n")
    copy = Sandbox.from_snapshot(sandbox.snapshot())
    b, c = copy.fs.stat("/tmp/b.txt"), copy.fs.stat("c.txt")
    assert (b.ino, b.nlink) == (c.ino, 2)
    copy.fs.write("c.txt", "changed")
    assert copy.fs.read_text("/tmp/b.txt") == "changed"
    assert sandbox.fs.read_text("/tmp/b.txt") == "onetwo\n"


def test_a_snapshot_from_before_hard_links_still_restores() -> None:
    sandbox = Sandbox()
    sandbox.fs.write("a.txt", "one")
    snapshot = sandbox.snapshot()
    files = snapshot.index(b"CVFS\x03")
    older = snapshot[:files] + b"CVFS\x02" + snapshot[files + 5 :]
    copy = Sandbox.from_snapshot(older)
    assert copy.fs.read_text("a.txt") == "one"
    assert copy.fs.stat("a.txt").nlink == 1


def test_files_roll_back_to_the_last_completed_execution_after_a_trap() -> None:
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    sandbox.fs.write("kept.txt", "before")
    result = sandbox.execute("function f() { return f() + 1 } f()")
    assert result.error_kind == "stack_overflow"
    assert sandbox.fs.read_text("kept.txt") == "before"


def test_large_host_writes_keep_quotas_and_the_inbox_working() -> None:
    # A write larger than the inbox the guest keeps hands the inbox to the file.
    big = 6 << 20
    sandbox = Sandbox(limits=Limits(max_file_size=big))
    sandbox.fs.write("a", b"1" * big)
    with pytest.raises(OSError, match="File too large"):
        sandbox.fs.write("a", b"2" * (big + 1))
    assert sandbox.fs.read("a") == b"1" * big
    sandbox.fs.write("b", b"3" * (big - 1))
    sandbox.fs.write("c", b"small")
    result = sandbox.execute("wc -c < a; wc -c < b; cat c", language="shell")
    assert result.stdout == f"{big}\n{big - 1}\nsmall"
    assert sandbox.fs.read("b") == b"3" * (big - 1)


def test_the_execution_after_a_trap_sees_files_larger_than_the_inbox() -> None:
    # The fresh instance restores the files through its inbox, which then moves: the next
    # execution used to be written where the old inbox was (a "protocol" restart).
    sandbox = Sandbox(limits=Limits(timeout=2))
    sandbox.fs.write("a.json", "[" * 9000 + "1" + "]" * 9000)
    sandbox.fs.write("b.json", '{"a":' * 9000 + "1" + "}" * 9000)
    trapped = sandbox.execute("function f() { return f() + 1 } f()")
    assert trapped.error_kind == "stack_overflow"
    result = sandbox.execute("wc -c b.json", language="shell")
    assert (result.exit_code, result.stdout) == (0, "54001 b.json\n"), result.error


@pytest.mark.needs_native(
    "QuickJS does not poll its interrupt handler in Array.prototype.sort; only wasmtime's "
    "epoch backstop stops it (a browser has no such backstop in-process)"
)
def test_files_roll_back_after_a_backstop_timeout() -> None:
    sandbox = Sandbox(limits=Limits(timeout=0.3))
    sandbox.fs.write("kept.txt", "before")
    result = sandbox.execute("Array.prototype.sort.call({length: 2 ** 32 - 1})")
    assert result.error_kind == "timeout"
    assert sandbox.fs.read_text("kept.txt") == "before"


def test_host_file_operations_replay() -> None:
    sandbox = Sandbox()
    sandbox.fs.write("in.txt", "data")
    sandbox.execute("return 1")
    assert sandbox.fs.read_text("in.txt") == "data"
    assert len(replay_all(sandbox.trace)) == 1


def test_files_cannot_be_touched_during_an_execution() -> None:
    seen: list[str] = []

    def peek() -> str:
        """Try to read a file from inside a tool call."""
        try:
            sandbox.fs.read("x")
        except RuntimeError as error:
            seen.append(str(error))
        return "ok"

    sandbox = Sandbox(tools=[peek])
    sandbox.fs.write("x", "1")
    assert sandbox.execute("return await peek()").ok
    assert seen == [
        "sandbox files cannot be accessed while an execution runs (from a tool, say): "
        "access them before or after execute()"
    ]


def test_javascript_fs_like_node() -> None:
    sandbox = Sandbox()
    code = """
    fs.mkdirSync('a/b', {recursive: true});
    fs.writeFileSync('a/b/x.txt', 'hello');
    fs.appendFileSync('a/b/x.txt', ' world');
    await fs.writeFile('data.json', {k: [1, 2]});
    const st = fs.statSync('a/b/x.txt');
    let missing;
    try { fs.readFileSync('nope', 'utf8') } catch (e) { missing = [e.code, e.message, e.syscall] }
    let denied;
    try { await fs.promises.writeFile('/etc/x', 'y') } catch (e) { denied = e.message }
    fs.writeFileSync('bin.dat', new Uint8Array([0, 255, 7]));
    return [fs.readFileSync('a/b/x.txt', 'utf8'), fs.readdirSync('.'), st.size, st.isFile(),
            st.isDirectory(), missing, denied, fs.existsSync('a'),
            JSON.parse(await fs.readFile('data.json', 'utf8')),
            Array.from(fs.readFileSync('bin.dat'))];
    """
    assert sandbox.execute(code).return_value == [
        "hello world",
        ["a", "bin.dat", "data.json"],
        11,
        True,
        False,
        ["ENOENT", "ENOENT: no such file or directory, open 'nope'", "open"],
        "EACCES: permission denied, open '/etc/x'",
        True,
        {"k": [1, 2]},
        [0, 255, 7],
    ]
    assert sandbox.fs.read("bin.dat") == b"\x00\xff\x07"
    assert sandbox.fs.read_text("data.json") == '{\n  "k": [\n    1,\n    2\n  ]\n}'
    code = """
    fs.rmSync('a', {recursive: true}); fs.rmSync('zz', {force: true});
    fs.renameSync('bin.dat', 'b2');
    let e; try { fs.rmSync('data.json/x') } catch (err) { e = err.code }
    return [fs.readdirSync('.'), e];
    """
    assert sandbox.execute(code).return_value == [["b2", "data.json"], "ENOTDIR"]
    code = """
    fs.linkSync('b2', 'b3'); fs.appendFileSync('b3', 'x');
    let e; try { fs.linkSync('/tmp', 'd') } catch (err) { e = err.message }
    const [a, b] = [fs.statSync('b2'), fs.statSync('b3')];
    return [a.ino === b.ino, a.nlink, a.size, e];
    """
    assert sandbox.execute(code).return_value == [
        True,
        2,
        4,
        "EPERM: operation not permitted, link '/tmp'",
    ]


def test_javascript_fs_callback_style_and_quota() -> None:
    sandbox = Sandbox(limits=Limits(max_file_size=10))
    code = """
    const got = await new Promise((resolve) =>
      fs.writeFile('big', 'x'.repeat(20), (err) => resolve(err && err.code)));
    return [got, fs.existsSync('big')];
    """
    assert sandbox.execute(code).return_value == ["EFBIG", False]
