"""The files that say what a command runs (``build_files``) which the session changed,
kept by the gate until the user approves a command that reads them: ``EditedFiles``.

``wrote`` records the paths of a Write or an Edit the gate lets run, as written and as
resolved (a symlink to ``package.json`` writes ``package.json``). ``watching`` compares
those files across a command, which may change one too (``sed -i``, a script the user
approved): at the workspace's top and one folder down (``tests/conftest.py``), outside
hidden folders and ``node_modules``, a bound on the work each command costs. ``unseen``
is what ``decide`` is given; ``seen`` forgets those a user's approval covered. Paths are
relative to the workspace, absolute outside it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from nehanda.permissions.build_files import NAMES, is_build_file
from nehanda.tools.paths import is_inside, workspace_relative
from nehanda.tools.watched import digests
from nehanda.types import ToolFacts, ToolUse

_MAX_FOLDERS = 200
_FILES = frozenset(name.casefold() for name in NAMES if "/" not in name)
_IN_FOLDERS = tuple(sorted(name for name in NAMES if "/" in name))


@dataclass
class EditedFiles:
    workspace: Path
    _unseen: set[str] = field(default_factory=set)

    def unseen(self) -> frozenset[str]:
        return frozenset(self._unseen)

    def seen(self, files: tuple[str, ...]) -> None:
        self._unseen.difference_update(files)

    def wrote(self, facts: ToolFacts, use: ToolUse) -> None:
        """Record what a file tool that writes changes."""
        if facts.read_only or facts.path_argument is None:
            return
        for raw in facts.paths(use.input) or ():
            try:
                candidate = self.workspace / Path(raw).expanduser()
                paths = (os.path.normpath(candidate), os.path.realpath(candidate))
            except (OSError, RuntimeError, ValueError):
                continue  # the gate has refused such a path already
            self._unseen.update(self._shown(path) for path in paths if is_build_file(path))

    @contextlib.contextmanager
    def watching(self, facts: ToolFacts) -> Iterator[None]:
        """Around a command: whichever of the files it changed counts as edited."""
        if facts.command_argument is None:
            yield
            return
        before = digests(self._candidates())
        try:
            yield
        finally:
            after = digests(self._candidates())
            changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
            self._unseen.update(self._shown(str(path)) for path in changed)

    def _shown(self, path: str) -> str:
        inside = is_inside(Path(path), self.workspace)
        return workspace_relative(path, self.workspace) if inside else path

    def _candidates(self) -> list[Path]:
        found: list[Path] = []
        folders = [self.workspace]
        for entry in _entries(self.workspace):
            if len(folders) > _MAX_FOLDERS:
                break
            if not entry.name.startswith(".") and entry.name != "node_modules":
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        folders.append(Path(entry.path))
        for folder in folders:
            found += [Path(e.path) for e in _entries(folder) if e.name.casefold() in _FILES]
            found += [folder / name for name in _IN_FOLDERS]
        return found


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []
