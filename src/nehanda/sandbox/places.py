"""The places the sandbox opens for writing, and the secret places it keeps closed.

``~`` stands for the home directory; a name ending in ``*`` stands for every entry of
its folder that begins so. A worktree's git folders live outside it, so
``git_folders`` finds them (the ``.git`` file's ``gitdir:`` and that folder's
``commondir``) without running git.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

# /dev is closed but for these: a raw disk, the kernel log, input devices or another
# terminal (/dev/pts: the user's keystrokes) are no command's business.
DEVICES = "/dev"
WRITABLE_DEVICES = (
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/shm",
)
WRITABLE_HOME = ("~/.cache", "~/.npm")

# Relative to the home directory. Folders cover everything below them.
HOME_SECRETS = (
    # keys and cloud credentials
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".npmrc",
    ".yarnrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".gem/credentials",
    ".password-store",
    ".local/share/keyrings",
    ".vault-token",
    # shell and REPL histories
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".sh_history",
    ".history",
    ".histfile",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".irb_history",
    ".lesshst",
    # browser profiles (cookies, saved passwords)
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    "snap/firefox",
    ".var/app/org.mozilla.firefox",
    "snap/chromium",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
    "Library/Application Support/BraveSoftware",
    "Library/Safari",
    "Library/Cookies",
    "Library/Keychains",
)
# The same places as the sandbox writes them (``~``-relative, see ``expand``).
SECRET_PLACES = tuple("~/" + relative for relative in HOME_SECRETS)


def expand(written: str, home: Path) -> list[str]:
    """``written`` as absolute, resolved paths: ``~`` expanded, a final ``*`` globbed."""
    path = str(home / written[2:]) if written.startswith("~/") else written
    if written == "~":
        path = str(home)
    found = [path]
    if path.endswith("*"):
        folder, _, start = path[:-1].rpartition("/")
        found = [
            str(entry) for entry in _entries(Path(folder or "/")) if entry.name.startswith(start)
        ]
    return sorted({p for f in found for p in (os.path.normpath(f), os.path.realpath(f))})


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def default_writable(workspace: Path, home: Path) -> list[str]:
    roots = [str(workspace), tempfile.gettempdir(), *WRITABLE_DEVICES]
    roots += [str(home / entry[2:]) for entry in WRITABLE_HOME]
    return roots + [str(folder) for folder in git_folders(workspace)]


def git_folders(workspace: Path) -> list[Path]:
    """The git folder of the repository holding ``workspace`` and its common folder,
    where they lie outside ``workspace``."""
    for folder in (workspace, *workspace.parents):
        dot_git = folder / ".git"
        if dot_git.is_dir():
            found = [dot_git.resolve()]
            break
        if dot_git.is_file():
            found = _linked(dot_git)
            break
    else:
        return []
    return [path for path in found if not path.is_relative_to(workspace)]


def _linked(dot_git: Path) -> list[Path]:
    try:
        line = dot_git.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return []
    if not line.startswith("gitdir:"):
        return []
    git_dir = (dot_git.parent / line.removeprefix("gitdir:").strip()).resolve()
    try:
        common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
    except (OSError, UnicodeDecodeError):
        return [git_dir]
    return [git_dir, common]
