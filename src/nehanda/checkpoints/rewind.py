"""What going back to before a prompt does to the files: the REPL's ``/rewind``.

Turns are numbered in the order they ran, so the turns from a prompt's own on are
everything that ran since it. ``preview`` says what restoring them would do (``undo``'s
plan, with the files as they are now) and shows it as a unified diff from each file as
it is now to what would be put back; nothing is written. ``restore`` then takes those
turns back through ``undo``, whose record lets ``nehanda undo --redo`` take the restore
back in turn.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path

from nehanda.checkpoints.states import Plan, State
from nehanda.checkpoints.store import Store
from nehanda.checkpoints.undo import Done, open_turns, planned, read_now, undo
from nehanda.errors import ConfigError

# Past this size a file's change is told by its sizes: a diff would be slow and unread.
MAX_DIFFED_BYTES = 1024 * 1024


@dataclass(frozen=True)
class Rewind:
    """Restoring the files as they were before turn ``first``: the ``turns`` still open
    from it on (numbers), and what that does (``plan``, ``diff``)."""

    first: int
    turns: tuple[int, ...]
    plan: Plan
    diff: tuple[str, ...]

    @property
    def changes_files(self) -> bool:
        return bool(self.plan.restore)


def preview(store: Store, session: Path, workspace: Path, first: int) -> Rewind:
    chosen = [turn for turn in open_turns(session) if turn.number >= first]
    decided = planned(store, session, workspace, chosen)
    diff = [
        line for rel, state in decided.restore for line in _file_diff(store, workspace, rel, state)
    ]
    return Rewind(first, tuple(turn.number for turn in chosen), decided, tuple(diff))


def restore(store: Store, session: Path, workspace: Path, rewind: Rewind, *, force: bool) -> Done:
    """Takes back the turns ``rewind`` previewed; ``undo.Refused`` when a file changed
    since, unless ``force``."""
    if not rewind.turns:
        return Done((), (), ())
    return undo(store, session, workspace, turns=len(rewind.turns), force=force)


def _file_diff(store: Store, workspace: Path, rel: str, restored: State) -> list[str]:
    try:
        now: bytes | None = read_now(workspace, rel)
    except OSError:
        now = None  # gone, or no regular file: what is put back replaces it
    try:
        then = None if restored.kind == "absent" else store.get(restored.digest)
    except ConfigError as error:
        return [f"@ {rel}: {error}"]
    old_name = f"a/{rel}" if now is not None else "/dev/null"
    new_name = f"b/{rel}" if then is not None else "/dev/null"
    old_text, new_text = _text(now), _text(then)
    if old_text is None or new_text is None:
        return [f"--- {old_name}", f"+++ {new_name}", _sizes(rel, now, then)]
    return list(
        difflib.unified_diff(
            old_text.splitlines(), new_text.splitlines(), old_name, new_name, lineterm=""
        )
    )


def _text(data: bytes | None) -> str | None:
    """``data`` as text for a diff; ``None`` when it is binary or too large."""
    if data is None:
        return ""
    if len(data) > MAX_DIFFED_BYTES or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _sizes(rel: str, now: bytes | None, then: bytes | None) -> str:
    def size(data: bytes | None) -> str:
        return "absent" if data is None else f"{len(data):,} bytes"

    return f"@ {rel}: {size(now)} now, {size(then)} once restored (no diff shown)"
