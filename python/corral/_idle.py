"""Idle sandboxes give their unused memory pages back (natively, on Linux).

An execution reads pages of its instance's memory that it shares with every other sandbox
(the init image's, mapped copy-on-write: see ``corral._image``), and its realm's rewind writes
private copies of pages whose bytes end up as the image's. Resident memory counts both kinds
once per instance. Giving them back right after each execution would make the next one fault
them in again (tens of microseconds), so a background thread does it once a sandbox has made no
guest call for :data:`IDLE_AFTER` seconds (see ``Instance.release_unused``). The thread starts
with the first sandbox that can release pages and sleeps while none is waiting.
"""

from __future__ import annotations

import os
import time
import weakref

from . import _lean

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from typing import Protocol

    class Releasable(Protocol):
        def release_if_idle(self, since: float) -> None:
            """Give back unused pages and call :func:`done` if not used since ``since``
            (``time.monotonic()``); else nothing (asked again later)."""


__all__ = ["IDLE_AFTER", "done", "release_owners", "watch"]

IDLE_AFTER = 1.0
"""Seconds without a guest call after which a sandbox's unused pages are given back."""


class _State:
    """The sandboxes waiting for their release, and the thread that releases them."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.waiting: weakref.WeakSet[Releasable] = weakref.WeakSet()
        self.lock = _lean.Lock()  # guards the fields
        self.started = False
        self.asleep = False  # the thread waits for a sandbox to watch (on ``wake``)
        # Held while the thread is asleep; watch() releases it once per sleep (a lock, not a
        # threading.Condition: see corral._lean).
        self.wake = _lean.Lock()
        self.wake.acquire()


_state = _State()
if hasattr(os, "register_at_fork"):  # not on Windows
    # A forked child starts afresh: its parent's thread is gone, and may have held the lock.
    os.register_at_fork(after_in_child=_state.reset)


def watch(owner: Releasable) -> None:
    """Release ``owner``'s unused pages once it has been idle for :data:`IDLE_AFTER` seconds
    (once: it asks again after its next use)."""
    state = _state
    with state.lock:
        if state.asleep:
            state.asleep = False
            state.wake.release()
        state.waiting.add(owner)
        if not state.started:
            state.started = True
            _lean.start(_release_idle)


def done(owner: Releasable) -> None:
    """Stop watching ``owner`` (called by it, from the same lock that guards its calls to
    :func:`watch`, so that a use right after its release is not missed)."""
    with _state.lock:
        _state.waiting.discard(owner)


def _release_idle() -> None:
    state = _state
    while True:
        with state.lock:
            asleep = state.asleep = not state.waiting
        if asleep:
            state.wake.acquire()  # until watch() has one (it releases it once)
        time.sleep(IDLE_AFTER)
        release_owners(time.monotonic() - IDLE_AFTER)


def release_owners(since: float) -> None:
    """Ask every watched sandbox to release its pages if unused since ``since``
    (``time.monotonic()``). The list of them lives only here: no sandbox is kept alive while the
    thread sleeps."""
    with _state.lock:
        owners = list(_state.waiting)
    for owner in owners:
        owner.release_if_idle(since)
