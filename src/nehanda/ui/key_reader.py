"""The one way nehanda reads a terminal's keys, on prompt_toolkit's public input API.

``KeyReader`` puts the terminal in the keys mode (``keys_mode``: prompt_toolkit's
``Input.raw_mode``, with the terminal's signals kept on, so that Ctrl-C interrupts and
Ctrl-Z suspends as they do at the shell; set again after ``fg`` when asked to), reads
what one read brings (``read``: decoded, a UTF-8 character split between reads kept
whole) and turns it into prompt_toolkit's ``KeyPress`` values (``keys``, through its
``Vt100Parser``). The turn keys, the approval prompt and its pager read through it;
the list picker draws with a prompt_toolkit application on ``key_input``.

A bracketed paste is cut out before the parser sees it, so that what is pasted so far
is known when reading stops in its middle (``end``). Text without an escape in it is
not parsed character by character: a megabyte typed ahead reads in a fraction of a
second. A control sequence the parser does not know (a focus report, another
terminal's key) is dropped whole, so that its ESC is not taken for Esc.
"""

from __future__ import annotations

import asyncio
import codecs
import os
import re
import select
import signal
import termios
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, suppress
from typing import IO, Any, TextIO, cast

from prompt_toolkit.input import Input, create_input
from prompt_toolkit.input.ansi_escape_sequences import ANSI_SEQUENCES
from prompt_toolkit.input.vt100_parser import Vt100Parser
from prompt_toolkit.key_binding import KeyPress
from prompt_toolkit.keys import Keys

CONTROL_SEQUENCE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile("([\x00-\x1f\x7f])")
_PASTE_START, _PASTE_END = "\x1b[200~", "\x1b[201~"


def key_input(stream: IO[str]) -> Input:
    """prompt_toolkit's input for ``stream``, a terminal."""
    return create_input(cast(TextIO, stream))


class KeyReader:
    """The keys of the terminal ``stream``."""

    def __init__(self, stream: IO[str]) -> None:
        self.input = key_input(stream)
        self._fd = stream.fileno()
        self._presses: list[KeyPress] = []
        self._parser = Vt100Parser(self._presses.append)
        self._decode = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._paste: list[str] | None = None  # a bracketed paste read as far as it came
        self._carry = ""  # the start of a paste's mark, cut by the end of a read
        self._parsed = False  # the parser may hold the start of a sequence

    @contextmanager
    def keys_mode(self, *, resume: bool = False) -> Iterator[None]:
        """Keys one by one, without echo; the terminal's signals (Ctrl-C, Ctrl-Z) kept.
        With ``resume``, the mode is set again when the process is continued after
        Ctrl-Z: the shell has put its own modes back by then."""
        with self.input.raw_mode():
            mode = _keep_signals(self._fd)
            if not resume or mode is None:
                yield
                return
            loop = asyncio.get_running_loop()
            loop.add_signal_handler(signal.SIGCONT, _set_mode, self._fd, mode)
            try:
                yield
            finally:
                loop.remove_signal_handler(signal.SIGCONT)

    def attach(self, ready: Callable[[], None]) -> AbstractContextManager[None]:
        """Calls ``ready`` on the event loop each time there is something to read."""
        return self.input.attach(ready)

    async def next_text(self) -> str | None:
        """What the next read brings, once there is something (``read``)."""
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        with self.attach(wake):
            await ready
        return self.read()

    def pending(self) -> bool:
        """True when something typed is waiting to be read."""
        return bool(select.select([self._fd], [], [], 0)[0])

    def drop_pending(self) -> None:
        """What was typed and not read yet is dropped: it was typed before the question."""
        while self.pending() and self.read() is not None:
            pass
        self._decode.reset()

    def read(self) -> str | None:
        """What one read brings, as text (``""`` when it is half a character); None once
        the terminal has gone."""
        try:
            data = os.read(self._fd, 1024)
        except BlockingIOError:
            return ""
        except OSError:  # EIO: the terminal has gone
            return None
        return self._decode.decode(data) if data else None

    @property
    def holding(self) -> bool:
        """True when what was read may be the start of a sequence still to come (a lone
        ESC is Esc only once nothing follows it: ``flush`` says what it was)."""
        return self._parsed or bool(self._carry)

    def keys(self, text: str) -> list[KeyPress]:
        """The keys in ``text``, one read's, after what was read before."""
        presses: list[KeyPress] = []
        text, self._carry = self._carry + text, ""
        while text:
            if self._paste is not None:
                text = self._pasted(text, presses)
                continue
            head, start, text = text.partition(_PASTE_START)
            if not start:
                self._carry = _mark_start(head, _PASTE_START)
                head = head[: len(head) - len(self._carry)]
            presses += self._typed(head)
            if start:
                self._paste = []
        return presses

    def flush(self) -> list[KeyPress]:
        """What the parser held, taken as it is, nothing more being on its way."""
        self._parsed = False
        if self._carry and self._paste is None:
            self._parser.feed(self._carry)
            self._carry = ""
        return self._taken(self._parser.flush)

    def end(self) -> list[KeyPress]:
        """Reading stops: a bracketed paste cut short is kept as far as it came; what
        else was half-read is dropped, and the next read starts afresh."""
        cut = None if self._paste is None else "".join(self._paste) + self._carry
        kept = [] if cut is None else [KeyPress(Keys.BracketedPaste, cut)]
        self._paste, self._carry, self._parsed = None, "", False
        self._parser.reset()
        self._decode.reset()
        return kept

    def _pasted(self, text: str, presses: list[KeyPress]) -> str:
        """Adds ``text`` to the paste; what follows its end is returned."""
        assert self._paste is not None
        content, end, rest = text.partition(_PASTE_END)
        if not end:
            self._carry = _mark_start(content, _PASTE_END)
            self._paste.append(content[: len(content) - len(self._carry)])
            return ""
        self._paste.append(content)
        presses.append(KeyPress(Keys.BracketedPaste, "".join(self._paste)))
        self._paste = None
        return rest

    def _typed(self, text: str) -> list[KeyPress]:
        if not text:
            return []
        if not self._parsed and "\x1b" not in text:
            return [_press(part) for part in _CONTROL.split(text) if part]
        self._parsed = True
        return self._taken(self._parser.feed, CONTROL_SEQUENCE.sub(_known, text))

    def _taken(self, step: Callable[..., None], *text: str) -> list[KeyPress]:
        self._presses.clear()
        step(*text)
        presses = list(self._presses)
        self._presses.clear()
        return presses


_Mode = list[Any]  # termios's attribute list


def _keep_signals(fd: int) -> _Mode | None:
    """The terminal's mode with its signals on again, as set; None off a terminal."""
    try:
        mode: _Mode = termios.tcgetattr(fd)
        mode[3] |= termios.ISIG
        termios.tcsetattr(fd, termios.TCSANOW, mode)
    except termios.error:
        return None
    return mode


def _set_mode(fd: int, mode: _Mode) -> None:
    with suppress(termios.error):  # a terminal that has gone has no modes
        termios.tcsetattr(fd, termios.TCSANOW, mode)


def _mark_start(text: str, mark: str) -> str:
    """The end of ``text`` that could be the start of ``mark``, cut by the read's end."""
    at = text.rfind("\x1b", max(len(text) - len(mark) + 1, 0))
    return text[at:] if at >= 0 and mark.startswith(text[at:]) else ""


def _press(part: str) -> KeyPress:
    """A control character as its key; a run of text, typed or pasted, as a paste."""
    key = ANSI_SEQUENCES.get(part) if len(part) == 1 else None
    if isinstance(key, Keys):
        return KeyPress(key, part)
    return KeyPress(Keys.BracketedPaste, part)


def _known(sequence: re.Match[str]) -> str:
    """A whole control sequence the parser knows, kept; one it does not (focus events,
    keys of other terminals) dropped, so that its ESC is not taken for Esc."""
    text = sequence[0]
    if text in ANSI_SEQUENCES or text[-1] in "RMm":  # CPR, mouse
        return text
    return ""
