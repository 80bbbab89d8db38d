"""Streamed Markdown cut into pieces that can be printed for good, and the open tail (sans-I/O).

A renderer prints each piece once, for good, and redraws only the tail as text
arrives, so the part of the screen that changes stays small however long the answer
grows. A block ends at a blank line outside a fenced code block, once the next line
starts unindented: an indented line may still belong to the block above (a list
item's second paragraph), so the cut waits for it.

Two kinds of block are also cut while they are open, at places where the parts render
as the whole would. A fenced code block at the left margin is a block of its own, given
out ``code_lines`` complete lines at a time (``CodeLines``); the last non-blank line is
held back, since the whole block's trailing blank lines and spaces are dropped. The
held lines show in the live area, so on screen the lines follow each other as they are
written. A bullet list is given out item by item while it holds nothing but items of
one bullet (``Block`` with ``new`` false: it continues the block above it). A numbered
list is not cut (rich sizes its numbers' column by the count of items), nor a paragraph
(its words wrap as a whole): the live area draws only the end of those that fits.

Each character is looked at once, when its line is complete; the line being written is
kept as a list of pieces, joined only when asked for or complete.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

FENCE_CHARS = ("`", "~")
_BULLET = re.compile(r"[-*+] ")
_RULE = re.compile(r"([-*_])(?: *\1){2,} *")
CODE_LINES = 8


@dataclass(frozen=True)
class Block:
    """Markdown to print for good; ``new``: it starts a block (a blank line goes above)."""

    text: str
    new: bool = True


@dataclass(frozen=True)
class CodeLines:
    """Complete lines of a fenced code block: ``top`` starts the block, ``bottom`` ends it."""

    lexer: str
    lines: tuple[str, ...]
    top: bool
    bottom: bool
    number: int = 0  # which code block of the text, from 0
    first: int = 0  # the block's line number of ``lines[0]``, from 0

    @property
    def new(self) -> bool:
        return self.top


Piece = Block | CodeLines


@dataclass(frozen=True)
class CodeTail:
    """The open code block's lines not printed yet, the line being written last."""

    lexer: str
    lines: tuple[str, ...]
    started: bool  # some of its lines are printed already
    number: int = 0
    first: int = 0


@dataclass
class _OpenCode:
    fence: str  # the opening line
    marker: str  # its run of backticks or tildes
    lexer: str
    batch: int  # the fewest lines given out at once
    number: int
    held: list[str] = field(default_factory=list)  # complete lines not printed yet
    started: bool = False
    given: int = 0  # lines given out

    def closes(self, line: str) -> bool:
        stripped = line.lstrip(" ")
        return (
            len(line) - len(stripped) < 4
            and stripped.startswith(self.marker)
            and not stripped.strip(self.marker[0]).strip()
        )

    def add(self, line: str) -> list[Piece]:
        """A line of code: the held lines go out once a later non-blank line follows them."""
        if (
            not line.strip()
            or len(self.held) < self.batch
            or not any(held.strip() for held in self.held)
        ):
            self.held.append(line)
            return []
        held = tuple(self.held)
        piece = CodeLines(self.lexer, held, not self.started, False, self.number, self.given)
        self.held, self.started, self.given = [line], True, self.given + len(held)
        return [piece]

    def end(self, closing: str | None) -> Piece:
        """The rest of the block, as the whole block would show it."""
        if not self.started:
            lines = [self.fence, *self.held, *([closing] if closing is not None else [])]
            return Block("\n".join(lines))
        held = "\n".join(self.held).rstrip().split("\n")
        return CodeLines(self.lexer, tuple(held), False, True, self.number, self.given)


def _opens_fence(line: str) -> tuple[str, str] | None:
    """The marker and language of a fence opening at the left margin, if ``line`` is one."""
    if not line.startswith(FENCE_CHARS):
        return None
    marker = line[0] * (len(line) - len(line.lstrip(line[0])))
    info = line[len(marker) :].strip()
    if len(marker) < 3 or (marker[0] == "`" and "`" in info):
        return None
    return marker, info.partition(" ")[0] or "text"


class MarkdownBlocks:
    def __init__(self, code_lines: int = CODE_LINES) -> None:
        self._code_lines = code_lines
        self._fences = 0  # code blocks opened so far
        self._partial: list[str] = []  # the line being written, in the pieces it came in
        self._reset()

    def _reset(self) -> None:
        self._lines: list[str] = []  # complete lines of the open block not printed yet
        self._partial.clear()
        self._fence = ""  # the marker of an open code fence inside the block, if any
        self._gap = False  # a blank line was seen after text in the open block
        self._code: _OpenCode | None = None  # a fenced block at the margin, streamed
        self._continued = False  # part of the open block is printed already
        self._bullet = ""  # the open block is a list of items of this bullet only

    def feed(self, text: str) -> list[Piece]:
        """Takes the next piece of text; returns what it made ready to print."""
        if "\n" not in text:
            self._partial.append(text)
            return []
        first, *middle, last = text.split("\n")
        ready: list[Piece] = []
        for line in (self._line_written(first), *middle):
            ready += self._line(line)
        self._partial.append(last)
        return ready

    @property
    def tail(self) -> str:
        """The open block as written so far, less what is printed already."""
        if (code := self._code) is not None:  # one read: ``feed`` may end it meanwhile
            return "\n".join([code.fence, *code.held, self._written()])
        return "\n".join([*self._lines, self._written()]).strip("\n")

    @property
    def code(self) -> CodeTail | None:
        """The open fenced block's unprinted lines, if the text is inside one."""
        if (code := self._code) is None:
            return None
        lines = (*code.held, self._written())
        return CodeTail(code.lexer, lines, code.started, code.number, code.given)

    def finish(self) -> list[Piece]:
        """The rest, once the text is complete; the splitter is empty again afterwards."""
        if self._code is not None:
            if written := self._written():
                self._code.held.append(written)
            rest: list[Piece] = [self._code.end(None)]
        else:
            self._lines.append(self._written())
            rest = self._flush()
        self._reset()
        return rest

    def _written(self) -> str:
        # Joined afresh each time: the live area asks from its own thread while ``feed``
        # appends, and a few joins a second of one long line cost little.
        return "".join(self._partial)

    def _line_written(self, end: str) -> str:
        self._partial.append(end)
        line = self._written()
        self._partial.clear()
        return line

    def _flush(self) -> list[Piece]:
        """The open block's unprinted lines as a piece, if there are any; the block ends."""
        text = "\n".join(self._lines).strip("\n")
        piece: list[Piece] = [Block(text, new=not self._continued)] if text.strip() else []
        self._lines, self._continued, self._bullet, self._gap = [], False, "", False
        return piece

    def _line(self, line: str) -> list[Piece]:
        """Adds one complete line; returns what it made ready to print."""
        if self._code is not None:
            return self._code_line(line)
        stripped = line.lstrip()
        if self._fence:
            if stripped.startswith(self._fence) and not stripped.strip(self._fence[0]).strip():
                self._fence = ""
            self._lines.append(line)
            return []
        if not stripped:
            self._gap = bool(self._lines) or self._continued
            self._bullet = ""
            self._lines.append(line)
            return []
        ready = self._flush() if self._gap and line == stripped else []
        self._gap = False
        if (opened := _opens_fence(line)) and not self._in_html():
            ready += self._flush()
            self._code = _OpenCode(line, *opened, self._code_lines, self._fences)
            self._fences += 1
            return ready
        ready += self._list_line(line, stripped)
        if stripped.startswith(FENCE_CHARS):
            marker = stripped[0] * (len(stripped) - len(stripped.lstrip(stripped[0])))
            self._fence = marker if len(marker) >= 3 else ""
            self._bullet = ""
        self._lines.append(line)
        return ready

    def _list_line(self, line: str, stripped: str) -> list[Piece]:
        """Before the next item of a list of one bullet, the items above it go out."""
        item = line == stripped and _BULLET.match(line) and not _RULE.fullmatch(line)
        if not self._lines and not self._continued:
            self._bullet = line[0] if item else ""
            return []
        if line != stripped:
            return []
        if not (self._bullet and item and line[0] == self._bullet):
            self._bullet = ""
            return []
        text = "\n".join(self._lines)
        self._lines = []
        was_continued, self._continued = self._continued, True
        return [Block(text, new=not was_continued)]

    def _in_html(self) -> bool:
        return bool(self._lines) and self._lines[0].lstrip().startswith("<")

    def _code_line(self, line: str) -> list[Piece]:
        code = self._code
        assert code is not None
        if not code.closes(line):
            return code.add(line)
        self._code = None
        return [code.end(line)]
