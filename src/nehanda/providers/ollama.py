"""The Ollama adapter: the native ``POST /api/chat`` API, streamed as NDJSON.

``OllamaStreamState`` turns one parsed line at a time into events and knows nothing
of I/O. Ollama sends content and ``thinking`` in pieces but each tool call whole,
with its arguments as a JSON object and no id (one is made up). The last line has
``done: true``, ``done_reason`` and the token counts; a stream without it was cut
short, and none of its calls runs: ``ToolUseEnd`` waits for that line.

Every request carries ``options.num_ctx``. Ollama's small default context silently
drops the start of a long prompt, tool definitions included, and a model that lost
its tools describes actions instead of calling them; so nehanda asks for the model's
own context length (from ``/api/show``), capped by the ``context_cap`` setting (or the
``context_window`` setting, which wins), and says so when the prompt looks larger than that.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from itertools import chain
from operator import itemgetter
from typing import Any

import httpx

from nehanda.config.profiles import profile_for
from nehanda.config.settings import ProviderConfig
from nehanda.errors import StreamProtocolError
from nehanda.events import (
    MessageEnd,
    Notice,
    ReasoningDelta,
    StopReason,
    StreamEvent,
    TextDelta,
    ToolUseArgsDelta,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.providers.arguments import native_tool_use
from nehanda.providers.base import Capabilities, ChatRequest
from nehanda.providers.http import HTTPProvider, RetryPolicy, open_stream
from nehanda.providers.http_errors import Target, error_message
from nehanda.providers.ollama_show import OllamaModelInfo, explained
from nehanda.providers.openai_compat import tool_to_openai
from nehanda.providers.prefix import Prefix
from nehanda.providers.sse import NDJSONDecoder
from nehanda.providers.streaming import stream_events
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.types import (
    DocumentPart,
    ImagePart,
    JsonObject,
    Message,
    TextPart,
    ToolUse,
    Usage,
    new_call_id,
)

STOP_REASONS: dict[str, StopReason] = {"stop": "end_turn", "length": "max_tokens"}
CHARS_PER_TOKEN = 4
IMAGE_CHARS = 4 * 1600  # about what one image costs a vision model, in prompt characters


class OllamaStreamState:
    """Lines in, events out; ``finish`` when the body ends. One instance per response."""

    def __init__(self, *, provider: str = "", model: str = "") -> None:
        self.provider = provider
        self.model = model
        self.done = False
        self._calls: list[ToolUse] = []

    def handle(self, line: JsonObject) -> list[StreamEvent]:
        if self.done:
            return []
        if line.get("error"):
            problem = error_message(json.dumps(line))
            raise self._error(f"the server reported an error mid-stream: {problem}")
        events: list[StreamEvent] = []
        message = line.get("message")
        if isinstance(message, dict):
            events += self._message(message)
        if line.get("done") is True:
            self.done = True
            events += self._end(line)
        return events

    def finish(self) -> list[StreamEvent]:
        if not self.done:
            raise self._error("the stream ended before its final line (done: true)")
        return []

    def _message(self, message: JsonObject) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        thinking, content = message.get("thinking"), message.get("content")
        if isinstance(thinking, str) and thinking:
            events.append(ReasoningDelta(thinking))
        if isinstance(content, str) and content:
            events.append(TextDelta(content))
        calls = message.get("tool_calls")
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict):
                raise self._error(f"a tool call has no function: {json.dumps(call)[:200]}")
            events += self._call(call, function)
        return events

    def _call(self, call: JsonObject, function: JsonObject) -> list[StreamEvent]:
        index, arguments = len(self._calls), function.get("arguments")
        call_id, name = _text(call.get("id")) or new_call_id(), _text(function.get("name"))
        tool_use = native_tool_use(call_id, name, arguments)
        self._calls.append(tool_use)
        fragment = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        return [ToolUseStart(index, call_id, name), ToolUseArgsDelta(index, fragment)]

    def _end(self, line: JsonObject) -> list[StreamEvent]:
        events: list[StreamEvent] = [ToolUseEnd(i, use) for i, use in enumerate(self._calls)]
        reason = STOP_REASONS.get(str(line.get("done_reason") or "stop"), "other")
        if reason == "end_turn" and self._calls:
            reason = "tool_use"
        usage = Usage(_int(line.get("prompt_eval_count")), _int(line.get("eval_count")))
        return [*events, MessageEnd(reason, usage)]

    def _error(self, message: str) -> StreamProtocolError:
        where = f"{self.provider} (model {self.model})" if self.model else self.provider
        return StreamProtocolError(
            f"{where}: {message}" if where else message, provider=self.provider, model=self.model
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def messages_to_ollama(messages: tuple[Message, ...] | list[Message]) -> list[JsonObject]:
    """Our transcript as ``/api/chat`` messages; results name their tool (``tool_name``)."""
    names = {use.id: use.name for message in messages for use in message.tool_uses}
    return [entry for message in messages for entry in message_to_ollama(message, names)]


def message_to_ollama(message: Message, names: Mapping[str, str]) -> list[JsonObject]:
    """One message as ``/api/chat`` messages; ``names`` maps call ids to tool names.

    Images travel as base64 in the message's ``images``; those results showed follow the
    tool messages in a user message. Ollama has no documents: a text one is its text."""
    out: list[JsonObject] = [
        {"role": "tool", "content": r.content, "tool_name": names.get(r.tool_use_id, "")}
        for r in message.tool_results
    ]
    calls = message.tool_uses
    if message.role == "assistant":
        if message.text or calls:
            out.append(_assistant(message.text, calls))
        return out
    shown = [image for result in message.tool_results for image in result.images]
    parts = [p for p in message.parts if isinstance(p, TextPart | ImagePart | DocumentPart)]
    if shown:
        parts = [TextPart("The images the tool results above showed:"), *shown, *parts]
    if any(not isinstance(p, TextPart) or p.text for p in parts) or not message.parts:
        entry: JsonObject = {
            "role": "user" if message.role == "tool" else message.role,
            "content": "".join(map(_text_of, parts)),
        }
        images = [p.base64 for p in parts if isinstance(p, ImagePart) and p.data is not None]
        if images:
            entry["images"] = images
        out.append(entry)
    return out


def _text_of(part: TextPart | ImagePart | DocumentPart) -> str:
    """A part's share of the content: an image sent by address, which Ollama cannot
    fetch, and a document that is not text become notes."""
    if isinstance(part, TextPart):
        return part.text
    if isinstance(part, ImagePart):
        return "" if part.data is not None else part.note
    return part.text if part.text is not None else part.note


class RenderedMessages:
    """Each message's ``/api/chat`` form and the length of its JSON, made once per
    conversation: the payload and the size estimate both read them."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self._prefix: Prefix[Message, tuple[list[JsonObject], int]] = Prefix(self._render)

    def render(self, messages: tuple[Message, ...]) -> tuple[list[JsonObject], int]:
        rendered = self._prefix.map(messages)
        entries = list(chain.from_iterable(map(itemgetter(0), rendered)))
        return entries, sum(map(itemgetter(1), rendered))

    def _render(self, message: Message) -> tuple[list[JsonObject], int]:
        # A call always comes before its result, so its name is known by then.
        self._names.update((use.id, use.name) for use in message.tool_uses)
        entries = message_to_ollama(message, self._names)
        # An image costs the model its patches, not its base64 characters.
        images = [image for entry in entries for image in entry.get("images", ())]
        chars = len(json.dumps(entries)) - sum(map(len, images)) + IMAGE_CHARS * len(images)
        return entries, chars


def _assistant(text: str, calls: list[ToolUse]) -> JsonObject:
    message: JsonObject = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"function": {"name": call.name, "arguments": call.input}} for call in calls
        ]
    return message


def build_payload(
    request: ChatRequest,
    model: str,
    num_ctx: int | None,
    messages: list[JsonObject] | None = None,
) -> JsonObject:
    """The JSON body of a streaming ``/api/chat`` request; ``messages``, when given, is
    ``request.messages`` already rendered."""
    options: JsonObject = {}
    if num_ctx is not None:
        options["num_ctx"] = num_ctx
    if request.max_tokens is not None:
        options["num_predict"] = request.max_tokens
    if request.temperature is not None:
        options["temperature"] = request.temperature
    if request.stop:
        options["stop"] = list(request.stop)
    payload: JsonObject = {
        "model": model,
        "messages": messages_to_ollama(request.messages) if messages is None else messages,
        "stream": True,
        "options": options,
    }
    if request.tools:
        payload["tools"] = [tool_to_openai(tool) for tool in request.tools]
    return payload


def context_window(found: Capabilities, cap: int | None) -> int | None:
    """``num_ctx``: the model's own context length, never above ``cap`` (the
    ``context_window`` setting, else ``context_cap``), and never above the model's own."""
    lengths = [n for n in (found.context_length, cap) if n]
    return min(lengths) if lengths else None


def estimated_tokens(payload: Mapping[str, Any], messages_chars: int | None = None) -> int:
    """Characters / 4 of the messages and tools; ``messages_chars`` saves serialising the
    messages again when their length is known."""
    if messages_chars is None:
        messages_chars = len(json.dumps(payload.get("messages", [])))
    return (messages_chars + len(json.dumps(payload.get("tools", [])))) // CHARS_PER_TOKEN


class OllamaProvider(HTTPProvider):
    """A ``Provider`` for Ollama's native chat API."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        store: ToolSupportCache | None = None,
    ) -> None:
        super().__init__(config, api_key=api_key, client=client, retry=retry)
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._cap = config.context_cap or profile_for(config.type).context_cap
        self._info = OllamaModelInfo(
            config,
            self._client,
            store=store,
            headers=self._headers,
            retry=self._retry,
            on_retry=self.announce_retry,
        )
        self._warned: set[str] = set()
        self._rendered = RenderedMessages()

    async def capabilities(self, model: str) -> Capabilities:
        return await self._info.capabilities(model)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        model = request.model or self._config.model or ""
        found = await self.capabilities(model)
        num_ctx = context_window(found, self._config.context_window or self._cap)
        messages, chars = self._rendered.render(request.messages)
        payload = build_payload(request, model, num_ctx, messages)
        target = Target(self._config.base_url + "/api/chat", self.name, model, "Ollama")
        opened = open_stream(
            self._client,
            target,
            payload,
            headers=self._headers,
            timeout=self._timeout,
            retry=self._retry,
        )
        state = OllamaStreamState(provider=self.name, model=model)
        decoder = NDJSONDecoder(provider=self.name, model=model)
        with explained(model, self._config.base_url):
            async for event in stream_events(
                opened, decoder, state, lambda: self._context_notice(model, payload, num_ctx, chars)
            ):
                yield event

    def _context_notice(
        self, model: str, payload: Mapping[str, Any], num_ctx: int | None, chars: int
    ) -> list[StreamEvent]:
        """Said once per model: Ollama gives no sign when it cuts a prompt."""
        tokens = estimated_tokens(payload, chars)
        if num_ctx is None or tokens <= num_ctx or model in self._warned:
            return []
        self._warned.add(model)
        return [
            Notice(
                f"the prompt is about {tokens} tokens but {self.name} was asked for a "
                f"{num_ctx}-token context (num_ctx) for {model}; Ollama will drop the start "
                "of the conversation. Raise context_cap in the provider's settings if the "
                "model and memory allow, or start a new session"
            )
        ]
