"""When a found call may leave the scanner, with which index and id.

A call outside reasoning leaves at once. Calls in the opening text wait: a later
closer with no opener (``</think>`` after a template opened the section) would make
that text reasoning. Calls inside reasoning wait until the output proves to hold
nothing but reasoning, and are dropped as drafts the moment content appears outside
it. Indices count ``ToolUseStart`` events, so they follow the order calls leave in,
which is their order in the text.
"""

from __future__ import annotations

from collections.abc import Callable

from nehanda.events import StreamEvent, ToolCallProblem, ToolUseEnd, ToolUseStart
from nehanda.toolcalls import messages
from nehanda.toolcalls.shapes import Found
from nehanda.types import ToolUse, new_call_id

INITIAL, OUTSIDE, REASONING = 0, 1, 2

# One found call: the ToolUse (None when dropped), its problem, its announced index.
Entry = tuple[ToolUse | None, ToolCallProblem | None, int | None]


class CallLedger:
    def __init__(self, emit: Callable[[StreamEvent], None]) -> None:
        self._emit_event = emit
        self._initial: list[Entry] = []
        self._reasoning: list[Entry] = []
        self._next_index = 0
        self._ids: dict[int, str] = {}
        self.outside_seen = False
        self._spoilt = False

    def announce(self, name: str) -> int:
        """Emit ToolUseStart for a call that cannot be held back; returns its index."""
        index = self._next_index
        self._next_index += 1
        self._ids[index] = call_id = new_call_id()
        self._emit_event(ToolUseStart(index, call_id, name))
        return index

    def add(self, found: list[Found], unclosed: bool, raw: list[str], ctx: int) -> None:
        """Everything one block found, seen in context ``ctx``."""
        if self._spoilt:
            self._spoilt = False
            found = [_spoilt(item) for item in found]
        clipped: list[str] = []

        def clip() -> str:
            if not clipped:
                clipped.append(messages.clip("".join(raw)))
            return clipped[0]

        entries = [self._entry(item, unclosed, clip) for item in found]
        if ctx == OUTSIDE:
            for entry in entries:
                self._emit(entry)
        elif ctx == INITIAL:
            self._initial += entries
        elif not self.outside_seen:
            self._reasoning += entries

    def spoil_next(self, spoilt: bool = True) -> None:
        """The next block follows a call whose opener was eaten and that could not be
        read: running it alone would run the second of two calls, so it is dropped.
        (False: that opener turned out to be prose; nothing is spoilt.)"""
        self._spoilt = spoilt

    def content_outside(self) -> None:
        """Content appeared outside reasoning: the reasoning so far held only drafts."""
        self.outside_seen = True
        self._reasoning = []

    def opening_was_prose(self, had_content: bool) -> None:
        held, self._initial = self._initial, []
        for entry in held:
            self._emit(entry)
        if had_content:
            self.content_outside()

    def opening_was_reasoning(self) -> None:
        self._reasoning, self._initial = self._initial, []

    def finish(self) -> None:
        """The output ended: if it held nothing but reasoning, its calls count."""
        held, self._reasoning = self._reasoning, []
        if not self.outside_seen:
            for entry in held:
                self._emit(entry)

    def _entry(self, found: Found, unclosed: bool, clip: Callable[[], str]) -> Entry:
        if found.problem is not None:
            kind, message = found.problem
            return None, ToolCallProblem(kind, message, clip()), None
        assert found.name is not None
        index = found.index
        call_id = self._ids.pop(index) if index is not None else new_call_id()
        use = ToolUse(call_id, found.name, found.args, "rescue", unclosed=unclosed)
        note = None
        if found.repaired is not None:
            message = messages.repaired(found.name, found.repaired)
            note = ToolCallProblem("repaired", message, clip())
        return use, note, index

    def _emit(self, entry: Entry) -> None:
        use, problem, index = entry
        if problem is not None:
            self._emit_event(problem)
        if use is None:
            return
        if index is None:
            index = self._next_index
            self._next_index += 1
            self._emit_event(ToolUseStart(index, use.id, use.name))
        self._emit_event(ToolUseEnd(index, use))


def _spoilt(found: Found) -> Found:
    if found.problem is not None:
        return found
    detail = "the call before it lost its opener and could not be read, so neither runs"
    return Found(found.name, {}, ("invalid_json", messages.invalid_json(found.name, detail)))
