"""The places that hold secrets, which no tool reads unless the user asks for them by name.

One list for everything that keeps a model away from them: the file tools' walks
(Grep, Glob, LS prune them), the Bash matcher (a command naming one asks or is denied)
and the kernel sandbox (it grants no read below them). ``home_secrets`` is pure: the
paths for a given home directory. ``secret_paths`` adds nehanda's own settings and
state folders, which hold trust decisions and session logs. ``HiddenPaths`` is what
the walks of Grep, Glob and LS never enter (``ToolContext.hidden``): those places and
every path a Read deny rule covers.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePath

from nehanda.fs import config_dir, state_dir
from nehanda.permissions.rules import Rule, path_rule_matcher
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


@dataclass(frozen=True)
class HiddenPaths:
    """Whether a path is, or lies below, a secret place or a path a Read deny rule covers.

    Checked for every entry a walk meets, so the places are looked up by string, one
    ancestor at a time, rather than compared one by one.
    """

    places: frozenset[str]
    rules: tuple[Callable[[Path], bool], ...]  # the Read deny rules, as matchers

    @classmethod
    def build(cls, deny: Iterable[Rule], workspace: Path, home: Path | None = None) -> HiddenPaths:
        places = set()
        for place in secret_paths(home):
            places.add(os.path.normpath(place))
            places.add(os.path.realpath(place))
        rules = tuple(
            path_rule_matcher(rule, workspace)
            for rule in deny
            if rule.covers("Read") and rule.specifier is not None
        )
        return cls(frozenset(places), rules)

    def __call__(self, path: Path) -> bool:
        return self._in_places(os.path.normpath(path)) or any(rule(path) for rule in self.rules)

    def _in_places(self, text: str) -> bool:
        while text not in self.places:
            parent = text.rpartition("/")[0] or "/"
            if parent == text:
                return False
            text = parent
        return True
