"""The subset of .gitignore that file searches honour.

Supported: comments, blank lines, ``!`` negation, a trailing ``/`` for directories only,
anchoring by a leading or inner ``/``, ``*``, ``?``, ``[...]`` and ``**``, escapes, and
nested .gitignore files (a deeper file takes precedence; within a file the last
matching line wins). Not read: ``.git/info/exclude`` and the user's global excludes.
Paths here are absolute, as walked, so files above the workspace can take part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from nehanda.tools.patterns import translate


@dataclass(frozen=True)
class IgnoreRule:
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool


@dataclass(frozen=True)
class IgnoreFile:
    """The rules of one .gitignore; ``base`` is its directory, absolute."""

    base: str
    rules: tuple[IgnoreRule, ...]

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        """True (ignored), False (re-included) or None (no line matches)."""
        for rule in reversed(self.rules):
            if (is_dir or not rule.dir_only) and rule.regex.fullmatch(rel):
                return not rule.negate
        return None


IgnoreChain = tuple[IgnoreFile, ...]


def parse_gitignore(text: str) -> tuple[IgnoreRule, ...]:
    return tuple(rule for line in text.splitlines() if (rule := parse_line(line)) is not None)


def parse_line(line: str) -> IgnoreRule | None:
    if line.startswith("#"):
        return None
    line = _strip_trailing_spaces(line)
    negate = line.startswith("!")
    if negate:
        line = line[1:]
    dir_only = line.endswith("/")
    line = line.rstrip("/")
    if not line:
        return None
    anchored = "/" in line
    source = translate(line.removeprefix("/"))
    if not anchored:
        source = "(?:.*/)?" + source
    return IgnoreRule(re.compile(source, re.DOTALL), negate, dir_only)


def _strip_trailing_spaces(line: str) -> str:
    stripped = line.rstrip(" ")
    if stripped.endswith("\\") and len(stripped) < len(line):
        return stripped + " "  # "\ " keeps one escaped space
    return stripped


def load_ignore_file(directory: str) -> IgnoreFile | None:
    try:
        text = Path(directory, ".gitignore").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    rules = parse_gitignore(text)
    return IgnoreFile(directory, rules) if rules else None


def is_ignored(chain: IgnoreChain, path: str, is_dir: bool) -> bool:
    """Whether absolute ``path`` is ignored by the .gitignore files in ``chain``."""
    for ignore_file in reversed(chain):
        prefix = ignore_file.base.rstrip("/") + "/"
        if not path.startswith(prefix):
            continue
        verdict = ignore_file.verdict(path[len(prefix) :], is_dir)
        if verdict is not None:
            return verdict
    return False
