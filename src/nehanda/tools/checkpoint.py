"""What the file-changing tools tell the session's checkpoints (``nehanda.checkpoints``).

Write and Edit hand over a file's contents before they replace it and after; Bash says
when a command is about to run and when it has ended. Each call returns once the
record is on disk, so a change is never made before its checkpoint exists.
``NoCheckpoint`` records nothing (a context without checkpoints: tests, subagents'
own tools, ``exam``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol


class Checkpoint(Protocol):
    def before_write(self, path: Path, old: bytes | None, mode: int) -> None:
        """``path`` (resolved) is about to get new contents; ``old`` is None for no file."""

    def after_write(self, path: Path, new: bytes, mode: int) -> None: ...

    def before_command(self) -> None: ...

    def after_command(self) -> None: ...


class NoCheckpoint:
    def before_write(self, path: Path, old: bytes | None, mode: int) -> None:
        return None

    def after_write(self, path: Path, new: bytes, mode: int) -> None:
        return None

    def before_command(self) -> None:
        return None

    def after_command(self) -> None:
        return None
