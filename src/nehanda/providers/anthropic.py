"""The Claude adapter: Anthropic's Messages API (``POST /v1/messages``), streamed as SSE.

``AnthropicStreamState`` turns one server-sent event at a time into events and knows
nothing of I/O. Content arrives in numbered blocks: text, ``tool_use`` (id and name
first, then the input as ``input_json_delta`` fragments of JSON text) and ``thinking``
(text, then a signature that must accompany the block when it is sent back).
``ToolUseEnd`` and ``MessageEnd`` wait for ``message_stop``: a stream that ends
without it, or with an ``error`` event after the 200, is incomplete and none of its
calls runs. The system prompt travels in the top-level ``system`` field and tool
results go back as ``tool_result`` blocks in the next user message.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from nehanda.config.profiles import CLAUDE_FAMILIES, family_for, omit_tool_choice, profile_for
from nehanda.errors import AuthenticationError, RateLimitError, StreamProtocolError, with_hint
from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StopReason,
    StreamEvent,
    TextDelta,
    ToolUseArgsDelta,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.providers import bounded_json
from nehanda.providers.arguments import native_tool_use
from nehanda.providers.base import Capabilities, ChatRequest
from nehanda.providers.http import HTTPProvider, open_stream
from nehanda.providers.http_errors import Target, error_message
from nehanda.providers.sse import SSEDecoder, SSEEvent
from nehanda.providers.streaming import stream_events
from nehanda.types import (
    DocumentPart,
    ImagePart,
    JsonObject,
    Message,
    Part,
    ReasoningPart,
    TextPart,
    ToolUse,
    Usage,
)

STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "stop_sequence": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "model_context_window_exceeded": "max_tokens",
    "refusal": "refusal",
}
TOOL_CHOICES: dict[str, JsonObject] = {
    "auto": {"type": "auto"},
    "required": {"type": "any"},
    "none": {"type": "none"},
}


@dataclass
class _Block:
    kind: str
    call_index: int = -1
    id: str = ""
    name: str = ""
    fragments: list[str] = field(default_factory=list)
    signature: str | None = None


class AnthropicStreamState:
    """SSE events in, events out; ``finish`` when the body ends. One per response."""

    def __init__(self, *, provider: str = "", model: str = "") -> None:
        self.provider = provider
        self.model = model
        self.done = False
        self._blocks: dict[int, _Block] = {}
        self._calls: list[_Block] = []
        self._input_tokens = 0
        self._output_tokens = 0
        self._stop_reason: str | None = None

    def handle(self, event: SSEEvent) -> list[StreamEvent]:
        if self.done or not event.data.strip():
            return []
        try:
            data = bounded_json.loads(event.data)
        except json.JSONDecodeError as exc:
            raise self._error(f"an event is not JSON ({exc.msg}): {event.data[:200]!r}") from exc
        if not isinstance(data, dict):
            raise self._error(f"an event is not a JSON object: {event.data[:200]!r}")
        kind = data.get("type") or event.event
        if kind == "error":
            raise self._server_error(event.data)
        if kind == "message_start":
            self._usage(_dict(data.get("message")).get("usage"))
        elif kind == "content_block_start":
            return self._start(data)
        elif kind == "content_block_delta":
            return self._delta(data)
        elif kind == "content_block_stop":
            return self._stop(data)
        elif kind == "message_delta":
            self._stop_reason = _dict(data.get("delta")).get("stop_reason") or self._stop_reason
            self._usage(data.get("usage"))
        elif kind == "message_stop":
            return self._end()
        return []  # ping, and event types added to the API after this was written

    def finish(self) -> list[StreamEvent]:
        if not self.done:
            raise self._error("the stream ended before message_stop; it was cut short")
        return []

    def _start(self, data: JsonObject) -> list[StreamEvent]:
        content = _dict(data.get("content_block"))
        block = _Block(str(content.get("type")))
        self._blocks[_index(data)] = block
        if block.kind == "tool_use":
            block.call_index, block.id = len(self._calls), str(content.get("id") or "")
            block.name = str(content.get("name") or "")
            self._calls.append(block)
            return [ToolUseStart(block.call_index, block.id, block.name)]
        if block.kind == "text" and content.get("text"):
            return [TextDelta(str(content["text"]))]
        if block.kind == "thinking" and content.get("thinking"):
            return [ReasoningDelta(str(content["thinking"]))]
        return []

    def _delta(self, data: JsonObject) -> list[StreamEvent]:
        block = self._block(data)
        delta = _dict(data.get("delta"))
        kind = delta.get("type")
        if kind == "text_delta" and delta.get("text"):
            return [TextDelta(str(delta["text"]))]
        if kind == "thinking_delta" and delta.get("thinking"):
            return [ReasoningDelta(str(delta["thinking"]))]
        if kind == "signature_delta":
            block.signature = (block.signature or "") + str(delta.get("signature") or "")
        elif kind == "input_json_delta" and delta.get("partial_json"):
            block.fragments.append(str(delta["partial_json"]))
            return [ToolUseArgsDelta(block.call_index, block.fragments[-1])]
        return []

    def _stop(self, data: JsonObject) -> list[StreamEvent]:
        block = self._block(data)
        if block.kind == "thinking" and block.signature:
            return [ReasoningDelta("", block.signature)]
        return []

    def _end(self) -> list[StreamEvent]:
        self.done = True
        events: list[StreamEvent] = []
        for block in self._calls:
            arguments = "".join(block.fragments)
            events.append(
                ToolUseEnd(block.call_index, native_tool_use(block.id, block.name, arguments))
            )
        reason = STOP_REASONS.get(self._stop_reason or "end_turn", "other")
        usage = Usage(self._input_tokens, self._output_tokens)
        return [*events, MessageEnd(reason, usage)]

    def _usage(self, usage: object) -> None:
        if not isinstance(usage, dict):
            return
        counts = [usage.get(key) for key in _INPUT_KEYS]
        if any(isinstance(count, int) for count in counts):
            self._input_tokens = sum(c for c in counts if isinstance(c, int))
        if isinstance(usage.get("output_tokens"), int):
            self._output_tokens = usage["output_tokens"]

    def _block(self, data: JsonObject) -> _Block:
        index = _index(data)
        if index not in self._blocks:
            raise self._error(f"an event refers to content block {index}, which never started")
        return self._blocks[index]

    def _server_error(self, raw: str) -> Exception:
        message = f"the server reported an error mid-stream: {error_message(raw)}"
        if '"overloaded_error"' in raw:
            where = f"{self.provider} (model {self.model})"
            return RateLimitError(
                f"{where}: {message}",
                status=529,
                body=raw,
                provider=self.provider,
                model=self.model,
            )
        return self._error(message)

    def _error(self, message: str) -> StreamProtocolError:
        return StreamProtocolError(
            f"{self.provider} (model {self.model}): {message}",
            provider=self.provider,
            model=self.model,
        )


_INPUT_KEYS = ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _dict(value: object) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _index(data: JsonObject) -> int:
    index = data.get("index")
    return index if isinstance(index, int) else -1


def messages_to_anthropic(
    messages: tuple[Message, ...] | list[Message],
) -> tuple[str, list[JsonObject]]:
    """The system text and the turns; consecutive turns of one role are merged."""
    system = "\n\n".join(m.text for m in messages if m.role == "system" and m.text)
    turns: list[JsonObject] = []
    for message in messages:
        if message.role == "system":
            continue
        role = "assistant" if message.role == "assistant" else "user"
        blocks = [block for part in message.parts if (block := _block(part)) is not None]
        if not blocks:
            continue
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return system, turns


def _block(part: Part) -> JsonObject | None:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text} if part.text.strip() else None
    if isinstance(part, ReasoningPart):
        # Unsigned reasoning (from another provider, or cut short) cannot be verified.
        if not part.signature:
            return None
        return {"type": "thinking", "thinking": part.text, "signature": part.signature}
    if isinstance(part, ToolUse):
        return {"type": "tool_use", "id": part.id, "name": part.name, "input": part.input}
    if isinstance(part, ImagePart):
        return image_block(part)
    if isinstance(part, DocumentPart):
        return document_block(part)
    result: JsonObject = {"type": "tool_result", "tool_use_id": part.tool_use_id}
    if part.images:
        result["content"] = [
            *([{"type": "text", "text": part.content}] if part.content else []),
            *map(image_block, part.images),
        ]
    elif part.content:
        result["content"] = part.content
    if part.is_error:
        result["is_error"] = True
    return result


def image_block(image: ImagePart) -> JsonObject:
    """An ``image`` block: base64 bytes, or the address the server fetches."""
    if image.data is None:
        return {"type": "image", "source": {"type": "url", "url": image.url or ""}}
    source = {"type": "base64", "media_type": image.media_type, "data": image.base64}
    return {"type": "image", "source": source}


def document_block(document: DocumentPart) -> JsonObject:
    """A ``document`` block: plain text, base64 bytes (a PDF) or an address."""
    source: JsonObject
    if document.text is not None:
        source = {"type": "text", "media_type": "text/plain", "data": document.text}
    elif document.data is not None:
        source = {"type": "base64", "media_type": document.media_type, "data": document.base64}
    else:
        source = {"type": "url", "url": document.url or ""}
    block: JsonObject = {"type": "document", "source": source}
    if document.title:
        block["title"] = document.title
    return block


def build_payload(
    request: ChatRequest, model: str, *, max_tokens: int, send_tool_choice: bool = True
) -> JsonObject:
    """The JSON body of a streaming ``/v1/messages`` request."""
    system, turns = messages_to_anthropic(request.messages)
    payload: JsonObject = {
        "model": model,
        "max_tokens": request.max_tokens or max_tokens,
        "messages": turns,
        "stream": True,
    }
    if system:
        payload["system"] = system
    if request.tools:
        payload["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools
        ]
        if request.tool_choice is not None and send_tool_choice:
            payload["tool_choice"] = TOOL_CHOICES[request.tool_choice]
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    if request.stop:
        payload["stop_sequences"] = list(request.stop)
    return {**request.extra, **payload}


class AnthropicProvider(HTTPProvider):
    """A ``Provider`` for Claude through the Messages API."""

    async def capabilities(self, model: str) -> Capabilities:
        # Every Claude model takes tools; None says the server was not asked.
        return Capabilities(None, family_for(model, CLAUDE_FAMILIES).context_length)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        model = request.model or self._config.model or ""
        payload = build_payload(
            request,
            model,
            max_tokens=family_for(model, CLAUDE_FAMILIES).max_tokens,
            send_tool_choice=not omit_tool_choice(self._config.type),
        )
        target = Target(self._config.base_url + "/v1/messages", self.name, model, "Anthropic")
        opened = open_stream(
            self._client,
            target,
            payload,
            headers=self._headers(),
            timeout=self._timeout,
            retry=self._retry,
        )
        state = AnthropicStreamState(provider=self.name, model=model)
        try:
            async for event in stream_events(
                opened, SSEDecoder(provider=self.name, model=model), state
            ):
                yield event
        except AuthenticationError as exc:
            if self._api_key:
                raise
            # A refusal of no key at all says which variable to set.
            variable = self._config.api_key_env or "ANTHROPIC_API_KEY"
            raise with_hint(exc, f" (set {variable})") from exc

    def _headers(self) -> dict[str, str]:
        headers = {
            "accept": "text/event-stream",
            "anthropic-version": profile_for(self._config.type).api_version or "",
        }
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers
