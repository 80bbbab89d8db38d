"""Human output for ``--output text``: the answer on stdout, activity on stderr.

The answer streams as it arrives. On a colour terminal its Markdown is rendered as the
REPL renders it (``ui.markdown_print``, rich loaded only then), each block once complete,
and what is left of it before any line on stderr, so that the two keep their order.
Otherwise it is flushed per delta (``nehanda run ... | tee log`` streams, and a cut-off
stream leaves its partial answer on stdout). On a terminal it goes through
``ui.shown_text.printable``, as in the REPL, so that it cannot hide, restyle or
overwrite what follows (the approval prompt, above all), set the window's title or the
clipboard; into a pipe or a file it is the model's text byte for byte, data for whatever
reads it. Activity lines go to stderr, always through ``printable``, their prose broken
between words at a terminal's width (``ui.word_wrap``), decorated only when stderr is a
terminal and ``NO_COLOR`` is unset: the reasoning, dimmed; each tool call's line and the
preview of its output (a Write's or an Edit's diff, unless its approval showed it), as
the REPL shows them (``ui.tool_lines``); notes and errors.
"""

from __future__ import annotations

import os
from contextlib import suppress
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING

from nehanda.events import (
    EngineEvent,
    ReasoningDelta,
    RunFinished,
    SubagentEvent,
    TextDelta,
    ToolExecuted,
    ToolStarted,
    TurnStarted,
)
from nehanda.types import Todo
from nehanda.ui.call_diffs import CallDiffs
from nehanda.ui.denials import Denials
from nehanda.ui.screen_fit import prose_rows
from nehanda.ui.shown_text import printable
from nehanda.ui.summary import Chosen, describe_notice
from nehanda.ui.todo_lines import SUBAGENT_INDENT, plan_set, todo_lines
from nehanda.ui.tool_lines import MAX_LINE_CHARS, Line, fitted, preview, tool_spans
from nehanda.ui.word_wrap import wrap_text

if TYPE_CHECKING:
    from nehanda.ui.markdown_print import MarkdownPrinter

_ANSI = {"bold": "1", "dim": "2", "red": "31", "green": "32", "cyan": "36"}


def _decorated(stream: IO[str]) -> bool:
    return stream.isatty() and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


@dataclass
class TerminalOutput:
    out: IO[str]
    err: IO[str]
    diffs: CallDiffs | None = None  # shows the diffs of Write and Edit calls
    denials: Denials = field(default_factory=Denials)

    def __post_init__(self) -> None:
        self.color = _decorated(self.err)
        self._shown = self.out.isatty()  # the answer is seen, not read by a program
        self._at_line_start = True
        self._todos: tuple[Todo, ...] = ()
        self._markdown = _markdown_printer(self.out) if _decorated(self.out) else None

    def start(self) -> None:
        pass

    def end(self) -> None:
        """A run cut short: what came of the answer is shown, rendered or not."""
        self._end_line()

    def handle(self, event: EngineEvent) -> None:
        if isinstance(event, TextDelta) and self._markdown is not None:
            for piece in self._markdown.feed(printable(event.text)):
                self._markdown.show(piece)
        elif isinstance(event, TextDelta):
            self.out.write(printable(event.text) if self._shown else event.text)
            self.out.flush()
            self._at_line_start = event.text.endswith("\n")
        elif isinstance(event, ReasoningDelta) and self.color:
            self.err.write(f"\x1b[2m{printable(event.text)}\x1b[0m")
            self.err.flush()
        elif isinstance(event, TurnStarted) and event.turn > 1:
            self._end_line()
        elif isinstance(event, ToolStarted):
            self._end_line()  # the prose before a call shows before its approval question
            if self.diffs:
                self.diffs.started(event.tool_use, event.facts)
        elif isinstance(event, ToolExecuted):
            self.denials.add(event)
            self._tool_line(event)
            if notice := describe_notice(event):
                self.note(notice)
            self._plan(event)
        elif isinstance(event, SubagentEvent):
            self._subagent(event)
        elif notice := describe_notice(event):
            self.note(notice)
        elif isinstance(event, RunFinished):
            self._finish(event)

    def chosen(self, chosen: Chosen) -> None:
        """The start line: what this run uses, and why it calls tools as it does."""
        rows = self._prose(f"nehanda: {printable(str(chosen))}", len("nehanda: "))
        self.err.write(
            "".join(f"\x1b[2m{row}\x1b[0m\n" if self.color else f"{row}\n" for row in rows)
        )
        self.err.flush()

    def error(self, message: str) -> None:
        self._labelled("error", "31", message)

    def note(self, message: str) -> None:
        self._labelled("note", "33", message)

    def _labelled(self, label: str, colour: str, message: str) -> None:
        self._end_line()
        first, *rest = self._prose(f"{label}: {printable(message)}", len(label) + 2)
        if self.color:
            first = f"\x1b[{colour}m{label}:\x1b[0m{first[len(label) + 1 :]}"
        self.err.write("".join(f"{row}\n" for row in (first, *rest)))
        self.err.flush()

    def _prose(self, text: str, hang: int) -> list[str]:
        """``text`` wrapped at words to a terminal's width; one line per line into a pipe,
        which a program reads."""
        columns = self._terminal_columns()
        return wrap_text(text, columns, hang) if columns else text.split("\n")

    def _tool_line(self, event: ToolExecuted) -> None:
        self._end_line()
        width = self._width()
        diff = self.diffs.made(event.tool_use.id) if self.diffs else None
        for line in (fitted(tool_spans(event), width), *preview(event, diff=diff, width=width)):
            self.err.write(self._styled(line) + "\n")
        self.err.flush()

    def _plan(self, event: ToolExecuted) -> None:
        """The model's plan, each time a call changes it."""
        plan = plan_set(event)
        if plan is None or plan == self._todos:
            return
        self._todos = plan
        columns = self._terminal_columns()
        for mark, (text, style) in todo_lines(plan):
            # An item too long for the terminal continues under its text, broken at words.
            rows = prose_rows(text, columns - len(mark[0])) if columns else [text]
            for index, row in enumerate(rows):
                lead = mark if index == 0 else (" " * len(mark[0]), "")
                self.err.write(self._styled((lead, (row, style))) + "\n")
        self.err.flush()

    def _subagent(self, event: SubagentEvent) -> None:
        """A subagent's calls, indented under the Task that started it."""
        inner = event.event
        if isinstance(inner, ToolExecuted):
            self._end_line()
            width = self._width() - len(SUBAGENT_INDENT)
            line = ((SUBAGENT_INDENT, ""), *fitted(tool_spans(inner), width))
            self.err.write(self._styled(line) + "\n")
            self.err.flush()
        elif notice := describe_notice(inner):
            self.note(notice)

    def _width(self) -> int:
        """The terminal's columns where stderr is one; a pipe gets whole lines, up to a cap."""
        return self._terminal_columns() or MAX_LINE_CHARS

    def _terminal_columns(self) -> int | None:
        with suppress(OSError, ValueError):
            if self.err.isatty():
                return os.get_terminal_size(self.err.fileno()).columns or None
        return None

    def _styled(self, line: Line) -> str:
        if not self.color:
            return "".join(text for text, _ in line)
        return "".join(
            f"\x1b[{_ANSI[style]}m{text}\x1b[0m" if style else text for text, style in line
        )

    def _finish(self, event: RunFinished) -> None:
        self._end_line()
        if event.problem:
            self.error(event.problem)
        if line := self.denials.line():
            self.note(line)

    def _end_line(self) -> None:
        """The answer so far is out: stderr's lines come after it."""
        if self._markdown is not None:
            for piece in self._markdown.finish():
                self._markdown.show(piece)
            self._markdown.ended()
        if not self._at_line_start:
            self.out.write("\n")
            self.out.flush()
            self._at_line_start = True


def _markdown_printer(out: IO[str]) -> MarkdownPrinter:
    """The answer's Markdown rendered as the REPL renders it; rich loads only here."""
    from rich.console import Console

    from nehanda.ui.markdown_print import MarkdownPrinter

    return MarkdownPrinter(Console(file=out, highlight=False, emoji=False))
