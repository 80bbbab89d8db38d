"""The words that interrupt prose, found without a regex alternation over the text.

Every word a scanning mode looks for (openers, closers, reasoning tags, markup,
fence marks) starts with one of a few rare characters (``[ < ` { = >``). The finder
looks for each one's words with ``str.find`` (a C loop over the text) and then that
character's own regex, whose engine skips in C to where the character stands, so prose
costs about one pass per start character and a place where one starts no word costs
no Python.
``held`` says how much of a chunk's end to keep back because the next chunk may
complete a word there.

Most chunks hold none of those characters, or hold one that starts no word there
(``a < b``, ``x[i]``, ``{k: v}`` mid-line). ``may`` tells them apart from the rest with
one regex over a precomputed table: the first ``PREFIX`` characters of every word,
where a one-character word may stand, and a word's first characters at the chunk's
end (``candidate_pattern``). A chunk it does not match is prose through and through.
The table is written as a trie (``trie_pattern``): where a start character stands, the
engine tests one branch per character that follows, not every word.
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
# Where a reply may skip the scanner, these change its prose too: functionary's
# recipient header ("all\n" before a message to the user) is taken out of the text.
MESSAGE_LEADS = (*BARE_LEADS, "all\n")
# One-character words that only start a line's JSON value.
LINE_WORDS = "{["
# What directly follows a line opener word (``functools[``): the word is found there.
LINE_OPENER_END = "["


# A one-character word in LINE_WORDS starts a line's JSON value: only at the start of
# a line, after at most a few blanks, is it worth a look (the scanner then checks the
# line; a chunk's start counts as a line start here).
def _line_start(char: str) -> str:
    """After ``char``: a look back that it starts a line, after at most eight blanks.

    One look at the character before comes first: mid-line (``x[i]``) it alone decides.
    """
    esc = re.escape(char)
    edges = (f"(?<={edge}[ \\t]{{{k}}}{esc})" for edge in ("^", "\n") for k in range(9))
    return f"(?<![^\\n \\t]{esc})(?:" + "|".join(edges) + ")"


# How many first characters of a word the candidate table holds.
PREFIX = 3
# A line opener word's start at a chunk's end (after blanks at a line start).
_TAIL = r"(?:{})\Z"


def candidate_pattern(words: frozenset[str], line_openers: frozenset[str]) -> str:
    """Where a chunk may hold a word, part of one at its end, or a line opener's start.

    Every alternative begins with a literal character, so that the regex engine skips
    every other one. A chunk's own start, which may be a line's, is ``lead_pattern``'s.
    """
    alternatives: set[tuple[str, str]] = set()
    for word in words:
        if len(word) == 1 and word in LINE_WORDS:
            alternatives.add(("\n", r"[ \t]*" + re.escape(word)))
        else:
            alternatives.add((word[:PREFIX], ""))
        alternatives.update((word[:k], r"\Z") for k in range(1, min(PREFIX, len(word))))
    end = re.escape(LINE_OPENER_END)
    alternatives.update((LINE_OPENER_END, f"(?<={re.escape(w)}{end})") for w in line_openers)
    if line_openers:
        alternatives.add(("\n", r"[ \t]*" + _TAIL.format(_prefixes(line_openers))))
    return trie_pattern(alternatives)


def trie_pattern(alternatives: set[tuple[str, str]], *, longest: bool = False) -> str:
    """The alternation of ``literal + tail`` for each pair, one branch per character.

    The engine tries a branch's rest only where its character stands, and a literal
    that another one starts with, with no tail, makes the longer one redundant.
    ``longest``: the match is the longest literal whose tail holds (a word finder's
    answer), as every longer literal is tried before a literal's own end.
    """
    if ("", "") in alternatives and not longest:
        return ""
    tails = sorted(tail for literal, tail in alternatives if not literal)
    branches = []
    for first in sorted({literal[0] for literal, _ in alternatives if literal}):
        subset = {(lit[1:], tail) for lit, tail in alternatives if lit[:1] == first}
        branches.append(re.escape(first) + trie_pattern(subset, longest=longest))
    # Longest first: a literal's own end after every longer literal, its tails then
    # redundant if it needs none.
    parts = branches + ([""] if "" in tails else tails) if longest else tails + branches
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


def lead_pattern(words: frozenset[str], line_openers: frozenset[str]) -> str:
    """At a chunk's start that is a line's: a line's JSON value, or a line opener's start."""
    firsts = [re.escape(w) for w in sorted(words) if w in LINE_WORDS]
    if line_openers:
        firsts.append(_TAIL.format(_prefixes(line_openers)))
    return r"[ \t]*(?:" + "|".join(firsts) + ")" if firsts else "(?!)"


def _prefixes(words: frozenset[str]) -> str:
    prefixes = {w[:k] for w in words for k in range(1, len(w) + 1)}
    return "|".join(re.escape(p) for p in sorted(prefixes, key=lambda p: (-len(p), p)))


# Below this many characters one regex search costs less than the finder's loop.
_SHORT = 512


def _alternatives(words: frozenset[str], line_openers: frozenset[str]) -> set[tuple[str, str]]:
    """Each word and what must hold after it: a one-character word in ``LINE_WORDS``
    counts at a line's start only; a line opener (``functools``) is found by the ``[``
    right after it."""
    alternatives = {(w, _line_start(w) if len(w) == 1 and w in LINE_WORDS else "") for w in words}
    end = LINE_OPENER_END
    alternatives.update((end, f"(?<={re.escape(w + end)})") for w in line_openers)
    return alternatives


def _word_pattern(alternatives: set[tuple[str, str]]) -> re.Pattern[str]:
    """The words as one trie, longest first, so that "[TOOL_CALLS]" is never read as
    "[TOOL_CALL]" + "S]"."""
    return re.compile(trie_pattern(alternatives, longest=True))


@dataclass(frozen=True)
class TriggerSet:
    """The words that interrupt prose in one scanning mode, compiled."""

    words: frozenset[str]
    at: re.Pattern[str]
    starts: re.Pattern[str]
    may: re.Pattern[str]
    may_beyond_code: re.Pattern[str]  # ``may`` but for a lone backtick (inline code)
    lead: re.Pattern[str]
    prefixes: frozenset[str]
    longest: int
    chars: str
    # What every word starting with a character starts with: the finder looks for that
    # (``"```"`` where backticks alone start no word), then for the words with
    # ``by_char``, that character's own part of ``at``.
    leads: dict[str, str]
    by_char: dict[str, re.Pattern[str]]

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
    """``search(buf, pos)``: the first word at or after ``pos``, as ``at.search`` answers.

    The regex alone searches the next ``_SHORT`` characters. Past them the finder keeps,
    for the text it last searched, each start character's next word, or how far it has
    looked and found none (its mark). A character is looked for only up to the nearest
    word known so far, nearest first: ``str.find`` on what all its words start with, then
    that character's regex (``TriggerSet.by_char``), whose literal first character lets
    the engine skip in C every place where it starts no word. So a place where one
    starts no word costs no Python, and text that another reader takes (a fence's body,
    read for its closer alone) is not searched here at all. One finder serves one reader
    at a time (a scanner owns its own).
    """

    __slots__ = ("_buf", "_from", "_marks", "_words", "triggers")

    def __init__(self, triggers: TriggerSet) -> None:
        self.triggers = triggers
        self._buf: str | None = None
        self._from = 0
        self._words: dict[str, re.Match[str] | None] = {}
        self._marks: dict[str, int] = {}

    def search(self, buf: str, pos: int = 0) -> re.Match[str] | None:
        triggers = self.triggers
        near = pos + _SHORT
        # One start character: the regex's own literal search is as quick (a fence).
        if len(buf) <= near or len(triggers.chars) == 1:
            return triggers.at.search(buf, pos)
        # The next word is often near (a fence's closer, code): one regex search there
        # costs less than the loop below.
        m = triggers.at.search(buf, pos, near + triggers.longest)
        if m is not None and m.start() < near:
            return m
        pos = near
        words, marks = self._words, self._marks
        if buf is not self._buf or pos < self._from:
            self._buf = buf
            words.clear()
            marks.clear()
        self._from = pos  # what is kept holds from here on, not before
        n = len(buf)
        best, best_at = None, n
        looks = []
        for c, lead in triggers.leads.items():
            m = words.get(c)
            if m is not None and m.start() >= pos:
                if m.start() < best_at:
                    best, best_at = m, m.start()
                continue
            words[c] = None
            mark = max(marks.get(c, pos), pos)
            if mark < n:
                i = buf.find(lead, mark)
                marks[c] = n if i < 0 else i
                if i >= 0:
                    looks.append((i, c))
        for i, c in sorted(looks):
            if i >= best_at:
                break
            m = triggers.by_char[c].search(buf, i, best_at + triggers.longest)
            if m is not None and m.start() < best_at:
                words[c] = best = m
                best_at = m.start()
            else:
                marks[c] = best_at
        return best


def _common_start(words: list[str]) -> str:
    first, last = min(words), max(words)
    k = 0
    while k < len(first) and first[k] == last[k]:
        k += 1
    return first[:k]


def trigger_set(
    words: frozenset[str] | set[str], line_openers: frozenset[str] = frozenset()
) -> TriggerSet:
    """``line_openers``: words found by the ``[`` right after them, which must be a word."""
    frozen = frozenset(words)
    for word in frozen:
        assert word[0] in START_CHARS, word
    assert not line_openers or LINE_OPENER_END in frozen
    chars = "".join(sorted({w[0] for w in frozen}))
    alternatives = _alternatives(frozen, line_openers)
    return TriggerSet(
        frozen,
        _word_pattern(alternatives),
        re.compile("[" + re.escape(chars) + "]"),
        re.compile(candidate_pattern(frozen, line_openers)),
        re.compile(candidate_pattern(frozen - {"`"}, line_openers)),
        re.compile(lead_pattern(frozen, line_openers)),
        frozenset(w[:i] for w in frozen for i in range(1, len(w))),
        max(len(w) for w in frozen),
        chars,
        {c: _common_start([w for w in frozen if w[0] == c]) for c in chars},
        {c: _word_pattern({a for a in alternatives if a[0][0] == c}) for c in chars},
    )
