"""A whole-body block: a ``Section`` or a message-start form, read to its end, then decoded.

The scanner has already checked the section's ``head`` (see ``pick_section``). The
block collects the body up to the first closer outside a protected span (or a JSON
string, for a section that says so), holding back only a possible partial marker at
a chunk's end, and hands the finished ``Body`` to the family's decoder once. Work is
linear in the body: each character is searched once. A section with a ``tail`` then
waits: each further body it holds is read the same way, and its calls stand only if
the output ends with no other text after them. A ``cut_at_closer`` section whose
string ran past its closer ends at that closer after all, once per output, and hands
the rest back as ``leftover``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, Literal

from nehanda.toolcalls.family import START_WINDOW, Body, Decoded, Section, StartForm
from nehanda.toolcalls.shapes import Found

RUNNING, DONE, REJECTED = 0, 1, 2
_STRING_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_SPACE = re.compile(r"\s*")
HEAD_WINDOW = 256


class SectionBlock:
    """Driven by the scanner like ``Block``: ``step`` until ``status`` leaves RUNNING."""

    def __init__(
        self,
        section: Section,
        opener: str,
        ctx: int,
        known: Collection[str] | None,
        schemas: Mapping[str, Mapping[str, Any]],
        *,
        keep_closer: bool = False,
        may_cut: Callable[[], bool] | None = None,
    ) -> None:
        """``keep_closer``: the closer is left in the text (a reasoning closer ending the
        section a message-start form sat in). ``may_cut``: asked once before a
        ``cut_at_closer`` cut, True at most once per output (the text after the cut is
        read again)."""
        self.section = section
        self._keep_closer = keep_closer
        self.ctx = ctx
        self.known = known
        self.schemas = schemas
        self.raw: list[str] = [opener]
        self.found: list[Found] = []
        self.status = RUNNING
        self.unclosed = False
        self.fence_after = False
        self.leftover = ""
        self._body: list[str] = []
        self._protect_end: str | None = None
        self._in_string = False
        self._marks = _marks(section)
        self._opener = opener
        self._tail = False  # a tail section past a closer: what follows decides
        self._may_cut = may_cut
        self._cut = False  # the body ended at an earlier closer; the rest is ``leftover``
        self._need_head = section.blank_gaps  # a body's head still to pass

    def step(self, buf: str, pos: int, final: bool) -> int:
        """Consume what can be decided from ``buf[pos:]``; returns the new position."""
        n = len(buf)
        while pos < n or self._tail:
            if self._tail:
                pos = self._after(buf, pos, final)
                if self._tail or self.status != RUNNING:
                    return pos
                continue
            if self._in_string:
                end = _STRING_BODY.match(buf, pos).end()  # type: ignore[union-attr]
                if end >= n or buf[end] == "\\":  # the string or an escape goes on
                    return self._keep(buf, pos, end, final)
                self._take(buf, pos, end + 1)
                self._in_string = False
                pos = end + 1
                continue
            if self._protect_end is not None:
                at = buf.find(self._protect_end, pos)
                if at < 0:
                    return self._keep(buf, pos, n - len(self._protect_end) + 1, final)
                end = at + len(self._protect_end)
                self._take(buf, pos, end)
                self._protect_end = None
                pos = end
                continue
            if self.section.blank_gaps:
                pos, stop = self._gap(buf, pos, final)
                if stop:
                    return pos
                if pos >= n:
                    break
            m = self._marks.pattern.search(buf, pos)
            if m is None:
                return self._keep(buf, pos, self._marks.safe(buf, pos), final)
            mark = m.group()
            if mark == '"':
                self._take(buf, pos, m.end())
                self._in_string = True
                pos = m.end()
                continue
            protect_end = self._marks.protect.get(mark)
            if protect_end is not None:
                self._take(buf, pos, m.end())
                self._protect_end = protect_end
                pos = m.end()
                continue
            self._take(buf, pos, m.start())
            self._finish(closed=True, mark=mark)
            if self._keep_closer:
                return m.start()
            if self._cut:  # the closer went back with the leftover
                return m.end()
            self.raw.append(mark)
            if self._tail:
                pos = m.end()
                continue
            return m.end()
        if final:
            self._finish(closed=not self.section.closers)
        return pos

    def _gap(self, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        """For ``blank_gaps``: pass a body's head, then blanks up to the next mark. The
        new position, and whether to return there (waiting, or rejected)."""
        n = len(buf)
        if self._need_head:
            picked = pick_section((self.section,), buf, pos, final)
            if picked is True:
                return pos, True
            head = None if picked is None else self.section.head
            m = None if head is None else head.match(buf, pos, min(n, pos + HEAD_WINDOW))
            if m is None:
                self.status = REJECTED
                return pos, True
            self._take(buf, pos, m.end())
            pos = m.end()
            self._need_head = False
        gap = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
        self._take(buf, pos, gap)
        if gap >= n or self._marks.pattern.match(buf, gap):
            return gap, False
        if not final and buf[gap:] in self._marks.prefixes:
            return gap, True  # a mark the next chunk may complete
        self.status = REJECTED  # text between the elements: a mention
        return gap, True

    def _after(self, buf: str, pos: int, final: bool) -> int:
        """Past a tail section's closer: blanks and its tail words, then the end of the
        output (its calls stand), another of its bodies, or text (a quotation)."""
        words = self.section.tail or ()
        at = pos
        while True:
            at = _SPACE.match(buf, at).end()  # type: ignore[union-attr]
            word = next((w for w in words if buf.startswith(w, at)), None)
            if word is None:
                break
            at += len(word)
        self.raw.append(buf[pos:at])
        rest = buf[at:]
        if rest.startswith(self._opener):
            self.raw.append(self._opener)
            self._body, self._tail = [], False
            self._need_head = self.section.blank_gaps
            return at + len(self._opener)
        if not final and any(w.startswith(rest) for w in (*words, self._opener)):
            return at  # the end of what has arrived, or a word it may still become
        self.status = DONE if not rest else REJECTED
        self._tail = False
        return at

    def _keep(self, buf: str, pos: int, safe: int, final: bool) -> int:
        """Consume up to ``safe`` (all of it at the end), keeping a partial marker."""
        n = len(buf)
        upto = n if final else max(pos, min(safe, n))
        self._take(buf, pos, upto)
        if final:
            self._finish(closed=not self.section.closers)
        return upto

    def _take(self, buf: str, start: int, end: int) -> None:
        if end > start:
            piece = buf[start:end]
            self.raw.append(piece)
            self._body.append(piece)

    def _finish(self, *, closed: bool, mark: str = "") -> None:
        body = Body("".join(self._body), closed, self.known, self.schemas)
        found = self.section.decode(body)
        if (found is None or not closed) and self._cut_at_closer(body.text, mark):
            return
        if found is None or (self.section.tail is not None and not closed):
            self.status = REJECTED  # for a tail section, only a whole one counts
            if not closed:
                self._give_back()
            return
        if isinstance(found, Decoded):
            found = self._hand_back(body.text, found, closed)
        self.found += found
        self.unclosed = not closed
        if self.section.tail is not None:
            self._tail = True
            return
        self.status = DONE

    def _give_back(self) -> None:
        """A ``blank_gaps`` body the output ended inside (a value never closed): it goes
        back to the scanner as ``leftover``, once per output, so that the calls in it
        are read as ever."""
        body = self._body
        if not self.section.blank_gaps or not body or self._may_cut is None:
            return
        if not self._may_cut():
            return
        del self.raw[len(self.raw) - len(body) :]
        self.leftover = "".join(body)

    def _cut_at_closer(self, text: str, mark: str) -> bool:
        """A string ran past the closer (see ``Section.cut_at_closer``): end the body at
        its first closer after a closed value; the rest, and the closer ``mark`` this
        body ended at, go back to the scanner as ``leftover``."""
        section = self.section
        if not section.cut_at_closer or self._keep_closer or self._may_cut is None:
            return False
        hits = [(at, closer) for closer in section.closers if (at := text.find(closer)) >= 0]
        if not hits:
            return False
        at, closer = min(hits)
        if not text[:at].rstrip().endswith(("}", "]", ")")) or not self._may_cut():
            return False
        self._cut = True
        self.raw = [self.raw[0], text[:at], closer]
        self.leftover = text[at + len(closer) :] + mark
        found = section.decode(Body(text[:at], True, self.known, self.schemas))
        if found is None:
            self.status = REJECTED
            return True
        self.found += found.found if isinstance(found, Decoded) else found
        self.status = DONE
        return True

    def _hand_back(self, text: str, decoded: Decoded, closed: bool) -> list[Found]:
        """The text after the calls goes back to the scanner as ``leftover``.

        Only where no closer was consumed after it (a body to the output's end, its
        closer never written, or a kept closer), so that re-reading it puts everything
        back in order.
        """
        rest = text[decoded.end :]
        if rest.strip() and (self._keep_closer or not self.section.closers or not closed):
            self.leftover = rest
            self.raw = [self.raw[0], text[: decoded.end]]
        return decoded.found


class _Marks:
    """The closers and protected-span starts of one section, found with one regex."""

    def __init__(self, section: Section) -> None:
        self.protect = dict(section.protect)
        quote = ('"',) if section.json_strings else ()
        words = sorted({*section.closers, *self.protect, *quote}, key=lambda w: (-len(w), w))
        self.pattern = re.compile("|".join(map(re.escape, words)) if words else r"(?!)")
        self.longest = max((len(w) for w in words), default=1)
        self.firsts = {w[0] for w in words}
        self.prefixes = frozenset(w[:i] for w in words for i in range(1, len(w)))

    def safe(self, buf: str, pos: int) -> int:
        """How far ``buf`` may be consumed without cutting a marker the next chunk ends."""
        n = len(buf)
        for k in range(max(pos, n - self.longest + 1), n):
            if buf[k] in self.firsts and buf[k:] in self.prefixes:
                return k
        return n


_MARKS: dict[Section, _Marks] = {}


def _marks(section: Section) -> _Marks:
    marks = _MARKS.get(section)
    if marks is None:
        marks = _MARKS[section] = _Marks(section)
    return marks


def pick_section(
    sections: tuple[Section, ...], buf: str, end: int, final: bool
) -> Section | Literal[True] | None:
    """Which section the opener ending at ``end`` starts: None if none, True while undecided.

    Sections are tried in order; a later one wins only once every earlier one is
    ruled out, so the answer never depends on where a chunk ended.
    """
    limit = min(len(buf), end + HEAD_WINDOW)
    undecided = False
    for section in sections:
        head = section.head
        if head is None or head.match(buf, end, limit):
            return True if undecided else section
        if final or len(buf) - end >= HEAD_WINDOW:
            continue
        refuse = section.refuse
        if refuse is None or not refuse.match(buf, end, limit):
            undecided = True
    return True if undecided else None


def pick_start(
    forms: tuple[StartForm, ...], buf: str, pos: int, final: bool
) -> StartForm | Literal[True] | None:
    """The message-start form at ``pos``: None if none, True while undecided (see above)."""
    limit = min(len(buf), pos + START_WINDOW)
    full = final or len(buf) - pos >= START_WINDOW
    first = buf[pos : pos + 1]
    undecided = False
    for form in forms:
        if form.pattern.match(buf, pos, limit):
            return True if undecided else form
        if full or first not in form.firsts:
            continue
        if form.refuse is None or not form.refuse.match(buf, pos, limit):
            undecided = True
    return True if undecided else None


@functools.cache
def start_section(form: StartForm, closers: tuple[str, ...] = ()) -> Section:
    """A message-start form read as a section: to one of ``closers``, or with none, to
    the end of the output."""
    return Section(form.key, "", closers, form.decode)
