"""Which ``@`` words of a prompt name files, and which stay as typed."""

from __future__ import annotations

from pathlib import Path

import pytest

from nehanda.cli.custom_commands import command_word, unknown_message
from nehanda.cli.mentions import find_mentions, mentioned_file


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("look at @src/app.py please", ["src/app.py"]),
        ("@README.md, then @docs/a.md.", ["README.md", "docs/a.md"]),
        ("mail me@example.com", []),
        ('open @"my notes.txt" now', ["my notes.txt"]),
        ("(see @a.py)", ["a.py"]),
        ("(@a.py)", []),
        ("twice @a.py and @a.py", ["a.py"]),
        ("@", []),
    ],
)
def test_find_mentions(text: str, found: list[str]) -> None:
    assert find_mentions(text) == found


def test_only_an_existing_file_counts(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x")
    (tmp_path / "folder").mkdir()
    assert mentioned_file("a.py", tmp_path) == tmp_path / "a.py"
    assert mentioned_file("dataclass", tmp_path) is None
    assert mentioned_file("folder", tmp_path) is None


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("/review a.py", ("review", "a.py")),
        ("  /frontend:component  x y ", ("frontend:component", "x y")),
        ("/fix-issue_2", ("fix-issue_2", "")),
        ("/etc/hosts is broken", None),
        ("/ alone", None),
        ("what /review does", None),
        ("/Ünïcode", None),
    ],
)
def test_command_word(text: str, named: tuple[str, str] | None) -> None:
    assert command_word(text) == named


def test_the_unknown_message_names_the_closest_command_only_when_one_is_close() -> None:
    assert unknown_message("reveiw", ["review", "test"]) == (
        "unknown command /reveiw; did you mean /review? (nothing was sent)"
    )
    assert unknown_message("zzz", ["review"]) == "unknown command /zzz (nothing was sent)"
    assert "interactive session" in unknown_message("model", [], ["model"])
