"""Taking turns back, and taking an undo back: the I/O around ``states.plan``.

``undo`` gathers the last turns not yet undone, resolves a turn a crash left waiting
on a snapshot (the files that differ from it now are what the command changed),
looks at the files as they are now, and asks ``states.plan`` what to do. Before it
writes anything it records an ``Undo`` (what it found, with its contents kept), so
``redo`` can put that back the same way. Every write goes through the workspace's
descriptor following no symlink (``tools.beneath``) and replaces a file atomically
(``fs.replace_at``); a recorded path is a plain path below the workspace, or the
record is refused.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from nehanda.checkpoints.records import (
    Turn,
    new_undo,
    save_undo,
    snapshot_at,
    turns_of,
    undos_of,
)
from nehanda.checkpoints.scan import scan
from nehanda.checkpoints.states import ABSENT, Change, Plan, State, net_changes, plan
from nehanda.checkpoints.store import Store, digest_of, read_json
from nehanda.errors import ConfigError
from nehanda.fs import replace_at
from nehanda.tools.beneath import SymlinkMet, open_beneath, open_entry, open_folder
from nehanda.tools.paths import Placed

_READ = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY


class Refused(ConfigError):
    """An undo that would overwrite a later change; ``--force`` goes ahead."""


@dataclass(frozen=True)
class Done:
    restored: tuple[tuple[str, State], ...]
    lost: tuple[str, ...]
    turns: tuple[int, ...]


def latest_session(store: Store, workspace: Path) -> Path | None:
    """The session that most recently recorded a turn in ``workspace``."""
    for folder in store.sessions():
        marker = folder / "session.json"
        if marker.is_file() and read_json(marker).get("workspace") == str(workspace):
            return folder
    return None


def open_turns(session: Path) -> list[Turn]:
    """The session's turns that changed files and are not undone now, oldest first."""
    undone = {n for undo in undos_of(session) if not undo.redone for n in undo.turns}
    return [
        turn
        for turn in turns_of(session)
        if turn.files or turn.pending is not None
        if turn.number not in undone
    ]


def undo(store: Store, session: Path, workspace: Path, *, turns: int, force: bool) -> Done:
    chosen = open_turns(session)[-turns:]
    if not chosen:
        raise ConfigError(
            f"nothing to undo in session {session.name}: no turn of it is left that changed "
            "files; `nehanda undo --session ID` reaches an earlier session"
        )
    changes = net_changes([_resolved(session, workspace, turn) for turn in chosen])
    numbers = tuple(turn.number for turn in chosen)
    return _apply(store, session, workspace, changes, force, numbers)


def planned(store: Store, session: Path, workspace: Path, turns: list[Turn]) -> Plan:
    """What undoing ``turns`` would do, with the files as they are now; nothing written."""
    changes = net_changes([_resolved(session, workspace, turn) for turn in turns])
    return plan(changes, _observed(store, workspace, changes))


def redo(store: Store, session: Path, workspace: Path, *, force: bool) -> Done:
    undos = [u for u in undos_of(session) if not u.redone]
    if not undos:
        raise ConfigError("nothing to redo: no undo of that session is left to take back")
    last = undos[-1]
    done = _apply(store, session, workspace, last.files, force, last.turns, logged=False)
    last.redone = True
    save_undo(session, last)
    return done


def _resolved(session: Path, workspace: Path, turn: Turn) -> dict[str, Change]:
    """The turn's changes, with those of a command it was running when cut short."""
    if turn.pending is None:
        return turn.files
    files = dict(turn.files)
    logged = snapshot_at(session, turn.pending)
    seen = scan(workspace)
    for rel in logged.keys() | seen.keys():
        was, now = logged.get(rel), seen.get(rel)
        if rel in files or (was and now and was.signature == now.signature):
            continue
        files[rel] = Change(ABSENT if was is None else was.state, None)
    return files


def _apply(
    store: Store,
    session: Path,
    workspace: Path,
    changes: dict[str, Change],
    force: bool,
    turns: tuple[int, ...],
    *,
    logged: bool = True,
) -> Done:
    current = _observed(store, workspace, changes)
    decided: Plan = plan(changes, current)
    if decided.conflicts and not force:
        raise Refused(f"refused: {'; '.join(decided.conflicts)}; --force restores anyway")
    if logged:
        found = {
            rel: Change(_kept(store, workspace, rel, current[rel]), state)
            for rel, state in decided.restore
        }
        save_undo(session, new_undo(session, turns, found))
    for rel, state in decided.restore:
        put_back(workspace, rel, state, store)
    return Done(decided.restore, decided.lost, turns)


def _observed(store: Store, workspace: Path, changes: dict[str, Change]) -> dict[str, State]:
    return {
        rel: observe(workspace, rel, change.after or change.before, store)
        for rel, change in changes.items()
    }


def observe(workspace: Path, rel: str, like: State, store: Store) -> State:
    """The file at ``rel`` now, as comparable with ``like``: listed by metadata where
    ``like`` was, else by the hash of its contents."""
    try:
        handle = open_beneath(Placed(workspace / rel, workspace), _READ | os.O_NOFOLLOW)
    except FileNotFoundError:
        return ABSENT
    except OSError as error:
        if error.errno == errno.ELOOP:  # a symlink stands there
            return State("kept", "symlink", 0, "a symlink")
        if isinstance(error, SymlinkMet) or error.errno == errno.ENOTDIR:
            return State("kept", "moved", 0, "a folder on its way is a symlink or a file")
        raise
    with os.fdopen(handle, "rb") as stream:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode):
            return State("kept", "special", 0, "not a regular file")
        signature = (
            f"{info.st_size}:{info.st_mtime_ns}:{info.st_ctime_ns}:{info.st_ino}:{info.st_mode}"
        )
        if like.kind == "kept":
            return State("kept", signature, stat.S_IMODE(info.st_mode), like.why)
        os.set_blocking(handle, True)
        return State("file", digest_of(stream.read()), stat.S_IMODE(info.st_mode))


def _kept(store: Store, workspace: Path, rel: str, now: State) -> State:
    """``now``, with the contents kept in the store so that a redo can restore them."""
    if now.kind != "file":
        return now
    return State("file", store.put(read_now(workspace, rel)), now.mode)


def read_now(workspace: Path, rel: str) -> bytes:
    """The contents of the regular file ``rel`` below ``workspace``, following no symlink."""
    handle = open_beneath(Placed(workspace / rel, workspace), _READ | os.O_NOFOLLOW)
    os.set_blocking(handle, True)
    with os.fdopen(handle, "rb") as stream:
        return stream.read()


def put_back(workspace: Path, rel: str, state: State, store: Store) -> None:
    """Makes ``rel`` be ``state`` again, below the workspace, following no symlink."""
    placed = Placed(workspace / rel, workspace)
    try:
        if state.kind == "absent":
            _remove(placed)
            return
        data = store.get(state.digest)
        folder = open_folder(placed, create=True)
        try:
            replace_at(folder, placed.path.name, data, state.mode or 0o644)
        finally:
            os.close(folder)
    except SymlinkMet:
        raise ConfigError(f"refused to restore {rel}: a folder on its way is a symlink") from None
    except OSError as error:
        raise ConfigError(f"cannot restore {rel}: {error.strerror or error}") from None


def _remove(placed: Placed) -> None:
    try:
        folder = open_folder(placed)
    except (FileNotFoundError, NotADirectoryError):
        return
    try:
        handle = open_entry(folder, placed.path.name, os.O_PATH)
        is_dir = stat.S_ISDIR(os.fstat(handle).st_mode)
        os.close(handle)
        if not is_dir:
            os.unlink(placed.path.name, dir_fd=folder)
    except FileNotFoundError:
        pass
    except OSError as error:
        if error.errno != errno.ELOOP:
            raise
        # A symlink the turn made: removed itself, never followed.
        with contextlib.suppress(FileNotFoundError):
            os.unlink(placed.path.name, dir_fd=folder)
    finally:
        os.close(folder)
