"""The turn loop: ask the model, run the calls it makes, send the results back, repeat.

The loop ends at a reply with no tool call, or after ``max_turns`` requests. Every
``ToolUse`` gets exactly one ``ToolResult``, whatever happens to it (denied, invalid,
failed), so the transcript stays well-formed for every provider.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

from nehanda.engine.reply import Reply
from nehanda.events import StreamEvent
from nehanda.providers.base import ChatRequest, Provider, ToolChoice
from nehanda.types import Message, TextPart, ToolResult, ToolSpec, ToolUse, Usage

ToolRunner = Callable[[ToolUse], Awaitable[ToolResult]]


@dataclass(frozen=True)
class TurnStarted:
    turn: int


@dataclass(frozen=True)
class ToolExecuted:
    tool_use: ToolUse
    result: ToolResult
    seconds: float


@dataclass(frozen=True)
class RunFinished:
    text: str
    turns: int
    stop_reason: str
    usage: Usage


EngineEvent = StreamEvent | TurnStarted | ToolExecuted | RunFinished


@dataclass
class Agent:
    provider: Provider
    model: str
    tools: tuple[ToolSpec, ...]
    run_tool: ToolRunner
    max_turns: int = 50
    tool_choice: ToolChoice | None = "auto"
    messages: list[Message] = field(default_factory=list)

    async def run(self, prompt: str) -> AsyncIterator[EngineEvent]:
        self.messages.append(Message("user", (TextPart(prompt),)))
        usage, text = Usage(), ""
        for turn in range(1, self.max_turns + 1):
            yield TurnStarted(turn)
            reply = Reply()
            async for event in self.provider.stream(self._request()):
                reply.add(event)
                yield event
            end = reply.finished(self.provider.name, self.model)
            usage, text = usage + end.usage, reply.text
            self.messages.append(reply.message())
            if not reply.tool_uses:
                yield RunFinished(text, turn, end.stop_reason, usage)
                return
            results: list[ToolResult] = []
            for tool_use in reply.tool_uses:
                started = time.perf_counter()
                result = await self.run_tool(tool_use)
                results.append(result)
                yield ToolExecuted(tool_use, result, time.perf_counter() - started)
            self.messages.append(Message("tool", tuple(results)))
        yield RunFinished(text, self.max_turns, "max_turns", usage)

    def _request(self) -> ChatRequest:
        return ChatRequest(
            model=self.model,
            messages=tuple(self.messages),
            tools=self.tools,
            tool_choice=self.tool_choice if self.tools else None,
        )
