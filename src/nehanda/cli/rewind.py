"""The REPL's ``/rewind``: back to before an earlier prompt, for the files, the
conversation, or both.

The picker lists the conversation's prompts, the latest first, each with the files its
turn changed. Once one is picked, the diff that restoring the files would make is shown
(``checkpoints.rewind.preview``), and the user chooses what to restore: the files and
the conversation, the conversation only, the files only, or nothing. A file changed
since by something else is named, and restored only after a second, explicit yes. The
files go first, so that a refusal leaves the conversation as it was; a rewound
conversation gives its prompt back in the input line, to edit or send again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from nehanda.checkpoints.records import Turn, turns_of
from nehanda.checkpoints.rewind import Rewind, preview, restore
from nehanda.checkpoints.undo import open_turns
from nehanda.cli.picker import Choice
from nehanda.cli.repl_input import TerminalReader
from nehanda.cli.undo_command import described
from nehanda.engine.transcript import PromptMark, live_marks
from nehanda.ui.shown_text import printable

if TYPE_CHECKING:
    from nehanda.cli.repl import Repl

Pick = Callable[[str, list[Choice], str | None], Awaitable[Choice | None]]

BOTH, CONVERSATION, FILES, CANCEL = "both", "conversation", "files", "cancel"
_SHOWN_PROMPT = 60
_NAMED_FILES = 3


def prompt_choices(
    marks: Sequence[PromptMark], turns: Mapping[int, Turn], undone: set[int]
) -> list[Choice]:
    """The prompts to pick from, the latest first, each with what its turn changed."""
    return [
        Choice(str(mark.number), _first_line(mark.text), _changed(mark, turns, undone))
        for mark in reversed(marks)
    ]


def restore_choices(rewind: Rewind | None) -> list[Choice]:
    """What may be restored: the files only when there is something to put back."""
    files = rewind is not None and rewind.changes_files
    choices = [Choice(BOTH, "restore the files and the conversation")] if files else []
    choices.append(Choice(CONVERSATION, "restore the conversation only"))
    if files:
        choices.append(Choice(FILES, "restore the files only"))
    return [*choices, Choice(CANCEL, "never mind")]


def preview_lines(rewind: Rewind | None, why_not: str) -> list[str]:
    """What is said before the choice: the diff, and what cannot or must not be restored."""
    if rewind is None:
        return [f"the files cannot be restored: {why_not}"]
    if not rewind.changes_files and not rewind.plan.lost:
        return ["no file has changed since that prompt: only the conversation goes back"]
    lines = [f"warning: {conflict}" for conflict in rewind.plan.conflicts]
    lines += [f"cannot restore {lost}" for lost in rewind.plan.lost]
    return lines


async def rewind_command(repl: Repl, pick: Pick) -> None:
    chat, renderer = repl.chat, repl.renderer
    marks = live_marks(chat.marks, chat.agent.messages)
    if not marks:
        renderer.say("nothing to rewind: no prompt of this conversation is left to go back to")
        return
    recorder = chat.checkpoints
    turns = {turn.number: turn for turn in turns_of(recorder.folder)} if recorder else {}
    still_open = {turn.number for turn in open_turns(recorder.folder)} if recorder else set()
    undone = set(turns) - still_open
    choices = prompt_choices(marks, turns, undone)
    picked = await pick("Go back to before which prompt?", choices, None)
    if picked is None:
        return
    mark = next(mark for mark in marks if str(mark.number) == picked.value)
    rewind, why_not = None, "checkpoints are off ([checkpoints] enabled = false)"
    if recorder is not None and mark.turn is not None:
        rewind = preview(recorder.store, recorder.folder, recorder.workspace, mark.turn)
    elif recorder is not None:
        why_not = "that prompt ran while checkpoints were off"
    renderer.say(f"before: {_first_line(mark.text)}", "bold")
    if rewind is not None and rewind.diff:
        renderer.diff(rewind.diff)
    for line in preview_lines(rewind, why_not):
        renderer.say(line, "yellow")
    what = await pick("Restore what?", restore_choices(rewind), None)
    if what is None or what.value == CANCEL:
        renderer.say("nothing was restored")
        return
    restoring_files = what.value in (BOTH, FILES) and rewind is not None
    if restoring_files and not await _restore_files(repl, rewind):
        return
    if what.value in (BOTH, CONVERSATION):
        chat.rewind(mark)
        said = "the conversation is back to before that prompt"
        if isinstance(repl.reader, TerminalReader):  # a plain reader has no input to fill
            repl.refill = mark.text
            said += ", which is in the input"
        renderer.say(said)


async def _restore_files(repl: Repl, rewind: Rewind | None) -> bool:
    """Restores the files ``rewind`` previewed; false when the user held back or the
    restore was refused (then nothing is restored)."""
    recorder, renderer = repl.chat.checkpoints, repl.renderer
    assert recorder is not None and rewind is not None
    force = False
    if rewind.plan.conflicts:
        renderer.say("those files changed since; restoring them loses that (y = go ahead)")
        answer = await repl.reader.read()
        if (answer or "").strip().lower() not in ("y", "yes"):
            renderer.say("nothing was restored")
            return False
        force = True
    done = restore(recorder.store, recorder.folder, recorder.workspace, rewind, force=force)
    renderer.say(described(done, "undid"))
    renderer.say("`nehanda undo --redo` takes this back", "dim")
    return True


def _first_line(text: str) -> str:
    line = printable(text.strip().splitlines()[0] if text.strip() else "(an empty prompt)")
    return line if len(line) <= _SHOWN_PROMPT else line[: _SHOWN_PROMPT - 1] + "…"


def _changed(mark: PromptMark, turns: Mapping[int, Turn], undone: set[int]) -> str:
    turn = turns.get(mark.turn) if mark.turn is not None else None
    if turn is None or not turn.files:
        return ""
    names = sorted(turn.files)
    shown = ", ".join(printable(name) for name in names[:_NAMED_FILES])
    more = f" and {len(names) - _NAMED_FILES} more" if len(names) > _NAMED_FILES else ""
    state = " (undone)" if turn.number in undone else ""
    return f"changed {shown}{more}{state}"
