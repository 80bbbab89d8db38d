"""Keys pressed while a REPL turn runs: ``TurnKeys``, and what they mean: ``TypeAhead``.

As in Claude Code: Shift-Tab changes the permission mode, as at the prompt; Esc stops
the turn, as Ctrl-C does; what is typed is kept. Enter queues the line as a prompt to
send once the turn has ended; the rest waits in the next prompt's input. Keys that
arrive together with a newline among them are a paste: its newlines are kept as text
and queue nothing (a person's Enter arrives on its own).

On a terminal only. For the turn the terminal reads keys one by one without echo
(Ctrl-C still signals), read through ``ui.key_reader``; the approval prompt
has the terminal to itself while it asks (``paused``), and no key typed ahead before it
appeared can answer it. Only an Esc on its own stops: one that leads other keys read with
it is Alt's (Alt-b, Alt-Up), and a sequence cut short does nothing.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import TextIO

from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

from nehanda.ui.key_reader import CONTROL_SEQUENCE, KeyReader

_ESCAPE_WAIT = 0.05  # how long a lone ESC waits to become part of a sequence
_ENTER = (Keys.ControlM, Keys.ControlJ)
# What typing never puts in the line: control characters but tab and newline, and the
# invisible format characters (bidi overrides among them) but the joiners emoji need.
_UNTYPED = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u2069\ufeff]"
)


@dataclass
class TypeAhead:
    """The prompts queued during a turn and the line being typed. ``key`` returns what
    a key asks of the turn: ``"cycle"`` (the permission mode), ``"stop"``, or ``None``."""

    queued: list[str] = field(default_factory=list)
    line: str = ""

    def key(self, press: KeyPress) -> str | None:
        if (text := _text(press)) is not None:
            self.line += text
            return None
        key = press.key
        if key == Keys.BackTab:
            return "cycle"
        if key == Keys.Escape:
            return "stop"
        if key in _ENTER:
            if self.line.strip():
                self.queued.append(self.line)
            self.line = ""
        elif key in (Keys.ControlH, Keys.Backspace):
            self.line = self.line[:-1]
        elif key == Keys.ControlU:
            self.line = ""
        return None

    def keys(self, presses: Sequence[KeyPress], *, pasted: bool = False) -> list[str]:
        """What keys read together ask of the turn, in order. An Esc leading other keys
        is Alt's (Alt-b, Alt-Up): neither it nor the key it leads does anything. In a
        paste, Enter and Tab are text."""
        actions: list[str] = []
        text: list[str] = []  # added to the line at once: a long paste stays linear
        led = False
        for press in presses:
            if led:
                led = False
                continue
            if press.key == Keys.Escape and len(presses) > 1:
                led = True
                continue
            if pasted and press.key in (*_ENTER, Keys.ControlI):
                press = KeyPress(Keys.BracketedPaste, press.data)
            if (typed := _text(press)) is not None:
                text.append(typed)
                continue
            self.line += "".join(text)
            text.clear()
            if (action := self.key(press)) is not None:
                actions.append(action)
        self.line += "".join(text)
        return actions

    def rows(self, prompt: str, width: int) -> list[tuple[str, str]]:
        """The footer's rows, with their styles: the prompts queued (their first lines),
        then the line typed (its last line, after ``prompt``); each row holds only what
        ``width`` columns could show, since measuring the rest costs time."""
        rows = []
        for line in self.queued:
            first, newline, rest = line.partition("\n")
            below = f" ({_lines(rest.count(newline) + 1)} below)" if newline else ""
            rows.append((f"⏎ {first[: 4 * width]}{below}", "dim"))
        if self.line:
            above = self.line.count("\n")
            last = self.line[self.line.rfind("\n") + 1 :][: 4 * width]
            rows.append((f"{prompt}({_lines(above)} above) {last}" if above else prompt + last, ""))
        return rows

    def take_back(self) -> str:
        """Everything typed, queued or not, as one text for the next prompt's input (a
        stopped turn sends nothing by itself); the queue is left empty."""
        text = "\n".join([*self.queued, self.line] if self.line else self.queued)
        self.queued, self.line = [], ""
        return text


def _lines(count: int) -> str:
    return f"{count} line{'s' if count > 1 else ''}"


def _text(press: KeyPress) -> str | None:
    """What ``press`` adds to the line, if it is text."""
    if press.key == Keys.BracketedPaste:
        text = CONTROL_SEQUENCE.sub("", press.data).replace("\r\n", "\n").replace("\r", "\n")
        return _UNTYPED.sub("", text)
    key = press.key
    if not isinstance(key, Keys) and len(key) == 1 and not _UNTYPED.match(key):
        return key
    return None


class TurnKeys:
    """Reads ``stream``'s keys while a turn runs; ``cycle`` and ``stop`` are called for
    Shift-Tab and Esc."""

    def __init__(self, stream: TextIO, cycle: Callable[[], None], stop: Callable[[], None]) -> None:
        self.typed = TypeAhead()
        self._reader = KeyReader(stream)
        self._actions = {"cycle": cycle, "stop": stop}
        self._flush: asyncio.TimerHandle | None = None
        self._attached: ExitStack | None = None
        self._in_turn = False

    @contextmanager
    def reading(self) -> Iterator[TypeAhead]:
        """The keys of one turn; the terminal is as it was once the turn ends."""
        with self._reader.keys_mode(resume=True):
            try:
                self._start()
                self._in_turn = True
                yield self.typed
            finally:
                self._in_turn = False
                self._stop()
                # Whatever is left half-read is dropped: an ESC flushed now would cancel
                # the turn as it ends. A paste cut short is kept as far as it came.
                self._act(self.typed.keys(self._reader.end()))

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No key is read inside: someone else (the approval prompt) reads them. Keys
        pressed before are kept as typed, so that none answers the approval prompt."""
        if self._attached is None:
            yield
            return
        self.take_typed()
        self._stop()
        try:
            yield
        finally:
            self._start()

    def take_typed(self) -> None:
        """The keys typed but not read yet, read into the type-ahead now (whoever reads
        keys next is shown only after they were pressed); outside a turn, nothing."""
        while self._in_turn and self._reader.pending() and self._read():
            pass
        self._flushed()

    def _start(self) -> None:
        self._attached = ExitStack()
        self._attached.enter_context(self._reader.attach(self._readable))

    def _stop(self) -> None:
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if self._attached is not None:
            self._attached.close()
            self._attached = None

    def _readable(self) -> None:
        if not self._read():  # the terminal has gone: nothing more will come
            self._stop()

    def _read(self) -> bool:
        """Reads what the terminal has; false once it has gone."""
        if (text := self._reader.read()) is None:
            return False
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        # Keys that arrive together with a newline among them are a paste.
        pasted = len(text) > 1 and ("\r" in text or "\n" in text)
        self._act(self.typed.keys(self._reader.keys(text), pasted=pasted))
        if self._reader.holding:  # a lone ESC is Esc only once nothing follows it
            self._flush = asyncio.get_running_loop().call_later(_ESCAPE_WAIT, self._flushed)
        return True

    def _flushed(self) -> None:
        """What the reader held, taken as it is: an Esc alone stops; an escape sequence
        cut short (its end arrived too late, or never) does nothing."""
        if self._flush is not None:
            self._flush.cancel()
            self._flush = None
        if [press.key for press in self._reader.flush()] == [Keys.Escape]:
            self._act(["stop"])

    def _act(self, actions: list[str]) -> None:
        for action in actions:
            self._actions[action]()
