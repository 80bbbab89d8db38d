"""A streamed answer's Markdown printed for good as its pieces complete, with rich.

The REPL (``ui.live``, which also redraws the unfinished rest in its live area) and
``nehanda run`` with its answer on a terminal (``ui.terminal``) print alike: the pieces
``ui.markdown_stream.MarkdownBlocks`` cuts the text into (whole blocks, a code block's
complete lines, drawn by ``ui.code_stream.CodeView``), a blank line between blocks, none
of the blank lines rich puts before some. Into a pipe, the rows come without the blanks
padding a code block's rows.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment

from nehanda.ui.code_stream import CODE_THEME, CodeView
from nehanda.ui.markdown_stream import Block, MarkdownBlocks, Piece


class MarkdownPrinter:
    """One answer at a time, fed as it streams (text already made ``printable``)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.blocks = MarkdownBlocks()
        self.code = CodeView()
        self._shown = 0  # the pieces of this answer printed so far

    def feed(self, text: str) -> list[Piece]:
        """The pieces ``text`` completes, for ``show``."""
        return self.blocks.feed(text)

    def finish(self) -> list[Piece]:
        """The answer is complete: what is left of it, for ``show``, then ``ended``."""
        return self.blocks.finish()

    def ended(self) -> None:
        """The next piece starts a new answer, with no blank line before it."""
        self._shown = 0

    def show(self, piece: Piece) -> None:
        console = self.console
        if piece.new and self._shown:
            console.print()
        if isinstance(piece, Block):
            rendered = Lines(markdown(piece.text))
        else:
            rendered = Lines(self.code.piece(piece, console))
        if console.is_terminal:
            console.print(rendered)
        else:  # a pipe gets the text, without the blanks padding a code block's rows
            with console.capture() as captured:
                console.print(rendered)
            rows = captured.get().splitlines()
            console.file.write("".join(f"{row.rstrip()}\n" for row in rows))
        self._shown += 1


def markdown(text: str) -> Markdown:
    return Markdown(text, code_theme=CODE_THEME, hyperlinks=False)


class Lines:
    """A renderable without the blank lines rich puts before some blocks; with ``last``,
    only its last lines."""

    def __init__(self, renderable: RenderableType, last: int | None = None) -> None:
        self.renderable, self.last = renderable, last

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines = console.render_lines(self.renderable, options, pad=False)
        while lines and not lines[0]:
            lines.pop(0)
        for line in lines[-self.last :] if self.last else lines:
            yield from _without_padding(line)
            yield Segment.line()


def _without_padding(line: list[Segment]) -> list[Segment]:
    """The line less the spaces rich pads it with, unless they are coloured (code blocks)."""
    line = list(line)
    while line and not (line[-1].style and line[-1].style.bgcolor):
        last = line.pop()
        if text := last.text.rstrip(" "):
            line.append(Segment(text, last.style, last.control))
            break
    return line
