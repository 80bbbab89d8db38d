"""The provider protocol and the request it takes.

A provider speaks one wire API and translates its chunks into ``nehanda.events``;
it never decides policy (native or rescue, retries of a turn, permissions). A
non-streaming answer is collected from the stream, so there is one code path.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from nehanda.events import StreamEvent
from nehanda.types import Message, ToolSpec

ToolChoice = Literal["auto", "none", "required"]


@dataclass(frozen=True)
class ChatRequest:
    model: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    tool_choice: ToolChoice | None = "auto"
    max_tokens: int | None = None
    temperature: float | None = None
    stop: tuple[str, ...] = ()
    # Fields of the wire API the adapter sends as they are (``nehanda serve`` passes a
    # client's own on); they never replace a field the adapter sets itself.
    extra: Mapping[str, Any] = field(default_factory=dict)
    small_window: bool = False  # rescue mode teaches the tools in its compact tier


@dataclass(frozen=True)
class Capabilities:
    """What a model can do; ``None`` means the provider cannot tell in advance."""

    native_tools: bool | None = None
    context_length: int | None = None
    vision: bool | None = None


class Provider(Protocol):
    @property
    def name(self) -> str:
        """The name the user knows this provider by (settings entry or type)."""

    @property
    def type(self) -> str:
        """The provider type: openai, lmstudio, vllm, ollama, anthropic or nehanda."""

    async def capabilities(self, model: str) -> Capabilities: ...

    def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]: ...

    async def aclose(self) -> None: ...


class Wrapper:
    """The base of a provider wrapping another: name, type, capabilities and closing are
    the inner provider's; a subclass changes ``stream``."""

    def __init__(self, inner: Provider) -> None:
        self.inner = inner

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def type(self) -> str:
        return self.inner.type

    async def capabilities(self, model: str) -> Capabilities:
        return await self.inner.capabilities(model)

    async def aclose(self) -> None:
        await self.inner.aclose()
