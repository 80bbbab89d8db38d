"""A file's recorded states, and what undoing some turns would do; pure.

A ``State`` is a file as a checkpoint knows it: its contents by hash (``file``), no
file (``absent``), or a file listed but not copied (``kept``: ignored, over the size
cap, a symlink), known only by a signature of its metadata. A turn's ``Change`` holds
a file's state before the turn touched it and after (``None`` after a crash between
the record and the change). ``plan`` decides what undoing some turns restores, what it
refuses (a file changed since by something else) and what it cannot restore.

Recorded paths are read back from files a command could have rewritten, so they are
hostile: ``safe_relative`` accepts only a plain path below the workspace.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any, Literal

Kind = Literal["file", "absent", "kept"]


@dataclass(frozen=True)
class State:
    kind: Kind
    digest: str = ""
    mode: int = 0o644
    why: str = ""  # for ``kept``: why it was not copied

    def same(self, other: State) -> bool:
        """Whether ``other`` is this file as it was: kind and contents (and mode)."""
        if self.kind != other.kind:
            return False
        if self.kind == "file":
            return self.digest == other.digest and self.mode & 0o111 == other.mode & 0o111
        return self.digest == other.digest


ABSENT = State("absent")


@dataclass(frozen=True)
class Change:
    before: State
    after: State | None


@dataclass(frozen=True)
class Plan:
    """``restore``: each path and the state to put back; ``conflicts``: one line per file
    changed since; ``lost``: files the checkpoint listed but could not copy."""

    restore: tuple[tuple[str, State], ...]
    conflicts: tuple[str, ...]
    lost: tuple[str, ...]


def net_changes(turns: Sequence[Mapping[str, Change]]) -> dict[str, Change]:
    """What ``turns`` (oldest first) changed in all: each file's state before the first
    of them touched it, and after the last."""
    net: dict[str, Change] = {}
    for turn in turns:
        for path, change in turn.items():
            first = net.get(path)
            net[path] = change if first is None else Change(first.before, change.after)
    return net


def plan(changes: Mapping[str, Change], current: Mapping[str, State]) -> Plan:
    """Undoing ``changes``, with the files as they are now (``current``)."""
    restore: list[tuple[str, State]] = []
    conflicts: list[str] = []
    lost: list[str] = []
    for path, change in sorted(changes.items()):
        now = current.get(path, ABSENT)
        if change.before.same(now):
            continue
        if change.after is not None and not change.after.same(now):
            conflicts.append(f"{path} changed after that turn ({_told(change.after, now)})")
        if change.before.kind == "kept":
            lost.append(f"{path}: {change.before.why}; its old contents were not copied")
        else:
            restore.append((path, change.before))
    return Plan(tuple(restore), tuple(conflicts), tuple(lost))


def _told(after: State, now: State) -> str:
    if now.kind == "absent":
        return "it was deleted since"
    if after.kind == "absent":
        return "it was created since"
    return "its contents differ from what the turn left"


def safe_relative(path: object) -> str | None:
    """``path`` if it is a plain relative path below the workspace (no ``..``, no ``.``,
    not absolute, nothing in ``.git``), else ``None``."""
    if not isinstance(path, str) or not path or "\0" in path or "\\" in path:
        return None
    parts = path.split("/")
    if path.startswith("/") or any(part in ("", ".", "..") for part in parts):
        return None
    if parts[0] == ".git":
        return None
    return str(PurePosixPath(path))


def state_to_json(state: State) -> dict[str, Any]:
    return {"kind": state.kind, "digest": state.digest, "mode": state.mode, "why": state.why}


def state_from_json(data: Any) -> State:
    """A state read back; ``ValueError`` for anything else (a record edited by hand)."""
    if not isinstance(data, dict) or data.get("kind") not in ("file", "absent", "kept"):
        raise ValueError(f"not a recorded file state: {data!r}")
    digest, mode, why = data.get("digest", ""), data.get("mode", 0o644), data.get("why", "")
    if not isinstance(digest, str) or not isinstance(mode, int) or not isinstance(why, str):
        raise ValueError(f"not a recorded file state: {data!r}")
    if data["kind"] == "file" and not _is_hash(digest):
        raise ValueError(f"not a content hash: {digest!r}")
    return State(data["kind"], digest, mode & 0o7777, why)


def _is_hash(text: str) -> bool:
    return len(text) == 64 and all(c in "0123456789abcdef" for c in text)


def changes_from_json(data: Any) -> dict[str, Change]:
    """A turn's recorded changes; ``ValueError`` for a hostile path or a broken state."""
    if not isinstance(data, dict):
        raise ValueError("the recorded files are not a table")
    changes: dict[str, Change] = {}
    for raw, change in data.items():
        path = safe_relative(raw)
        if path is None or path != raw:
            raise ValueError(f"the recorded path {raw!r} is not a plain path in the workspace")
        if not isinstance(change, dict):
            raise ValueError(f"the record of {raw!r} is not a table")
        after = change.get("after")
        changes[path] = Change(
            state_from_json(change.get("before")),
            None if after is None else state_from_json(after),
        )
    return changes


def changes_to_json(changes: Mapping[str, Change]) -> dict[str, Any]:
    return {
        path: {
            "before": state_to_json(change.before),
            "after": None if change.after is None else state_to_json(change.after),
        }
        for path, change in changes.items()
    }
