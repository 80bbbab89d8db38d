"""nehanda's helper programs, found once at start where no sandboxed command can write.

Grep runs ripgrep and checkpoints will run git, both outside the sandbox, so neither may
come from a folder a command can fill: a workspace's ``.venv/bin`` on ``PATH`` would
let a command plant an ``rg`` that nehanda then runs with the user's full rights.
``find_programs`` reads ``PATH`` once, skips relative entries and every entry inside a
writable root, checks each program's resolved path again, and keeps that resolved path:
nehanda runs it by that path, whatever ``PATH`` or the file system later say. (The MCP
launcher's Python is nehanda's own, ``sys.executable``; ``places`` keeps its environment
read-only instead.)
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

_HELPERS = {"ripgrep": "rg", "git": "git"}


@dataclass(frozen=True)
class Programs:
    """Absolute, resolved paths; ``None`` where none was found outside the writable
    roots. ``skipped`` holds (name, path) for each one found only inside them."""

    ripgrep: str | None = None
    git: str | None = None
    skipped: tuple[tuple[str, str], ...] = ()

    def notes(self) -> list[str]:
        """What to say once at start: a helper nehanda uses today that it will not run."""
        return [
            f"Grep searches without ripgrep: the only rg on PATH is {path}, in a folder "
            "Bash commands may write, so nehanda does not run it"
            for name, path in self.skipped
            if name == "rg"
        ]


def find_programs(roots: list[str], search_path: str) -> Programs:
    """Each helper on ``search_path`` outside ``roots`` (absolute, resolved paths)."""
    found: dict[str, str | None] = {}
    skipped: list[tuple[str, str]] = []
    for field, name in _HELPERS.items():
        trusted, untrusted = find_program(name, roots, search_path)
        found[field] = trusted
        if trusted is None and untrusted is not None:
            skipped.append((name, untrusted))
    return Programs(found["ripgrep"], found["git"], tuple(skipped))


def find_program(name: str, roots: list[str], search_path: str) -> tuple[str | None, str | None]:
    """(the first ``name`` on ``search_path`` lying outside ``roots``, resolved; the first
    one found inside them, as ``PATH`` names it)."""
    untrusted: str | None = None
    for entry in search_path.split(os.pathsep):
        folder = Path(entry)
        if not folder.is_absolute():
            continue  # "" and "." mean the working folder: the workspace
        candidate = folder / name
        if not _executable(candidate):
            continue
        resolved = candidate.resolve()
        if any(_inside(path, roots) for path in (folder, folder.resolve(), resolved)):
            untrusted = untrusted or os.path.normpath(candidate)
            continue
        return str(resolved), untrusted
    return None, untrusted


def _executable(path: Path) -> bool:
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return stat.S_ISREG(mode) and os.access(path, os.X_OK)


def _inside(path: Path, roots: list[str]) -> bool:
    return any(Path(os.path.normpath(path)).is_relative_to(root) for root in roots)
