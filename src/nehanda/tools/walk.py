"""Walk the files under a directory the way Glob and Grep see them.

Depth-first in name order (the order ``rg --sort path`` prints), honouring .gitignore
(see ``ignore``), always skipping ``.git`` and every path ``hidden`` names (secret
places, Read deny rules: they are never entered), yielding regular files only: FIFOs,
sockets and devices are skipped because reading one can block forever.

With ``follow_symlinks`` (Glob), a link is followed when its target lies inside the
workspace; broken links, links pointing outside and links back to a directory being
walked (loops) are skipped. Without it (Grep, like ripgrep's default) every link met
while walking is skipped: ripgrep cannot be told to stay inside the workspace.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from nehanda.tools.ignore import IgnoreChain, is_ignored, load_ignore_file
from nehanda.tools.paths import is_inside, workspace_relative

_DirKey = tuple[int, int]


@dataclass(frozen=True)
class WalkedFile:
    path: str  # absolute, as walked (through any followed symlinks)
    rel: str  # relative to the workspace, POSIX form


@dataclass(frozen=True)
class _Dir:
    path: str
    rel: str
    chain: IgnoreChain
    ancestors: frozenset[_DirKey]
    depth: int


def walk_files(
    workspace: Path,
    start: Path,
    *,
    follow_symlinks: bool,
    max_depth: int | None = None,
    hidden: Callable[[Path], bool] = lambda path: False,
) -> Iterator[WalkedFile]:
    """Files below directory ``start`` (resolved, inside ``workspace``).

    ``max_depth`` limits how many path segments below ``start`` a file may have.
    """
    rel = workspace_relative(start, workspace)
    rel = "" if rel == "." else rel
    root_stat = start.stat()
    stack: list[_Dir | WalkedFile] = [
        _Dir(str(start), rel, _parent_chain(start), frozenset([_key(root_stat)]), 0)
    ]
    while stack:
        item = stack.pop()
        if isinstance(item, WalkedFile):
            yield item
        else:
            children = _children(item, workspace, follow_symlinks, max_depth)
            stack.extend(reversed([child for child in children if not hidden(Path(child.path))]))


def _parent_chain(start: Path) -> IgnoreChain:
    """The .gitignore files above ``start`` that apply below it, outermost first.

    As in git and rg, that is up to the root of the enclosing repository (the nearest
    directory holding ``.git``), or up to ``/`` outside a repository.
    """
    chain = []
    for directory in (start, *start.parents):
        if directory != start and (found := load_ignore_file(str(directory))) is not None:
            chain.append(found)
        if (directory / ".git").exists():
            break
    return tuple(reversed(chain))


def _children(
    parent: _Dir, workspace: Path, follow_symlinks: bool, max_depth: int | None
) -> list[_Dir | WalkedFile]:
    own = load_ignore_file(parent.path)
    chain = parent.chain if own is None else (*parent.chain, own)
    try:
        entries = sorted(os.scandir(parent.path), key=lambda entry: entry.name)
    except OSError:
        return []
    children: list[_Dir | WalkedFile] = []
    for entry in entries:
        kind = _classify(entry, workspace if follow_symlinks else None, parent.ancestors)
        rel = f"{parent.rel}/{entry.name}" if parent.rel else entry.name
        if kind is None or is_ignored(chain, entry.path, is_dir=kind != "file"):
            continue
        if kind == "file":
            children.append(WalkedFile(entry.path, rel))
        elif max_depth is None or parent.depth + 1 < max_depth:
            ancestors = parent.ancestors | {kind}
            children.append(_Dir(entry.path, rel, chain, ancestors, parent.depth + 1))
    return children


def _classify(
    entry: os.DirEntry[str], follow_within: Path | None, ancestors: frozenset[_DirKey]
) -> _DirKey | Literal["file"] | None:
    """ "file", a directory's key (its device and inode), or None for anything to skip.

    Symlinks are followed only when ``follow_within`` is given and holds their target.
    """
    if entry.name == ".git":
        return None
    try:
        if entry.is_symlink():
            if follow_within is None or not is_inside(
                Path(os.path.realpath(entry.path)), follow_within
            ):
                return None
            info = Path(entry.path).stat()
        elif entry.is_dir(follow_symlinks=False):
            info = entry.stat(follow_symlinks=False)
        else:
            # The directory entry's type needs no extra system call per file.
            return "file" if entry.is_file(follow_symlinks=False) else None
    except OSError:  # a broken link, a loop of links, or an entry gone meanwhile
        return None
    if stat.S_ISREG(info.st_mode):
        return "file"
    if stat.S_ISDIR(info.st_mode) and _key(info) not in ancestors:
        return _key(info)
    return None


def _key(info: os.stat_result) -> _DirKey:
    return (info.st_dev, info.st_ino)
