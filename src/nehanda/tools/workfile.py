"""The file a Write or Edit call replaces, held by its folder's descriptor throughout.

``current_file`` opens the file's folder below its root (``beneath``), and the file in
it without following a symlink, and reads what is there; ``Current.replace`` then
writes the new contents through the same folder descriptor (``fs.replace_at``). What
was read and what is replaced are one file, whatever happens to the names meanwhile,
and nothing is written outside the root. ``read_regular`` reads a file the same way
for the approval prompt's diff, without blocking on a FIFO. ``write_through`` hands
the new text to the editor instead (``base.EditorFiles``), once every check has passed.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from nehanda.errors import ToolError
from nehanda.fs import replace_at
from nehanda.tools.beneath import SymlinkMet, open_beneath, open_entry, open_folder, race_refusal
from nehanda.tools.checkpoint import Checkpoint, NoCheckpoint
from nehanda.tools.paths import Placed

if TYPE_CHECKING:
    from nehanda.tools.base import EditorFiles

# Opening never waits (a FIFO) nor takes a terminal; reading a regular file is unaffected.
_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY


@dataclass
class Current:
    """The file as it is now: ``info`` is its status (``None``: there is none) and
    ``data`` its contents (empty unless it is a regular file). ``folder`` is the
    descriptor of its folder, ``None`` while that folder does not exist."""

    placed: Placed
    tool: str
    shown: str
    folder: int | None
    info: os.stat_result | None
    data: bytes
    checkpoint: Checkpoint

    def replace(self, data: bytes, mode: int) -> os.stat_result:
        """Make ``data`` its contents, with ``mode``, making missing folders first;
        the new file's status. The checkpoint records the old contents first."""
        old = None if self.info is None else self.data
        self.checkpoint.before_write(
            self.placed.path, old, 0 if self.info is None else self.info.st_mode
        )
        try:
            if self.folder is None:
                self.folder = open_folder(self.placed, create=True)
            written = replace_at(self.folder, self.placed.path.name, data, mode)
        except SymlinkMet:
            raise race_refusal(self.tool, self.shown) from None
        self.checkpoint.after_write(self.placed.path, data, written.st_mode)
        return written


@contextmanager
def current_file(
    placed: Placed, *, tool: str, shown: str, checkpoint: Checkpoint | None = None
) -> Iterator[Current]:
    """The file at ``placed`` as it is now, its folder held open until the block ends;
    ``checkpoint`` records it before it is replaced."""
    current = Current(placed, tool, shown, None, None, b"", checkpoint or NoCheckpoint())
    try:
        _read_current(current)
        yield current
    finally:
        if current.folder is not None:
            os.close(current.folder)


def _read_current(current: Current) -> None:
    try:
        current.folder = open_folder(current.placed)
        handle = open_entry(current.folder, current.placed.path.name, _READ)
        current.info = _regular_or_close(handle)
        if stat.S_ISREG(current.info.st_mode):
            current.data = _read_whole(handle)
    except (FileNotFoundError, NotADirectoryError):
        return
    except SymlinkMet:
        raise race_refusal(current.tool, current.shown) from None
    except OSError as error:
        if error.errno == errno.ENXIO:  # a socket
            raise _not_regular(current.tool, current.shown) from None
        raise ToolError(current.tool, f"Cannot open {current.shown}: {error.strerror}.") from error


async def write_through(
    editor: EditorFiles, path: Path, text: str, *, tool: str, shown: str
) -> os.stat_result | None:
    """Makes ``text`` the editor's contents of ``path``; the file's status on disk after
    (``None``: there is none, the editor has not saved it)."""
    try:
        await editor.write_text(path, text)
    except OSError as error:
        raise ToolError(
            tool, f"Cannot write {shown}: the editor refused ({error}). Nothing was changed."
        ) from None
    try:
        return path.lstat()
    except OSError:
        return None


def regular_mode(info: os.stat_result | None, shown: str, tool: str) -> int | None:
    """The permission bits of the regular file ``info`` describes; ``None`` for none."""
    if info is None:
        return None
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(tool, f"{shown} is a directory, not a file.")
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(tool, shown)
    return stat.S_IMODE(info.st_mode)


def _not_regular(tool: str, shown: str) -> ToolError:
    return ToolError(tool, f"{shown} is not a regular file (a device, FIFO or socket).")


def read_regular(path: Path) -> bytes:
    """The contents of the regular file at the resolved ``path``, which is opened from
    ``/`` following no symlink; ``OSError`` for anything else."""
    handle = open_beneath(Placed(path, Path("/")), _READ)
    if not stat.S_ISREG(_regular_or_close(handle).st_mode):
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return _read_whole(handle)


def _regular_or_close(handle: int) -> os.stat_result:
    """The status of the file open as ``handle``, which is closed unless it is regular."""
    info = os.fstat(handle)
    if not stat.S_ISREG(info.st_mode):
        os.close(handle)
    return info


def _read_whole(handle: int) -> bytes:
    """All of the regular file open (without blocking) as ``handle``, which is closed."""
    os.set_blocking(handle, True)
    with os.fdopen(handle, "rb") as stream:
        return stream.read()
