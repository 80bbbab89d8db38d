"""Keys pressed while a REPL turn runs: ``TurnKeys``, and what they mean: ``TypeAhead``.

As in Claude Code: Shift-Tab changes the permission mode, as at the prompt; Esc stops
the turn, as Ctrl-C does; what is typed is kept. Enter queues the line as a prompt to
send once the turn has ended; the rest waits in the next prompt's input. Keys that
arrive together with a newline among them are a paste: its newlines are kept as text
and queue nothing (a person's Enter arrives on its own).

On a terminal only. For the turn the terminal reads keys one by one without echo
(Ctrl-C still signals), read through prompt_toolkit's VT100 parser; the approval prompt
has the terminal to itself while it asks (``paused``), and no key typed ahead before it
appeared can answer it.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import select
import unicodedata
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO

from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding.key_processor import KeyPress
from prompt_toolkit.keys import Keys

_ESCAPE_WAIT = 0.05  # how long a lone ESC waits to become part of a sequence


@dataclass
class TypeAhead:
    """The prompts queued during a turn and the line being typed. ``key`` returns what
    a key asks of the turn: ``"cycle"`` (the permission mode), ``"stop"``, or ``None``."""

    queued: list[str] = field(default_factory=list)
    line: str = ""

    def key(self, press: KeyPress) -> str | None:
        key = press.key
        if key == Keys.BackTab:
            return "cycle"
        if key == Keys.Escape:
            return "stop"
        if key in (Keys.ControlM, Keys.ControlJ):
            if self.line.strip():
                self.queued.append(self.line)
            self.line = ""
        elif key in (Keys.ControlH, Keys.Backspace):
            self.line = self.line[:-1]
        elif key == Keys.ControlU:
            self.line = ""
        elif key == Keys.BracketedPaste:
            self.line += press.data.replace("\r\n", "\n").replace("\r", "\n")
        elif isinstance(key, str) and len(key) == 1 and unicodedata.category(key)[0] != "C":
            self.line += key
        return None

    def take_back(self) -> str:
        """Everything typed, queued or not, as one text for the next prompt's input (a
        stopped turn sends nothing by itself); the queue is left empty."""
        text = "\n".join([*self.queued, self.line] if self.line else self.queued)
        self.queued, self.line = [], ""
        return text


class TurnKeys:
    """Reads ``stream``'s keys while a turn runs; ``cycle`` and ``stop`` are called for
    Shift-Tab and Esc."""

    def __init__(self, stream: TextIO, cycle: Callable[[], None], stop: Callable[[], None]) -> None:
        self.typed = TypeAhead()
        self._fd = stream.fileno()
        self._actions = {"cycle": cycle, "stop": stop}
        self._parser = Vt100Parser(self._press)
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._flush: asyncio.TimerHandle | None = None
        self._reading = False

    @contextmanager
    def reading(self) -> Iterator[TypeAhead]:
        """The keys of one turn; the terminal is as it was once the turn ends."""
        import termios
        import tty

        saved = termios.tcgetattr(self._fd)
        try:
            tty.setcbreak(self._fd)
            self._start()
            yield self.typed
        finally:
            self._stop()
            # What is left half-read (an ESC that might have begun a sequence) is dropped:
            # acted on now, an Esc would cancel the turn as it ends.
            self._parser = Vt100Parser(self._press)
            self._decode.reset()
            termios.tcsetattr(self._fd, termios.TCSADRAIN, saved)

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No key is read inside: someone else (the approval prompt) reads them. Keys
        pressed before are kept as typed, so that none answers the approval prompt."""
        if not self._reading:
            yield
            return
        while self._reading and select.select([self._fd], [], [], 0)[0]:
            self._readable()
        self._parser.flush()
        self._stop()
        try:
            yield
        finally:
            self._start()

    def _start(self) -> None:
        asyncio.get_running_loop().add_reader(self._fd, self._readable)
        self._reading = True

    def _stop(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if self._reading:
            asyncio.get_running_loop().remove_reader(self._fd)
            self._reading = False

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, 1024)
        except BlockingIOError:
            return
        if not data:  # the terminal has gone: nothing more will come
            self._stop()
            return
        if self._flush is not None:
            self._flush.cancel()
        text = self._decode.decode(data)
        if len(text) > 1 and ("\r" in text or "\n" in text) and "\x1b" not in text:
            self._parser.flush()
            self._press(KeyPress(Keys.BracketedPaste, text))
            return
        self._parser.feed(text)
        # A lone ESC is Esc only once nothing follows it.
        self._flush = asyncio.get_running_loop().call_later(_ESCAPE_WAIT, self._parser.flush)

    def _press(self, press: KeyPress) -> None:
        action = self.typed.key(press)
        if action is not None:
            self._actions[action]()
