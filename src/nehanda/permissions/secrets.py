"""The places that hold secrets, which no tool reads unless the user asks for them by name.

One list for everything that keeps a model away from them: the file tools' walks
(Grep, Glob, LS prune them), the Bash matcher (a command naming one asks or is denied)
and the kernel sandbox (it grants no read below them). ``home_secrets`` is pure: the
paths for a given home directory. ``secret_paths`` adds nehanda's own settings and
state folders, which hold trust decisions and session logs. The list itself lives
in ``sandbox.places``, below every layer that uses it. ``permissions.hidden`` builds
the walks' filter from it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePath

from nehanda.fs import config_dir, state_dir
from nehanda.sandbox.places import HOME_SECRETS
from nehanda.tools.paths import is_inside


def home_secrets(home: Path) -> tuple[Path, ...]:
    """The default secret places below ``home`` (which need not exist)."""
    return tuple(home / relative for relative in HOME_SECRETS)


def secret_paths(home: Path | None = None) -> tuple[Path, ...]:
    """The default secret places for ``home`` (the user's), with nehanda's settings and
    state folders."""
    return (*home_secrets(Path.home() if home is None else home), config_dir(), state_dir())


def is_secret(path: PurePath, secrets: Iterable[PurePath]) -> bool:
    """Whether normalised absolute ``path`` is one of ``secrets`` or lies below one."""
    return any(is_inside(path, secret) for secret in secrets)
