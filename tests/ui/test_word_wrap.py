"""Prose breaks between words at a terminal's width: the rows, and the REPL's notes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from nehanda.ui.live import LiveRenderer
from nehanda.ui.screen_fit import prose_rows
from nehanda.ui.word_wrap import columns_of, wrap_text, wrap_words


@pytest.mark.parametrize(
    ("line", "columns", "indent", "rows"),
    [
        ("short", 20, "", ["short"]),
        ("one two three four", 9, "", ["one two", "three", "four"]),
        ("one two three four", 9, "  ", ["one two", "  three", "  four"]),
        ("a verylongwordindeed b", 8, "", ["a", "verylongwordindeed", "b"]),  # kept whole
        ("  indented words here", 12, "  ", ["  indented", "  words here"]),
        ("两个字 宽字符 很宽", 8, "", ["两个字", "宽字符", "很宽"]),  # wide: two columns each
        ("", 10, "", [""]),
    ],
)
def test_rows_break_between_words(line: str, columns: int, indent: str, rows: list[str]) -> None:
    assert wrap_words(line, columns, indent) == rows


def test_a_message_hangs_under_its_label_and_a_later_line_under_its_own_indent() -> None:
    text = "note: one two three four\n  - five six seven"
    assert wrap_text(text, 16, hang=6) == [
        "note: one two",
        "      three four",
        "  - five six",
        "    seven",
    ]


def test_a_word_wider_than_the_screen_is_cut_only_in_prose_rows() -> None:
    assert prose_rows("see /a/very/long/path/indeed now", 10) == [
        "see",
        "/a/very/lo",
        "ng/path/in",
        "deed",
        "now",
    ]


@given(st.text(st.sampled_from("ab 界-"), max_size=200), st.integers(4, 120))
def test_every_word_is_kept_and_none_is_broken(line: str, columns: int) -> None:
    rows = wrap_words(line, columns)
    assert " ".join(rows).split() == line.split()
    assert all(columns_of(row) <= columns or " " not in row.strip() for row in rows)


SENTENCE = "the archivists recalibrate their luminous typewriters beside the observatory"


def test_a_repl_note_wraps_at_words_on_a_terminal_and_stays_one_line_in_a_pipe() -> None:
    shown = io.StringIO()
    on_terminal = Console(file=shown, width=40, force_terminal=True, color_system=None)
    LiveRenderer(on_terminal, Path()).note(SENTENCE)
    assert shown.getvalue().splitlines() == [
        "note: the archivists recalibrate their",
        "      luminous typewriters beside the",
        "      observatory",
    ]
    piped = io.StringIO()
    LiveRenderer(Console(file=piped, width=40), Path()).note(SENTENCE)
    assert piped.getvalue() == f"note: {SENTENCE}\n"
