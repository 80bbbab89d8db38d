"""The incremental rescue scanner: model text in, the native path's events out.

``ToolCallScanner.feed(delta)`` returns the events that ``delta`` settles and
``finish()`` the rest, so that any split of a text yields the same calls, the same
visible text and the same problems as the whole. Work per delta is proportional to
the delta (plus a bounded look-ahead): prose is searched for delimiters with one
compiled regex, and a block tracks its JSON structure as it grows.

Visible text. ``TextDelta`` carries the prose with call markup removed; prose is
released as soon as it cannot be the start of a delimiter. Whitespace around a
removed block is kept as written. A block that turns out not to be a call (a
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
JSON are data.

Calls. ``ToolUseStart`` comes when a call's name is known (for calls that need no
holding back), ``ToolUseEnd`` when it is complete. A started call that is then
dropped (truncated, unreadable) gets no ``ToolUseEnd``: its ``ToolCallProblem``
follows instead, so indices may skip. Code fences other than JSON hide whatever
they hold, and a delimiter written in inline code (right after a backtick) is a
mention.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from nehanda.events import (
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.toolcalls import messages
from nehanda.toolcalls.blocks import REJECTED, RUNNING, Block
from nehanda.toolcalls.dialects import (
    BARE,
    BLOCK_DIALECTS,
    FENCE,
    FENCE_MARK,
    FULL,
    REASONING_CLOSERS,
    REASONING_OPENERS,
    Dialect,
    Profile,
    TriggerSet,
    prose_triggers,
)
from nehanda.toolcalls.prelude import WEAK_GATE, gate
from nehanda.toolcalls.shapes import Found
from nehanda.types import ToolUse, new_call_id

_INITIAL, _OUTSIDE, _REASONING = 0, 1, 2
_BLANKS = " \t"
_SPACE = re.compile(r"\s*")

# A held call: the ToolUse (None when dropped), its problem, its announced index.
Entry = tuple[ToolUse | None, ToolCallProblem | None, int | None]


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
        self._plain, self._in_fence, self._in_fence_reasoning = prose_triggers(profile)
        self._buf = ""
        self._out: list[StreamEvent] = []
        self._block: Block | None = None
        self._ctx = _INITIAL if profile.reasoning else _OUTSIDE
        self._fence = False
        self._prev0 = ""
        self._line_start0 = True
        self._content = False
        self._initial_content = False
        self._outside_seen = False
        self._held_initial: list[Entry] = []
        self._held_reasoning: list[Entry] = []
        self._next_index = 0
        self._announced: dict[int, str] = {}
        self._finished = False

    def feed(self, delta: str) -> list[StreamEvent]:
        if self._finished or not delta:
            return []
        self._buf = self._buf + delta if self._buf else delta
        self._run(final=False)
        out, self._out = self._out, []
        return out

    def finish(self) -> list[StreamEvent]:
        if self._finished:
            return []
        self._finished = True
        self._run(final=True)
        if self._block is not None:  # every phase settles at the end; this is a safety net
            self._close_block(self._block)
        if self._ctx == _INITIAL:
            self._settle_initial()
        if not self._outside_seen:
            for entry in self._held_reasoning:
                self._emit(entry)
        self._held_reasoning = []
        out, self._out = self._out, []
        return out

    # -- the loop ------------------------------------------------------------

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
                continue
            pos = self._prose(buf, pos, final)
            if self._block is None:
                break
        self._remember(buf, pos)
        self._buf = buf[pos:]

    def _remember(self, buf: str, pos: int) -> None:
        """Keep what the next chunk needs to know about the text before it."""
        if pos == 0:
            return
        self._prev0 = buf[pos - 1]
        j = pos
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
            if self._profile.bare and not self._content and self._ctx != _REASONING:
                pos, wait = self._bare(buf, pos, final)
                if wait or self._block is not None or pos >= n:
                    return pos
            triggers = self._triggers()
            m = triggers.find.search(buf, pos)
            if m is None:
                keep = n
                if not final:
                    tail = triggers.tail.search(buf, max(pos, n - triggers.longest + 1))
                    keep = n if tail is None else tail.start()
                self._text(buf[pos:keep])
                return keep
            i = m.start()
            if i > pos:
                self._text(buf[pos:i])
            pos = self._trigger(m.group(), buf, i)
            if self._block is not None:
                return pos
        return pos

    def _triggers(self) -> TriggerSet:
        if not self._fence:
            return self._plain
        return self._in_fence_reasoning if self._ctx == _REASONING else self._in_fence

    def _bare(self, buf: str, pos: int, final: bool) -> tuple[int, bool]:
        """Before any content a JSON object or array may be the whole message.

        Returns the new position and whether more text is needed to decide.
        """
        start = pos
        pos = _SPACE.match(buf, pos).end()  # type: ignore[union-attr]
        if pos > start:
            self._text(buf[start:pos])
        if pos >= len(buf) or self._fence or buf[pos] not in "{[":
            return pos, False
        if buf[pos] == "[" and self._plain.find.match(buf, pos):
            return pos, False
        if not final and buf[pos] == "[" and self._plain.tail.match(buf, pos):
            return pos, True
        ok = gate(buf, pos, final, WEAK_GATE)
        if ok:
            self._start_block(BARE, "")
        return pos, ok is None

    def _text(self, text: str) -> None:
        if not text:
            return
        if self._ctx == _REASONING:
            self._out.append(ReasoningDelta(text))
            return
        self._out.append(TextDelta(text))
        if not (self._content and self._outside_seen) and not text.isspace():
            self._mark_content()

    def _mark_content(self) -> None:
        self._content = True
        if self._ctx == _INITIAL:
            self._initial_content = True
        elif self._ctx == _OUTSIDE and not self._outside_seen:
            self._outside_seen = True
            self._held_reasoning = []

    def _trigger(self, token: str, buf: str, i: int) -> int:
        end = i + len(token)
        if token == FENCE_MARK:
            if not self._line_start(buf, i):
                self._text(token)
            elif self._fence:
                self._fence = False
                self._text(token)
            else:
                self._start_block(FENCE, token)
            return end
        if (buf[i - 1] if i > 0 else self._prev0) == "`":
            self._text(token)
        elif token in REASONING_OPENERS:
            self._open_reasoning(token)
        elif token in REASONING_CLOSERS:
            self._close_reasoning(token)
        elif token in BLOCK_DIALECTS:
            self._start_block(BLOCK_DIALECTS[token], token)
        elif self._ctx != _REASONING:  # DeepSeek's section wrapper: markup, but content
            self._mark_content()
        return end

    # -- reasoning -----------------------------------------------------------

    def _open_reasoning(self, token: str) -> None:
        if self._ctx == _REASONING:
            self._text(token)
            return
        if self._ctx == _INITIAL:
            self._settle_initial()
        self._ctx = _REASONING
        self._fence = False

    def _close_reasoning(self, token: str) -> None:
        if self._ctx == _REASONING:
            self._ctx = _OUTSIDE
        elif self._ctx == _INITIAL:
            # A closer with no opener: the output began inside a reasoning section.
            self._held_reasoning, self._held_initial = self._held_initial, []
            self._ctx = _OUTSIDE
            self._content = self._initial_content = False
        else:
            self._text(token)
            return
        self._fence = False

    def _settle_initial(self) -> None:
        """No closer ended the opening text: it was not reasoning; its calls count."""
        self._ctx = _OUTSIDE
        held, self._held_initial = self._held_initial, []
        for entry in held:
            self._emit(entry)
        if self._initial_content:
            self._outside_seen = True
            self._held_reasoning = []

    # -- blocks --------------------------------------------------------------

    def _start_block(self, dialect: Dialect, opener: str) -> None:
        if self._ctx != _REASONING:
            self._mark_content()
        self._block = Block(dialect, self, opener, self._ctx)

    def announce(self, name: str) -> int | None:
        """Start a call now if nothing can still make it a draft (see the module doc)."""
        if self._ctx != _OUTSIDE or (self.known is not None and name not in self.known):
            return None
        index = self._next_index
        self._next_index += 1
        call_id = new_call_id()
        self._announced[index] = call_id
        self._out.append(ToolUseStart(index, call_id, name))
        return index

    def _end_block(self, block: Block, pos: int) -> int:
        if block.status == REJECTED:
            self._text("".join(block.raw))
            self._fence = self._fence or block.fence_after
            return pos
        self._close_block(block)
        return pos

    def _close_block(self, block: Block) -> None:
        self._block = None
        raw: list[str] = []

        def clip() -> str:
            if not raw:
                raw.append(messages.clip("".join(block.raw)))
            return raw[0]

        entries = [self._entry(found, block.unclosed, clip) for found in block.found]
        if block.ctx == _OUTSIDE:
            for entry in entries:
                self._emit(entry)
        elif block.ctx == _INITIAL:
            self._held_initial.extend(entries)
        elif not self._outside_seen:
            self._held_reasoning.extend(entries)

    def _entry(self, found: Found, unclosed: bool, clip: Any) -> Entry:
        if found.problem is not None:
            kind, message = found.problem
            return None, ToolCallProblem(kind, message, clip()), None
        assert found.name is not None
        index = found.index
        call_id = self._announced.pop(index) if index is not None else new_call_id()
        use = ToolUse(call_id, found.name, found.args, "rescue", unclosed=unclosed)
        note = None
        if found.repaired is not None:
            message = messages.repaired(found.name, found.repaired)
            note = ToolCallProblem("repaired", message, clip())
        return use, note, index

    def _emit(self, entry: Entry) -> None:
        use, problem, index = entry
        if problem is not None:
            self._out.append(problem)
        if use is None:
            return
        if index is None:
            index = self._next_index
            self._next_index += 1
            self._out.append(ToolUseStart(index, use.id, use.name))
        self._out.append(ToolUseEnd(index, use))
