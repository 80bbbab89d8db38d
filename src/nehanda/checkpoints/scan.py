"""The workspace's files by their metadata, for Bash's incremental snapshot.

One walk of the workspace below its root (``.git`` and the hidden places skipped,
symlinks to folders not followed), giving each file a ``Seen``: its metadata, and why
it would not be copied (ignored by a ``.gitignore``, a symlink, not a regular file).
A hidden folder (a secret place, a Read deny rule) is not entered; a hidden file is
found here and kept out of the store by the recorder, which asks only of the files
it reads (asking of every file costs a walk more than its ``stat`` calls).
A folder a ``.gitignore`` ignores is not entered: it is listed as one entry, so
``node_modules`` costs one ``stat``, not a walk. Two walks compare by metadata alone;
only the files whose metadata differ are read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from nehanda.tools.ignore import IgnoreChain, IgnoreFile, is_ignored, load_ignore_file

IGNORED_FOLDER = "an ignored folder"
# Past this many entries a workspace is a home folder or a disk, not a project: Bash's
# snapshot is given up for the session rather than copying it all.
MAX_ENTRIES = 50_000


class TooLarge(Exception):
    """The workspace holds more than ``MAX_ENTRIES`` entries."""


class Seen(NamedTuple):
    """A tuple, not a dataclass: a walk makes 20,000 of them."""

    signature: str  # size, times, inode and mode: equal when the file is unchanged
    size: int
    mode: int
    kept: str  # why it is listed and not copied; "" for a file that is copied


class Listing(NamedTuple):
    """One folder's entries: its files (and ignored folders) by relative path, and the
    folders to walk into, each as (absolute path, relative path with its ``/``, inode)."""

    own: IgnoreFile | None  # the folder's own .gitignore
    chain: IgnoreChain  # every .gitignore that applies inside it, its own last
    files: dict[str, Seen]
    folders: list[tuple[str, str, int]]


def list_folder(
    folder: str, rel: str, above: IgnoreChain, hidden: Callable[[Path], bool]
) -> Listing:
    """The entries of one folder, ``rel`` its path below the workspace ("" or "a/b/")."""
    own = load_ignore_file(folder)
    chain = above if own is None else (*above, own)
    files: dict[str, Seen] = {}
    folders: list[tuple[str, str, int]] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return Listing(own, chain, files, folders)
    for entry in entries:
        if entry.name == ".git" and not rel:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        is_dir = stat.S_ISDIR(info.st_mode)
        if is_dir and hidden(Path(entry.path)):
            continue
        name = f"{rel}{entry.name}"
        ignored = chain and is_ignored(chain, entry.path, is_dir)
        if is_dir and not ignored:
            folders.append((entry.path, name + "/", info.st_ino))
            continue
        files[name] = _seen(info, IGNORED_FOLDER if is_dir else _why(info, bool(ignored)))
    return Listing(own, chain, files, folders)


def scan(workspace: Path, hidden: Callable[[Path], bool] = lambda path: False) -> dict[str, Seen]:
    """Every file below ``workspace``, by its path relative to it."""
    found: dict[str, Seen] = {}
    stack: list[tuple[str, str, IgnoreChain]] = [(str(workspace), "", ())]
    while stack:
        folder, rel, above = stack.pop()
        listing = list_folder(folder, rel, above, hidden)
        found.update(listing.files)
        if len(found) > MAX_ENTRIES:
            raise TooLarge(workspace)
        stack += [(path, name, listing.chain) for path, name, _ in listing.folders]
    return found


def _why(info: os.stat_result, ignored: bool) -> str:
    if stat.S_ISLNK(info.st_mode):
        return "a symlink"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    return "ignored by .gitignore" if ignored else ""


def _seen(info: os.stat_result, kept: str) -> Seen:
    signature = f"{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_ino}:{info.st_mode}"
    return Seen(signature, info.st_size, stat.S_IMODE(info.st_mode), kept)
