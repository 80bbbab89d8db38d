"""The files of a workspace's repository that git obeys, found without running git.

``repository_of`` finds the repository git uses in a workspace: the first ``.git`` in
it or a folder above it, a folder (or a symlink to one) or a ``gitdir:`` file (a linked
worktree, or a planted one), and its common folder, which a ``commondir`` file names
(git reads it in any repository, not only in a linked worktree): the configuration,
hooks and objects live there. ``obeyed`` lists what git may run programs from: the
``.git`` file or symlink itself, ``commondir``, the configuration files and every file
they include (``include.path``, ``includeIf.*.path``, whatever the condition), the
hooks folder and the one ``core.hooksPath`` names, the linked worktrees' ``commondir``
and ``config.worktree``, and every file a configuration value names (``core.pager =
./pager.sh``, an alias's ``!sh tool.sh``), wherever it lies; and the attributes files
(``.gitattributes``, ``info/attributes``, ``core.attributesFile``), whose ``filter=``,
``diff=`` and ``merge=`` lines pick the drivers that run.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from nehanda.tools.git_config import Entry, parse_config

MAX_CONFIG_BYTES = 1 << 20
# git itself stops following includes at a depth of 10.
_MAX_INCLUDE_DEPTH = 10
_MAX_CONFIG_FILES = 50
_MAX_WORKTREES = 50
_MAX_NAMED = 100
_WORD = re.compile(r"[^\s'\"`;|&()<>=]+")


@dataclass(frozen=True)
class Repository:
    """``root``: the folder holding ``.git``, where git runs hooks and drivers."""

    root: Path
    dot_git: Path
    git_dir: Path
    common: Path


@dataclass(frozen=True)
class Obeyed:
    """``whole``: files and folders that count byte for byte; ``attributes``: attributes
    files, of which only the lines naming a driver count."""

    whole: tuple[Path, ...]
    attributes: tuple[Path, ...]


def read_limited(path: Path, limit: int | None = MAX_CONFIG_BYTES) -> bytes | None:
    """The file's bytes, ``b""`` where it does not exist, None where it cannot be read
    or is larger than ``limit``."""
    try:
        if not path.exists():
            return b""
        if not path.is_file() or (limit is not None and path.stat().st_size > limit):
            return None
        return path.read_bytes()
    except OSError:
        return None


def find_git_dir(dot_git: Path) -> Path | None:
    """The repository folder ``.git`` stands for: itself if a folder (through a symlink
    too), else where a ``gitdir:`` file points; None for anything else."""
    if _is_dir(dot_git):
        return dot_git
    text = read_limited(dot_git)
    if text is None or not text.startswith(b"gitdir: "):
        return None
    found = dot_git.parent / os.fsdecode(text[len(b"gitdir: ") :].strip())
    return found if _is_dir(found) else None


def common_dir(git_dir: Path) -> Path | None:
    """Where the configuration, hooks and objects of ``git_dir`` live: the folder its
    ``commondir`` names, else ``git_dir`` itself; None where that file cannot be read
    or names no folder."""
    text = read_limited(git_dir / "commondir")
    if not text:
        return None if text is None else git_dir
    found = git_dir / os.fsdecode(text.strip())
    return found if _is_dir(found) else None


def repository_of(workspace: Path) -> Repository | None:
    for folder in (workspace, *workspace.parents):
        dot_git = folder / ".git"
        if not os.path.lexists(dot_git):
            continue
        git_dir = find_git_dir(dot_git) or dot_git
        return Repository(folder, dot_git, git_dir, common_dir(git_dir) or git_dir)
    return None


def obeyed(workspace: Path, home: Path) -> Obeyed:
    repository = repository_of(workspace)
    attributes = [workspace / ".gitattributes"]
    if repository is None:
        return Obeyed((), tuple(attributes))
    root, git_dir, common = repository.root, repository.git_dir, repository.common
    whole = [common / "hooks", git_dir / "commondir"]
    if repository.dot_git.is_symlink() or not _is_dir(repository.dot_git):
        whole.append(repository.dot_git)
    for folder in (git_dir, common):
        attributes.append(folder / "info/attributes")
    attributes.append(root / ".gitattributes")
    for worktree in _entries(common / "worktrees")[:_MAX_WORKTREES]:
        whole += [worktree / "commondir", worktree / "config.worktree"]
    named: list[Path] = []
    configs = [common / "config", git_dir / "config.worktree", common / "config.worktree"]
    for file, entries in config_files(configs, home):
        whole.append(file)
        for entry in entries:
            key, value = entry.name.lower(), entry.value or ""
            path = expand(value, root, home)
            if key == "core.hookspath" and path is not None:
                whole.append(path)
            elif key == "core.attributesfile" and path is not None:
                attributes.append(path)
            named += _named_files(value, root, home)
    whole += named[:_MAX_NAMED]
    return Obeyed(_unique(whole), _unique(attributes))


def config_files(first: list[Path], home: Path) -> list[tuple[Path, list[Entry]]]:
    """``first`` and every file they include, in turn, each with its entries (none for
    a file missing, unreadable or too large)."""
    found: list[tuple[Path, list[Entry]]] = []
    waiting = [(path, 0) for path in first]
    seen: set[Path] = set()
    while waiting and len(found) < _MAX_CONFIG_FILES:
        path, depth = waiting.pop(0)
        if path in seen or depth > _MAX_INCLUDE_DEPTH:
            continue
        seen.add(path)
        text = read_limited(path) or b""
        entries = parse_config(text.decode("utf-8", "surrogateescape"))
        found.append((path, entries))
        for entry in entries:
            name = entry.name.lower()
            if name.startswith("include") and name.endswith(".path") and entry.value:
                included = expand(entry.value.removeprefix(":(optional)"), path.parent, home)
                if included is not None:
                    waiting.append((included, depth + 1))
    return found


def expand(value: str, base: Path, home: Path) -> Path | None:
    """A path as git reads one from its configuration: ``~/`` is the home folder, a
    relative one lies in ``base``; None for another user's ``~`` or nothing at all."""
    if value == "~" or value.startswith("~/"):
        return Path(os.path.normpath(home / value[2:]))
    if not value or value.startswith(("~", "%(")) or "\0" in value:
        return None
    return Path(os.path.normpath(base / value))


def _named_files(value: str, root: Path, home: Path) -> list[Path]:
    """The existing files the words of a configuration value name (a program, a script
    handed to one), relative to the top of the worktree, where git runs them."""
    found: list[Path] = []
    for word in _WORD.findall(value)[:_MAX_NAMED]:
        path = expand(word.lstrip("!"), root, home)
        if path is not None and path != root and _is_file(path):
            found.append(path)
    return found


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except OSError:
        return False  # a name too long, a folder that may not be searched


def _is_file(path: Path) -> bool:
    try:
        return path.is_symlink() or path.is_file()
    except OSError:
        return False


def _entries(folder: Path) -> list[Path]:
    try:
        return sorted(folder.iterdir())
    except OSError:
        return []


def _unique(paths: list[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(Path(os.path.normpath(path)) for path in paths))
