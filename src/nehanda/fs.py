"""The one small I/O helper layer: whole-file replacement and nehanda's XDG places.

``write_atomic`` replaces a file's contents all at once: a temporary file beside it,
fsync, then rename. Readers see the old contents or the new, never a mix, and a
failure at any step (a full disk, a rename refused) leaves the original file exactly
as it was. ``replace_at`` does the same in a folder already open as a descriptor:
the temporary file is made and renamed below that descriptor, never by a path, so a
folder swapped for a symlink meanwhile changes nothing (the file tools need this).

``config_dir``, ``state_dir`` and ``cache_dir`` are nehanda's folders under the XDG
base directories (platformdirs is imported only when one is asked for); none lies in
a folder the sandbox lets commands write. ``check_folders`` refuses to start where
one of them is a file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
from pathlib import Path

from nehanda.errors import StorageError


def _read_umask() -> int:
    # The only portable way to read the umask is to set it; done once, at import.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


NEW_FILE_MODE = 0o666 & ~_read_umask()


_TEMPORARY = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def write_atomic(
    path: Path, data: bytes, mode: int = NEW_FILE_MODE, *, durable: bool = True
) -> None:
    """Make ``data`` the contents of ``path`` (whose directory exists), with ``mode``;
    not ``durable``, it skips the syncs (a cache that may lose its newest entries in a
    crash, written where a sync's milliseconds would stall other work)."""
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        replace_at(folder, path.name, data, mode, durable=durable)
    finally:
        os.close(folder)


def replace_at(
    folder: int, name: str, data: bytes, mode: int = NEW_FILE_MODE, *, durable: bool = True
) -> os.stat_result:
    """Make ``data`` the contents of ``name`` in the folder open as ``folder``; returns
    the new file's status. A symlink at ``name`` is replaced, never followed."""
    temporary, handle = _temporary_file(folder)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fchmod(handle, mode)
            if durable:
                os.fsync(handle)
            written = os.fstat(handle)
        os.rename(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary, dir_fd=folder)
        raise
    if durable:
        with contextlib.suppress(OSError):  # not every platform lets a directory be synced
            os.fsync(folder)
    return written


def _temporary_file(folder: int) -> tuple[str, int]:
    """A new file beside the one replaced, made by this call alone (``O_EXCL``)."""
    for _ in range(100):
        name = f".nehanda-{secrets.token_hex(6)}.tmp"
        try:
            return name, os.open(name, _TEMPORARY, 0o600, dir_fd=folder)
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free name for a temporary file", name)


def config_dir() -> Path:
    from platformdirs import user_config_path

    return user_config_path("nehanda")


def state_dir() -> Path:
    from platformdirs import user_state_path

    return user_state_path("nehanda")


def cache_dir() -> Path:
    """Beside the state, not under ``~/.cache``: parts of it are writable in the sandbox
    (tool caches), and a command must not plant what nehanda reads back."""
    return state_dir() / "cache"


def check_folders() -> None:
    """``StorageError`` if one of nehanda's folders, or a folder above it, is a file."""
    folders = (
        ("settings", config_dir(), "XDG_CONFIG_HOME"),
        ("state", state_dir(), "XDG_STATE_HOME"),
        ("cache", cache_dir(), "XDG_STATE_HOME"),
    )
    for name, path, variable in folders:
        for place in (path, *path.parents):
            if place.exists() and not place.is_dir():
                what = f"{place} is a file" + ("" if place == path else f", above {path}")
                raise StorageError(
                    f"{what}, where nehanda keeps its {name} folder; "
                    f"move the file aside, or point {variable} elsewhere"
                )
