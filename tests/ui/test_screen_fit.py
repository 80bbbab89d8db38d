"""Fitting a call to the screen and paging it: rows cut where a terminal wraps, a tall call
kept to its first and last rows with a line naming what is left out, and pages that
hold every row once, in order."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from nehanda.ui.screen_fit import fit, pages, row_count, rows_of, wrapped


def test_rows_are_cut_where_the_terminal_wraps() -> None:
    assert wrapped("abcdefg", 3) == ["abc", "def", "g"]
    assert wrapped("", 3) == [""]
    assert wrapped("日本語", 4) == ["日本", "語"]  # a wide character does not split
    assert wrapped("e\u0301e\u0301e\u0301", 2) == ["e\u0301e\u0301", "e\u0301"]
    assert wrapped("\tx", 80) == [" " * 8 + "x"]


def test_what_fits_is_left_whole() -> None:
    body = ["  $ a", "  $ b"]
    assert fit(body, 2, 80) == body


def test_a_tall_call_keeps_its_first_and_last_rows_and_names_the_rest() -> None:
    body = [f"  $ echo {n}" for n in range(1, 101)]
    shown = fit(body, 9, 80)
    assert shown == [
        *body[:4],
        "  ⋯ lines 5–96 are not shown here (press v to see all 100 lines) ⋯",
        *body[-4:],
    ]


def test_one_long_line_keeps_its_start_and_its_end() -> None:
    line = "  $ echo " + "x" * 2000 + "; rm -rf ~"
    shown = fit([line], 5, 80)
    assert shown[0] == line[:80] and shown[-1].endswith("; rm -rf ~")
    assert shown[2] == "  ⋯ the middle of the line is not shown here (press v to see it all) ⋯"
    assert len(shown) == 5


def test_a_line_cut_in_the_middle_is_named_in_part() -> None:
    body = ["short", "x" * 800, "end"]
    shown = fit(body, 5, 80)
    assert "part of line 2 is not shown here" in shown[2]


def test_even_a_tiny_room_shows_both_ends() -> None:
    body = [f"line {n}" for n in range(50)]
    assert fit(body, 0, 80) == [
        "line 0",
        "  ⋯ lines 2–49 are not shown here (press v to see all 50 lines) ⋯",
        "line 49",
    ]


def test_pages_say_where_they_are_and_end_with_the_coda() -> None:
    body = [f"  $ echo {n}" for n in range(1, 8)]
    shown = pages(body, 80, 4, coda=["It asks because x."])
    assert shown == [
        [
            "  $ echo 1",
            "  $ echo 2",
            "  $ echo 3",
            "-- lines 1–3 of 7, Space: next page, q: back to the question --",
        ],
        [
            "  $ echo 4",
            "  $ echo 5",
            "  $ echo 6",
            "-- lines 4–6 of 7, Space: next page, q: back to the question --",
        ],
        [
            "  $ echo 7",
            "It asks because x.",
            "-- line 7 of 7, the end; any key: back to the question --",
        ],
    ]


lines = st.lists(st.text(alphabet="ab日 é", max_size=300), min_size=1, max_size=40)


@given(lines, st.integers(0, 40), st.integers(40, 120))
def test_a_fitted_call_fits_and_keeps_its_ends(body: list[str], room: int, columns: int) -> None:
    shown = fit(body, room, columns)
    assert all(row_count([row], columns) == 1 for row in shown)
    if row_count(body, columns) <= max(room, 3):
        assert shown == rows_of(body, columns)
        return
    assert len(shown) <= max(room, 4)  # the room, or both ends and a note of two rows
    assert shown[0] == wrapped(body[0], columns)[0]
    assert shown[-1] == wrapped(body[-1], columns)[-1]
    assert re.search(r"(line \d+|lines \d+–\d+).* not shown here \(press v", "".join(shown))


def test_on_a_narrow_terminal_the_note_wraps_too() -> None:
    shown = fit([f"line {n}" for n in range(50)], 10, 20)
    assert all(len(row) <= 20 for row in shown) and shown[0] == "line 0"
    assert shown[-1] == "line 49" and "press v" in "".join(shown)


@given(lines, st.integers(4, 120), st.integers(2, 50))
def test_pages_hold_every_row_once_in_order(body: list[str], columns: int, height: int) -> None:
    paged = pages(body, columns, height)
    rows = [row for page in paged for row in page[:-1]]
    assert rows == [row for line in body for row in wrapped(line, columns)]
    assert all(len(page) <= max(height, 2) for page in paged)
    assert paged[-1][-1].endswith("the end; any key: back to the question --")
