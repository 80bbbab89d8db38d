"""XML-like elements in a finished body: each runs to its end tag, or to the next opener.

DSML's ``<｜DSML｜invoke>``/``<｜DSML｜parameter>`` and Step-3's ``<steptml:invoke>``/
``<steptml:parameter>`` share one reading: an element ends at its closing tag; a model
that forgot the tag ends it at the next opening tag, or at the end of the text. Every
search moves forward only, so a text full of openers without closers stays linear.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass


class Ahead:
    """The next match of ``pattern`` at or after a position that only moves forward.

    A decoder asks for "the next closing tag after here" once per element; caching
    the last answer keeps that linear when the tag is missing (no rescan to the end
    for every element).
    """

    __slots__ = ("_done", "_last", "_pattern", "_text")

    def __init__(self, pattern: re.Pattern[str], text: str) -> None:
        self._pattern = pattern
        self._text = text
        self._last: re.Match[str] | None = None
        self._done = False

    def after(self, pos: int) -> re.Match[str] | None:
        last = self._last
        if last is not None and last.start() >= pos:
            return last
        if self._done:
            return None
        m = self._pattern.search(self._text, pos)
        self._last = m
        self._done = m is None
        return m


@dataclass(frozen=True)
class Element:
    """One element: its opening tag's match and what it holds.

    ``closed``: its own closing tag ended it. Otherwise ``to_end`` says whether it ran
    to the end of the text (no opener after it), where an output may have been cut.
    """

    tag: re.Match[str]
    inner: str
    closed: bool
    to_end: bool = False


def elements(text: str, opener: re.Pattern[str], closer: re.Pattern[str]) -> Iterator[Element]:
    """Each element ``opener`` starts in ``text``, in order."""
    opens, closes = Ahead(opener, text), Ahead(closer, text)
    pos, n = 0, len(text)
    while pos < n:
        m = opens.after(pos)
        if m is None:
            return
        end = closes.after(m.end())
        nxt = opens.after(m.end())
        if end is None or (nxt is not None and nxt.start() < end.start()):
            stop = nxt.start() if nxt is not None else n
            yield Element(m, text[m.end() : stop], closed=False, to_end=nxt is None)
            pos = stop
        else:
            yield Element(m, text[m.end() : end.start()], closed=True)
            pos = end.end()
