"""The REPL's streaming output with rich: Markdown as it arrives, one line per tool call.

Finished Markdown is printed once, for good, as soon as it renders as the whole
answer would: whole blocks, a code block's complete lines, a list's items. Only the
unfinished rest (at most a screenful), the tail of the reasoning and a spinner with the
elapsed time live in a small area redrawn a few times a second, and only on a real
terminal. Elsewhere (a pipe,
``TERM=dumb``) the same text is printed plainly as each block completes. Reasoning
is shown dimmed while it streams and then collapsed to one line. Text from the model
or from tools never goes through rich markup, and control characters in it are
shown escaped, so that it cannot restyle or move around the terminal.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.live import Live
from rich.padding import Padding
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

from nehanda.events import (
    EngineEvent,
    MessageEnd,
    ReasoningDelta,
    RunFinished,
    SubagentEvent,
    TextDelta,
    ToolExecuted,
    ToolStarted,
    ToolUseStart,
    TurnStarted,
)
from nehanda.types import Todo
from nehanda.ui.call_diffs import CallDiffs
from nehanda.ui.markdown_print import Lines, MarkdownPrinter, markdown
from nehanda.ui.markdown_stream import Piece
from nehanda.ui.shown_text import printable
from nehanda.ui.summary import describe_call, describe_notice
from nehanda.ui.todo_lines import SUBAGENT_INDENT, plan_set, todo_lines
from nehanda.ui.tool_lines import (
    Line,
    diff_rows,
    duration,
    fitted,
    full_output,
    preview,
    tool_spans,
)
from nehanda.ui.word_wrap import wrap_text

REASONING_LINES = 3
SHOWN_DIFF_LINES = 200  # of a diff shown whole (/rewind's), before it is cut
NARROW = 36  # the fewest columns left for a second column beside the first


def make_console() -> Console:
    """The REPL's console on stdout; rich leaves colour out for NO_COLOR and TERM=dumb."""
    if os.environ.get("TERM") == "dumb":
        # rich takes any dumb terminal to be 80 columns wide; the terminal knows better.
        columns, lines = shutil.get_terminal_size()
        return Console(highlight=False, emoji=False, width=columns, height=lines)
    return Console(highlight=False, emoji=False)


def tool_line(event: ToolExecuted, console: Console, lead: str = "") -> Text:
    """``✓ Read README.md · 3 lines · 4 ms`` after ``lead``, cut to keep on one line (the
    call first, then the outcome, which the preview then shows whole)."""
    spans = tool_spans(event, ascii_only=console.options.ascii_only)
    line = Text.assemble((lead, "dim"), *fitted(spans, console.width - len(lead)))
    line.truncate(console.width, overflow="ellipsis")  # wide characters take two columns
    return line


def styled(line: Line) -> Text:
    return Text.assemble(*line)


class LiveRenderer:
    """Shows one conversation's turns, with the diffs its Write and Edit calls make."""

    def __init__(self, console: Console, workspace: Path) -> None:
        self.console = console
        self.workspace = workspace
        self.diffs = CallDiffs(workspace)
        self._live: _Live | None = None
        self._view = _LiveView(self)
        self.answer = MarkdownPrinter(console)
        self.reasoning: list[str] = []
        self.reasoning_since: float | None = None
        self.collapsed_reasoning: list[str] = []
        self.activity: tuple[str, float] | None = None
        self.calls: list[ToolExecuted] = []  # the last prompt that ran tools ran these
        self.todos: tuple[Todo, ...] = ()  # the model's plan, shown while a turn runs
        # Lines (text, style) under the spinner while a turn runs: what is typed, the mode.
        self.footer: Callable[[], list[tuple[str, str]]] | None = None
        self._first_call = True
        self._started = 0.0
        self._model = "the model"

    @property
    def interactive(self) -> bool:
        return self.console.is_terminal and not self.console.is_dumb_terminal

    @contextmanager
    def turn(self, model: str) -> Iterator[None]:
        """Around one prompt's run; whatever ends it, the screen is left tidy."""
        self._started, self._model = time.perf_counter(), printable(model)
        self.collapsed_reasoning = []
        self._first_call = True
        self._set_activity(f"waiting for {self._model}")
        self.resume()
        try:
            yield
        finally:
            self._settle()
            self.pause()
            self.activity = None

    def handle(self, event: EngineEvent) -> None:
        if isinstance(event, SubagentEvent):
            self._subagent(event)
        elif isinstance(event, TextDelta):
            self._text_delta(printable(event.text))
        elif isinstance(event, ReasoningDelta):
            self._reasoning_delta(printable(event.text))
        elif isinstance(event, ToolUseStart):
            self._settle()
            self._set_activity(f"the model is writing a {printable(event.name)} call")
        elif isinstance(event, ToolStarted):
            self._settle()
            self.diffs.started(event.tool_use, event.facts)
            described = printable(describe_call(event.tool_use, event.facts))
            if event.facts.source == "subagent":  # its calls' lines come under this one
                with self._drawing():
                    self.console.print(Text(f"▸ {described}", "bold cyan"))
            self._set_activity(f"running {described}")
        elif isinstance(event, ToolExecuted):
            if (plan := plan_set(event)) is not None:
                self.todos = plan
            self._tool_done(event)
            if notice := describe_notice(event):
                self.note(notice)
        elif isinstance(event, TurnStarted):
            self._settle()
            self._set_activity(f"waiting for {self._model}")
        elif isinstance(event, MessageEnd):
            self._settle()
            self.activity = None
        elif notice := describe_notice(event):
            self.note(notice)
        elif isinstance(event, RunFinished):
            self._finished(event)

    def pause(self) -> None:
        """Stops redrawing, so that something else (the approval prompt) may use the screen."""
        if self._live is not None:
            self._live.stop()
            self._live = None

    def resume(self) -> None:
        if self._live is None and self.interactive:
            self._live = _Live(
                self._view,
                console=self.console,
                transient=True,
                refresh_per_second=8,
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._live.start(refresh=True)

    def restart_activity(self) -> None:
        """The activity's seconds count from now: a call's run starts once it is approved."""
        if self.activity is not None:
            self._set_activity(self.activity[0])

    def note(self, message: str, label: str = "note", style: str = "yellow") -> None:
        self._settle()
        text = f"{label}: {printable(message)}"
        # Wrapped at words on a terminal, continuations under the message; a pipe gets
        # one line per line, however long.
        rows = wrap_text(text, self.console.width, len(label) + 2)
        if not self.console.is_terminal:
            rows = text.split("\n")
        first, *rest = rows
        with self._drawing():
            self.console.print(
                Text.assemble((f"{label}: ", style), first[len(label) + 2 :]), soft_wrap=True
            )
            for row in rest:
                self.console.print(Text(row), soft_wrap=True)

    def error(self, message: str) -> None:
        self.note(message, "error", "bold red")

    def say(self, text: str, style: str = "") -> None:
        """Plain text from nehanda itself (command output), never read as markup."""
        self.console.print(Text(printable(text), style=style))

    def diff(self, lines: Sequence[str], most: int = SHOWN_DIFF_LINES) -> None:
        """A unified diff, coloured, cut to ``most`` lines and each at the edge."""
        for row in diff_rows(lines, self.console.width, most):
            self.console.print(styled(row))

    def table(self, title: str, rows: list[tuple[str, str]]) -> None:
        """Two columns side by side, or one under the other on a narrow terminal."""
        self.console.print(Text(f"{title}:"))
        if self.console.width - max(cell_len(key) for key, _ in rows) < NARROW:
            for key, meaning in rows:
                self.console.print(Padding(Text(key, "bold"), (0, 0, 0, 2)))
                self.console.print(Padding(Text(meaning), (0, 0, 0, 6)))
            return
        grid = Table.grid(padding=(0, 2))
        grid.add_column(no_wrap=True, style="bold")
        grid.add_column()
        for key, meaning in rows:
            grid.add_row(Text(key), Text(meaning))
        self.console.print(Padding(grid, (0, 0, 0, 2)))

    def _set_activity(self, what: str) -> None:
        self.activity = (what, time.perf_counter())

    def _text_delta(self, text: str) -> None:
        self._end_reasoning()
        self.activity = None
        for piece in self.answer.feed(text):
            self._print_block(piece)

    def _print_block(self, piece: Piece) -> None:
        with self._drawing():
            self.answer.show(piece)

    def _drawing(self) -> AbstractContextManager[object]:
        return self._live.drawing() if self._live is not None else nullcontext()

    def _reasoning_delta(self, text: str) -> None:
        if self.reasoning_since is None:
            self._settle()
            self.reasoning_since = time.perf_counter()
        self.activity = None
        self.reasoning.append(text)

    def _end_reasoning(self) -> None:
        if self.reasoning_since is not None:
            seconds = time.perf_counter() - self.reasoning_since
            thought = "".join(self.reasoning)
            words = len(thought.split())
            self.collapsed_reasoning.append(thought.strip())
            self.reasoning, self.reasoning_since = [], None
            summary = f"thought for {duration(seconds)} ({words} words)"
            with self._drawing():
                self.console.print(Text(f"{summary} · /reasoning shows it", "dim"))

    def show_reasoning(self) -> None:
        """The reasoning the last prompt's replies collapsed, in full (``/reasoning``)."""
        shown = "\n\n".join(part for part in self.collapsed_reasoning if part)
        self.say(shown or "the last answer came without reasoning", "dim")

    def _settle(self) -> None:
        """Whatever was streaming is complete: print it for good."""
        self._end_reasoning()
        for piece in self.answer.finish():
            self._print_block(piece)
        self.answer.ended()

    def _tool_done(self, event: ToolExecuted) -> None:
        call, console = event.tool_use, self.console
        if self._first_call:
            self.calls, self._first_call = [], False
        self.calls.append(event)
        shown = self.diffs.made(call.id)
        hint = f"/output {len(self.calls)} or ctrl+o shows all"
        ascii_only = console.options.ascii_only
        lines = preview(event, hint, shown, width=console.width, ascii_only=ascii_only)
        with self._drawing():  # the spinner's redraws must not land inside these lines
            console.print(tool_line(event, console))
            for line in lines:
                console.print(styled(line))
        self.activity = None

    def _subagent(self, event: SubagentEvent) -> None:
        """A subagent's calls, indented under its Task line; its notes as notes."""
        inner = event.event
        if isinstance(inner, ToolStarted):
            what = printable(describe_call(inner.tool_use, inner.facts))
            self._set_activity(f"{printable(event.agent)}: running {what}")
        elif isinstance(inner, ToolExecuted):
            self._settle()
            with self._drawing():
                self.console.print(tool_line(inner, self.console, SUBAGENT_INDENT))
            self._set_activity(f"{printable(event.agent)}: waiting for {self._model}")
        elif notice := describe_notice(inner):
            self.note(notice)

    def show_output(self, number: int | None = None) -> None:
        """The whole output of the last prompt's tool calls (``/output``, Ctrl-O); with
        ``number``, of that call alone (1: the first)."""
        count = len(self.calls)
        if not count:
            self.say("no tool has run yet")
            return
        if number is not None and not 1 <= number <= count:
            calls = "call 1" if count == 1 else f"calls 1 to {count}"
            self.error(f"no call {number}: the last prompt that ran tools made {calls}")
            return
        ascii_only = self.console.options.ascii_only
        for index, event in enumerate(self.calls, 1):
            if number in (None, index):
                self.console.print(tool_line(event, self.console, f"[{index}] "))
                for line in full_output(event, ascii_only=ascii_only):
                    self.console.print(styled(line))

    def _finished(self, event: RunFinished) -> None:
        self._settle()
        usage = event.usage
        seconds = time.perf_counter() - self._started
        requests = f"{event.turns} request{'s' if event.turns != 1 else ''}"
        context = ""
        if event.context is not None and event.window:
            context = f" · context {event.context.total / event.window:.0%} of {event.window:,}"
        totals = Text(
            f"{usage.input_tokens:,} tokens in · {usage.output_tokens:,} out · "
            f"{requests} · {duration(seconds)}{context}",
            "dim",
        )
        with self._drawing():
            self.console.print(totals)
        if event.problem:
            self.error(event.problem)


class _Live(Live):
    """rich's ``Live``, whose redraws can be held off while something is printed above it.

    rich holds its lock only while it places the cursor for a print, not while the print
    is drawn and written, so a redraw from its own thread could come in between and
    leave the cursor where the print then erases lines that were printed for good.
    """

    @contextmanager
    def drawing(self) -> Iterator[None]:
        with self._lock:
            yield


class _LiveView:
    """What the live area shows: the reasoning's end, the block being written, a spinner."""

    def __init__(self, renderer: LiveRenderer) -> None:
        self.renderer = renderer
        self.spinner = Spinner("dots")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        renderer = self.renderer
        room = max(console.height - 3, 3)
        parts: list[tuple[RenderableType, int]] = []
        if renderer.reasoning:
            tail = "".join(renderer.reasoning)[-REASONING_LINES * options.max_width :]
            parts.append((Text(tail.strip(), "dim italic"), REASONING_LINES))
        if (code := renderer.answer.blocks.code) is not None:
            parts.append((renderer.answer.code.tail(code), room))
        elif tail_text := renderer.answer.blocks.tail:
            parts.append((markdown(_visible(tail_text, room * options.max_width)), room))
        for renderable, lines in parts:
            yield Lines(renderable, lines)
        for todo in todo_lines(renderer.todos, ascii_only=options.ascii_only):
            drawn = styled(todo)
            drawn.no_wrap, drawn.overflow = True, "ellipsis"
            yield drawn
        if renderer.activity is not None:
            what, since = renderer.activity
            frames = self.spinner.frames
            frame = frames[int(console.get_time() * 1000 / self.spinner.interval) % len(frames)]
            elapsed = time.perf_counter() - since
            line = Text.assemble((frame, "cyan"), (f" {what} · {elapsed:.0f} s", "dim"))
            line.no_wrap, line.overflow = True, "ellipsis"
            yield line
        for text, style in renderer.footer() if renderer.footer else ():
            below = Text(printable(text), style)
            below.no_wrap, below.overflow = True, "ellipsis"
            yield below


def _visible(text: str, room: int) -> str:
    """The end of ``text`` that can fill ``room`` characters of screen, from a line's or
    a word's start; only what is drawn in the live area is rendered there."""
    if len(text) <= room:
        return text
    end = text[-room:]
    cut = end.find("\n")
    if cut < 0:
        cut = end.find(" ")
    return end[cut + 1 :] if cut >= 0 else end
