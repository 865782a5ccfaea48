"""Sandboxes made from a pre-initialized image (corral._image) behave like ones initialized
afresh: their own randomness and times, their configuration, exact replay."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from corral import Sandbox, replay_all
from corral._image import IMAGES_PER_MODULE, images_for


def get_weather(city: str) -> dict[str, Any]:
    """Weather for a city."""
    return {"city": city, "temp": 21}


def _images(sandbox: Sandbox) -> Any:
    return images_for(sandbox._driver._module)


@pytest.fixture(autouse=True)
def _own_disk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test stores its images in a disk cache of its own (see ``_forget``)."""
    monkeypatch.setenv("CORRAL_CACHE_DIR", str(tmp_path))


def _forget(sandbox: Sandbox) -> None:
    """Forget the images kept in this process and in the disk cache."""
    _images(sandbox)._by_config.clear()
    shutil.rmtree(Path(os.environ["CORRAL_CACHE_DIR"]) / "images", ignore_errors=True)


def _forget_all() -> None:
    with Sandbox(record=False) as any_sandbox:
        _forget(any_sandbox)


def _random_values(sandbox: Sandbox) -> tuple[str, str]:
    js = sandbox.execute("return String(Math.random())").stdout
    sh = sandbox.execute("echo $RANDOM $RANDOM", language="shell").stdout
    return js, sh


def test_a_second_sandbox_of_a_configuration_is_made_from_the_image() -> None:
    _forget_all()
    with Sandbox(tools=[get_weather]) as first:
        assert len(_images(first)._by_config) == 1
        with Sandbox(tools=[get_weather]) as second:
            assert len(_images(second)._by_config) == 1  # reused, not added
            result = second.execute("return (await get_weather({city: 'Oslo'})).temp")
            assert result.stdout == "21"
            shell = second.execute("tool get_weather --city Rome | jq .temp", language="shell")
            assert shell.stdout == "21\n"
            dts = second.execute("cat /tools/index.d.ts", language="shell").stdout
            assert "get_weather" in dts


def test_an_image_changes_little_memory() -> None:
    _forget_all()
    with Sandbox() as sandbox:
        (image,) = _images(sandbox)._by_config.values()
        assert 0 < image.changed_bytes < 4 << 20


def test_sandboxes_from_one_image_draw_their_own_randomness() -> None:
    with Sandbox() as first, Sandbox() as second, Sandbox() as third:
        values = {_random_values(s) for s in (first, second, third)}
    assert len(values) == 3


def test_a_fixed_seed_gives_the_same_values_with_or_without_an_image() -> None:
    _forget_all()
    with Sandbox(seed=7) as afresh:
        from_init = _random_values(afresh)
    with Sandbox(seed=7) as from_image:
        assert len(_images(from_image)._by_config) >= 1
        assert _random_values(from_image) == from_init


def test_files_and_the_shell_start_at_the_sandboxs_own_time() -> None:
    with Sandbox() as sandbox:
        sandbox.execute("return 1")
    time.sleep(1.1)
    with Sandbox() as later:
        stamps = later.execute(
            "stat -c %Y /workspace /tmp /etc; echo $SECONDS", language="shell"
        ).stdout.split()
    now = time.time()
    for stamp in stamps[:3]:
        assert abs(int(stamp) - now) < 5
    assert stamps[3] == "0"


def test_a_fixed_clock_stamps_the_files_with_it() -> None:
    with Sandbox(clock=1_000_000_000) as sandbox:
        stamp = sandbox.execute("stat -c %Y /workspace", language="shell").stdout
    assert abs(int(stamp) - 1_000_000_000) < 5


def test_a_sandbox_made_from_an_image_replays_exactly() -> None:
    with Sandbox() as warm:
        warm.execute("return 1")
    with Sandbox() as sandbox:
        results = [
            sandbox.execute("return [Math.random(), Date.now()]"),
            sandbox.execute("echo $RANDOM; date +%s%N; stat -c %Y /etc", language="shell"),
        ]
        trace = sandbox.trace
    _forget(sandbox)  # the replay initializes afresh: it must reach the same state
    assert replay_all(trace) == results


def test_the_image_cache_is_bounded() -> None:
    with Sandbox() as sandbox:
        images = _images(sandbox)
        for n in range(IMAGES_PER_MODULE + 3):
            with Sandbox(tools=[get_weather], max_calls=n + 1):
                pass
        assert len(images._by_config) <= IMAGES_PER_MODULE


def test_a_trap_restarts_from_the_image_with_files_and_session_intact() -> None:
    with Sandbox() as sandbox:
        sandbox.fs.write("/workspace/keep.txt", "kept")
        sandbox.execute("greeting=hello; cd /tmp", language="shell")
        trapped = sandbox.execute("function f() { return f() + 1 } f()")
        assert trapped.error_kind == "stack_overflow"  # the instance was replaced
        after = sandbox.execute("echo $greeting $PWD; cat /workspace/keep.txt", language="shell")
        assert after.stdout == "hello /tmp\nkept"
        assert sandbox.execute("return 1 + 1").stdout == "2"


@pytest.mark.needs_native("maps the image's memory file (Linux)")
def test_natively_sandboxes_map_the_image_and_own_only_what_they_write() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("memory files are Linux's (elsewhere the image is copied)")
    _forget_all()
    with Sandbox() as first, Sandbox() as second:  # the image made, then its memory file
        first.execute("return 1")
        second.execute("return 1")
        with Sandbox() as third, Sandbox() as fourth:
            maps = Path("/proc/self/maps").read_text()
            assert maps.count("memfd:corral-image") >= 2  # both map the one file
            third.execute("globalThis.seen = 1", language="javascript")
            third.fs.write("/workspace/mine.txt", "third's")
            third.execute("export MINE=1", language="shell")
            assert fourth.execute("return typeof seen").stdout == "undefined"
            assert not fourth.fs.exists("/workspace/mine.txt")
            assert fourth.execute("echo ${MINE:-unset}", language="shell").stdout == "unset\n"
            assert third.fs.read("/workspace/mine.txt") == b"third's"


@pytest.mark.needs_native("the disk cache holds images natively (Linux)")
def test_a_sandbox_maps_the_image_an_earlier_process_stored() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("images are stored where they can be mapped (Linux)")
    _forget_all()
    with Sandbox(seed=3) as first:  # initialized afresh: its image goes to the disk cache
        first_values = _random_values(first)
        (stored,) = (Path(os.environ["CORRAL_CACHE_DIR"]) / "images").glob("*.image")
    _images(first)._by_config.clear()  # as a fresh process: only the disk cache has it
    with Sandbox(seed=3) as second, Sandbox(seed=4) as third:
        (image,) = _images(second)._by_config.values()
        assert image.runs == ()  # mapped from its memory file, never copied
        assert "memfd:corral-image" in Path("/proc/self/maps").read_text()
        assert stored.exists()
        assert _random_values(second) == first_values
        assert _random_values(third) != first_values
        assert second.execute("return 1 + 2").stdout == "3"


@pytest.mark.needs_native("the disk cache holds images natively (Linux)")
def test_a_damaged_stored_image_is_ignored_and_replaced() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("images are stored where they can be mapped (Linux)")
    _forget_all()
    with Sandbox() as first:
        (stored,) = (Path(os.environ["CORRAL_CACHE_DIR"]) / "images").glob("*.image")
    whole = stored.read_bytes()
    for damaged in (whole[: len(whole) // 2], whole[:-1] + b"x", b""):
        _images(first)._by_config.clear()
        stored.write_bytes(damaged)
        with Sandbox() as sandbox:
            assert sandbox.execute("echo $((6 * 7))", language="shell").stdout == "42\n"
        assert stored.read_bytes() == whole  # initialized afresh and stored again


@pytest.mark.needs_native("runs fresh Python processes")
def test_a_fresh_process_starts_from_the_stored_image(tmp_path: Path) -> None:
    script = (
        "import corral.runtime._wasmtime as w\n"
        "calls = []\n"
        "call = w.WasmtimeInstance.call\n"
        "w.WasmtimeInstance.call = lambda self, name, *a, **k: calls.append(name) or "
        "call(self, name, *a, **k)\n"
        "import corral\n"
        "print(corral.Sandbox().execute('return Math.random() < 1').stdout, *calls)\n"
    )
    env = {**os.environ, "CORRAL_CACHE_DIR": str(tmp_path)}
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        ).stdout.split()
        for _ in range(2)
    ]
    assert runs[0][0] == runs[1][0] == "true"
    assert "_initialize" in runs[0]
    if sys.platform.startswith("linux"):
        assert "_initialize" not in runs[1]


@pytest.mark.needs_native("memory files (Linux)")
def test_a_stored_image_is_copied_whole_with_its_holes(tmp_path: Path) -> None:
    if not hasattr(os, "memfd_create"):
        pytest.skip("memory files are Linux's")
    from corral.runtime._wasmtime import _copy_sparse

    page = 1 << 16  # a hole is at least a filesystem block: leave whole 64 KiB ranges empty
    data = bytes(page) + b"a" * page + bytes(3 * page) + os.urandom(page + 5) + bytes(page)
    stored = tmp_path / "sparse"
    with stored.open("wb") as file:
        file.truncate(len(data) + 7)  # more than the image: the copy stops at its size
        for offset in (page, 5 * page):
            file.seek(offset)
            file.write(data[offset : offset + page + (5 if offset == 5 * page else 0)])
    source = os.open(stored, os.O_RDONLY)
    target = os.memfd_create("test-image")
    try:
        _copy_sparse(source, target, len(data))
        assert os.fstat(target).st_size == len(data)
        assert os.pread(target, len(data) + 1, 0) == data
        # The leading hole stays a hole (where the filesystem tells holes apart).
        assert os.lseek(target, 0, os.SEEK_DATA) == os.lseek(source, 0, os.SEEK_DATA)
    finally:
        os.close(source)
        os.close(target)
