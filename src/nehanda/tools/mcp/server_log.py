"""An MCP server's log: what it writes to stderr, in a file that never outgrows its cap.

The server never holds the file: it writes into a pipe, and a thread copies what comes
out into ``NAME.log``. When the next piece would take that file past ``LOG_CAP`` (1 MiB)
it becomes ``NAME.log.1``, replacing the one before, and a new ``NAME.log`` begins: a
server keeps at most 2 MiB on disk, the newest in ``NAME.log``, however much it writes
or however long it runs. The thread reads all the time (and drops what it cannot write),
so a server that writes a lot never stops on a full pipe. A server started through the
sandbox launcher gets the same pipe, so no confined server can write to nehanda's state
folder. One MiB holds thousands of lines of tracebacks, what a log is read for.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import BinaryIO, TextIO

LOG_CAP = 1024 * 1024
_PIECE = 64 * 1024
_LAST_WORDS = 2.0


@contextlib.asynccontextmanager
async def capped_log(path: Path) -> AsyncIterator[TextIO]:
    """The writing end of a pipe whose output goes to ``path``, within ``LOG_CAP``; a
    server started with it as stderr writes there. On leaving, once the server is gone,
    what it wrote last is copied in (waiting a moment at most, for a child of the server
    that still holds the pipe)."""
    reading, writing = os.pipe()
    copier = threading.Thread(
        target=_copy, args=(reading, path), name=f"log {path.name}", daemon=True
    )
    copier.start()
    try:
        with os.fdopen(writing, "w", encoding="utf-8", errors="replace") as pipe:
            yield pipe
    finally:
        await asyncio.to_thread(copier.join, _LAST_WORDS)


def _copy(reading: int, path: Path) -> None:
    with os.fdopen(reading, "rb", buffering=0) as pipe, _Log(path) as log:
        while piece := pipe.read(_PIECE):
            log.write(piece)


class _Log:
    """``path`` opened for appending, turned into ``path.1`` before it would pass the cap."""

    def __init__(self, path: Path) -> None:
        self.path, self.older = path, path.with_name(path.name + ".1")
        self.file: BinaryIO | None = None

    def __enter__(self) -> _Log:
        return self

    def __exit__(self, *_: object) -> None:
        if self.file is not None:
            self.file.close()

    def write(self, piece: bytes) -> None:
        try:
            if self.file is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self.file = self.path.open("ab")
            if os.fstat(self.file.fileno()).st_size + len(piece) > LOG_CAP:
                self._turn()
            self.file.write(piece)
            self.file.flush()
        except (OSError, ValueError):
            pass  # a log that cannot be written must not stop the server: the piece goes

    def _turn(self) -> None:
        assert self.file is not None
        ours, current = os.fstat(self.file.fileno()), None
        with contextlib.suppress(FileNotFoundError):
            current = self.path.stat()
        self.file.close()
        self.file = None
        if current is not None and current.st_ino == ours.st_ino:  # another may have turned it
            if ours.st_size > LOG_CAP:
                self.path.unlink()  # written past the cap by an older nehanda: not kept
            else:
                self.path.replace(self.older)
        self.file = self.path.open("ab")
