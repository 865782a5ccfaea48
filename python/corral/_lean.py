"""What the modules of a fresh process's first sandbox took from ``functools``, ``contextlib``
and ``threading``, without importing them (issue 14).

Those three import ``collections`` (with ``operator``, ``keyword`` and ``reprlib``), ``types``
and each other: ~2-3 ms of the first sandbox, for a cache decorator, ``suppress``, locks and
two background threads. Here they are the C parts those modules are made of (``_functools``,
``_thread``: ``functools.partial`` is ``_functools.partial``, ``threading.Lock`` is
``_thread.allocate_lock``, ``threading.local`` is ``_thread._local``), or a few lines.
"""

from __future__ import annotations

import _thread

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from collections.abc import Callable
    from functools import _lru_cache_wrapper, partial
    from typing import Any, TypeVar

    T = TypeVar("T")
    _wrapper: Any
else:
    from _functools import partial

    try:
        from _functools import _lru_cache_wrapper as _wrapper
    except ImportError:  # not CPython: functools' own lru_cache below
        _wrapper = None

__all__ = ["Lock", "RLock", "get_ident", "local", "lru_cache", "partial", "start", "suppress"]

Lock = _thread.allocate_lock
RLock = _thread.RLock
local = _thread._local
get_ident = _thread.get_ident


class CacheInfo:
    """What ``cache_info()`` of an :func:`lru_cache` function says (``functools``' fields)."""

    __slots__ = ("currsize", "hits", "maxsize", "misses")

    def __init__(self, hits: int, misses: int, maxsize: int | None, currsize: int) -> None:
        self.hits, self.misses, self.maxsize, self.currsize = hits, misses, maxsize, currsize


def lru_cache(maxsize: int | None) -> Callable[[Callable[..., T]], _lru_cache_wrapper[T]]:
    """``functools.lru_cache(maxsize)`` (None: unbounded, ``functools.cache``): the same C
    wrapper, with ``cache_info()`` and ``cache_clear()``."""

    def decorate(function: Callable[..., T]) -> _lru_cache_wrapper[T]:
        if _wrapper is None:
            import functools

            return functools.lru_cache(maxsize)(function)
        wrapper = _wrapper(function, maxsize, False, CacheInfo)
        for name in ("__module__", "__name__", "__qualname__", "__doc__"):  # update_wrapper's
            setattr(wrapper, name, getattr(function, name))
        wrapper.__wrapped__ = function
        return wrapper  # type: ignore[no-any-return]

    return decorate


class suppress:  # noqa: N801 - contextlib's name
    """``contextlib.suppress``: a ``with`` block that ignores the given exceptions."""

    def __init__(self, *exceptions: type[BaseException]) -> None:
        self._exceptions = exceptions

    def __enter__(self) -> None:
        pass

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> bool:
        return kind is not None and issubclass(kind, self._exceptions)


def start(target: Callable[[], object]) -> None:
    """Run ``target`` in a new background thread (a daemon: the process does not wait for it
    at exit), without waiting for it to start, as ``threading.Thread.start`` does."""
    _thread.start_new_thread(target, ())
