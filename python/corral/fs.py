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
        ino: Inode number: the same for every name of one file (its hard links), stable while
            the file exists (a snapshot's restore may renumber).
        nlink: Link count: how many names a file has; for a directory, 2 plus the number of
            its subdirectories.
    """

    kind: str
    size: int
    mtime: float
    mode: int
    ino: int = 0
    nlink: int = 1

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
        return FileStat(s["kind"], s["size"], s["mtime_ms"] / 1000, s["mode"], s["ino"], s["nlink"])

    def exists(self, path: str) -> bool:
        """Whether ``path`` exists."""
        header, _ = self._do("exists", path)
        return bool(header["exists"])

    def remove(self, path: str, recursive: bool = False) -> None:
        """Remove a file, a link or an empty directory; with ``recursive``, a whole tree."""
        self._do("remove", path, recursive=recursive)

    def link(self, target: str, path: str) -> None:
        """Make ``path`` another name of the existing file ``target`` (a hard link, like
        ``os.link``): both names share the contents, mode and inode number, and the data stays
        until the last name is removed. A directory cannot be linked (``PermissionError``),
        nor can a read-only file (``OSError`` with ``errno.EXDEV``).

        >>> from corral import Sandbox
        >>> sandbox = Sandbox()
        >>> sandbox.fs.write("a.txt", "one")
        >>> sandbox.fs.link("a.txt", "/tmp/b.txt")
        >>> sandbox.fs.append("/tmp/b.txt", " two")
        >>> sandbox.fs.read_text("a.txt"), sandbox.fs.stat("a.txt").nlink
        ('one two', 2)
        """
        if not isinstance(target, str) or not target:
            raise ValueError(f"target must be a non-empty str, not {target!r}")
        self._do("link", path, target=target)

    def mkdir(self, path: str, parents: bool = False) -> None:
        """Create a directory; with ``parents``, any missing parents too (no error if it
        exists)."""
        self._do("mkdir", path, recursive=parents)
