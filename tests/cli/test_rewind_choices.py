"""What ``/rewind`` offers: the prompts, the latest first, with the files each changed;
and what may be restored, the files only when something would be put back."""

from __future__ import annotations

from nehanda.checkpoints.records import Turn
from nehanda.checkpoints.rewind import Rewind
from nehanda.checkpoints.states import ABSENT, Change, Plan, State
from nehanda.cli.rewind import preview_lines, prompt_choices, restore_choices
from nehanda.engine.transcript import PromptMark
from nehanda.types import Message

FILE = State("file", "0" * 64, 0o644)


def mark(number: int, text: str, turn: int | None) -> PromptMark:
    return PromptMark(number, turn, text, Message.text_message("user", text))


def changed(number: int, *names: str) -> Turn:
    return Turn(number, "", files={name: Change(ABSENT, FILE) for name in names})


def test_the_prompts_are_listed_latest_first_with_what_each_turn_changed() -> None:
    marks = [
        mark(1, "write the parser\nand its tests", 1),
        mark(2, "explain it", 2),
        mark(3, "x" * 100, 3),
        mark(4, "typed while checkpoints were off", None),
    ]
    turns = {1: changed(1, "p.py", "t.py"), 3: changed(3, "a", "b", "c", "d", "e")}
    choices = prompt_choices(marks, turns, undone={1})
    assert [(c.value, c.label, c.detail) for c in choices] == [
        ("4", "typed while checkpoints were off", ""),
        ("3", "x" * 59 + "…", "changed a, b, c and 2 more"),
        ("2", "explain it", ""),
        ("1", "write the parser", "changed p.py, t.py (undone)"),
    ]


def test_a_prompt_is_listed_with_its_control_characters_shown_not_sent() -> None:
    [choice] = prompt_choices([mark(1, "\x1b]0;pwned\x07hi", None)], {}, set())
    assert "\x1b" not in choice.label and "\x07" not in choice.label


def rewind(restore: tuple[tuple[str, State], ...], *, lost: tuple[str, ...] = ()) -> Rewind:
    return Rewind(1, (1,), Plan(restore, ("a changed after that turn (…)",), lost), ())


def test_the_files_are_offered_only_when_something_would_be_put_back() -> None:
    with_files = [c.value for c in restore_choices(rewind((("a", FILE),)))]
    assert with_files == ["both", "conversation", "files", "cancel"]
    assert [c.value for c in restore_choices(rewind(()))] == ["conversation", "cancel"]
    assert [c.value for c in restore_choices(None)] == ["conversation", "cancel"]


def test_what_is_said_before_the_choice() -> None:
    assert preview_lines(None, "checkpoints are off") == [
        "the files cannot be restored: checkpoints are off"
    ]
    assert preview_lines(rewind(()), "") == [
        "no file has changed since that prompt: only the conversation goes back"
    ]
    lost = ("b: over the checkpoint size cap; its old contents were not copied",)
    assert preview_lines(rewind((("a", FILE),), lost=lost), "") == [
        "warning: a changed after that turn (…)",
        f"cannot restore {lost[0]}",
    ]
