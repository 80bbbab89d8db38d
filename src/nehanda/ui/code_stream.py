"""A fenced code block drawn a few lines at a time, looking as the whole block would.

rich draws a Markdown code block as ``Syntax`` with a padding line above and below.
Each ``CodeLines`` piece is drawn by the same ``Syntax`` over the lines since an
anchor, showing only its own lines (``line_range``), so that a line inside a
multi-line string or comment keeps the colours the whole block gives it. The anchor
moves to a piece's first line once lexing from there colours that piece as lexing
from the anchor did: the lexer is back in its first state, and each piece costs the
lines since the anchor, not the block so far. The lines not printed yet try the same at
their first line (``follow``), so that a redraw of the live area costs only them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from pygments.lexer import Lexer
from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment
from rich.syntax import Syntax

from nehanda.ui.markdown_stream import CodeLines, CodeTail

CODE_THEME = "monokai"  # rich's Markdown default, named so both draw code alike


class CodeView:
    """Draws one code block's pieces in order; the block's lines since the anchor are kept."""

    def __init__(self) -> None:
        self._context: list[str] = []
        self._lexer: Lexer | str = "text"
        self._tried: Sequence[str] = ()  # the lines an anchor was last tried at
        self._drawn = _Drawn()

    def piece(self, piece: CodeLines) -> CodeRows:
        """The rows of ``piece``, to print for good; the next piece continues below them."""
        if piece.top:
            self._context, self._lexer = [], _lexer(piece.lexer)
        rows = CodeRows(self._lexer, self._context, piece.lines, piece.top, piece.bottom)
        lexer = self._lexer
        if (
            self._context
            and isinstance(lexer, Lexer)
            and not _colours_alike(lexer, self._context, piece.lines)
        ):
            self._context = [*self._context, *piece.lines]
        else:
            self._context = list(piece.lines)
        if piece.bottom:
            self._context = []
        return rows

    def follow(self, tail: CodeTail) -> None:
        """Moves the anchor to the unprinted lines if it can, so that drawing them (``tail``,
        a few times a second) costs only them."""
        complete = tail.lines[:-1]
        if tail.started and self._context and complete and self._tried != complete:
            self._tried = complete
            if not isinstance(self._lexer, Lexer) or _colours_alike(
                self._lexer, self._context, complete
            ):
                self._context = []

    def tail(self, tail: CodeTail) -> TailRows:
        """The unprinted lines, drawn as the block's last ones. The complete ones are drawn
        as they will be printed, once while they stay the same; a redraw draws the line
        being written. Only the live area's redraws (one at a time, under its lock) call
        this, so the block's state is left as it is."""
        lexer = self._lexer if tail.started else _lexer(tail.lexer)
        context = self._context if tail.started else []
        *held, written = tail.lines
        top = not tail.started
        above = CodeRows(lexer, context, held, top, bottom=False) if held else None
        last = CodeRows(lexer, [*context, *held], [written], top and not held, bottom=True)
        return TailRows(self._drawn, above, last)


class _Drawn:
    """The rows last drawn for the complete lines of a tail, and what they were drawn for."""

    def __init__(self) -> None:
        self.key: tuple[str, int, bool, int] | None = None
        self.rows: list[list[Segment]] = []


class TailRows:
    """``above`` (drawn again only when it changed) and then ``last``."""

    def __init__(self, drawn: _Drawn, above: CodeRows | None, last: CodeRows) -> None:
        self.drawn, self.above, self.last = drawn, above, last

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.above is not None:
            above = self.above
            key = (above.code, above.first, above.top, options.max_width)
            if self.drawn.key != key:
                self.drawn.rows = console.render_lines(above, options, pad=False)
                self.drawn.key = key
            for row in self.drawn.rows:
                yield from row
                yield Segment.line()
        yield self.last


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
            theme=CODE_THEME,
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
