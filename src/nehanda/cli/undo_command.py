"""``nehanda undo``: the words around ``checkpoints.undo`` (which session, what it did)."""

from __future__ import annotations

import time
from pathlib import Path

from nehanda.checkpoints.records import Turn, turns_of
from nehanda.checkpoints.states import State
from nehanda.checkpoints.store import Store
from nehanda.checkpoints.undo import Done, latest_session, open_turns, redo, undo
from nehanda.errors import ConfigError


def session_folder(store: Store, workspace: Path, session_id: str | None) -> Path:
    if session_id is not None:
        folder = store.session(session_id)
        if not folder.is_dir():
            raise ConfigError(f"no checkpoints of session {session_id!r} (`nehanda undo --list`)")
        return folder
    found = latest_session(store, workspace)
    if found is None:
        raise ConfigError(f"nothing to undo: no session has changed files in {workspace}")
    return found


def run_undo(
    workspace: Path, session_id: str | None, *, turns: int, force: bool, again: bool
) -> str:
    store = Store.default()
    folder = session_folder(store, workspace, session_id)
    if again:
        return described(redo(store, folder, workspace, force=force), "redid")
    return described(undo(store, folder, workspace, turns=turns, force=force), "undid")


def described(done: Done, verb: str) -> str:
    turns = ", ".join(str(n) for n in done.turns)
    lines = [f"{verb} turn{'s' if len(done.turns) > 1 else ''} {turns}:"]
    lines += [f"  {_verb(state)} {path}" for path, state in done.restored]
    lines += [f"  cannot restore {line}" for line in done.lost]
    if not done.restored and not done.lost:
        lines.append("  nothing to restore: the files are already as they were")
    return "\n".join(lines)


def _verb(state: State) -> str:
    return "deleted" if state.kind == "absent" else "restored"


def listed(workspace: Path, session_id: str | None) -> str:
    store = Store.default()
    folder = session_folder(store, workspace, session_id)
    open_now = {turn.number for turn in open_turns(folder)}
    lines = [f"session {folder.name}:"]
    for turn in turns_of(folder):
        if turn.files or turn.pending is not None:
            lines += _turn_lines(turn, turn.number in open_now)
    return "\n".join(lines)


def _turn_lines(turn: Turn, open_now: bool) -> list[str]:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(turn.at))
    state = "" if open_now else " (undone)"
    cut = " (cut short)" if turn.pending is not None else ""
    prompt = turn.prompt.splitlines()[0][:60] if turn.prompt.strip() else "(no prompt)"
    head = f"turn {turn.number}  {when}  {prompt}{state}{cut}"
    return [head, *(f"  {path}" for path in sorted(turn.files))]
