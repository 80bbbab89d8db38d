"""Recording a turn's changes as they happen: the ``tools.base.Checkpoint`` of a session.

``start_turn`` opens a turn (one prompt). Write and Edit hand over a file's old
contents before they replace it, and its new contents after. Around each Bash
command, ``before_command`` finds what changed in the workspace since the last look
(``tracked.Tracked``: one walk, then the folders inotify names), keeps the contents of
every file changed since then, appends the differences to the snapshot log
and marks the turn as waiting on it, all before the command runs; ``after_command``
looks again and records, for each file the command created, changed or deleted, its
state before and after. Each record is written atomically before the change, so a
turn cut short by a crash still says what to restore (``undo`` compares a pending
snapshot with the files as it finds them).

Ignored files, symlinks and files over ``max_file_bytes`` are listed by their
metadata, never copied. In a workspace of more than ``scan.MAX_ENTRIES`` entries
(a home folder) Bash's changes are not recorded at all; Write's and Edit's still are.
"""

from __future__ import annotations

import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from nehanda.checkpoints.records import Logged, Turn, append_snapshot, save_turn
from nehanda.checkpoints.scan import Seen, TooLarge
from nehanda.checkpoints.states import ABSENT, Change, State, safe_relative
from nehanda.checkpoints.store import Store, next_number, write_json
from nehanda.checkpoints.tracked import Tracked
from nehanda.tools.paths import is_inside, workspace_relative
from nehanda.tools.workfile import read_regular

OVER_CAP = "over the checkpoint size cap"


@dataclass(frozen=True)
class Limits:
    max_file_bytes: int = 10 * 1024 * 1024


class Recorder:
    """One session's checkpoints: its turns, and Bash's snapshot of the workspace."""

    def __init__(self, store: Store, session_id: str, workspace: Path, limits: Limits) -> None:
        self.store, self.workspace, self.limits = store, workspace, limits
        self.folder = store.session(session_id)
        self._number = next_number(self.folder / "turns") - 1
        self._turn: Turn | None = None
        self._tracked: Tracked | None = None  # made at the first command, with ``hidden``
        self._logged: dict[str, Logged] = {}
        self._seq = 0
        self.hidden: Callable[[Path], bool] = lambda path: False
        self.too_large = False  # Bash's changes are not recorded: see ``scan.MAX_ENTRIES``

    def start_turn(self, prompt: str) -> int:
        """Opens the turn of ``prompt``; its number."""
        self._number += 1
        self._turn = Turn(self._number, prompt[:500])
        return self._number

    def numbered_after(self, turn: int) -> None:
        """The next turn is numbered after ``turn`` (a resumed conversation's last), even
        where no record of it was kept (it changed nothing)."""
        self._number = max(self._number, turn)

    def before_write(self, path: Path, old: bytes | None, mode: int) -> None:
        rel = self._relative(path)
        if rel is None or rel in self._current().files:
            return
        before = ABSENT if old is None else self._keep(old, mode)
        self._record(rel, Change(before, None))

    def after_write(self, path: Path, new: bytes, mode: int) -> None:
        rel = self._relative(path)
        if rel is not None and rel in self._current().files:
            self._record(rel, Change(self._current().files[rel].before, self._keep(new, mode)))

    def before_command(self) -> None:
        if self.too_large:
            return
        try:
            self._refresh()
        except TooLarge:
            self.too_large = True
            return
        turn = self._current()
        turn.pending = self._seq
        self._save(turn)

    def after_command(self) -> None:
        if self.too_large:
            return
        before = dict(self._logged)
        self._refresh()
        turn = self._current()
        for rel in before.keys() | self._logged.keys():
            was, now = before.get(rel), self._logged.get(rel)
            if was == now:
                continue
            first = turn.files.get(rel)
            old = first.before if first else (ABSENT if was is None else was.state)
            turn.files[rel] = Change(old, ABSENT if now is None else now.state)
        turn.pending = None
        self._save(turn)

    def close(self) -> None:
        if self._tracked is not None:
            self._tracked.close()

    def _refresh(self) -> None:
        """Find what changed since the last look, keep its contents, log the difference."""
        first = self._tracked is None
        if self._tracked is None:
            self._tracked = Tracked(self.workspace, self.hidden)
        changed, gone = self._tracked.refresh()
        logged = {rel: Logged(s.signature, self._state(rel, s)) for rel, s in changed.items()}
        if first or changed or gone:
            if changed:
                self.store.sync()
            self._seq += 1
            self._write_session()
            append_snapshot(self.folder, self._seq, logged, gone)
        for rel in gone:
            self._logged.pop(rel, None)
        self._logged.update(logged)

    def _state(self, rel: str, seen: Seen) -> State:
        if seen.kept:
            return State("kept", seen.signature, seen.mode, seen.kept)
        if self.hidden(self.workspace / rel):
            return State("kept", seen.signature, seen.mode, "a secret place, never copied")
        if seen.size > self.limits.max_file_bytes:
            return State("kept", seen.signature, seen.mode, OVER_CAP)
        try:
            data = read_regular(self.workspace / rel)
        except OSError:
            return State("kept", seen.signature, seen.mode, "unreadable")
        return State("file", self.store.put(data, durable=False), seen.mode)

    def _keep(self, data: bytes, mode: int) -> State:
        if len(data) > self.limits.max_file_bytes:
            return State("kept", f"{len(data)}", mode, OVER_CAP)
        return State("file", self.store.put(data), stat.S_IMODE(mode))

    def _relative(self, path: Path) -> str | None:
        if not is_inside(path, self.workspace) or path == self.workspace:
            return None
        return safe_relative(workspace_relative(path, self.workspace))

    def _current(self) -> Turn:
        if self._turn is None:
            self.start_turn("")
        assert self._turn is not None
        return self._turn

    def _record(self, rel: str, change: Change) -> None:
        turn = self._current()
        turn.files[rel] = change
        self._save(turn)

    def _save(self, turn: Turn) -> None:
        self._write_session()
        save_turn(self.folder, turn)

    def _write_session(self) -> None:
        marker = self.folder / "session.json"
        if not marker.exists():
            write_json(marker, {"id": self.folder.name, "workspace": str(self.workspace)})
