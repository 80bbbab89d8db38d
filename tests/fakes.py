"""A scripted provider implementing the Provider protocol, and a toolset whose calls
are answered by a test's function, for engine tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field

from nehanda.events import MessageEnd, StreamEvent, TextDelta, ToolUseEnd, ToolUseStart
from nehanda.providers.base import Capabilities, ChatRequest
from nehanda.tools.mcp import search
from nehanda.tools.mcp.names import is_mcp_name
from nehanda.tools.registry import builtin_facts, check_call
from nehanda.types import (
    UNKNOWN_TOOL,
    CheckedCall,
    ToolFacts,
    ToolResult,
    Toolset,
    ToolSpec,
    ToolUse,
    Usage,
)

ToolRunner = Callable[[ToolUse], Awaitable[ToolResult]]


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


@dataclass
class FakeToolset:
    """``specs`` offered, each call checked as the built-in tools check it, and every
    checked call answered by ``runner`` instead of a tool."""

    specs: tuple[ToolSpec, ...]
    runner: ToolRunner

    def check(self, use: ToolUse) -> CheckedCall | ToolResult:
        return check_call(use)

    async def run(
        self, checked: CheckedCall, started: Callable[[], None] | None = None
    ) -> ToolResult:
        if started is not None:
            started()
        return await self.runner(checked.use)

    def plain_output(self, content: str) -> str:
        return content


def checked(use: ToolUse) -> CheckedCall:
    """``use`` as a check passes it on, with its tool's facts and its arguments unread: a
    built-in's, ToolSearch's, or, for an ``mcp__`` name, those of a server's tool whose
    server says it only reads (a claim that never lets it run unasked)."""
    if is_mcp_name(use.name):
        server = use.name.split("__")[1]
        facts = ToolFacts(kind="read", source="mcp", read_only=True, server=server)
    elif use.name == search.NAME:
        facts = search.FACTS
    else:
        facts = builtin_facts().get(use.name, UNKNOWN_TOOL)
    return CheckedCall(use, use.input, facts=facts)


async def run_through(toolset: Toolset, use: ToolUse) -> ToolResult:
    """What the engine does with one call: check it, and run it if it passed."""
    checked = toolset.check(use)
    return checked if isinstance(checked, ToolResult) else await toolset.run(checked)
