"""Idle sandboxes give their unused memory pages back (corral._idle, natively on Linux), and
that changes nothing a sandbox holds: its files, its shell session, its untouched realm."""

from __future__ import annotations

import struct
import sys
import time

import pytest

from corral import Sandbox, _idle

pytestmark = pytest.mark.needs_native("reads the process's page map (Linux)")

PAGE = 4096
KEPT = 64
"""Pages an idle sandbox may keep after its release (it keeps 6-30: the stack's top, a page of
statics, the allocator's and the shell session's pages)."""


@pytest.fixture(autouse=True)
def _linux() -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("pages are given back on Linux only (elsewhere nothing is released)")


def _pagemap_entries(sandbox: Sandbox) -> list[int]:
    """The ``/proc/self/pagemap`` entry of each page of the sandbox's linear memory."""
    instance = sandbox._driver.instance
    size = instance.memory_size()
    with open("/proc/self/pagemap", "rb") as f:
        f.seek(instance._base(0, size) // PAGE * 8)  # type: ignore[attr-defined]
        return [entry for (entry,) in struct.iter_unpack("<Q", f.read(size // PAGE * 8))]


def _present_pages(sandbox: Sandbox) -> int:
    """Pages of the sandbox's linear memory that are in this process's resident memory."""
    return sum(entry >> 63 for entry in _pagemap_entries(sandbox))


def _private_pages(sandbox: Sandbox) -> int:
    """Present pages that are not a file's (bit 61): the instance's own copies."""
    return sum(entry >> 63 & ~entry >> 61 & 1 for entry in _pagemap_entries(sandbox))


def _release(sandbox: Sandbox) -> None:
    sandbox._driver.release_if_idle(time.monotonic())


def _memory(sandbox: Sandbox) -> bytes:
    instance = sandbox._driver.instance
    return instance.read(0, instance.memory_size())


def _used(sandbox: Sandbox) -> None:
    sandbox.execute("globalThis.mine = 1; return [1, 2, 3].map(x => x * 2).join()")
    sandbox.execute("export GREETING=hi; cd /tmp; echo hi | tr a-z A-Z", language="shell")
    sandbox.fs.write("/workspace/kept.txt", "kept " * 1000)


def test_an_idle_sandbox_keeps_only_the_pages_it_changed() -> None:
    Sandbox(record=False).close()  # the configuration's image exists: the next one maps it
    with Sandbox(record=False) as sandbox:
        for _ in range(5):
            _used(sandbox)
            assert _present_pages(sandbox) > 3 * KEPT
            _release(sandbox)
            assert _present_pages(sandbox) <= KEPT


def test_releasing_changes_no_byte_and_the_sandbox_goes_on() -> None:
    Sandbox(record=False).close()
    with Sandbox(record=False) as sandbox:
        _used(sandbox)
        before = _memory(sandbox)
        _release(sandbox)
        assert _memory(sandbox) == before
        _release(sandbox)
        assert sandbox.execute("return typeof mine").stdout == "undefined"  # a rewound realm
        shell = sandbox.execute("echo $GREETING $PWD", language="shell")
        assert shell.stdout == "hi /tmp\n"
        assert sandbox.fs.read("/workspace/kept.txt") == b"kept " * 1000


def test_a_sandbox_that_copied_the_image_releases_only_pages_it_only_read() -> None:
    from corral._image import images_for

    with Sandbox(record=False) as any_sandbox:
        images_for(any_sandbox._driver._module)._by_config.clear()
    with Sandbox(record=False) as first:  # initialized, not mapped: its pages are its own
        _used(first)
        before = _memory(first)
        _release(first)
        assert _memory(first) == before
        assert first.execute("return 1 + 1").stdout == "2"


def test_a_sandbox_used_since_keeps_its_pages() -> None:
    with Sandbox(record=False) as sandbox:
        _used(sandbox)
        present = _present_pages(sandbox)
        sandbox._driver.release_if_idle(time.monotonic() - 3600)  # used after that moment
        assert _present_pages(sandbox) == present


def test_the_idle_thread_releases_a_sandbox_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_idle, "IDLE_AFTER", 0.01)
    Sandbox(record=False).close()
    with Sandbox(record=False) as sandbox:
        _used(sandbox)
        waited = 0.0
        while _present_pages(sandbox) > KEPT and waited < 60:  # a bound, not a timing
            time.sleep(0.05)
            waited += 0.05
        assert _present_pages(sandbox) <= KEPT
        assert sandbox.execute("return 40 + 2").stdout == "42"


def test_a_memory_that_moved_off_its_image_keeps_its_private_pages() -> None:
    Sandbox(record=False).close()
    with Sandbox(record=False) as sandbox:
        _used(sandbox)
        instance = sandbox._driver.instance
        image, _ = instance._mapped  # type: ignore[attr-defined]
        instance._mapped = (image, 0)  # as if it had outgrown its reservation and moved
        before, private = _memory(sandbox), _private_pages(sandbox)
        _release(sandbox)
        assert _private_pages(sandbox) == private  # a private page would read back as zeros
        assert _memory(sandbox) == before
