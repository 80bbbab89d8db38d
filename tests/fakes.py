"""A scripted provider implementing the Provider protocol, for engine tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field

from nehanda.events import MessageEnd, StreamEvent, TextDelta, ToolUseEnd, ToolUseStart
from nehanda.providers.base import Capabilities, ChatRequest
from nehanda.types import ToolUse, Usage


def text_reply(text: str) -> list[StreamEvent]:
    return [TextDelta(text), MessageEnd("end_turn", Usage(10, 5))]


def call_reply(*calls: ToolUse, text: str = "") -> list[StreamEvent]:
    events: list[StreamEvent] = [TextDelta(text)] if text else []
    for index, call in enumerate(calls):
        events += [ToolUseStart(index, call.id, call.name), ToolUseEnd(index, call)]
    return [*events, MessageEnd("tool_use", Usage(20, 8))]


@dataclass
class FakeProvider:
    """Answers each request with the next scripted reply and records the request.

    An exception in a reply is raised where it stands: first, as a refused request;
    later, as a stream that broke after some events.
    """

    replies: Sequence[Sequence[StreamEvent | Exception] | Exception]
    name: str = "fake"
    type: str = "openai"
    requests: list[ChatRequest] = field(default_factory=list)
    closed: bool = False

    async def capabilities(self, model: str) -> Capabilities:
        return Capabilities(native_tools=True)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        self.requests.append(request)
        reply = self.replies[len(self.requests) - 1]
        if isinstance(reply, Exception):
            raise reply
        for event in reply:
            if isinstance(event, Exception):
                raise event
            yield event

    async def aclose(self) -> None:
        self.closed = True
