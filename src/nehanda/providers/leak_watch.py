"""Leak recovery that loads the rescue parser only for a reply that may hold a call.

The parser (``providers.leaks.LeakedCalls`` over ``toolcalls``) costs about 100 ms to
import, and most native replies are prose that holds no call. Every dialect's call has
one of ``toolcalls.triggers.START_CHARS`` in it, or starts the message with one of its
``MESSAGE_LEADS``; ``LeakWatch`` looks for those with ``str.find``-speed tests and passes the
prose on as it comes. At the first sign of one it loads the parser and hands it the
whole text so far, dropping from its prose what was already passed on: held back
meanwhile was every line's last word while it may still open a call (``functools[``,
a functionary ``NAME`` before its ``{``), so what was passed on is prose to the parser
too, and a reply reads the same whichever way it went.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from nehanda.events import MessageEnd, StreamEvent, TextDelta, ToolUseEnd, ToolUseStart
from nehanda.toolcalls.triggers import MESSAGE_LEADS, START_CHARS
from nehanda.types import ToolSpec

if TYPE_CHECKING:
    from nehanda.providers.leaks import LeakedCalls

_WORD = r"[^\s" + re.escape(START_CHARS) + r"]*"
# A line's last word, which the next delta may turn into a call's opening, and a message
# that is one word so far, with what follows it (functionary's ``NAME\n{`` starts so).
_OPEN_WORD = re.compile(r"(?<=\n)[ \t]*" + _WORD + r"\Z")
_FIRST_WORD = re.compile(r"\s*" + _WORD + r"\s*\Z")


class LeakWatch:
    """``LeakedCalls``'s events for a native response, its parser loaded only if needed."""

    def __init__(self, tools: tuple[ToolSpec, ...]) -> None:
        self.tools = tools
        self.leaks: LeakedCalls | None = None
        self.native_calls = False
        self._sent: list[str] = []  # the reply's text that went on as prose
        self._held = ""  # and the text after it

    def handle(self, event: StreamEvent) -> list[StreamEvent]:
        if self.leaks is not None:
            return self.leaks.handle(event)
        if isinstance(event, TextDelta):
            self._held += event.text
            if self._may_call(event.text):
                return self._scanned()
            return self._prose(self._settled())
        if isinstance(event, MessageEnd):
            return [*self._prose(len(self._held)), event]
        self.native_calls = self.native_calls or isinstance(event, ToolUseStart | ToolUseEnd)
        return [event]

    def _may_call(self, delta: str) -> bool:
        if any(char in delta for char in START_CHARS):
            return True
        return not self._sent and self._held.lstrip().startswith(MESSAGE_LEADS)

    def _settled(self) -> int:
        """Where the held text that may still open a call begins (its end: none)."""
        if not self._sent and _FIRST_WORD.match(self._held):
            return 0
        # Unless nothing went on or it ended a line, the held text's first line began with prose.
        lead = "\n" if not self._sent or self._sent[-1].endswith("\n") else ""
        held = _OPEN_WORD.search(lead + self._held)
        return len(self._held) if held is None else max(0, held.start() - len(lead))

    def _prose(self, end: int) -> list[StreamEvent]:
        if not end:
            return []
        text, self._held = self._held[:end], self._held[end:]
        self._sent.append(text)
        return [TextDelta(text)]

    def _scanned(self) -> list[StreamEvent]:
        from nehanda.providers.leaks import LeakedCalls

        self.leaks = LeakedCalls(self.tools)
        self.leaks.native_calls = self.native_calls
        skip = sum(map(len, self._sent))
        out: list[StreamEvent] = []
        for event in self.leaks.handle(TextDelta("".join(self._sent) + self._held)):
            if isinstance(event, TextDelta) and skip:
                kept, skip = event.text[skip:], max(0, skip - len(event.text))
                if kept:
                    out.append(TextDelta(kept))
            else:
                out.append(event)
        self._sent, self._held = [], ""
        return out
