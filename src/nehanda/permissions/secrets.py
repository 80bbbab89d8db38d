"""The places that hold secrets, which no tool reads unless the user asks for them by name.

One list for everything that keeps a model away from them: the file tools' walks
(Grep, Glob, LS prune them), the Bash matcher (a command naming one asks or is denied)
and the kernel sandbox (it grants no read below them). ``home_secrets`` is pure: the
paths for a given home directory. ``secret_paths`` adds nehanda's own settings and
state folders, which hold trust decisions and session logs. Light to import: only
``fs`` and ``tools.paths``. ``permissions.hidden`` builds the walks' filter from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePath

from nehanda.fs import config_dir, state_dir
from nehanda.tools.paths import is_inside

# Relative to the home directory. Folders cover everything below them.
_HOME_SECRETS = (
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
    "snap/chromium",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
    "Library/Application Support/BraveSoftware",
    "Library/Safari",
    "Library/Cookies",
    "Library/Keychains",
)


def home_secrets(home: Path) -> tuple[Path, ...]:
    """The default secret places below ``home`` (which need not exist)."""
    return tuple(home / relative for relative in _HOME_SECRETS)


def secret_paths(home: Path | None = None) -> tuple[Path, ...]:
    """The default secret places for ``home`` (the user's), with nehanda's settings and
    state folders."""
    return (*home_secrets(Path.home() if home is None else home), config_dir(), state_dir())


def is_secret(path: PurePath, secrets: Iterable[PurePath]) -> bool:
    """Whether normalised absolute ``path`` is one of ``secrets`` or lies below one."""
    return any(is_inside(path, secret) for secret in secrets)
