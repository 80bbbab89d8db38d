"""Text a model wrote, made safe and readable for a person to judge: pure, no I/O.

``printable`` is what every renderer (the REPL, ``nehanda run``, tool lines, notes)
passes model and tool text through before it reaches a terminal: every C0 control but
newline and tab, DEL and every C1 control written escaped (``\\x1b``), carriage returns
dropped. It works character by character, so an escape sequence split across two
streamed pieces is escaped as surely as a whole one: no sequence can start, since its
ESC (or its C1 introducer) never reaches the terminal as itself.

A call shown for approval must show all of itself, and nothing in it may hide the rest.
``escape_hidden`` writes escaped every character that would not show as itself (control,
zero-width, direction-changing and separator characters, blank look-alikes such as the
Hangul fillers, variation selectors that carry no emoji). ``shown_line`` also collapses
what could push the rest of a line out of view: a run of spaces and tabs wider than real
code aligns with (``⟨5000 spaces⟩``; leading indentation up to ``MAX_INDENT`` columns
shows as is), one character repeated wider than a separator line (``⟨300 × \\n⟩``), and
combining marks stacked deeper than writing uses (they would draw over the lines around;
the extra ones are written escaped). The markers' own characters (``⟨⟩⋮⋯``) are written
escaped when the text holds them, so that no marker can be forged.
``collapse_blank_lines`` turns a run of blank lines into one ``BlankLines`` with its
count. Every marker says what it stands for and how many, so nothing written is lost:
only its length changes.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

MAX_INNER_BLANKS = 32  # columns of blanks between words: aligned comments and tables
MAX_INDENT = 64  # columns of leading indentation: eight tabs, sixteen levels of four
TAB = 8  # the columns a tab shown as it is may take; ``\t`` takes two
MAX_REPEAT = 80  # one character repeated: a separator line of 80 ``=`` shows as is
MAX_BLANK_LINES = 2  # blank lines in a row shown as they are; a longer run is one marker
MAX_MARKS = 2  # combining marks on one character (Vietnamese stacks two)
BLANKS = " \t"

_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"})
_MARKS = frozenset({"Mn", "Me"})
_EMOJI_SELECTORS = frozenset({"\ufe0e", "\ufe0f"})
# Letters and symbols that draw nothing: text made of them looks blank, or like less.
_BLANK_LOOKING = frozenset(
    {"\u034f", "\u115f", "\u1160", "\u17b4", "\u17b5", "\u2800", "\u3164", "\uffa0"}
)
# The prompt's own marks: written escaped when a model writes them, so none can be forged.
_MARKS_OF_OURS = frozenset("⟨⟩⋮⋯")
# Blocks of letters and signs that show as themselves, none hidden, combining or unassigned
# (a test checks every one): Latin, Greek, Cyrillic, punctuation, box drawing and
# dingbats, CJK, kana, Hangul syllables, full-width forms. Text in them needs no look.
PLAIN_BLOCKS = (
    (0x00A1, 0x00AC),
    (0x00AE, 0x02AF),
    (0x0391, 0x03A1),
    (0x03A3, 0x03C9),
    (0x0400, 0x0482),
    (0x048A, 0x052F),
    (0x2010, 0x2027),
    (0x2030, 0x205E),
    (0x2500, 0x27BF),
    (0x3001, 0x3029),
    (0x3041, 0x3096),
    (0x30A1, 0x30FA),
    (0x4E00, 0x9FEF),
    (0xAC00, 0xD7A3),
    (0xFF01, 0xFF9F),
)
_PLAIN = "".join(f"{chr(low)}-{chr(high)}" for low, high in PLAIN_BLOCKS)
# What may need more than showing as it is: a long run of blanks, one character repeated
# (a marker needs at least nine: ``\\U000e0100`` ten columns each), anything else.
_SPECIAL = rf"[ \t]{{{MAX_INNER_BLANKS + 1},}}|[ \t]*\t[ \t]*|([^ \t])\1{{8,}}|[^\x20-\x7e{_PLAIN}]"
_NAMES = {" ": "space", "\t": "tab"}
_CONTROL: dict[int, str | None] = {
    c: f"\\x{c:02x}" for c in (*range(0x20), *range(0x7F, 0xA0)) if c not in (9, 10)
}
_CONTROL[13] = None  # "\r\n" line ends are common; a lone "\r" would overwrite the line


@dataclass(frozen=True)
class BlankLines:
    """``count`` blank lines in a row, each starting with ``prefix`` (a diff's ``+``)."""

    count: int
    prefix: str = ""

    def text(self) -> str:
        return f"{self.prefix}⋮ {self.count} blank lines"


def printable(text: str) -> str:
    """``text`` with control characters (escape sequences among them) written escaped,
    carriage returns dropped."""
    return text.translate(_CONTROL)


def escape_hidden(text: str, keep: str = "") -> str:
    """``text`` with every character that would not show as itself written escaped."""
    return "".join(
        char if char == " " or char in keep or not hidden(char) else _escape(char) for char in text
    )


def hidden(char: str) -> bool:
    """Whether ``char`` draws nothing, or something other than itself, on a terminal."""
    category = unicodedata.category(char)
    if category in _HIDDEN_CATEGORIES or category.startswith("Z") or char in _BLANK_LOOKING:
        return True
    return _selector(char) and char not in _EMOJI_SELECTORS


def shown_line(text: str, keep: str = "") -> str:
    """One line as the prompt shows it: escaped (``keep``: characters shown as they are),
    with its long runs collapsed into markers that say what they hold."""
    pieces: list[str] = []
    marks = done = 0
    for found in _special().finditer(text):
        if found.start() > done:
            pieces.append(text[done : found.start()])  # printable, as it is
            marks = 0
        done, chars = found.end(), found.group()
        if (marker := _marker(chars, found.start() == 0, keep)) is not None:
            pieces.append(marker)
            marks = 0
            continue
        for char in chars:
            piece, marks = _shown_char(char, marks, keep)
            pieces.append(piece)
    pieces.append(text[done:])
    return "".join(pieces)


@lru_cache(maxsize=1)
def _special() -> re.Pattern[str]:
    """Compiled at first use: ``nehanda run`` reaches its first request without it."""
    return re.compile(_SPECIAL, re.DOTALL)


def collapse_blank_lines(lines: Iterable[str], margin: int = 0) -> list[str | BlankLines]:
    """``lines``, with each run of more than ``MAX_BLANK_LINES`` blank ones (nothing but
    spaces and tabs after their first ``margin`` characters, which they share) made one
    ``BlankLines``."""
    out: list[str | BlankLines] = []
    run: list[str] = []

    def close() -> None:
        if len(run) > MAX_BLANK_LINES:
            out.append(BlankLines(len(run), run[0][:margin]))
        else:
            out.extend(run)
        run.clear()

    for line in lines:
        blank = len(line) >= margin and not line[margin:].strip(BLANKS)
        if not blank or (run and line[:margin] != run[0][:margin]):
            close()
        if blank:
            run.append(line)
        else:
            out.append(line)
    close()
    return out


def shown_diff(lines: Iterable[str]) -> list[str]:
    """A unified diff's lines as a person reads them: each shown past its first character
    (``+``, ``-``, `` ``, ``@``), which starts its indentation, tabs kept; runs of blank
    added, removed or kept lines made one line each."""
    return [
        line.text()
        if isinstance(line, BlankLines)
        else escape_hidden(line[:1]) + shown_line(line[1:], "\t")
        for line in collapse_blank_lines(lines, margin=1)
    ]


@lru_cache(maxsize=4096)
def char_width(char: str) -> int:
    """The columns ``char`` (shown: no control character) takes on a terminal."""
    if unicodedata.category(char) in _MARKS:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _marker(chars: str, leading: bool, keep: str) -> str | None:
    if chars[0] in BLANKS:
        tabs = chars.count("\t")
        columns = len(chars) + tabs * ((TAB if "\t" in keep else 2) - 1)
        return (
            _blanks_marker(chars)
            if columns > (MAX_INDENT if leading else MAX_INNER_BLANKS)
            else None
        )
    char = chars[0]
    shown = char if char in keep or not _drawn_oddly(char) else _escape(char)
    if len(chars) * len(shown) <= MAX_REPEAT:
        return None
    return f"⟨{len(chars)} × {shown}⟩"


def _blanks_marker(chars: str) -> str:
    kinds = sorted((chars.index(char), char) for char in BLANKS if char in chars)
    return "⟨" + ", ".join(_plural(chars.count(char), _NAMES[char]) for _, char in kinds) + "⟩"


def _plural(count: int, name: str) -> str:
    return f"{count} {name}" + ("" if count == 1 else "s")


def _shown_char(char: str, marks: int, keep: str) -> tuple[str, int]:
    """How ``char`` shows after ``marks`` combining marks on the same character."""
    if char == " " or char in keep:
        return char, 0
    kind = _kind(char)
    if kind == "mark":
        return (char, marks + 1) if marks < MAX_MARKS else (_escape(char), marks)
    return (_escape(char) if kind == "hidden" else char), 0


@lru_cache(maxsize=4096)
def _kind(char: str) -> str:
    if hidden(char) or char in _MARKS_OF_OURS:
        return "hidden"
    return "mark" if unicodedata.category(char) in _MARKS or _selector(char) else "plain"


def _drawn_oddly(char: str) -> bool:
    """Named escaped in a marker: it would not show as itself, or would sit on the ``×``."""
    return hidden(char) or char in _MARKS_OF_OURS or unicodedata.category(char) in _MARKS


def _selector(char: str) -> bool:
    point = ord(char)
    return 0xFE00 <= point <= 0xFE0F or 0xE0100 <= point <= 0xE01EF


@lru_cache(maxsize=4096)
def _escape(char: str) -> str:
    return char.encode("unicode_escape").decode("ascii")


def abbreviated(text: str, limit: int) -> str:
    """``text`` (shown) whole if it is at most ``limit`` characters, else its two ends
    with a marker counting the characters left out between them."""
    if len(text) <= limit:
        return text
    keep = max(limit - 24, 8)
    head, tail = text[: keep - keep // 3], text[len(text) - keep // 3 :]
    return f"{head}⟨… {len(text) - len(head) - len(tail)} characters …⟩{tail}"
