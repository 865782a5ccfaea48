"""corral._lean: what the first sandbox's modules took from functools, contextlib and
threading (issue 14) behaves as those did."""

from __future__ import annotations

import functools
import threading

import pytest

from corral import _lean


def test_lru_cache_is_functools_lru_cache() -> None:
    calls: list[int] = []

    def square(x: int) -> int:
        """Square x."""
        calls.append(x)
        return x * x

    mine, theirs = _lean.lru_cache(2)(square), functools.lru_cache(maxsize=2)(square)
    for cached in (mine, theirs):
        calls.clear()
        assert [cached(x) for x in (1, 2, 1, 3, 2, 1)] == [1, 4, 1, 9, 4, 1]
        assert calls == [1, 2, 3, 2, 1]  # least recently used out first
        info = cached.cache_info()
        assert (info.hits, info.misses, info.maxsize, info.currsize) == (1, 5, 2, 2)
        cached.cache_clear()
        assert cached.cache_info().currsize == 0
    assert (mine.__name__, mine.__doc__, mine.__wrapped__) == ("square", "Square x.", square)
    assert mine.__qualname__ == theirs.__qualname__ and mine.__module__ == __name__
    unbounded = _lean.lru_cache(None)(square)
    assert [unbounded(x) for x in range(300)] == [x * x for x in range(300)]
    assert unbounded.cache_info().currsize == 300


def test_suppress_is_contextlib_suppress() -> None:
    with _lean.suppress(OSError):
        raise FileNotFoundError("a subclass is suppressed")
    with _lean.suppress(KeyError, OSError):
        pass
    with pytest.raises(ValueError, match="not suppressed"), _lean.suppress(OSError):
        raise ValueError("not suppressed")


def test_the_locks_and_thread_locals_are_threadings() -> None:
    assert type(_lean.Lock()) is type(threading.Lock())
    assert type(_lean.RLock()) is type(threading.RLock())
    assert _lean.local is threading.local and _lean.get_ident() == threading.get_ident()
    assert _lean.partial is functools.partial


@pytest.mark.needs_native("starts a thread (Pyodide has none)")
def test_start_runs_the_target_in_another_thread() -> None:
    done, seen = _lean.Lock(), []
    done.acquire()

    def target() -> None:
        seen.append(threading.get_ident())
        done.release()

    _lean.start(target)
    assert done.acquire(timeout=60)  # a bound, not a timing
    assert seen and seen[0] != threading.get_ident()
