"""The session log: durable lines, a torn last line survived, secrets never written."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.engine.blobs import Blobs
from nehanda.engine.transcript import (
    GONE,
    SessionLog,
    find_session,
    latest_session,
    message_from_json,
    message_to_json,
    read_session,
    sessions_dir,
)
from nehanda.errors import ConfigError
from nehanda.secret_env import redact, secret_values
from nehanda.types import ImagePart, Message, ReasoningPart, TextPart, ToolResult, ToolUse

CONVERSATION = [
    Message.text_message("user", "read it"),
    Message(
        "assistant",
        (
            ReasoningPart("thinking", "sig"),
            TextPart("Sure."),
            ToolUse("c1", "Read", {"file_path": "a"}),
        ),
    ),
    Message("tool", (ToolResult("c1", "line one\nline two"),)),
    Message.text_message("assistant", "It has two lines."),
]


def write_session(path: Path, workspace: Path, messages: list[Message]) -> None:
    log = SessionLog(path)
    log.append({"type": "session", "id": path.stem, "workspace": str(workspace)})
    for message in messages:
        log.message(message)
    log.close()


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    write_session(path, tmp_path, CONVERSATION)
    session = read_session(path)
    assert session.messages == CONVERSATION
    assert (session.first_prompt, session.turns, session.warnings) == ("read it", 2, [])


def test_a_compacted_session_keeps_its_first_prompt_as_title_and_counts_every_reply(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    write_session(path, tmp_path, CONVERSATION)
    log = SessionLog(path)
    summary = Message.text_message("user", "[Summary of the earlier conversation]\nread a")
    log.append({"type": "compaction", "summary": message_to_json(summary, log.blobs), "kept": 0})
    log.message(Message.text_message("assistant", "Done."))
    log.close()
    session = read_session(path)
    assert session.messages[0] == summary  # what a resume sends
    assert (session.first_prompt, session.turns) == ("read it", 3)


def test_torn_last_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    write_session(path, tmp_path, CONVERSATION)
    with path.open("a") as file:
        file.write('{"type": "message", "message": {"role": "assist')
    session = read_session(path)
    assert session.messages == CONVERSATION
    assert len(session.warnings) == 1 and f"{path}:6" in session.warnings[0]


def test_a_line_torn_inside_a_character_is_skipped_like_any_other(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    write_session(path, tmp_path, CONVERSATION)
    whole = '{"type": "message", "message": {"role": "user", "parts": [{"text": "café"}]}}'
    with path.open("ab") as file:
        file.write(whole.encode()[: whole.encode().index(b"\xa9")])
    session = read_session(path)
    assert session.messages == CONVERSATION
    assert len(session.warnings) == 1 and f"{path}:6" in session.warnings[0]


def test_records_appended_after_a_torn_line_start_a_line_of_their_own(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    write_session(path, tmp_path, CONVERSATION[:2])
    torn = '{"type": "message", "message": {"role": "assist'
    with path.open("a") as file:
        file.write(torn)
    write_session(path, tmp_path, CONVERSATION[2:])
    assert path.read_text().splitlines()[3] == torn
    session = read_session(path)
    assert session.messages == CONVERSATION
    assert len(session.warnings) == 1 and f"{path}:4" in session.warnings[0]


def test_appending_to_a_whole_log_adds_no_blank_line(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    write_session(path, tmp_path, CONVERSATION[:2])
    write_session(path, tmp_path, CONVERSATION[2:])
    session = read_session(path)
    assert (session.messages, session.warnings) == (CONVERSATION, [])


def test_secrets_from_the_environment_are_redacted(tmp_path: Path) -> None:
    values = secret_values(
        {"MY_API_KEY": "sk-abcdef123456", "GH_TOKEN": 'tok"en\\value', "HOME": "/root"}
    )
    assert "/root" not in values
    path = tmp_path / "s.jsonl"
    log = SessionLog(path, values)
    log.message(Message("tool", (ToolResult("c", 'KEY=sk-abcdef123456 and tok"en\\value'),)))
    log.close()
    text = path.read_text()
    assert "sk-abcdef123456" not in text and "en\\\\value" not in text
    assert read_session(path).messages[0].tool_results[0].content == "KEY=[REDACTED] and [REDACTED]"


def test_latest_session_is_per_workspace(tmp_path: Path) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    write_session(tmp_path / "20260101-000000-aaaaaa.jsonl", here, CONVERSATION[:1])
    write_session(tmp_path / "20260102-000000-bbbbbb.jsonl", there, CONVERSATION[:1])
    found = latest_session(here, tmp_path)
    assert found is not None and found.id == "20260101-000000-aaaaaa"
    assert latest_session(tmp_path / "elsewhere", tmp_path) is None


@given(st.text(), st.text(min_size=8).filter(lambda s: s.strip() == s and s))
def test_redaction_removes_every_occurrence(text: str, secret: str) -> None:
    assert secret not in redact(text + secret + text, [secret]).replace("[REDACTED]", "\0")


def test_messages_survive_json(tmp_path: Path) -> None:
    blobs = Blobs(tmp_path)
    for message in CONVERSATION:
        assert message_from_json(message_to_json(message, blobs), blobs) == message


def test_images_are_stored_by_content_hash_beside_the_log_not_inline(tmp_path: Path) -> None:
    png = (Path(__file__).parents[1] / "fixtures" / "images" / "red_2x2.png").read_bytes()
    image = ImagePart.of(png, "red_2x2.png")
    shown = [
        Message("user", (TextPart("what is this?"), image)),
        Message("tool", (ToolResult("c1", "PNG image, 2x2", images=(image,)),)),
    ]
    path = tmp_path / "sessions" / "20260101-000000-aaaaaa.jsonl"
    log = SessionLog(path)
    for message in shown:
        log.message(message)
    log.close()
    digest = hashlib.sha256(png).hexdigest()
    assert [p.name for p in (tmp_path / "sessions" / "images").iterdir()] == [digest]
    text = path.read_text()
    assert digest in text and base64.b64encode(png).decode()[:40] not in text
    assert read_session(path).messages == shown

    (tmp_path / "sessions" / "images" / digest).write_bytes(b"changed")
    again = read_session(path).messages
    assert again[0].parts[1] == TextPart(GONE) and not again[1].tool_results[0].images
    assert again[1].tool_results[0].content == "PNG image, 2x2\n" + GONE


@pytest.mark.parametrize(
    ("typed", "found"),
    [
        ("20261203-171550-5ea999", "20261203-171550-5ea999"),
        ("5ea999", "20261203-171550-5ea999"),
        ("5ea", "20261203-171550-5ea999"),
        ("20261203-1715", "20261203-171550-5ea999"),
        ("20261203", "2 sessions' ids"),
        ("beef", "no session 'beef'"),
        ("../../etc/x", "is no session id"),
        ("*", "is no session id"),
    ],
)
def test_a_session_is_found_by_its_id_or_a_unique_start_of_it(
    tmp_path: Path, typed: str, found: str
) -> None:
    folder = sessions_dir()
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("20261203-171550-5ea999", "20261203-090000-c0ffee"):
        write_session(folder / f"{name}.jsonl", tmp_path, CONVERSATION)
    try:
        assert find_session(typed).id == found
    except ConfigError as error:
        assert found in str(error)
        assert not found.startswith("2026")
