"""The host's direct access to a sandbox's files: ``sandbox.fs``.

The files live in guest memory: ``/workspace`` (the starting directory, where relative paths
point), ``/tmp``, ``/state`` and ``/cache`` are writable, everything else is read-only. Reading
and writing here runs no guest code and moves bytes in bulk. Errors are the standard
:class:`OSError` subclasses (``FileNotFoundError``, ``IsADirectoryError``, ``PermissionError``,
...) with the POSIX errno.
"""

from __future__ import annotations

import errno
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["FileStat", "SandboxFS"]

# Host file operations go through the sandbox, which records them for replay.
FsCall = Callable[[dict[str, Any], bytes | None], tuple[dict[str, Any], bytes]]


@dataclass(frozen=True)
class FileStat:
    """What :meth:`SandboxFS.stat` reports.

    Attributes:
        kind: ``file``, ``dir``, ``symlink`` or ``device``.
        size: Bytes (files), or 0.
        mtime: Modification time, unix seconds.
        mode: Permission bits, e.g. ``0o644``.
    """

    kind: str
    size: int
    mtime: float
    mode: int

    @property
    def is_file(self) -> bool:
        """Whether this is a regular file."""
        return self.kind == "file"

    @property
    def is_dir(self) -> bool:
        """Whether this is a directory."""
        return self.kind == "dir"


def _raise(error: dict[str, str], path: str) -> None:
    code = getattr(errno, error["code"], errno.EIO)
    raise OSError(code, error["message"], path)


class SandboxFS:
    """File access for one sandbox; paths are relative to ``/workspace`` unless absolute."""

    def __init__(self, call: FsCall) -> None:
        self._call = call

    def _do(
        self, op: str, path: str, data: bytes | None = None, **flags: Any
    ) -> tuple[dict[str, Any], bytes]:
        if not isinstance(path, str) or not path:
            raise ValueError(f"path must be a non-empty str, not {path!r}")
        header, blob = self._call({"op": op, "path": path, **flags}, data)
        if "error" in header:
            _raise(header["error"], path)
        return header, blob

    def read(self, path: str) -> bytes:
        """The contents of the file at ``path``."""
        header, blob = self._do("read", path)
        start, length = header["data"]
        return blob[start : start + length]

    def read_text(self, path: str, encoding: str = "utf-8") -> str:
        """The contents of ``path`` decoded as text."""
        return self.read(path).decode(encoding)

    def write(self, path: str, data: bytes | str) -> None:
        """Create or replace the file at ``path`` (text is written as UTF-8)."""
        self._do("write", path, data.encode() if isinstance(data, str) else bytes(data))

    def append(self, path: str, data: bytes | str) -> None:
        """Append to the file at ``path``, creating it if needed."""
        self._do("append", path, data.encode() if isinstance(data, str) else bytes(data))

    def listdir(self, path: str = ".") -> list[str]:
        """The names in the directory ``path``, sorted."""
        return [name for name, _ in self.scandir(path)]

    def scandir(self, path: str = ".") -> list[tuple[str, str]]:
        """``(name, kind)`` of each entry in the directory ``path``, sorted by name; the kind
        is ``file``, ``dir``, ``symlink`` or ``device`` (a symlink is not followed), so a walk
        of the tree can step over links that loop.

        >>> from corral import Sandbox
        >>> sandbox = Sandbox()
        >>> sandbox.execute("mkdir d; ln -s d link; touch f", "shell").exit_code
        0
        >>> sandbox.fs.scandir()
        [('d', 'dir'), ('f', 'file'), ('link', 'symlink')]
        """
        header, _ = self._do("list", path)
        return [(entry["name"], entry["kind"]) for entry in header["entries"]]

    def stat(self, path: str) -> FileStat:
        """Metadata of ``path`` (following symlinks)."""
        header, _ = self._do("stat", path)
        s = header["stat"]
        return FileStat(s["kind"], s["size"], s["mtime_ms"] / 1000, s["mode"])

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists."""
        header, _ = self._do("exists", path)
        return bool(header["exists"])

    def remove(self, path: str, recursive: bool = False) -> None:
        """Remove a file, a link or an empty directory; with ``recursive``, a whole tree."""
        self._do("remove", path, recursive=recursive)

    def mkdir(self, path: str, parents: bool = False) -> None:
        """Create a directory; with ``parents``, any missing parents too (no error if it
        exists)."""
        self._do("mkdir", path, recursive=parents)
