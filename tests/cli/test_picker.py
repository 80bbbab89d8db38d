"""The picker's pure part (cursor, digits, scrolling, a typed answer) and what the REPL's
lists hold: models, providers, this folder's sessions, a resumed conversation's end."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.cli.picker import Choice, Picker, chosen, numbered
from nehanda.cli.repl_lists import provider_choices, recent_lines, session_choices
from nehanda.cli.session_list import age
from nehanda.config.settings import Flags, ProviderConfig, load_settings
from nehanda.engine.transcript import Session, SessionLog
from nehanda.types import Message, ToolUse

CHOICES = [Choice("q", "q"), Choice("q2", "q2", "second"), Choice("q3", "q3")]


def test_the_cursor_stops_at_the_ends_and_the_view_follows_it() -> None:
    picker = Picker(25, cursor=0, height=10)
    picker.move(-1)
    assert picker.cursor == 0 and picker.visible() == range(10)
    picker.move(12)
    assert picker.cursor == 12 and picker.visible() == range(3, 13)
    picker.move(100)
    assert picker.cursor == 24 and picker.visible() == range(15, 25)
    assert Picker(25, cursor=20).visible() == range(11, 21)


@pytest.mark.parametrize(
    ("count", "keys", "cursor", "settled"),
    [
        (3, "2", 1, True),  # nine rows or fewer: one digit picks
        (3, "7", 0, False),  # not on the list: nothing moves
        (12, "1", 0, False),  # more rows: digits go to a row, Enter picks it
        (12, "12", 11, False),
        (12, "19", 8, False),  # 19 is past the end: the new digit starts again
    ],
)
def test_digits(count: int, keys: str, cursor: int, settled: bool) -> None:
    picker = Picker(count)
    results = [picker.digit(key) for key in keys]
    assert picker.cursor == cursor and results[-1] is settled


@given(st.integers(1, 40), st.lists(st.integers(-30, 30) | st.sampled_from("0123456789")))
def test_the_cursor_is_always_on_a_row_in_view(count: int, keys: list[int | str]) -> None:
    picker = Picker(count, cursor=count // 2, height=7)
    for key in keys:
        picker.digit(key) if isinstance(key, str) else picker.move(key)
        assert 0 <= picker.cursor < count and picker.cursor in picker.visible()
        assert len(picker.visible()) == min(count, 7)


def test_a_typed_answer_is_a_number_on_the_list_or_nothing() -> None:
    assert chosen("2\n", CHOICES) == CHOICES[1]
    assert chosen("", CHOICES) is None and chosen(None, CHOICES) is None
    for bad in ("0", "4", "q2", "-1"):
        with pytest.raises(ValueError, match="type a number from 1 to 3"):
            chosen(bad, CHOICES)


def test_the_numbered_list_marks_the_current_item() -> None:
    assert numbered("Models:", CHOICES, "q2") == "Models:\n1. q\n2. q2 ✔  second\n3. q3"


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (5, "just now"),
        (61, "1 min ago"),
        (7300, "2 h ago"),
        (86400, "1 day ago"),
        (3e5, "3 days ago"),
    ],
)
def test_age(seconds: float, said: str) -> None:
    assert age(seconds) == said


def test_the_providers_listed_are_the_configured_ones_with_the_one_in_use_first(
    tmp_path: Path,
) -> None:
    settings_file = Path(os.environ["XDG_CONFIG_HOME"]) / "nehanda" / "settings.toml"
    settings_file.parent.mkdir(parents=True)
    settings_file.write_text(
        '[providers.lab]\ntype = "vllm"\nbase_url = "http://user:pw@10.0.0.5:8000/v1?k=1"\n'
        '[providers.claude]\ntype = "anthropic"\n'
    )
    settings = load_settings(tmp_path, Flags())
    found = ProviderConfig(name="Ollama", type="ollama", base_url="http://127.0.0.1:11434")
    listed = provider_choices(settings, found)
    assert [c.value for c in listed] == ["Ollama", "lab", "claude"]
    assert listed[1].detail == "vllm · its default model · http://10.0.0.5:8000/v1"
    in_use = settings.providers["lab"]
    lab = ProviderConfig(name="lab", type=in_use.type, base_url="http://10.0.0.5:8000/v1")
    assert [c.value for c in provider_choices(settings, lab)] == ["lab", "claude"]


def write(
    directory: Path, session_id: str, folder: Path, messages: list[Message], age: float
) -> None:
    path = directory / f"{session_id}.jsonl"
    log = SessionLog(path)
    log.append({"type": "session", "id": session_id, "workspace": str(folder)})
    for message in messages:
        log.message(message)
    log.close()
    os.utime(path, (time.time() - age, time.time() - age))


def test_sessions_listed_are_this_folders_with_an_answer_newest_first(tmp_path: Path) -> None:
    here, answer = tmp_path / "here", Message.text_message("assistant", "ok")
    long = "a prompt " * 20
    write(tmp_path, "s1", here, [Message.text_message("user", long), answer], 4000)
    write(tmp_path, "s2", here, [Message.text_message("user", "newer"), answer], 100)
    write(tmp_path, "s3", tmp_path / "there", [Message.text_message("user", "x"), answer], 10)
    write(tmp_path, "s4", here, [Message.text_message("user", "no answer yet")], 5)
    listed = session_choices(here, tmp_path)
    assert [c.value for c in listed] == ["s2", "s1"]
    assert listed[0].label == "newer" and listed[0].detail == "1 min ago · 1 reply"
    assert listed[1].label == ("a prompt " * 6)[:49] + "…"


def test_a_resumed_conversation_shows_its_last_prompts_and_answers() -> None:
    read = ToolUse("c1", "Read", {"file_path": "a"})
    messages = [
        Message.text_message("user", "first"),
        Message.text_message("assistant", "one"),
        Message.text_message("user", "second"),
        Message("assistant", (read,)),
        Message.text_message("assistant", "line\n" * 5 + "end"),
    ]
    assert recent_lines(Session("s", messages=messages)) == [
        "one",
        "> second",
        "(called Read)",
        "line\nline\nline …",
    ]


def test_a_label_with_escape_sequences_is_shown_escaped() -> None:
    hostile = Choice("m", "m\x1b]0;/permissions mode yolo\x07\x1b[21t")
    shown = numbered("Models:", [hostile], None)
    assert "\x1b" not in shown and "\x07" not in shown
