"""What the approval prompt shows, fitted to the terminal and paged: pure, no I/O.

Everything is printed as rows no wider than the terminal (``rows_of``), so that nothing
sits past its right edge where it does not wrap. A call taller than the screen would
have its top scrolled away by the time the question shows, so ``fit`` keeps its first
and last rows and puts between them a line that says which lines are left out and that
``v`` shows them; ``pages`` cuts the whole of it into screenfuls, each ending with a
line saying where the reader is and which keys go on.
"""

from __future__ import annotations

from collections.abc import Sequence

from nehanda.ui.shown_text import char_width
from nehanda.ui.word_wrap import wrap_words

TAB = 8
MIN_ROOM = 3  # the fewest rows a call gets: its first, the line saying what is left out, its last

Row = tuple[str, int]  # a row of text, and the index of the line it is part of


def wrapped(line: str, columns: int) -> list[str]:
    """``line`` (escaped) cut where a terminal ``columns`` wide wraps it; tabs expanded."""
    line = line.expandtabs(TAB)
    columns = max(columns, 2)
    if line.isascii():
        return [line[start : start + columns] for start in range(0, len(line), columns)] or [""]
    rows: list[str] = []
    row: list[str] = []
    used = 0
    for char in line:
        char_columns = char_width(char)
        if used + char_columns > columns and row:
            rows.append("".join(row))
            row, used = [], 0
        row.append(char)
        used += char_columns
    rows.append("".join(row))
    return rows


def prose_rows(text: str, columns: int, indent: str = "") -> list[str]:
    """One line of prose (a title, a reason, a question) as rows ``columns`` wide, broken
    between words, continued after ``indent``; only a word wider than the terminal is cut,
    where it would fold it."""
    return rows_of(wrap_words(text, columns, indent), columns)


def rows_of(lines: Sequence[str], columns: int) -> list[str]:
    """``lines`` as rows ``columns`` wide: printed so, a line wider than the terminal shows
    whole even where the terminal does not wrap (and as it would wrap where it does)."""
    return [row for line in lines for row in wrapped(line, columns)]


def row_count(lines: Sequence[str], columns: int) -> int:
    return sum(len(wrapped(line, columns)) for line in lines)


def fit(body: Sequence[str], room: int, columns: int) -> list[str]:
    """``body``'s rows, all of them if they fit in ``room``; else its first and last rows
    around a line naming the lines left out (each of them in whole or in part)."""
    rows = _rows(body, columns)
    room = max(room, MIN_ROOM)
    if len(rows) <= room:
        return [row for row, _ in rows]
    widest = _note(len(body) - 1, len(body), len(body))  # as long as the note can be
    keep = max(room - len(wrapped(widest, columns)), 2)
    tail = keep // 2
    head = keep - tail
    first, last = rows[head][1] + 1, rows[len(rows) - tail - 1][1] + 1
    note = wrapped(_note(first, last, len(body)), columns)
    return [*(row for row, _ in rows[:head]), *note, *(row for row, _ in rows[len(rows) - tail :])]


def _note(first: int, last: int, total: int) -> str:
    return f"  ⋯ {_left_out(first, last, total)} ⋯"


def _left_out(first: int, last: int, total: int) -> str:
    if total == 1:
        return "the middle of the line is not shown here (press v to see it all)"
    which = f"part of line {first} is" if first == last else f"lines {first}–{last} are"
    return f"{which} not shown here (press v to see all {total} lines)"


def pages(
    body: Sequence[str], columns: int, height: int, coda: Sequence[str] = ()
) -> list[list[str]]:
    """``body``, then ``coda`` (numbered as its last line), in screenfuls of ``height``
    rows, the last row of each saying which lines it shows and what the keys do."""
    rows = _rows(body, columns) + [(row, len(body) - 1) for row, _ in _rows(coda, columns)]
    per = max(height - 1, 1)
    out: list[list[str]] = []
    for start in range(0, len(rows), per):
        chunk = rows[start : start + per]
        first, last = chunk[0][1] + 1, chunk[-1][1] + 1
        where = f"line {first}" if first == last else f"lines {first}–{last}"
        if start + per >= len(rows):
            keys = "the end; any key: back to the question"
        else:
            keys = "Space: next page, q: back to the question"
        out.append([row for row, _ in chunk] + [f"-- {where} of {len(body)}, {keys} --"])
    return out


def _rows(body: Sequence[str], columns: int) -> list[Row]:
    return [(row, index) for index, line in enumerate(body) for row in wrapped(line, columns)]
