"""The incremental rescue scanner: model text in, the native path's events out.

``ToolCallScanner.feed(delta)`` returns the events that ``delta`` settles and
``finish()`` the rest, so that any split of a text yields the same calls, the same
visible text and the same problems as the whole. Work per delta is proportional to
the delta (plus a bounded look-ahead): prose is searched for delimiters with one
compiled regex, and a block tracks its JSON structure as it grows.

Visible text. ``TextDelta`` carries the prose with call markup removed; prose is
released as soon as it cannot be the start of a delimiter, and text that may still
become a call waits: a JSON value that opens the message (the whole message may be
a call), a line opener word (``functools``) until its ``[`` shows, and a ``json``
fence, until they end. Whitespace around a removed block is
kept as written. A block that turns out not to be a call (a
mention such as "use [TOOL_CALL] blocks", a ``json`` fence holding other data, a
leading JSON object that is not the whole message) is prose and shown as written.

Reasoning. Text inside ``<think>``, ``<thinking>``, ``<reasoning>`` or ``[THINK]``
comes out as ``ReasoningDelta``, never as ``TextDelta``; the tags are markup. Calls
inside reasoning count only when the output holds nothing but reasoning (and
whitespace) outside it; otherwise they were drafts. Such calls are held back until
that is known, so they come out later than calls outside reasoning. A closer with
no opener (``</think>`` after a chat template opened the section) makes everything
before it reasoning: calls before the first reasoning tag are therefore held until
a tag or the end of the output settles the question. Prose before such a closer
has already been shown by then and stays visible text; a provider whose template
opens the section should feed the opener first. Reasoning tags inside a call's
JSON are data. A reasoning section whose first text is a bare value or a
message-start form is read like a message made of it: the value must fill the
section up to its closer, and counts only when the output holds nothing but
reasoning.

Calls. ``ToolUseStart`` comes when a call's name is known (for calls that need no
holding back), ``ToolUseEnd`` when it is complete. A started call that is then
dropped (truncated, unreadable) gets no ``ToolUseEnd``: its ``ToolCallProblem``
follows instead, so indices may skip. Code fences other than JSON hide whatever
they hold, and a delimiter written in inline code (right after a backtick) is a
mention.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection, Mapping
from dataclasses import replace
from typing import Any

from nehanda.events import (
    ReasoningDelta,
    StreamEvent,
    TextDelta,
)
from nehanda.toolcalls.blocks import REJECTED, RUNNING, Block
from nehanda.toolcalls.dialects import BARE, FENCE, FENCE_MARK, LINE, Dialect
from nehanda.toolcalls.family import Section
from nehanda.toolcalls.inline_code import LIMIT, UNSURE, inline_code_end, open_span, partner
from nehanda.toolcalls.ledger import INITIAL, OUTSIDE, REASONING, CallLedger
from nehanda.toolcalls.line_openers import LineStart
from nehanda.toolcalls.prelude import REJECT, STRONG_GATE, WEAK_GATE, fence_lang, fence_start, gate
from nehanda.toolcalls.registry import FULL, LINE_STARTS, TICK, Profile, grammar
from nehanda.toolcalls.schema_echo import is_schema_echo
from nehanda.toolcalls.section_block import SectionBlock, pick_section, pick_start, start_section
from nehanda.toolcalls.triggers import Finder, TriggerSet

_BLANKS = " \t"
_SPACE = re.compile(r"\s*")
# A character no prelude token, value or partial literal can start with (see prelude).
_NO_PRELUDE = re.compile(r"[^\s<`\[{\w]|\[[^AC{\s]")
_NO_NAME = re.compile(r"[<>\n]")  # "<function=" must be followed by a name
_TICKS = re.compile(r"`+")


@functools.cache
def alone(dialect: Dialect) -> Dialect:
    """``dialect`` whose value must end its line (after a line of prose)."""
    return replace(dialect, alone=True)


class ToolCallScanner:
    """Turns streamed model text into TextDelta, ToolUseStart/End and ToolCallProblem."""

    def __init__(
        self,
        known_tools: Collection[str] | None,
        schemas: Mapping[str, Mapping[str, Any]] | None = None,
        *,
        profile: Profile = FULL,
    ) -> None:
        """``known_tools=None`` accepts any tool name (the spec's manual parser)."""
        self.known: Collection[str] | None = None if known_tools is None else frozenset(known_tools)
        self.schemas: Mapping[str, Mapping[str, Any]] = schemas or {}
        self._profile = profile
        self._grammar = grammar(profile)
        self._plain = self._grammar.plain
        self.markup = self._grammar.markup
        # Attributes: past 28, CPython 3.11 stopped specialising their access here,
        # which cost 10 % of the streaming time (measured). Add one only if it pays.
        self._lines = self._grammar.lines
        self._fresh = False  # inside reasoning that holds nothing yet
        self._finders: dict[frozenset[str], Finder] = {}
        self._buf = ""
        self._out: list[StreamEvent] = []
        self._prose_parts: list[str] = []
        self._prose_reasoning = False
        self._block: Block | SectionBlock | None = None
        self._ctx = INITIAL if profile.reasoning else OUTSIDE
        self._fence = False
        self._prev0 = ""
        self._line_start0 = True
        self._content = False
        self._initial_content = False
        self._marking = True
        self._ledger = CallLedger(self._event)
        self._finished = False
        self._fed = 0
        self._cut_used = False
        self._decode_spent = 0
        self._trig = self._plain
        # Inline code whose run has gone out as prose: its ticks and what is left of its
        # window (see _in_code).
        self._code: tuple[str, int] | None = None
        self._fast = not self._bare_possible()

    @property
    def reasoning_closers(self) -> tuple[str, ...]:
        return self._grammar.reasoning_stops

    @property
    def call_delimiters(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self._grammar.call_closers, self._grammar.call_openers

    def feed(self, delta: str) -> list[StreamEvent]:
        if (
            self._fast
            and delta
            and not self._buf
            and not self._trig.may.search(delta)
            and not (self._line_start0 and self._trig.lead.match(delta))
        ):
            # The common case, kept short: prose that can hold no word (``triggers.may``).
            last = self._prev0 = delta[-1]
            if last in _BLANKS:
                self._remember(delta, len(delta))
            else:
                self._line_start0 = last == "\n"
            if self._ctx == REASONING:
                return [ReasoningDelta(delta)]
            if self._marking and not delta.isspace():
                self._mark_content()
            return [TextDelta(delta)]
        buf = self._buf + delta if self._buf else delta
        # Inline code opens only after content and outside blocks: while it is open the
        # scanner is as on the fast path, but each chunk says how the span goes on.
        if (self._fast or self._code is not None) and buf and self._prose_only(buf):
            return self._drain()
        if self._finished or not delta:
            return []
        self._buf = buf
        self._fed += len(buf)
        self._scan(final=False)
        return self._drain()

    def _prose_only(self, buf: str) -> bool:
        """Let ``buf`` go as prose if it holds no word but inline code's backtick runs,
        keeping back the start of a word at its end; False to scan it instead.

        Such runs only open or close inline code (``inline_code.open_span``), and what
        open inline code holds is prose either way. A run shorter than a fence mark at the
        end waits, as the next chunk says how long it is: the text before it is ``head``.
        """
        triggers = self._trig
        keep = len(buf)
        if buf[-1] == TICK:
            keep = len(buf.rstrip(TICK))
            if not keep or len(buf) - keep >= len(FENCE_MARK):
                return False
        head = buf[:keep]
        code = self._code
        if triggers.may_beyond_code.search(head) or (
            self._line_start0 and triggers.lead.match(head)
        ):
            if code is not None or self._finder(triggers).search(head):
                return False
            keep = self._held(head, 0, triggers)
        elif code is not None or (TICK in head and TICK in triggers.words):
            code = open_span(head, self._prev0, code)
            if code is UNSURE:
                return False
            self._code = code
            self._fast = code is None
        self._text(buf[:keep])
        self._remember(buf, keep)
        self._buf = buf[keep:]
        return True

    def finish(self) -> list[StreamEvent]:
        if self._finished:
            return []
        self._finished = True
        self._fast = False
        self._scan(final=True)
        if self._block is not None:  # every phase settles at the end; this is a safety net
            self._close_block(self._block)
        if self._ctx == INITIAL:
            self._settle_initial()
        self._ledger.finish()
        return self._drain()

    def _drain(self) -> list[StreamEvent]:
        self._flush()
        out, self._out = self._out, []
        return out

    def _flush(self) -> None:
        """Adjacent prose pieces leave as one delta."""
        parts = self._prose_parts
        if parts:
            text = parts[0] if len(parts) == 1 else "".join(parts)
            self._out.append(ReasoningDelta(text) if self._prose_reasoning else TextDelta(text))
            parts.clear()

    def _event(self, event: StreamEvent) -> None:
        self._flush()
        self._out.append(event)

    # -- the loop ------------------------------------------------------------

    def _scan(self, final: bool) -> None:
        """Read the text held: prose and blocks, and inline code whose partner is awaited."""
        if self._code is None or self._in_code(final):
            self._run(final)

    def _run(self, final: bool) -> None:
        buf, pos = self._buf, 0
        while True:
            block = self._block
            if block is not None:
                pos = block.step(buf, pos, final)
                if block.status == RUNNING:
                    break
                self._block = None
                pos = self._end_block(block, pos)
                if block.leftover:
                    # Once per output (see Block._cut_at_closer): re-read what followed.
                    buf, pos = block.leftover + buf[pos:], 0
                    self._prev0, self._line_start0 = block.raw[-1][-1], False
                continue
            pos = self._prose(buf, pos, final)
            if self._block is None:
                break
        self._settle(buf, pos, final)

    def _settle(self, buf: str, pos: int, final: bool) -> None:
        """Keep the text from ``pos`` for the next chunk, and choose how to read it."""
        self._remember(buf, pos)
        self._buf = buf[pos:]
        self._trig = self._triggers()
        self._fast = (
            self._block is None and self._code is None and not self._bare_possible() and not final
        )

    def _remember(self, buf: str, pos: int) -> None:
        """Keep what the next chunk needs to know about the text before it."""
        if pos == 0:
            return
        last = self._prev0 = buf[pos - 1]
        if last not in _BLANKS:
            self._line_start0 = last == "\n"
            return
        j = pos - 1
        while j > 0 and buf[j - 1] in _BLANKS:
            j -= 1
        if j > 0:
            self._line_start0 = buf[j - 1] == "\n"

    def _line_start(self, buf: str, i: int) -> bool:
        j = i
        while j > 0 and buf[j - 1] in _BLANKS:
            j -= 1
        return self._line_start0 if j == 0 else buf[j - 1] == "\n"

    # -- prose ---------------------------------------------------------------

    def _prose(self, buf: str, pos: int, final: bool) -> int:
        n = len(buf)
        while pos < n:
            if self._bare_possible():
                pos, wait = self._bare(buf, pos, final)
                if wait or self._block is not None or pos >= n:
                    return pos
            triggers = self._triggers()
            m = self._finder(triggers).search(buf, pos)
            if m is None:
                keep = n if final else self._held(buf, pos, triggers)
                self._text(buf[pos:keep])
                return keep
            i = m.start()
            token = m.group()
            opener = None if token != "[" else self._line_opener(buf, pos, i)
            cut = i if opener is None else opener[0]
            if cut > pos:
                self._text(buf[pos:cut])
            if not final and triggers.waits(buf, i):
                return cut  # the word may still grow into a longer one
            if opener is None:
                new = self._trigger(token, buf, i, final)
            else:
                new = self._open_line(opener[1], buf, cut, i, final)
            if new is None:
                return cut  # what follows the word must arrive before it is decided
            pos = new
            if self._block is not None or self._code is not None:
                return pos
        return pos

    def _held(self, buf: str, pos: int, triggers: TriggerSet) -> int:
        """Where the text a later chunk may still turn into a word starts (``len(buf)``: none)."""
        keep = triggers.held(buf, pos)
        lines = self._lines
        if lines is None or keep <= pos or buf[keep - 1] not in lines.chars:
            return keep
        return lines.held(buf, pos, keep, self._opener_start(pos))

    def _bare_possible(self) -> bool:
        """Whether a bare value may be all of the message, or all of a reasoning section."""
        return self._profile.bare and not self._content and (self._ctx != REASONING or self._fresh)

    def _finder(self, triggers: TriggerSet) -> Finder:
        finder = self._finders.get(triggers.words)
        if finder is None:
            finder = self._finders[triggers.words] = Finder(triggers)
        return finder

    def _triggers(self) -> TriggerSet:
        if not self._fence:
            return self._plain
        g = self._grammar
        return g.in_fence_reasoning if self._ctx == REASONING else g.in_fence

    def _bare(self, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        """Before any content a JSON object or array may be the whole message.

        Returns the new position and whether more text is needed to decide.
        """
        if pos == 0 and not self._prev0 and self._grammar.opening:  # nothing read yet
            past = self._opening_markup(buf, pos, final)
            if past is None:
                return pos, True
            if past > pos:
                return past, False  # content follows it: no bare value now
        start = pos
        pos = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
        if pos > start:
            self._text(buf[start:pos])
        if pos >= len(buf) or self._fence:
            return pos, False
        word = self._plain.at.match(buf, pos)
        if word is not None and len(word.group()) > 1:
            return pos, False  # an opener or a tag: the prose scan takes it
        if not final and self._plain.waits(buf, pos):
            return pos, True
        form = pick_start(self._grammar.starts, buf, pos, final)
        if form is True:
            return pos, True
        if form is not None:
            if self._ctx == REASONING:  # the section's closer ends the body
                section = start_section(form, self.reasoning_closers)
                self._start_section(section, "", keep_closer=True)
            else:
                self._start_section(start_section(form), "")
            return pos, False
        if buf[pos] not in "{[":
            return pos, False
        ok = gate(buf, pos, final, WEAK_GATE)
        if ok:
            self._start_block(BARE, "")
        return pos, ok is None

    def _opening_markup(self, buf: str, pos: int, final: bool) -> int | None:
        """At the output's very start: the position past an opening markup token there.

        None while the text so far may still become one. The token is markup and the
        message's content begins after it.
        """
        for word in self._grammar.opening:
            if buf.startswith(word, pos):
                self._mark_content()
                return pos + len(word)
            if not final and len(buf) - pos < len(word) and word.startswith(buf[pos:]):
                return None
        return pos

    def _text(self, text: str) -> None:
        if not text:
            return
        reasoning = self._ctx == REASONING
        if reasoning != self._prose_reasoning:
            self._flush()
            self._prose_reasoning = reasoning
        self._prose_parts.append(text)
        if reasoning:
            if self._fresh and not text.isspace():
                self._fresh = False
        elif self._marking and not text.isspace():
            self._mark_content()

    def _mark_content(self) -> None:
        """Non-whitespace outside reasoning: no bare JSON message now, and no drafts."""
        self._content = True
        if self._ctx == INITIAL:
            self._initial_content = True
        elif self._ctx == OUTSIDE and not self._ledger.outside_seen:
            self._ledger.content_outside()
        self._marking = False

    def _trigger(self, token: str, buf: str, i: int, final: bool) -> int | None:
        """Act on the word at ``i``; the position after it, or None to wait for more text."""
        end = i + len(token)
        if token == FENCE_MARK:
            return self._fence_mark(buf, i, end, final)
        if (buf[i - 1] if i > 0 else self._prev0) == "`":
            self._text(token)
            return end
        g = self._grammar
        if token == TICK:
            return self._inline_code(buf, i, final)
        if token in LINE_STARTS:
            return self._line_value(token, buf, i, final)
        if token in g.reasoning_openers:
            self._open_reasoning(token)
        elif token in g.reasoning_closers and not (token in g.markup and self._ctx != REASONING):
            self._close_reasoning(token)
        elif token in g.sections and (picked := self._section(token, buf, end, final)) is not False:
            return None if picked is None else end
        elif token in g.blocks:
            quick = _NO_NAME if g.blocks[token].element else _NO_PRELUDE
            if quick.match(buf, end) or buf.startswith(token, end):
                self._text(token)  # what follows can start no call: a mention, decided now
            else:
                self._start_block(g.blocks[token], token)
        elif token in g.sections:
            # No section starts here, yet a shorter word may sit inside this one
            # (MiniMax-M3's <]minimax[>[<tool_call> holds Hermes' <tool_call>).
            self._text(token[0])
            return i + 1
        elif token not in g.markup:
            self._text(token)
        return end

    def _fence_mark(self, buf: str, i: int, end: int, final: bool) -> int | None:
        if not self._line_start(buf, i):
            return self._inline_code(buf, i, final)
        if self._fence:
            self._fence = False
            self._text(FENCE_MARK)
        elif (lang := fence_lang(buf, end, final)) is None:
            return None
        elif (decoder := self._grammar.fence_langs.get(lang)) is not None:
            self._start_section(Section(lang, FENCE_MARK, (FENCE_MARK,), decoder), FENCE_MARK)
        elif fence_start(buf, end, False) == REJECT:
            self._text(FENCE_MARK)  # a code fence, known at once
            self._fence = True
        else:
            self._start_block(FENCE, FENCE_MARK)
        return end

    def _inline_code(self, buf: str, i: int, final: bool) -> int | None:
        """A backtick run mid-line: what inline code holds is a mention (``inline_code``).

        While its partner has not come, the run goes out as prose and the span is
        followed by ``_in_code``, rather than held whole.
        """
        end = inline_code_end(buf, i, final=final, before=self._prev0)
        if end is not None:
            self._text(buf[i:end])
            return end
        run = _TICKS.match(buf, i).end()  # type: ignore[union-attr]
        if run == len(buf):
            return None  # the run itself may grow
        self._text(buf[i:run])
        return self._code_prose(buf, run, buf[i:run], LIMIT)

    def _code_prose(self, buf: str, start: int, ticks: str, left: int) -> int:
        """Let the text of open inline code go, up to where a word may begin; where that is."""
        m = self._plain.may.search(buf, start)
        keep = len(buf) if m is None else m.start()
        self._text(buf[start:keep])
        self._code = (ticks, left - (keep - start))
        return keep

    def _in_code(self, final: bool) -> bool:
        """The text after an open inline code run: prose whatever the span turns out to be.

        It goes out up to the first place where a word may begin (``triggers.may``, every
        backtick included), which waits until the span closes (its words are mentions)
        or proves literal (they are read as ever: all of the held text is scanned again).
        True when the span is decided and text is left to scan.
        """
        buf = self._buf
        ticks, left = self._code  # type: ignore[misc]
        found = partner(buf, 0, ticks, left, final=final)
        if found is None:
            keep = self._code_prose(buf, 0, ticks, left)
            self._remember(buf, keep)
            self._buf = buf[keep:]
            return False
        self._code = None
        closed, end = found
        if not closed:
            return True
        if self._plain.may.search(buf, end):
            self._text(buf[:end])
            self._remember(buf, end)
            self._buf = buf[end:]
            return True
        self._text(buf)  # the span's end, and prose that can hold no word
        self._settle(buf, len(buf), final)
        return False

    def _line_opener(self, buf: str, pos: int, i: int) -> tuple[int, Dialect] | None:
        """A line opener word (``functools``) right before the ``[`` found at ``i``."""
        if self._lines is None:
            return None
        return self._lines.before(buf, pos, i, self._opener_start(pos))

    def _opener_start(self, pos: int) -> LineStart:
        """Where a line opener may start: a line, or ``pos`` where a bare value may."""
        if not self._bare_possible():
            return self._line_start
        return lambda buf, at: at == pos or self._line_start(buf, at)

    def _open_line(self, dialect: Dialect, buf: str, lead: int, i: int, final: bool) -> int | None:
        """Start the block a line opener at ``lead`` opens, if a call follows its ``[``.

        As the message's first text its value may be followed by more on the line;
        after prose it must end its line, like a JSON call alone on its line.
        """
        ok = gate(buf, i, final, STRONG_GATE)
        if ok is None:
            return None
        if not ok:
            self._text(buf[lead : i + 1])
            return i + 1
        if not self._bare_possible():
            dialect = alone(dialect)
        self._start_block(dialect, buf[lead:i])
        return i

    def _line_value(self, token: str, buf: str, i: int, final: bool) -> int | None:
        """``{`` or ``[`` starting a line after prose: a JSON call alone on its line."""
        if not self._line_start(buf, i):
            self._text(token)
            return i + 1
        ok = gate(buf, i, final, WEAK_GATE)
        if ok is None:
            return None
        if not ok:
            self._text(token)
            return i + 1
        self._start_block(LINE, "")
        return i

    def _section(self, token: str, buf: str, end: int, final: bool) -> bool | None:
        """Start the section ``token`` opens: True, None to wait, False when none does."""
        sections = self._grammar.sections[token]
        if not self._line_start(buf, end - len(token)):
            sections = tuple(section for section in sections if section.tail is None)
        picked = pick_section(sections, buf, end, final)
        if picked is True:
            return None
        if picked is None:
            return False
        self._start_section(picked, token)
        return True

    # -- reasoning -----------------------------------------------------------

    def _open_reasoning(self, token: str) -> None:
        if self._ctx == REASONING:
            self._text(token)
            return
        if self._ctx == INITIAL:
            self._settle_initial()
        self._ctx = REASONING
        self._fresh = True
        self._fence = False

    def _close_reasoning(self, token: str) -> None:
        self._marking = True
        if self._ctx == REASONING:
            self._ctx = OUTSIDE
        elif self._ctx == INITIAL:
            # A closer with no opener: the output began inside a reasoning section.
            self._ledger.opening_was_reasoning()
            self._ctx = OUTSIDE
            self._content = self._initial_content = False
        else:
            self._text(token)
            return
        self._fence = False

    def _settle_initial(self) -> None:
        """No closer ended the opening text: it was not reasoning; its calls count."""
        self._ctx = OUTSIDE
        self._marking = True
        self._ledger.opening_was_prose(self._initial_content)

    # -- blocks --------------------------------------------------------------

    def _start_block(self, dialect: Dialect, opener: str) -> None:
        if self._ctx != REASONING:
            self._mark_content()
        else:
            self._fresh = False
        self._block = Block(dialect, self, opener, self._ctx)

    def _start_section(self, section: Section, opener: str, *, keep_closer: bool = False) -> None:
        if self._ctx != REASONING:
            self._mark_content()
        else:
            self._fresh = False
        self._block = SectionBlock(
            section,
            opener,
            self._ctx,
            self.known,
            self.schemas,
            keep_closer=keep_closer,
            may_cut=self.may_cut,
        )

    def may_cut(self) -> bool:
        used, self._cut_used = self._cut_used, True
        return not used

    def may_decode(self, size: int) -> bool:
        # json builds each error message by counting newlines from the start of the
        # buffer, so failed attempts are paid for: at most the text fed so far.
        if self._decode_spent > self._fed:
            return False
        self._decode_spent += size
        return True

    def announce(self, name: str) -> int | None:
        """Start a call now if nothing can still make it a draft (see the module doc)."""
        if self._ctx != OUTSIDE or (self.known is not None and name not in self.known):
            return None
        return self._ledger.announce(name)

    def _end_block(self, block: Block | SectionBlock, pos: int) -> int:
        if block.status == REJECTED or self._echoes_only(block):
            self._ledger.spoil_next(False)
            self._text("".join(block.raw))
            self._fence = self._fence or block.fence_after
            return pos
        self._close_block(block)
        return pos

    def _close_block(self, block: Block | SectionBlock) -> None:
        self._block = None
        self._ledger.add(block.found, block.unclosed, block.raw, block.ctx)
        if isinstance(block, Block) and block.spoils_next:
            self._ledger.spoil_next()

    def _echoes_only(self, block: Block | SectionBlock) -> bool:
        """Whether every call the block found is a tool's schema echoed back, not a call."""
        found = block.found
        return bool(found) and all(
            f.problem is None and is_schema_echo(f.args, self.schemas.get(f.name or ""))
            for f in found
        )
