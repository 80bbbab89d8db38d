"""The words that interrupt prose, found without a regex alternation over the text.

Every word a scanning mode looks for (openers, closers, reasoning tags, markup,
fence marks) starts with one of a few rare characters (``[ < ` { = >``). The finder
looks for those characters with ``str.find`` (a C loop over the text) and tests the
words only where one sits, so prose costs about one pass per start character.
``held`` says how much of a chunk's end to keep back because the next chunk may
complete a word there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

START_CHARS = "[<`{=>"
# The words a message-start form opens with where it may hold none of START_CHARS
# (Harmony's stripped output, "analysisWe need…"); every other form has one of them
# before its call ends (functionary's ``NAME\n{``, Gemma's ``call:NAME{``). A reply
# with neither may skip the scanner (``providers.leak_watch``).
BARE_LEADS = ("analysis", "assistant", "commentary")
# One-character words that only start a line's JSON value.
LINE_WORDS = "{["
# What directly follows a line opener word (``functools[``): the word is found there.
LINE_OPENER_END = "["


# A one-character word in LINE_WORDS starts a line's JSON value: only at the start of
# a line, after at most a few blanks, is it worth a look (the scanner then checks the
# line; a chunk's start counts as a line start here).
def _line_start(char: str) -> str:
    """After ``char``: a look back that it starts a line, after at most eight blanks."""
    esc = re.escape(char)
    edges = (f"(?<={edge}[ \\t]{{{k}}}{esc})" for edge in ("^", "\n") for k in range(9))
    return "(?:" + "|".join(edges) + ")"


# After this many misses in a row the text is dense with start characters (code):
# the regex then searches on at C speed.
_MISSES = 4


def _alternation(words: frozenset[str], line_openers: frozenset[str]) -> str:
    """One branch per start character, so that the engine skips any other character.

    Longest first within a branch, so that "[TOOL_CALLS]" is never read as
    "[TOOL_CALL]" + "S]". A line opener (``functools``) is found by the ``[`` after it.
    """
    branches = []
    for first in sorted({w[0] for w in words}):
        group = sorted((w for w in words if w[0] == first), key=lambda w: (-len(w), w))
        rests = [re.escape(w[1:]) for w in group if len(w) > 1]
        if len(group) > len(rests):  # the character alone is a word
            rests.append(_line_start(first) if first in LINE_WORDS else "")
            if first == LINE_OPENER_END:
                rests += (f"(?<={re.escape(w + first)})" for w in sorted(line_openers))
        branches.append(re.escape(first) + "(?:" + "|".join(rests) + ")")
    return "|".join(branches)


@dataclass(frozen=True)
class TriggerSet:
    """The words that interrupt prose in one scanning mode, compiled."""

    words: frozenset[str]
    at: re.Pattern[str]
    starts: re.Pattern[str]
    prefixes: frozenset[str]
    longest: int
    chars: str

    def held(self, buf: str, lo: int) -> int:
        """Where the start of a word the next chunk may finish begins (``len(buf)``: none)."""
        n = len(buf)
        lo = max(lo, n - self.longest + 1)
        if lo >= n or not self.starts.search(buf, lo):
            return n
        for k in range(lo, n):
            if buf[k] in self.chars and buf[k:] in self.prefixes:
                return k
        return n

    def waits(self, buf: str, i: int) -> bool:
        """Whether the word found at ``i`` may still grow into a longer word."""
        return len(buf) - i < self.longest and buf[i:] in self.prefixes


class Finder:
    """``search(buf, pos)``: the first word at or after ``pos``, like ``re.search``.

    It remembers, for the text it last searched, where each start character next
    occurs, so that walking one text from left to right finds each character once.
    One finder serves one reader at a time (a scanner owns its own).
    """

    __slots__ = ("_buf", "_from", "_next", "triggers")

    def __init__(self, triggers: TriggerSet) -> None:
        self.triggers = triggers
        self._buf: str | None = None
        self._from = 0
        self._next: dict[str, int] = {}

    def search(self, buf: str, pos: int = 0) -> re.Match[str] | None:
        at = self.triggers.at
        find = buf.find
        if buf is not self._buf or pos < self._from:
            self._buf, self._from = buf, pos
            self._next = dict.fromkeys(self.triggers.chars, -2)
        nxt = self._next
        for c, i in nxt.items():
            if -1 < i < pos or i == -2:
                nxt[c] = find(c, pos)
        for _ in range(_MISSES):
            live = [i for i in nxt.values() if i >= pos]
            if not live:
                return None
            i = min(live)
            m = at.match(buf, i)
            if m is not None:
                return m
            c = buf[i]
            nxt[c] = find(c, i + 1)
        self._buf = None
        return at.search(buf, i + 1)


def trigger_set(
    words: frozenset[str] | set[str], line_openers: frozenset[str] = frozenset()
) -> TriggerSet:
    """``line_openers``: words found by the ``[`` right after them, which must be a word."""
    frozen = frozenset(words)
    for word in frozen:
        assert word[0] in START_CHARS, word
    assert not line_openers or LINE_OPENER_END in frozen
    chars = "".join(sorted({w[0] for w in frozen}))
    return TriggerSet(
        frozen,
        re.compile(_alternation(frozen, line_openers)),
        re.compile("[" + re.escape(chars) + "]"),
        frozenset(w[:i] for w in frozen for i in range(1, len(w))),
        max(len(w) for w in frozen),
        chars,
    )
