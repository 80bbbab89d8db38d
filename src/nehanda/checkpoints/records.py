"""Reading and writing one session's checkpoint records (``store`` lays them out).

A ``Turn`` is one prompt's record: its number, prompt, the files it changed
(``states.Change`` by path) and ``pending``, the snapshot a Bash command was started
from and not yet compared against (set before the command runs, cleared after). An
``Undo`` is what one ``nehanda undo`` did: the turns it took back and, per file, the
state it found (``before``) and the one it restored (``after``), so that ``--redo``
undoes it in turn. Records read back are checked (``states.changes_from_json``): a
record edited to name a path outside the workspace is refused whole.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nehanda.checkpoints.states import (
    Change,
    State,
    changes_from_json,
    changes_to_json,
    safe_relative,
    state_from_json,
    state_to_json,
)
from nehanda.checkpoints.store import next_number, numbered, read_json, write_json
from nehanda.errors import ConfigError


@dataclass
class Turn:
    number: int
    prompt: str
    at: float = field(default_factory=time.time)
    files: dict[str, Change] = field(default_factory=dict)
    pending: int | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "turn": self.number,
            "prompt": self.prompt,
            "at": self.at,
            "files": changes_to_json(self.files),
            "pending": self.pending,
        }


@dataclass
class Undo:
    number: int
    turns: tuple[int, ...]
    files: dict[str, Change]
    redone: bool = False

    def to_json(self) -> dict[str, Any]:
        files = changes_to_json(self.files)
        return {
            "undo": self.number,
            "turns": list(self.turns),
            "files": files,
            "redone": self.redone,
        }


def save_turn(session: Path, turn: Turn) -> None:
    write_json(session / "turns" / f"{turn.number}.json", turn.to_json())


def save_undo(session: Path, undo: Undo) -> None:
    write_json(session / "undos" / f"{undo.number}.json", undo.to_json())


def new_undo(session: Path, turns: tuple[int, ...], files: dict[str, Change]) -> Undo:
    return Undo(next_number(session / "undos"), turns, files)


def turns_of(session: Path) -> list[Turn]:
    return [_turn(path) for path in numbered(session / "turns")]


def undos_of(session: Path) -> list[Undo]:
    return [_undo(path) for path in numbered(session / "undos")]


def _turn(path: Path) -> Turn:
    data = read_json(path)
    try:
        pending = data.get("pending")
        turn = Turn(int(data["turn"]), str(data.get("prompt", "")), float(data.get("at", 0)))
        turn.files = changes_from_json(data["files"])
        turn.pending = None if pending is None else int(pending)
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ConfigError(f"refused the checkpoint record {path}: {error}") from None
    return turn


def _undo(path: Path) -> Undo:
    data = read_json(path)
    try:
        turns = tuple(int(n) for n in data["turns"])
        return Undo(
            int(data["undo"]), turns, changes_from_json(data["files"]), bool(data["redone"])
        )
    except (ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"refused the checkpoint record {path}: {error}") from None


@dataclass(frozen=True)
class Logged:
    """A file as the snapshot log last saw it: its metadata signature and state."""

    signature: str
    state: State


def append_snapshot(session: Path, seq: int, changed: dict[str, Logged], gone: list[str]) -> None:
    """One line of the snapshot log: what differs from the line before, synced."""
    line = {
        "seq": seq,
        "set": {rel: [s.signature, state_to_json(s.state)] for rel, s in changed.items()},
        "gone": gone,
    }
    session.mkdir(parents=True, exist_ok=True)
    with (session / "snapshots.jsonl").open("ab") as file:
        file.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")
        file.flush()
        os.fsync(file.fileno())


def snapshot_at(session: Path, seq: int) -> dict[str, Logged]:
    """The workspace as the snapshot log saw it at ``seq``; torn or hostile lines are
    refused as the records are."""
    seen: dict[str, Logged] = {}
    for line in _lines(session / "snapshots.jsonl"):
        try:
            data = json.loads(line)
            if int(data["seq"]) > seq:
                break
            for raw, (signature, state) in data["set"].items():
                seen[_checked(raw)] = Logged(str(signature), state_from_json(state))
            for raw in data["gone"]:
                seen.pop(_checked(raw), None)
        except (ValueError, KeyError, TypeError) as error:
            raise ConfigError(f"refused the snapshot log of {session.name}: {error}") from None
    return seen


def _checked(raw: object) -> str:
    path = safe_relative(raw)
    if path is None or path != raw:
        raise ValueError(f"the recorded path {raw!r} is not a plain path in the workspace")
    return path


def _lines(path: Path) -> Iterator[bytes]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    # A line torn by a kill is the last, and it was never relied on.
    yield from (line for line in data.split(b"\n") if line.endswith(b"}"))
