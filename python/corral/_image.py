"""Pre-initialized guest images: a new sandbox starts from the memory an initialized one had.

Initializing the guest (``_initialize``, then ``corral_init``: the QuickJS runtime, its first
realm, the compiled prelude, the shell, the file tree) costs milliseconds and leaves only a few
hundred KiB of memory changed. The first sandbox of a configuration records those pages (an
:class:`InitImage`, the difference from a freshly instantiated module); later sandboxes with
the same configuration start from them instead of running the guest's initialization. The
native backend maps the image's pages copy-on-write into the new instance (one ``mmap``: the
pages are shared by every sandbox until one writes to them); the browser's copies them.

So that both ways end in the same state, initialization always runs with throwaway
entropy (fixed bytes, a fixed clock), and every sandbox then draws its own seeds and times with
``corral_reseed`` from its own entropy, which is what a trace records and a fixed seed fixes.
A consequence, kept on purpose: the guest's hash-table keys come from the fixed bytes, so they
are the same in every sandbox (iteration orders replay exactly across processes).
"""

from __future__ import annotations

import weakref

from . import _lean
from ._record import _MISSING, Record, field
from ._wasi import Entropy, WasiShim
from .runtime import Instance

__all__ = ["PAGE", "InitImage", "entropy_of", "images_for", "throwaway_entropy"]

PAGE = 4096  # the unit compared and copied (the host's page, not wasm's 64 KiB)
IMAGES_PER_MODULE = 16  # configurations remembered per compiled module (each ~0.5 MiB)


def throwaway_entropy() -> Entropy:
    """The entropy initialization runs with: the same bytes and a zero clock every time."""
    import random  # not at the top: a fresh process that finds its image never needs it

    return Entropy(clock=lambda clock_id: 0, random=random.Random(0x636F7272616C).randbytes)


class entropy_of:  # noqa: N801 - a context manager, as it was with contextlib's (issue 14)
    """Let ``shim`` answer from ``entropy`` for the duration (its own is not consumed)."""

    def __init__(self, shim: WasiShim, entropy: Entropy) -> None:
        self._shim, self._entropy = shim, entropy

    def __enter__(self) -> None:
        self._own, self._shim.entropy = self._shim.entropy, self._entropy

    def __exit__(self, *_: object) -> None:
        self._shim.entropy = self._own


class InitImage(Record, frozen=True):
    """The memory an initialization changed: the memory's size, and runs of changed pages."""

    size: int
    runs: tuple[tuple[int, bytes], ...]
    inbox: tuple[int, int]  # the host's view of the guest's inbox at that moment
    prepared: dict[str, object] = field(default_factory=dict, compare=False, repr=False)
    """A backend's own form of the image, made on first use (natively: a memory file)."""

    def __init__(
        self,
        size: int,
        runs: tuple[tuple[int, bytes], ...],
        inbox: tuple[int, int],
        prepared: dict[str, object] = _MISSING,
    ) -> None:
        # Written out, not compiled (see corral._record): a first sandbox makes one.
        _set = object.__setattr__
        _set(self, "size", size)
        _set(self, "runs", runs)
        _set(self, "inbox", inbox)
        _set(self, "prepared", {} if prepared is _MISSING else prepared)

    @classmethod
    def capture(cls, before: bytes, instance: Instance, inbox: tuple[int, int]) -> InitImage:
        """The difference between ``before`` (the memory as instantiated) and the memory now."""
        size = instance.memory_size()
        after = instance.read(0, size)
        runs: list[tuple[int, bytes]] = []
        start = None
        for offset in range(0, size, PAGE):
            changed = after[offset : offset + PAGE] != before[offset : offset + PAGE].ljust(
                min(PAGE, size - offset), b"\0"
            )
            if changed and start is None:
                start = offset
            elif not changed and start is not None:
                runs.append((start, after[start:offset]))
                start = None
        if start is not None:
            runs.append((start, after[start:size]))
        return cls(size, tuple(runs), inbox)

    @property
    def changed_bytes(self) -> int:
        """How much memory a sandbox made from this image starts with copied in."""
        return sum(len(data) for _, data in self.runs)

    def apply(self, instance: Instance) -> None:
        """Make a freshly instantiated ``instance`` what the initialized one was."""
        instance.load_image(self)

    def copy_into(self, instance: Instance) -> None:
        """:meth:`apply` by copying the changed pages (what a backend does without a better
        way)."""
        instance.grow(self.size)
        for offset, data in self.runs:
            instance.write(offset, data)


class _Images:
    """The images of one compiled module, by configuration, least recently used first out."""

    def __init__(self) -> None:
        # In order of use, the last used last (a dict keeps the order: no OrderedDict, whose
        # _collections a fresh process's first sandbox is spared).
        self._by_config: dict[bytes, InitImage] = {}
        self._lock = _lean.Lock()

    def get(self, config: bytes) -> InitImage | None:
        with self._lock:
            image = self._by_config.pop(config, None)
            if image is not None:
                self._by_config[config] = image
            return image

    def put(self, config: bytes, image: InitImage) -> None:
        with self._lock:
            self._by_config.pop(config, None)
            self._by_config[config] = image
            while len(self._by_config) > IMAGES_PER_MODULE:
                del self._by_config[next(iter(self._by_config))]


_IMAGES: weakref.WeakKeyDictionary[object, _Images] = weakref.WeakKeyDictionary()


def images_for(module: object) -> _Images:
    """The image cache of ``module`` (a backend's compiled module; forgotten with it)."""
    images = _IMAGES.get(module)
    if images is None:
        images = _IMAGES[module] = _Images()
    return images
