"""A fenced code block drawn as it streams, each line once, looking as the whole block would.

rich draws a Markdown code block as ``Syntax`` with a padding row above and below.
Complete lines are drawn by the same ``Syntax`` over the lines since an anchor, showing
only the new ones (``line_range``), so that a line inside a multi-line string or comment
keeps the colours the whole block gives it. The anchor moves to a batch's first line
once lexing from there colours the batch as lexing from the anchor did: the lexer is
back in its first state, and a batch costs the lines since the anchor, not the block so
far.

Each line's rows are kept, so that whoever needs them first draws them, together with
the other lines not drawn yet: the live area's redraw, which shows the lines not printed
yet, or the print that puts them above it for good. On a terminal a line is drawn once,
not once per redraw, and in batches (``TAIL_BATCH`` lines or more: each ``Syntax`` costs
as much again as a line); until then, and while it is being written, a line is drawn
without its colours, which costs next to nothing at each redraw.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.token import Token
from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.syntax import Syntax
from rich.text import Text

from nehanda.ui.markdown_stream import CodeLines, CodeTail

CODE_THEME = "monokai"  # rich's Markdown default, named so both draw code alike
_THEME = Syntax.get_theme(CODE_THEME)  # one, so that its styles are worked out once
TAIL_BATCH = 4  # the fewest complete lines the live area draws in colour at once
Rows = list[list[Segment]]


@dataclass
class _Line:
    """A complete line: where lexing starts for it, and its rows at each width drawn."""

    text: str
    anchor: int
    rows: dict[int, Rows] = field(default_factory=dict)


@dataclass
class _Block:
    """The open code block's complete lines, as far as they are known."""

    number: int
    lexer: Lexer | str
    lines: list[_Line] = field(default_factory=list)
    anchor: int = 0  # where lexing starts for the next line
    padding: dict[int, Rows] = field(default_factory=dict)  # the row above and below


class CodeView:
    """Draws the open code block's lines. On a terminal both callers hold the live area's
    lock: the prints (``piece``) and the live area's redraws (``tail``)."""

    def __init__(self) -> None:
        self._block: _Block | None = None

    def piece(self, piece: CodeLines, console: Console) -> RowsOf:
        """The rows of ``piece``, to print for good; the next piece continues below them."""
        block = self.open(piece.number, piece.lexer)
        padding = _padding(block, console)
        rows: Rows = list(padding) if piece.top else []
        for line_rows in _draw(block, piece.first, piece.lines, console):
            rows += line_rows
        if piece.bottom:
            rows += padding
            self._block = None
        return RowsOf(rows)

    def tail(self, tail: CodeTail) -> TailRows:
        """The unprinted lines, drawn as the block's last ones: the complete ones as they
        will be printed (and kept for that print), the one being written plainly."""
        return TailRows(self, tail)

    def open(self, number: int, lexer: str) -> _Block:
        """The state of code block ``number``, started afresh for a new block."""
        if self._block is None or self._block.number != number:
            self._block = _Block(number, _lexer(lexer))
        return self._block


class TailRows:
    """The open block's unprinted lines, drawn when the live area is."""

    def __init__(self, view: CodeView, tail: CodeTail) -> None:
        self.view, self.tail = view, tail

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        tail = self.tail
        *held, written = tail.lines
        block = self.view.open(tail.number, tail.lexer)
        padding = _padding(block, console)
        rows: Rows = [] if tail.started else list(padding)
        drawn = _drawn(block, tail.first, held, options.max_width)
        if len(held) - drawn >= TAIL_BATCH and tail.first <= len(block.lines):
            drawn = len(held)
            for line_rows in _draw(block, tail.first, held, console):
                rows += line_rows
        else:
            for line in block.lines[tail.first : tail.first + drawn]:
                rows += line.rows[options.max_width]
        for row in rows:
            yield from row
            yield Segment.line()
        for text in [*held[drawn:], written]:
            yield _plain(text[-console.height * options.max_width :])  # as much as shows
        for row in padding:
            yield from row
            yield Segment.line()


def _drawn(block: _Block, first: int, texts: Sequence[str], width: int) -> int:
    """How many of ``texts``, from the block's line ``first`` on, are drawn already."""
    lines = block.lines[first : first + len(texts)]
    for count, (line, text) in enumerate(zip(lines, texts, strict=False)):
        if line.text != text or width not in line.rows:
            return count
    return len(lines)


def _plain(line: str) -> Padding:
    """A line of code without its colours, on the block's background."""
    style = _THEME.get_background_style()
    text = Text(line.expandtabs(4), _THEME.get_style_for_token(Token.Text) + style)
    return Padding(text, (0, 1), style=style, expand=True)


def _padding(block: _Block, console: Console) -> Rows:
    width = console.options.max_width
    if (rows := block.padding.get(width)) is None:
        padding = CodeRows(block.lexer, [], [""], top=True, bottom=False)
        rows = block.padding[width] = console.render_lines(padding, console.options)[:1]
    return rows


def _draw(block: _Block, first: int, texts: Sequence[str], console: Console) -> list[Rows]:
    """The rows of each of ``texts``, the block's lines from number ``first`` on; lines
    not drawn yet at this width are drawn together, after the lines since their anchor."""
    lines, width = block.lines, console.options.max_width
    for at, text in enumerate(texts, start=first):
        if at == len(lines):
            lines.append(_Line(text, block.anchor))
        elif lines[at].text != text:  # the block's last line, stripped; or a tail gone by
            block.anchor = min(block.anchor, lines[at].anchor)
            lines[at:] = [_Line(text, lines[at].anchor)]
    end = first + len(texts)
    missing = [at for at in range(first, end) if width not in lines[at].rows]
    if missing:
        start = missing[0]
        context = [line.text for line in lines[lines[start].anchor : start]]
        batch = [line.text for line in lines[start:end]]
        lexer = block.lexer
        if not isinstance(lexer, Lexer) or not context or _colours_alike(lexer, context, batch):
            block.anchor, context = max(block.anchor, start), []
        code = CodeRows(lexer, context, batch, top=False, bottom=False)
        rows = console.render_lines(code, console.options, pad=False)
        if len(rows) == len(batch):
            each = [[row] for row in rows]
        else:  # a line wraps: drawn one by one to tell which rows are whose
            each = [_one(block, at, console) for at in range(start, end)]
        for line, line_rows in zip(lines[start:end], each, strict=True):
            line.rows[width] = line_rows
    return [lines[at].rows[width] for at in range(first, end)]


def _one(block: _Block, at: int, console: Console) -> Rows:
    line = block.lines[at]
    context = [earlier.text for earlier in block.lines[line.anchor : at]]
    code = CodeRows(block.lexer, context, [line.text], top=False, bottom=False)
    return console.render_lines(code, console.options, pad=False)


class RowsOf:
    """Rows drawn already."""

    def __init__(self, rows: Rows) -> None:
        self.rows = rows

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        for row in self.rows:
            yield from row
            yield Segment.line()


class CodeRows:
    """``lines`` drawn after ``context``; the padding row above only with ``top``, below
    only with ``bottom``."""

    def __init__(
        self,
        lexer: Lexer | str,
        context: Sequence[str],
        lines: Sequence[str],
        top: bool,
        bottom: bool,
    ) -> None:
        self.code = "\n".join([*context, *lines])
        self.first, self.last = len(context) + 1, len(context) + len(lines)
        self.lexer, self.top, self.bottom = lexer, top, bottom

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        syntax = Syntax(
            self.code,
            self.lexer,
            theme=_THEME,
            word_wrap=True,
            padding=1,
            line_range=(self.first, self.last),
        )
        rows = console.render_lines(syntax, options, pad=False)
        for row in rows[0 if self.top else 1 : None if self.bottom else -1]:
            yield from row
            yield Segment.line()


@lru_cache(maxsize=32)
def _lexer(name: str) -> Lexer | str:
    """The lexer rich's ``Syntax`` would pick for ``name``, made once per name."""
    return Syntax("", name).lexer or name


def _colours_alike(lexer: Lexer, context: Sequence[str], lines: Sequence[str]) -> bool:
    """Whether ``lines`` lexed alone get the token types they get after ``context``."""
    alone = "\n".join(lines)
    after = "\n".join([*context, *lines])
    return _runs(lexer.get_tokens(after), len(after) - len(alone)) == _runs(
        lexer.get_tokens(alone), 0
    )


def _runs(tokens: Iterable[tuple[object, str]], start: int) -> list[tuple[object, str]]:
    """The text from ``start`` on as runs of one token type each."""
    runs: list[tuple[object, str]] = []
    at = 0
    for kind, value in tokens:
        end = at + len(value)
        if end > start:
            text = value[max(start - at, 0) :]
            if runs and runs[-1][0] == kind:
                runs[-1] = (kind, runs[-1][1] + text)
            else:
                runs.append((kind, text))
        at = end
    return runs
