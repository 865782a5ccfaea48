"""corral as a Deep Agents sandbox backend (extra: ``corral[deepagents]``).

``create_deep_agent(model, backend=CorralBackend(sandbox))`` gives the agent's ``execute``
tool corral's shell and its file tools (``ls``, ``read_file``, ``write_file``, ``edit_file``,
``glob``, ``grep``) the sandbox's files. Deep Agents' own ``BaseSandbox`` implements the file
tools by running ``python3`` inside the sandbox, which corral's shell does not have, so this
backend implements every method of ``SandboxBackendProtocol`` directly on the sandbox's files
(:class:`~corral.fs.SandboxFS`), without running guest code.

Paths are the sandbox's own: ``/workspace``, ``/tmp``, ``/state`` and ``/cache`` are writable,
everything else is read-only (a write there is refused with a message saying where to write
instead). Every command runs under the sandbox's :class:`~corral.limits.Limits`; a per-command
``timeout`` from the model is accepted but cannot extend ``Limits.timeout``. Operations on one
backend run one at a time (Deep Agents runs parallel tool calls concurrently).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, TypeVar

from ..fs import SandboxFS
from ..sandbox import Sandbox
from ..sandbox_tool import SandboxTool
from . import require

require("deepagents", "deepagents")

from deepagents.backends.protocol import (  # noqa: E402
    DeleteResult,
    EditResult,
    ExecuteResponse,
    FileData,
    FileDownloadResponse,
    FileInfo,
    FileOperationError,
    FileUploadResponse,
    GlobResult,
    GrepMatch,
    GrepResult,
    LsResult,
    ReadResult,
    SandboxBackendProtocol,
    WriteResult,
)
from deepagents.backends.utils import (  # noqa: E402
    InvalidGlobPatternError,
    compile_grep_include_glob,
    perform_string_replacement,
    slice_read_response,
)

__all__ = ["CorralBackend"]

T = TypeVar("T")
# What the guest appends when Limits.max_output cuts a stream (guest/src/output.rs).
TRUNCATED = re.compile(
    r"\[output truncated: more than \d+ bytes; print less or return a summary\]\n\Z"
)
WRITABLE = "write under /workspace, /tmp, /state or /cache (everything else is read-only)"


class CorralBackend(SandboxBackendProtocol):
    """A Deep Agents ``SandboxBackendProtocol`` backed by a corral sandbox.

    Args:
        sandbox: A :class:`~corral.sandbox.Sandbox`, or a
            :class:`~corral.sandbox_tool.SandboxTool` (its sandbox is used). Commands the
            agent runs can call the sandbox's tools (``tool NAME --key value``), under its
            capabilities.
        root: Where a ``grep`` or ``glob`` without a path searches.

    >>> backend = CorralBackend(Sandbox())
    >>> backend.write("/workspace/a.txt", "hello\\nworld\\n").path
    '/workspace/a.txt'
    >>> backend.execute("wc -l < a.txt").output
    '2\\n'
    """

    def __init__(self, sandbox: Sandbox | SandboxTool, root: str = "/workspace") -> None:
        self.sandbox = sandbox.sandbox if isinstance(sandbox, SandboxTool) else sandbox
        self.root = root
        self._lock = threading.Lock()

    @property
    def id(self) -> str:
        """The sandbox's id."""
        return self.sandbox.id

    @property
    def fs(self) -> SandboxFS:
        """The sandbox's files."""
        return self.sandbox.fs

    # --- one operation at a time ------------------------------------------------------------

    def _locked(self, operation: Callable[[], T]) -> T:
        with self._lock:
            return operation()

    async def _alocked(self, operation: Callable[[], T]) -> T:
        async with self._turn():
            return operation()

    @contextlib.asynccontextmanager
    async def _turn(self) -> AsyncIterator[None]:
        while not self._lock.acquire(blocking=False):  # never block the event loop
            await asyncio.sleep(0.001)
        try:
            yield
        finally:
            self._lock.release()

    # --- commands ---------------------------------------------------------------------------

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run ``command`` in the sandbox's shell: output is stdout then stderr."""
        return self._locked(lambda: _response(self.sandbox.execute(command, "shell")))

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Async :meth:`execute`, awaiting async tools on the running loop."""
        async with self._turn():
            return _response(await self.sandbox.aexecute(command, "shell"))

    # --- files ------------------------------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        """The entries of the directory ``path`` (directories end with ``/``)."""
        return self._locked(lambda: self._ls(path))

    def _ls(self, path: str) -> LsResult:
        try:
            if not self.fs.stat(path).is_dir:
                return LsResult(error=f"Path '{path}': not_a_directory")
            names = self.fs.listdir(path)
        except FileNotFoundError:
            return LsResult(error=f"Path '{path}': path_not_found")
        except (OSError, ValueError) as error:
            return LsResult(error=f"Cannot list '{path}': {_reason(error)}")
        return LsResult(entries=[self._info(_join(path, name)) for name in names])

    def _info(self, path: str) -> FileInfo:
        try:
            stat = self.fs.stat(path)
        except OSError:  # a broken symbolic link
            return FileInfo(path=path, is_dir=False)
        modified = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stat.mtime))
        shown = path + "/" if stat.is_dir else path
        return FileInfo(path=shown, is_dir=stat.is_dir, size=stat.size, modified_at=modified)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Lines ``offset`` (0-based) to ``offset + limit`` of a text file; a file that is not
        UTF-8 comes back whole, base64-encoded."""
        return self._locked(lambda: self._read(file_path, offset, limit))

    def _read(self, file_path: str, offset: int, limit: int) -> ReadResult:
        try:
            data = self.fs.read(file_path)
        except FileNotFoundError:
            return ReadResult(error=f"File '{file_path}' not found")
        except (OSError, ValueError) as error:
            return ReadResult(error=f"Error reading file '{file_path}': {_reason(error)}")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            encoded = base64.standard_b64encode(data).decode("ascii")
            return ReadResult(file_data=FileData(content=encoded, encoding="base64"))
        return slice_read_response(FileData(content=text, encoding="utf-8"), offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Create or replace ``file_path`` (and its missing parent directories)."""
        return self._locked(lambda: self._write(file_path, content))

    def _write(self, file_path: str, content: str | bytes) -> WriteResult:
        try:
            parent = file_path.rsplit("/", 1)[0]
            if parent:
                self.fs.mkdir(parent, parents=True)
            self.fs.write(file_path, content)
        except (OSError, ValueError) as error:
            return WriteResult(error=f"Error writing file '{file_path}': {_reason(error)}")
        return WriteResult(path=file_path)

    def edit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """Replace ``old_string`` (which must be unique unless ``replace_all``) in a file."""
        return self._locked(lambda: self._edit(file_path, old_string, new_string, replace_all))

    def _edit(self, file_path: str, old: str, new: str, replace_all: bool) -> EditResult:
        try:
            content = self.fs.read_text(file_path)
        except FileNotFoundError:
            return EditResult(error=f"Error: File '{file_path}' not found")
        except (OSError, UnicodeDecodeError, ValueError) as error:
            return EditResult(error=f"Error editing file '{file_path}': {_reason(error)}")
        replaced = perform_string_replacement(content, old, new, replace_all)
        if isinstance(replaced, str):
            return EditResult(error=replaced)
        written = self._write(file_path, replaced[0])
        if written.error:
            return EditResult(error=written.error)
        return EditResult(path=file_path, occurrences=replaced[1])

    def delete(self, file_path: str) -> DeleteResult:
        """Remove a file, or a directory and everything under it."""
        return self._locked(lambda: self._delete(file_path))

    def _delete(self, file_path: str) -> DeleteResult:
        try:
            self.fs.remove(file_path, recursive=True)
        except FileNotFoundError:
            return DeleteResult(error=f"Error: '{file_path}' not found")
        except (OSError, ValueError) as error:
            return DeleteResult(error=f"Error deleting '{file_path}': {_reason(error)}")
        return DeleteResult(path=file_path)

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> GrepResult:
        """Lines that contain ``pattern`` (a literal string) in the UTF-8 files under ``path``
        whose path matches ``glob``, at most ``max_count``."""
        return self._locked(lambda: self._grep(pattern, path or self.root, glob, max_count))

    def _grep(self, pattern: str, root: str, glob: str | None, max_count: int | None) -> GrepResult:
        try:
            wanted = compile_grep_include_glob(glob) if glob else None
        except InvalidGlobPatternError as error:
            return GrepResult(error=str(error))
        matches: list[GrepMatch] = []
        for path, relative in self._walk(root):
            if wanted and not wanted(relative):
                continue
            try:
                text = self.fs.read_text(path)
            except (OSError, UnicodeDecodeError):
                continue  # unreadable or binary: grep searches text
            for number, line in enumerate(text.split("\n"), 1):
                if pattern in line:
                    if max_count is not None and len(matches) >= max_count:
                        return GrepResult(matches=matches, truncated=True)
                    matches.append(GrepMatch(path=path, line=number, text=line))
        return GrepResult(matches=matches)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """The files under ``path`` that match ``pattern`` (Deep Agents' glob contract: a
        pattern without ``/`` matches the file name at any depth)."""
        return self._locked(lambda: self._glob(pattern, path or self.root))

    def _glob(self, pattern: str, root: str) -> GlobResult:
        try:
            wanted = compile_grep_include_glob(pattern)
        except InvalidGlobPatternError as error:
            return GlobResult(error=str(error))
        found = [self._info(path) for path, relative in self._walk(root) if wanted(relative)]
        return GlobResult(matches=found)

    def _walk(self, root: str) -> Iterator[tuple[str, str]]:
        """Every regular file under ``root``: its path and its path relative to ``root``.
        Symbolic links are not followed (a link to a parent would loop)."""
        try:
            if self.fs.stat(root).is_file:
                yield root, root.rsplit("/", 1)[-1]
                return
        except OSError:
            return
        pending = [(root, "")]
        while pending:
            directory, prefix = pending.pop()
            try:
                entries = self.fs.scandir(directory)
            except OSError:
                continue
            for name, kind in entries:
                path, relative = _join(directory, name), prefix + name
                if kind == "dir":
                    pending.append((path, relative + "/"))
                elif kind == "file":
                    yield path, relative

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write each ``(path, bytes)``; per-file errors use the standard error codes."""
        return self._locked(lambda: [self._upload(path, data) for path, data in files])

    def _upload(self, path: str, data: bytes) -> FileUploadResponse:
        try:
            parent = path.rsplit("/", 1)[0]
            if parent:
                self.fs.mkdir(parent, parents=True)
            self.fs.write(path, data)
        except (OSError, ValueError) as error:
            return FileUploadResponse(path=path, error=_standard(error))
        return FileUploadResponse(path=path)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """The bytes of each file; per-file errors use the standard error codes."""
        return self._locked(lambda: [self._download(path) for path in paths])

    def _download(self, path: str) -> FileDownloadResponse:
        try:
            return FileDownloadResponse(path=path, content=self.fs.read(path))
        except (OSError, ValueError) as error:
            return FileDownloadResponse(path=path, error=_standard(error))

    # --- async twins: file operations run no guest code, so they run inline ----------------

    async def als(self, path: str) -> LsResult:
        """Async :meth:`ls`."""
        return await self._alocked(lambda: self._ls(path))

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Async :meth:`read`."""
        return await self._alocked(lambda: self._read(file_path, offset, limit))

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """Async :meth:`write`."""
        return await self._alocked(lambda: self._write(file_path, content))

    async def aedit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """Async :meth:`edit`."""
        return await self._alocked(
            lambda: self._edit(file_path, old_string, new_string, replace_all)
        )

    async def adelete(self, file_path: str) -> DeleteResult:
        """Async :meth:`delete`."""
        return await self._alocked(lambda: self._delete(file_path))

    async def agrep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> GrepResult:
        """Async :meth:`grep`."""
        return await self._alocked(lambda: self._grep(pattern, path or self.root, glob, max_count))

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Async :meth:`glob`."""
        return await self._alocked(lambda: self._glob(pattern, path or self.root))

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Async :meth:`upload_files`."""
        return await self._alocked(lambda: [self._upload(path, data) for path, data in files])

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Async :meth:`download_files`."""
        return await self._alocked(lambda: [self._download(path) for path in paths])


def _response(result: Any) -> ExecuteResponse:
    output = result.stdout + result.stderr
    truncated = bool(TRUNCATED.search(result.stdout) or TRUNCATED.search(result.stderr))
    return ExecuteResponse(output=output, exit_code=result.exit_code, truncated=truncated)


def _join(directory: str, name: str) -> str:
    return f"{directory.rstrip('/')}/{name}"


def _reason(error: Exception) -> str:
    if isinstance(error, PermissionError):
        return f"permission denied: {WRITABLE}"
    if isinstance(error, OSError) and error.errno:
        return os.strerror(error.errno)
    return str(error)


def _standard(error: Exception) -> FileOperationError:
    """The standard error code of Deep Agents' upload and download results."""
    if isinstance(error, FileNotFoundError):
        return "file_not_found"
    if isinstance(error, PermissionError):
        return "permission_denied"
    if isinstance(error, IsADirectoryError):
        return "is_directory"
    return "invalid_path"
