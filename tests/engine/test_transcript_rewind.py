"""Prompt and rewind records read back: a rewound conversation resumes from before the
prompt it went back to, while the log keeps every message; a record that makes no
sense is skipped with a warning, never taken."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from nehanda.engine.blobs import Blobs
from nehanda.engine.transcript import SessionLog, message_to_json, read_session
from nehanda.types import Message


def user(text: str) -> Message:
    return Message.text_message("user", text)


def reply(text: str) -> Message:
    return Message.text_message("assistant", text)


def logged(tmp_path: Path, *records: Message | dict[str, Any]) -> Path:
    path = tmp_path / "s.jsonl"
    log = SessionLog(path)
    for record in records:
        if isinstance(record, Message):
            log.message(record)
        else:
            log.append(record)
    log.close()
    return path


def prompt(number: int, text: str, turn: int | None = None) -> dict[str, Any]:
    return {"type": "prompt", "number": number, "turn": turn, "text": text}


def texts(path: Path) -> list[str]:
    return [message.text for message in read_session(path).messages]


def test_prompts_are_read_back_with_their_messages_and_turns(tmp_path: Path) -> None:
    path = logged(
        tmp_path, user("one"), prompt(1, "one", 1), reply("a"), user("two"), prompt(2, "2", 3)
    )
    session = read_session(path)
    assert [(m.number, m.turn, m.text) for m in session.prompts] == [(1, 1, "one"), (2, 3, "2")]
    assert [m.message.text for m in session.prompts] == ["one", "two"]
    assert all(any(m.message is kept for kept in session.messages) for m in session.prompts)
    assert session.prompts_logged == 2


@pytest.mark.parametrize(
    ("to", "left", "prompts"),
    [(1, [], []), (2, ["one", "a"], [1]), (3, ["one", "a", "two", "b"], [1, 2])],
)
def test_a_rewind_drops_its_prompt_and_everything_after(
    tmp_path: Path, to: int, left: list[str], prompts: list[int]
) -> None:
    path = logged(
        tmp_path,
        *(user("one"), prompt(1, "one"), reply("a")),
        *(user("two"), prompt(2, "two"), reply("b")),
        *(user("three"), prompt(3, "three"), reply("c")),
        {"type": "rewind", "number": to},
    )
    session = read_session(path)
    assert texts(path) == left
    assert [mark.number for mark in session.prompts] == prompts
    assert session.prompts_logged == 3 and session.turns == 3 and session.first_prompt == "one"


def test_a_conversation_goes_on_after_a_rewind_and_can_rewind_again(tmp_path: Path) -> None:
    path = logged(
        tmp_path,
        *(user("one"), prompt(1, "one"), reply("a")),
        *(user("two"), prompt(2, "two"), reply("b")),
        {"type": "rewind", "number": 2},
        *(user("two again"), prompt(3, "two again"), reply("b2")),
        {"type": "rewind", "number": 3},
        *(user("two, third try"), prompt(4, "two, third try")),
    )
    assert texts(path) == ["one", "a", "two, third try"]
    assert [mark.number for mark in read_session(path).prompts] == [1, 4]


def test_a_prompt_compacted_away_is_no_longer_one_to_rewind_to(tmp_path: Path) -> None:
    summary_message = user("[Summary of the earlier conversation] one, a")
    summary = message_to_json(summary_message, Blobs.beside(tmp_path / "s.jsonl"))
    path = logged(
        tmp_path,
        *(user("one"), prompt(1, "one"), reply("a")),
        *(user("two"), prompt(2, "two"), reply("b")),
        {"type": "compaction", "summary": summary, "kept": 2},
        {"type": "rewind", "number": 1},
    )
    session = read_session(path)
    assert [mark.number for mark in session.prompts] == [2]
    assert texts(path)[1:] == ["two", "b"]  # the rewind to a prompt no longer there is skipped
    assert any("rewind to prompt 1" in warning for warning in session.warnings)


def test_a_prompt_record_after_no_message_of_the_user_is_skipped(tmp_path: Path) -> None:
    path = logged(tmp_path, user("one"), reply("a"), prompt(1, "one"))
    session = read_session(path)
    assert session.prompts == [] and texts(path) == ["one", "a"]
    assert any("follows no message of the user" in warning for warning in session.warnings)
