"""Prose broken into rows at word boundaries, as wide as a terminal's: pure, no I/O.

A terminal folds a line too long for it wherever its width runs out, mid-word and
mid-path. Notes, errors, the start line, the approval's reason and question are broken
here between words instead, each continuation indented under the text it continues.
Only prose comes here: code, diffs and command lines are cropped or left to the
terminal by their callers, since a break put into them would change what they say.
Widths are counted in terminal columns, of text already made ``printable``.
"""

from __future__ import annotations

import re

from nehanda.ui.shown_text import char_width

_WORDS = re.compile(r" *[^ ]+")  # each word with the spaces before it


def columns_of(text: str) -> int:
    return sum(char_width(char) for char in text) if not text.isascii() else len(text)


def wrap_words(line: str, columns: int, indent: str = "") -> list[str]:
    """``line`` (one line of prose) as rows at most ``columns`` wide, broken between
    words, the rows after the first led by ``indent``. A word wider than a row is kept
    whole on a row of its own, for the caller to cut or the terminal to fold."""
    rows: list[str] = []
    row, used = "", 0
    for match in _WORDS.finditer(line):
        word = match.group()
        width = columns_of(word)
        if row and used + width > columns:
            rows.append(row)
            word = indent + word.lstrip(" ")
            width = columns_of(word)
            row, used = "", 0
        row, used = row + word, used + width
    return [*rows, row]


def wrap_text(text: str, columns: int, hang: int = 0) -> list[str]:
    """``text``'s lines wrapped to ``columns``: the first line's continuations indented by
    ``hang`` (the width of a label such as ``note: ``), a later line's by its own indent
    and two more (the items of a list under a message)."""
    rows: list[str] = []
    for index, line in enumerate(text.split("\n")):
        lead = hang if index == 0 else len(line) - len(line.lstrip(" ")) + 2
        rows += wrap_words(line.rstrip(" "), columns, " " * lead)
    return rows
