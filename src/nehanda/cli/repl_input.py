"""Reading the REPL's prompts: prompt_toolkit on a terminal, plain lines elsewhere.

On a terminal, Enter sends and Esc Enter (Alt-Enter), or a backslash before Enter,
starts a new line; pasted text keeps its newlines (bracketed paste); earlier prompts
are kept in the XDG state dir across sessions. Ctrl-C clears a line that has text
and raises ``Interrupted`` on an empty one; Ctrl-D on an empty line is the end. Ctrl-O
prints the whole output of the last prompt's tool calls above the prompt, keeping what
is typed (``expand``; ``/output`` does the same where keys cannot be read). Esc Esc
clears a line that has text, and on an empty one is ``/rewind``.

Where prompt_toolkit cannot draw (input or output not a terminal, ``TERM=dumb``),
lines are read plainly from stdin, a trailing backslash joining the next line.

Shift-Tab calls the REPL's ``cycle`` (the next permission mode) and redraws the line
under the prompt, the ``toolbar`` text, which shows the mode while the user types.

While a turn runs, ``cli.turn_keys`` reads the keys (Shift-Tab, Esc, what is typed
ahead, which the next prompt starts with); the approval prompt has the terminal to
itself while it asks.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import suppress
from pathlib import Path
from typing import Protocol, TextIO

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.completion import CompleteEvent, Completer, Completion, PathCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.filters import has_completions
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output
from prompt_toolkit.output.vt100 import Vt100_Output
from prompt_toolkit.styles import Style

from nehanda.fs import state_dir

PROMPT = "> "
CONTINUATION = ". "


REWIND = "/rewind"


class Interrupted(Exception):
    """Ctrl-C: at an empty prompt, or while something was running."""


class Reader(Protocol):
    async def read(self, typed: str = "") -> str | None:
        """The next prompt, its input starting as ``typed``; ``None`` at the end of
        input. Raises ``Interrupted``."""
        ...


def history_path() -> Path:
    return state_dir() / "history"


def make_reader(
    toolbar: Callable[[], str] | None = None,
    cycle: Callable[[], None] | None = None,
    expand: Callable[[], None] | None = None,
    words: Callable[[], list[str]] | None = None,
    workspace: Path | None = None,
    shown: Callable[[], None] | None = None,
) -> Reader:
    """A terminal reader showing ``toolbar`` under the prompt, Shift-Tab calling ``cycle``
    and Ctrl-O ``expand``, Tab completing the command ``words`` and ``@`` paths below
    ``workspace``, calling ``shown`` once each prompt is drawn; a plain one where there is
    no terminal to draw on."""
    plain = os.environ.get("TERM") in ("dumb", "unknown")
    if plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return LineReader(PROMPT if sys.stdin.isatty() else "", shown)
    completer = _Completer(words or list, workspace or Path.cwd())
    return TerminalReader(_history(), toolbar, cycle, expand, completer, shown)


class _Output(Vt100_Output):
    """The terminal without cursor position reports: one answered after the prompt has
    closed would land in the approval prompt's input. Without them prompt_toolkit would
    not know the room below the cursor and would leave the line under the prompt out;
    one row is what it is told, so the prompt takes only the rows it needs."""

    def get_rows_below_cursor_position(self) -> int:
        return 1


def terminal_output(stream: TextIO) -> Output:
    return _Output.from_pty(stream, term=os.environ.get("TERM"))


class TerminalReader:
    def __init__(
        self,
        history: History,
        toolbar: Callable[[], str] | None = None,
        cycle: Callable[[], None] | None = None,
        expand: Callable[[], None] | None = None,
        completer: Completer | None = None,
        shown: Callable[[], None] | None = None,
    ) -> None:
        self.shown = shown
        self.session: PromptSession[str] = PromptSession(
            history=history,
            multiline=True,
            key_bindings=_key_bindings(cycle, expand),
            prompt_continuation=CONTINUATION,
            completer=completer,
            complete_while_typing=False,
            output=terminal_output(sys.stdout),
            bottom_toolbar=(lambda: [("class:mode", toolbar())]) if toolbar else None,
            style=Style.from_dict({"bottom-toolbar": "noreverse", "mode": "ansibrightblack"}),
        )

    async def read(self, typed: str = "") -> str | None:
        try:
            return await self.session.prompt_async(
                PROMPT, default=typed, handle_sigint=False, pre_run=self._drawing
            )
        except KeyboardInterrupt:
            raise Interrupted from None
        except EOFError:
            return None

    def _drawing(self) -> None:
        """Called as the prompt starts, just before its first draw: ``shown`` after it."""
        if self.shown is not None:
            asyncio.get_running_loop().call_soon(self.shown)


def _history() -> History:
    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return FileHistory(str(path))


def _key_bindings(
    cycle: Callable[[], None] | None = None, expand: Callable[[], None] | None = None
) -> KeyBindings:
    bindings = KeyBindings()

    if cycle is not None:
        # With the completion menu open, Shift-Tab keeps its meaning there: the previous one.
        @bindings.add("s-tab", filter=~has_completions)
        def _cycle(event: KeyPressEvent) -> None:
            cycle()
            event.app.invalidate()

    @bindings.add("enter")
    def _send(event: KeyPressEvent) -> None:
        buffer = event.current_buffer
        if buffer.document.text_before_cursor.endswith("\\"):
            buffer.delete_before_cursor()
            buffer.newline(copy_margin=False)
        else:
            buffer.validate_and_handle()

    @bindings.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.newline(copy_margin=False)

    @bindings.add("escape", "escape")
    def _rewind(event: KeyPressEvent) -> None:
        if event.current_buffer.text:
            event.current_buffer.reset()
        else:
            event.app.exit(result=REWIND)

    @bindings.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        if event.current_buffer.text:
            event.current_buffer.reset()
        else:
            event.app.exit(exception=KeyboardInterrupt())

    if expand is not None:
        show = expand

        @bindings.add("c-o")
        def _expand(event: KeyPressEvent) -> None:
            run_in_terminal(show)

    return bindings


class _Completer(Completer):
    """Tab completes a slash command's name, and the path after an ``@``."""

    def __init__(self, words: Callable[[], list[str]], workspace: Path) -> None:
        self.words, self.workspace = words, workspace
        self.paths = PathCompleter(get_paths=lambda: [str(self.workspace)], expanduser=True)

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        typed = document.text_before_cursor
        if typed.startswith("/") and " " not in typed:
            for word in self.words():
                if word.startswith(typed):
                    yield Completion(word, start_position=-len(typed))
            return
        last = typed.rsplit(maxsplit=1)[-1] if typed.strip() else ""
        if last.startswith("@") and '"' not in last:
            path = Document(last[1:], len(last) - 1)
            yield from self.paths.get_completions(path, complete_event)


class LineReader:
    """Lines from stdin, read in a thread so that Ctrl-C (SIGINT) can stop the wait.

    An abandoned read stays pending and answers the next call: one line is never
    read twice, nor by two threads at once.
    """

    def __init__(self, prompt: str, shown: Callable[[], None] | None = None) -> None:
        self.prompt, self.shown = prompt, shown
        self._pending: asyncio.Future[str] | None = None

    async def read(self, typed: str = "") -> str | None:
        lines: list[str] = []  # nothing is typed ahead where keys are not read one by one
        prompt = self.prompt
        while True:
            line = await self._line(prompt)
            if not line:
                return "\n".join(lines) if lines else None
            line = line.removesuffix("\n")
            if not line.endswith("\\"):
                return "\n".join([*lines, line])
            lines.append(line[:-1])
            prompt = CONTINUATION if self.prompt else ""

    async def _line(self, prompt: str) -> str:
        sys.stdout.write(prompt)
        sys.stdout.flush()
        if self.shown is not None:
            self.shown()
        if self._pending is None:
            loop = asyncio.get_running_loop()
            self._pending = loop.create_future()
            threading.Thread(target=_read_line, args=(loop, self._pending), daemon=True).start()
        line = await asyncio.shield(self._pending)
        self._pending = None
        return line


def _read_line(loop: asyncio.AbstractEventLoop, future: asyncio.Future[str]) -> None:
    line = sys.stdin.readline()

    def deliver() -> None:
        if not future.done():
            future.set_result(line)

    with suppress(RuntimeError):  # the REPL has ended and its loop is closed
        loop.call_soon_threadsafe(deliver)
