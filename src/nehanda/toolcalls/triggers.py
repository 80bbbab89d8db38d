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
from dataclasses import dataclass, field

START_CHARS = "[<`{=>"


def _alternation(words: frozenset[str]) -> str:
    # Longest first, so that "[TOOL_CALLS]" is never read as "[TOOL_CALL]" + "S]".
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


@dataclass(frozen=True)
class TriggerSet:
    """The words that interrupt prose in one scanning mode, compiled."""

    words: frozenset[str]
    at: re.Pattern[str]
    starts: re.Pattern[str]
    prefixes: frozenset[str]
    longest: int
    chars: str
    find: _Finder = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "find", _Finder(self))

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


class _Finder:
    """``search(buf, pos)``: the first word at or after ``pos``, like ``re.search``."""

    __slots__ = ("_at", "_chars")

    def __init__(self, triggers: TriggerSet) -> None:
        self._at = triggers.at
        self._chars = triggers.chars

    def search(self, buf: str, pos: int = 0) -> re.Match[str] | None:
        at = self._at
        find = buf.find
        nxt = {c: find(c, pos) for c in self._chars}
        while True:
            live = [i for i in nxt.values() if i >= 0]
            if not live:
                return None
            i = min(live)
            m = at.match(buf, i)
            if m is not None:
                return m
            c = buf[i]
            nxt[c] = find(c, i + 1)


def trigger_set(words: frozenset[str] | set[str]) -> TriggerSet:
    frozen = frozenset(words)
    for word in frozen:
        assert word[0] in START_CHARS, word
    chars = "".join(sorted({w[0] for w in frozen}))
    return TriggerSet(
        frozen,
        re.compile(_alternation(frozen)),
        re.compile("[" + re.escape(chars) + "]"),
        frozenset(w[:i] for w in frozen for i in range(1, len(w))),
        max(len(w) for w in frozen),
        chars,
    )
