"""One client request answered through the provider layer: the events a front encodes.

``answer`` asks ``ToolCalling`` (mode, refusal fallback, leak recovery) and keeps the
reply fit for a client that runs the calls itself:

- a call goes out once it is complete, as one ``CallOut``, never while it grows; a call
  the length limit may have cut (``may_be_cut``, when the reply stopped for length)
  never goes out;
- call markup never reaches the text: ``ToolCalling`` takes it out of the prose, by
  its leak recovery in native mode and by the rescue scanner in rescue mode;
- ``tool_choice: "required"`` in rescue mode: everything is held back until a call
  appears or the reply ends, and a reply without a call is asked for once more;
- ``parallel`` false: the first call only;
- the whitespace that ends the prose just before a call (the line break before its
  markup) is dropped: text's trailing whitespace waits for the text after it.
- a model that cannot see the request's images got notes in their place: the reply
  opens with a warning saying so (``on_blind`` hears the reason when it was learned).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, replace

from nehanda.events import (
    ImagesWithheld,
    MessageEnd,
    ModeSwitched,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolUseArgsDelta,
    ToolUseEnd,
)
from nehanda.providers.base import ChatRequest
from nehanda.providers.calling import ToolCalling, may_be_cut
from nehanda.types import ToolUse


@dataclass(frozen=True)
class CallOut:
    """A finished call as the client receives it; ``arguments`` is JSON text."""

    index: int
    id: str
    name: str
    arguments: str


ServeEvent = TextDelta | ReasoningDelta | CallOut | MessageEnd


async def answer(
    calling: ToolCalling,
    request: ChatRequest,
    *,
    parallel: bool = True,
    on_switch: Callable[[str], None] = lambda reason: None,
    on_blind: Callable[[str], None] = lambda reason: None,
) -> AsyncGenerator[ServeEvent, None]:
    """The reply to ``request``, asked once more when a required call did not come."""
    if request.tool_choice == "none":
        request = replace(request, tools=(), tool_choice=None)
    spent = MessageEnd("end_turn")
    for attempt in range(2):
        hold = (
            request.tool_choice == "required" and bool(request.tools) and calling.mode == "rescue"
        )
        reply = ReplyState(request, parallel=parallel, hold=hold, retry=attempt == 0)
        async for event in calling.stream(request):
            if isinstance(event, ModeSwitched):
                on_switch(event.reason)
                reply.hold = reply.hold or request.tool_choice == "required"
                continue
            if isinstance(event, ImagesWithheld):
                if event.learned:
                    on_blind(event.message)
                yield TextDelta(f"[nehanda serve: {event.message}]\n\n")
                continue
            for out in reply.handle(event):
                if isinstance(out, MessageEnd):
                    out = MessageEnd(out.stop_reason, out.usage + spent.usage)
                yield out
        if not reply.wants_retry:
            return
        spent = reply.end or spent


class ReplyState:
    """Provider events in, client events out; one per attempt at a reply."""

    def __init__(
        self,
        request: ChatRequest,
        *,
        parallel: bool = True,
        hold: bool = False,
        retry: bool = False,
    ) -> None:
        self.tools = request.tools
        self.parallel = parallel
        self.hold = hold
        self.retry = retry
        self.wants_retry = False
        self.end: MessageEnd | None = None
        self._held: list[ServeEvent] = []
        self._cut: list[tuple[int, ToolUse]] = []
        self._fragments: dict[int, list[str]] = {}
        self._calls = 0
        self._space = ""  # the text's trailing whitespace, not yet sent

    def handle(self, event: StreamEvent) -> list[ServeEvent]:
        if isinstance(event, TextDelta | ReasoningDelta):
            return self._out(self._spaced([event]))
        if isinstance(event, ToolUseArgsDelta):
            self._fragments.setdefault(event.index, []).append(event.fragment)
            return []
        if isinstance(event, ToolUseEnd):
            if may_be_cut(event.tool_use):
                self._cut.append((event.index, event.tool_use))
                return []
            return self._call(event.index, event.tool_use)
        if isinstance(event, MessageEnd):
            return self._finish(event)
        return []  # problems, notices, LeakedCallsRecovered: for people, not for clients

    def _call(self, index: int, use: ToolUse) -> list[ServeEvent]:
        if not use.name or (self._calls and not self.parallel):
            return []
        if use.input_error is None:
            arguments = json.dumps(use.input, ensure_ascii=False)
        else:
            arguments = "".join(self._fragments.get(index, ())) or "{}"
        self._calls += 1
        self._space = ""
        self.hold = False
        released, self._held = self._held, []
        return [*released, CallOut(self._calls - 1, use.id, use.name, arguments)]

    def _spaced(self, events: list[ServeEvent]) -> list[ServeEvent]:
        """``events`` with the text's trailing whitespace held back until more text."""
        out: list[ServeEvent] = []
        for event in events:
            if isinstance(event, TextDelta):
                text = self._space + event.text
                kept = text.rstrip()
                self._space = text[len(kept) :]
                if not kept:
                    continue
                event = TextDelta(kept)
            out.append(event)
        return out

    def _finish(self, end: MessageEnd) -> list[ServeEvent]:
        out: list[ServeEvent] = []
        if end.stop_reason != "max_tokens":
            for index, use in self._cut:
                out += self._call(index, use)
        space, self._space = self._space, ""
        out += self._out([TextDelta(space)] if space else [])
        self.end = end
        if self.hold and not self._calls and self.retry:
            self.wants_retry = True
            return []
        reason = "tool_use" if self._calls else end.stop_reason
        released, self._held = self._held, []
        return [*out, *released, MessageEnd(reason, end.usage)]

    def _out(self, events: list[ServeEvent]) -> list[ServeEvent]:
        if self.hold:
            self._held += events
            return []
        return events
