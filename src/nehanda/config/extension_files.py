"""Where users keep custom commands and skills, in the order a clash is settled.

nehanda's own folders come before Claude Code's and the Agent Skills folders, and the
user's before the project's: a project can never shadow a user's command or skill. A
project's folders count only in a trusted folder (``config.trust``): they arrive with
the code, which may be anyone's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from nehanda.fs import config_dir

Scope = Literal["user", "project"]


@dataclass(frozen=True)
class Place:
    folder: Path
    scope: Scope


def places(kind: Literal["commands", "skills"], workspace: Path, *, trusted: bool) -> list[Place]:
    """The folders holding ``kind``, first the one that wins a clash; the project's only
    when ``trusted``."""
    home = Path.home()
    own = ["claude"] + (["agents"] if kind == "skills" else [])
    found = [Place(config_dir() / kind, "user")]
    found += [Place(home / f".{name}" / kind, "user") for name in own]
    if trusted:
        found.append(Place(workspace / ".nehanda" / kind, "project"))
        found += [Place(workspace / f".{name}" / kind, "project") for name in own]
    return found


def untrusted_notes(kind: Literal["commands", "skills"], workspace: Path) -> list[str]:
    """A note for each of the project's folders of ``kind`` that exists, left out because
    the folder is not trusted."""
    every = places(kind, workspace, trusted=True)
    left_out = [p.folder for p in every if p.scope == "project" and p.folder.is_dir()]
    why = "left out: this folder is not trusted (`nehanda trust` if you do)"
    return [f"{folder}: {why}" for folder in left_out]
