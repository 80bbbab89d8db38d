"""Read and Edit deny rules applied to the paths a Bash command names, as a best effort.

``denied_path(shell, rules, workspace)`` looks at every word of every part of the
command (inner ones too, and option values: ``--file=~/.ssh/id_rsa``) and at every
redirection target, as the shell would see them: ``~`` and ``$HOME`` expanded, made
absolute against the workspace, then both normalised and resolved (symlinks
followed). A word with a glob stands for the existing paths it matches. The first deny
rule covering one of them is returned with the word.

Not complete: a path assembled at run time (``cat $(echo ~/.ss)h/id_rsa``), read by a
program from its own configuration, or reached from an allowed folder above a denied
one (``grep -r key ~``) is not seen here. The kernel sandbox and the file tools' walks
cover those; this check refuses what the text says outright.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice
from pathlib import Path

from nehanda.permissions.rules import Rule, path_rule_matches
from nehanda.permissions.shell import ShellCommand
from nehanda.tools.patterns import MAGIC_CHARS

_PATH_FAMILIES = ("Read", "Edit")
# How many existing paths one glob word may stand for before the rest go unchecked.
_MAX_GLOB_MATCHES = 512


def path_deny_rules(deny: Iterable[Rule]) -> list[Rule]:
    """The deny rules that name paths (``Read(~/.ssh/**)``, ``Edit(/etc/**)``)."""
    return [rule for rule in deny if rule.tool in _PATH_FAMILIES and rule.specifier is not None]


def denied_path(
    shell: ShellCommand, rules: Sequence[Rule], workspace: Path
) -> tuple[Rule, str] | None:
    if not rules:
        return None
    for word in _path_words(shell):
        for path in _paths(word, workspace):
            rule = next((rule for rule in rules if _covers(rule, path, workspace)), None)
            if rule is not None:
                return rule, word
    return None


def _path_words(shell: ShellCommand) -> Iterator[str]:
    seen: set[str] = set()
    for part in shell.everywhere():
        for word in (*part.words, *part.redirects):
            value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
            if value and "\0" not in value and value not in seen:
                seen.add(value)
                yield value


def _paths(word: str, workspace: Path) -> Iterator[Path]:
    home = str(Path.home())
    for variable in ("${HOME}", "$HOME"):
        if word == variable or word.startswith(variable + "/"):
            word = home + word[len(variable) :]
    absolute = str(workspace / Path(word).expanduser())
    if MAGIC_CHARS.intersection(word):
        # The shell's own expansion: "*" passes over dotfiles, "**" is "*" without globstar.
        for match in islice(glob.iglob(absolute), _MAX_GLOB_MATCHES):  # noqa: PTH207
            yield from _both(match)
    yield from _both(absolute)


def _both(path: str) -> Iterator[Path]:
    lexical = os.path.normpath(path)
    yield Path(lexical)
    resolved = os.path.realpath(lexical)
    if resolved != lexical:
        yield Path(resolved)


def _covers(rule: Rule, path: Path, workspace: Path) -> bool:
    return path_rule_matches(rule, path, workspace, lexical=False) or path_rule_matches(
        rule, path, workspace, lexical=True
    )
