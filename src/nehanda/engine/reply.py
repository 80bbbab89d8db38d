"""Collects one streamed response into an assistant message.

A reply is complete only when its ``MessageEnd`` arrived: the engine runs no tool
call from a stream that stopped short of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nehanda.errors import StreamProtocolError
from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolUseEnd,
)
from nehanda.types import Message, Part, ReasoningPart, TextPart, ToolUse, Usage


@dataclass
class Reply:
    text_chunks: list[str] = field(default_factory=list)
    reasoning_chunks: list[str] = field(default_factory=list)
    reasoning_signature: str | None = None
    tool_uses: list[ToolUse] = field(default_factory=list)
    problems: list[ToolCallProblem] = field(default_factory=list)
    end: MessageEnd | None = None

    def add(self, event: StreamEvent) -> None:
        if isinstance(event, TextDelta):
            self.text_chunks.append(event.text)
        elif isinstance(event, ReasoningDelta):
            self.reasoning_chunks.append(event.text)
            self.reasoning_signature = event.signature or self.reasoning_signature
        elif isinstance(event, ToolUseEnd):
            self.tool_uses.append(event.tool_use)
        elif isinstance(event, ToolCallProblem):
            self.problems.append(event)
        elif isinstance(event, MessageEnd):
            self.end = event

    @property
    def text(self) -> str:
        return "".join(self.text_chunks)

    @property
    def usage(self) -> Usage:
        return self.end.usage if self.end else Usage()

    def finished(self, provider: str, model: str) -> MessageEnd:
        """The final event, or ``StreamProtocolError`` when the stream never sent it."""
        if self.end is None:
            raise StreamProtocolError(
                "the response stream ended before the model finished; no tool call from it was run",
                provider=provider,
                model=model,
            )
        return self.end

    def message(self, tool_uses: list[ToolUse]) -> Message:
        """The assistant message for the transcript, holding the calls that will run."""
        parts: list[Part] = []
        if self.reasoning_chunks:
            parts.append(ReasoningPart("".join(self.reasoning_chunks), self.reasoning_signature))
        if self.text_chunks:
            parts.append(TextPart(self.text))
        parts.extend(tool_uses)
        return Message("assistant", tuple(parts))
