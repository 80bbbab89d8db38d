"""The shared cap on tool output: head and tail kept, the cut stated."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from nehanda.tools.output import cap_lines, cap_output

NOTE = re.compile(r"\[\.\.\. (\d+) bytes \((\d+) lines\) omitted \.\.\.\]\n")


def test_short_output_is_unchanged() -> None:
    assert cap_output("hello\nworld\n", max_bytes=100) == "hello\nworld\n"


def test_long_output_keeps_whole_lines_at_both_ends_and_counts_the_rest() -> None:
    text = "".join(f"line {n:04}\n" for n in range(1000))  # 10 bytes a line
    capped = cap_output(text, max_bytes=2000)
    assert capped.startswith("line 0000\n")
    assert capped.endswith("line 0999\n")
    assert "line 0099\n[... 8000 bytes (800 lines) omitted ...]\nline 0900\n" in capped


def test_cuts_never_split_a_character() -> None:
    capped = cap_output("é" * 5000, max_bytes=101)
    assert "\ufffd" not in capped
    head, tail = capped.split("\n[... ")
    assert set(head) == {"é"}
    assert tail.endswith("é")


@given(
    st.text(
        alphabet=st.characters(exclude_characters="[", exclude_categories=["Cs"]), max_size=400
    ),
    st.integers(20, 200),
)
def test_capped_text_is_a_head_a_note_and_a_tail_of_the_original(text: str, limit: int) -> None:
    capped = cap_output(text, max_bytes=limit)
    total = len(text.encode())
    if total <= limit:
        assert capped == text
        return
    note = NOTE.search(capped)
    assert note is not None
    omitted = int(note.group(1))
    tail = capped[note.end() :]
    assert text.endswith(tail)
    head = capped[: note.start()]
    if not text.startswith(head) or len(head.encode()) + omitted + len(tail.encode()) != total:
        head = head[:-1]  # the newline put before the note when the head ends mid-line
    assert text.startswith(head)
    assert len(head.encode()) + omitted + len(tail.encode()) == total
    assert len(head.encode()) + len(tail.encode()) <= limit


def test_cap_lines_says_how_many_more() -> None:
    assert cap_lines(["a", "b", "c"], 3) == "a\nb\nc"
    assert cap_lines(["a", "b", "c", "d", "e"], 2) == "a\nb\n... and 3 more"
