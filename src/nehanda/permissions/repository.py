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
configuration (``~/.gitconfig``) is theirs and not read here. The repository's
folders are found as ``tools.git_files`` finds them for the watch on git's files.
"""

from __future__ import annotations

from pathlib import Path

from nehanda.tools.git_files import common_dir, find_git_dir, read_limited

# Configuration words that make git run a program, read a file outside the
# repository, or take another repository's files, in any section.
_RISKY_WORDS = (
    *("fsmonitor", "textconv", "external", "command", "filter", "pager", "program"),
    *("include", "worktree", "signature", "excludesfile", "attributesfile", "orderfile"),
    *("mailmap", "promisor", "partialclone", "submodule", "alternate"),
)
# Mode 160000 (a submodule) as it stands, big-endian, in an index entry.
_GITLINK_MODE = (0o160000).to_bytes(4, "big")


def plain_config(text: bytes) -> bool:
    """Whether a git configuration file holds none of the words that make git run
    something or read elsewhere."""
    folded = text.lower()
    return not any(word.encode() in folded for word in _RISKY_WORDS)


def plain_repository(workspace: Path) -> bool:
    """Whether ``workspace`` has a repository of its own that runs nothing when read."""
    dot_git = workspace / ".git"
    git_dir = None if dot_git.is_symlink() else find_git_dir(dot_git)
    if git_dir is None:
        return False
    common = common_dir(git_dir)
    if common is None or (common / "objects/info/alternates").exists():
        return False
    for config in (common / "config", git_dir / "config.worktree"):
        text = read_limited(config)
        if text is None or not plain_config(text):
            return False
    index = read_limited(git_dir / "index", limit=None)
    return index is not None and _GITLINK_MODE not in index
