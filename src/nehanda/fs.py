"""The one small I/O helper layer: whole-file replacement and nehanda's XDG places.

``write_atomic`` replaces a file's contents all at once: a temporary file beside it,
fsync, then rename. Readers see the old contents or the new, never a mix, and a
failure at any step (a full disk, a rename refused) leaves the original file exactly
as it was. ``config_dir``, ``state_dir`` and ``cache_dir`` are nehanda's folders
under the XDG base directories (platformdirs is imported only when one is asked for);
none lies in a folder the sandbox lets commands write. ``check_folders`` refuses to
start where one of them is a file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from nehanda.errors import StorageError


def _read_umask() -> int:
    # The only portable way to read the umask is to set it; done once, at import.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


NEW_FILE_MODE = 0o666 & ~_read_umask()


def write_atomic(path: Path, data: bytes, mode: int = NEW_FILE_MODE) -> None:
    """Make ``data`` the contents of ``path`` (whose directory exists), with ``mode``."""
    handle, name = tempfile.mkstemp(dir=path.parent, prefix=".nehanda-", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        temporary.chmod(mode)
        temporary.replace(path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_directory(path.parent)


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; not every platform lets a directory be synced."""
    try:
        handle = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        with contextlib.suppress(OSError):
            os.fsync(handle)
    finally:
        os.close(handle)


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
