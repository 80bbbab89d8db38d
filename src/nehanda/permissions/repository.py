"""Whether git reads the workspace's repository running nothing it names: ``plain_repository``.

``git status``, ``git log -p``, ``git diff`` and ``git show`` run programs a
repository's configuration names: ``core.fsmonitor`` (status, diff), a diff driver's
``textconv`` or ``command`` for the paths ``.gitattributes`` gives it, ``diff.external``,
a ``filter`` driver, a pager, ``gpg.program`` under ``log.showSignature``, and
the same in every submodule's configuration. A model that once wrote such a file
(under yolo, or in a command the user approved) would have every later ``git status``
run its program unasked. So git counts as only reading (``harmless``) only where the
repository is plain: ``.git`` is the workspace's own folder (or a ``gitdir:`` file, as
in a linked worktree, whose main repository's configuration is read too), its
configuration holds none of the words below (matched anywhere, case-folded: a false
alarm only makes git ask), it borrows no objects from elsewhere
(``objects/info/alternates``), and its index holds no submodule (an entry of mode
160000), since git would read that submodule's configuration too. The user's own
configuration (``~/.gitconfig``) is theirs and not read here.
"""

from __future__ import annotations

import os
from pathlib import Path

# Configuration words that make git run a program, read a file outside the
# repository, or take another repository's files, in any section.
_RISKY_WORDS = (
    *("fsmonitor", "textconv", "external", "command", "filter", "pager", "program"),
    *("include", "worktree", "signature", "excludesfile", "attributesfile", "orderfile"),
    *("mailmap", "promisor", "partialclone", "submodule", "alternate"),
)
# Mode 160000 (a submodule) as it stands, big-endian, in an index entry.
_GITLINK_MODE = (0o160000).to_bytes(4, "big")
_MAX_CONFIG_BYTES = 1 << 20


def plain_config(text: bytes) -> bool:
    """Whether a git configuration file holds none of the words that make git run
    something or read elsewhere."""
    folded = text.lower()
    return not any(word.encode() in folded for word in _RISKY_WORDS)


def plain_repository(workspace: Path) -> bool:
    """Whether ``workspace`` has a repository of its own that runs nothing when read."""
    git_dir = _git_dir(workspace / ".git")
    if git_dir is None:
        return False
    common = _common_dir(git_dir)
    if common is None or (common / "objects/info/alternates").exists():
        return False
    for config in (common / "config", git_dir / "config.worktree"):
        text = _read(config)
        if text is None or not plain_config(text):
            return False
    index = _read(git_dir / "index", limit=None)
    return index is not None and _GITLINK_MODE not in index


def _git_dir(dot_git: Path) -> Path | None:
    """The repository folder ``.git`` stands for: itself if a real folder, else where a
    ``gitdir:`` file points; None for a symlink or anything else."""
    if dot_git.is_symlink():
        return None
    if dot_git.is_dir():
        return dot_git
    text = _read(dot_git)
    if text is None or not text.startswith(b"gitdir: "):
        return None
    target = Path(os.fsdecode(text[len(b"gitdir: ") :].strip()))
    found = dot_git.parent / target
    return found if found.is_dir() else None


def _common_dir(git_dir: Path) -> Path | None:
    """Where the configuration and objects of ``git_dir`` live: a linked worktree's
    ``commondir`` (the main repository's folder), else ``git_dir`` itself."""
    text = _read(git_dir / "commondir")
    if not text:
        return None if text is None else git_dir
    found = git_dir / os.fsdecode(text.strip())
    return found if found.is_dir() else None


def _read(path: Path, limit: int | None = _MAX_CONFIG_BYTES) -> bytes | None:
    """The file's bytes, ``b""`` where it does not exist, None where it cannot be read
    or is too large to be a plain configuration."""
    try:
        if not path.exists():
            return b""
        if not path.is_file() or (limit is not None and path.stat().st_size > limit):
            return None
        return path.read_bytes()
    except OSError:
        return None
