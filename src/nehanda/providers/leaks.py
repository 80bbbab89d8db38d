"""Calls a native-mode server failed to parse: the model printed a call to a known tool
as text and the server passed it on as prose (the most reported failure of local setups).

``LeakedCalls`` reads a native response's text through the rescue scanner as it streams,
so that the call's markup is never shown as prose, as on the rescue path. The calls it
finds are held until the response ends: only then is it known whether the server gave
calls of its own, and if it did, the text's calls are dropped (the same call must never
run twice). Only complete, closed calls count; prose mentioning a tool does not. A call
that never closed, or could not be read, is a ``ToolCallProblem``, so that the model
hears its call was lost.
"""

from __future__ import annotations

from dataclasses import replace

from nehanda.events import (
    LeakedCallsRecovered,
    MessageEnd,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.toolcalls.scanner import ToolCallScanner
from nehanda.types import ToolSpec, ToolUse


class LeakedCalls:
    """A native response's events in, the same with its text's calls recovered out."""

    def __init__(self, tools: tuple[ToolSpec, ...]) -> None:
        names = [spec.name for spec in tools]
        self.scanner = ToolCallScanner(names, {spec.name: spec.input_schema for spec in tools})
        self.native_calls = False
        self.found: list[ToolUse] = []
        self.problems: list[ToolCallProblem] = []

    def handle(self, event: StreamEvent) -> list[StreamEvent]:
        if isinstance(event, TextDelta):
            return self._prose(self.scanner.feed(event.text))
        if isinstance(event, MessageEnd):
            return [*self._prose(self.scanner.finish()), *self._recovered(), event]
        self.native_calls = self.native_calls or isinstance(event, ToolUseStart | ToolUseEnd)
        return [event]

    def _prose(self, events: list[StreamEvent]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for event in events:
            if isinstance(event, ToolUseEnd) and event.tool_use.unclosed:
                name = event.tool_use.name
                never_closed = f"the {name} call printed as text never closed"
                self.problems.append(ToolCallProblem("truncated", never_closed))
            elif isinstance(event, ToolUseEnd):
                self.found.append(replace(event.tool_use, origin="native"))
            elif isinstance(event, ToolCallProblem):
                self.problems.append(event)
            elif not isinstance(event, ToolUseStart):
                out.append(event)
        return out

    def _recovered(self) -> list[StreamEvent]:
        if self.native_calls:
            return []
        calls: list[StreamEvent] = [ToolUseEnd(i, use) for i, use in enumerate(self.found)]
        if self.found:
            calls.append(LeakedCallsRecovered(tuple(self.found)))
        return [*self.problems, *calls]
