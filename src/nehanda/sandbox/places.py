"""The places the sandbox opens for writing, and the secret places it keeps closed.

``~`` stands for the home directory; a name ending in ``*`` stands for every entry of
its folder that begins so. A worktree's git folders live outside it, so
``git_folders`` finds them (the ``.git`` file's ``gitdir:`` and that folder's
``commondir``) without running git.

Code that nehanda runs outside the sandbox must not lie in a writable root: its own
Python environment, uv's cache (``uvx`` runs programs from it, and links its files
into environments) and npx's folder of installed packages (MCP servers). Where one
lies inside a writable root all the same (nehanda in the workspace's ``.venv``), the
root is granted around it: its folders down to the place lose their own write
rights, every other entry keeps them (``tree.carve``).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from nehanda.sandbox.tree import carve

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
# Tool caches no program runs from: pip's downloads and built wheels (an install copies
# them into an environment), npm's content-addressed store and its logs, the crates
# cargo compiles into a target folder, and cargo's lock files. Not all of ~/.cache:
# programs run from uv's cache, from go's build cache (``go run``, since Go 1.24) and
# from npx's packages. Only those that exist as a command starts are granted.
WRITABLE_CACHES = (
    "~/.cache/pip",
    "~/.npm/_cacache",
    "~/.npm/_logs",
    "~/.cargo/registry",
    "~/.cargo/.package-cache",
    "~/.cargo/.package-cache-mutate",
)
READ_ONLY_CODE = ("~/.cache/uv", "~/.npm/_npx")

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


def default_roots(workspace: Path, home: Path) -> list[str]:
    """The writable places by default, as written (``expand`` resolves them)."""
    roots = [str(workspace), tempfile.gettempdir(), *WRITABLE_DEVICES]
    roots += [str(home / entry[2:]) for entry in WRITABLE_CACHES]
    return roots + [str(folder) for folder in git_folders(workspace)]


def default_writable(workspace: Path, home: Path) -> list[str]:
    """The default roots, resolved, with nehanda's code carved out of them."""
    return writable_around(default_roots(workspace, home), read_only_places(home), home)


def writable_around(written: list[str], kept: list[str], home: Path) -> list[str]:
    """The roots ``written``, resolved, granted around the places ``kept``: a root holding
    one is replaced by its entries on the way down, the place and symlinks left out (a
    symlink's target would become writable once ``expand`` resolves it)."""
    roots = sorted({os.path.realpath(path) for w in written for path in expand(w, home)})
    writable: list[str] = []
    for root in roots:
        if not enclosed([root], kept):
            writable.append(root)
            continue
        _, whole = carve(root, kept)
        writable += [path for path in whole if not Path(path).is_symlink()]
    return writable


def read_only_places(home: Path) -> list[str]:
    """Where the code nehanda runs unconfined lives: its own Python environment, uv's
    cache and npx's packages; resolved."""
    return sorted({*own_environment(), *code_caches(home)})


def code_caches(home: Path) -> list[str]:
    """The caches programs run from, resolved."""
    return sorted({os.path.realpath(p) for place in READ_ONLY_CODE for p in expand(place, home)})


def own_environment() -> list[str]:
    """The folders of the Python running nehanda: its environment, the installation
    beneath it, and the folder of its executable (resolved and not)."""
    prefixes = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix}
    if sys.executable:
        executable = Path(sys.executable)
        prefixes |= {str(executable.parent), str(executable.resolve().parent)}
    return sorted({os.path.realpath(prefix) for prefix in prefixes if prefix})


def enclosed(roots: list[str], places: list[str]) -> list[str]:
    """The ``places`` that lie in one of ``roots`` (or are one); all paths resolved."""
    return [place for place in places if any(Path(place).is_relative_to(root) for root in roots)]


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
