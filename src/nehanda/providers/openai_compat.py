"""The OpenAI-compatible chat-completions adapter (OpenAI, vLLM, LM Studio, llama.cpp).

``OpenAIStreamState`` turns ``chat.completion.chunk`` objects into events and knows
nothing of I/O; ``OpenAICompatProvider.stream`` only drives it. Tool-call deltas are
accumulated per call: ``ToolUseStart`` once the call's id and name are known,
``ToolUseArgsDelta`` per argument fragment, and ``ToolUseEnd`` only once the stream
is known complete (a ``finish_reason``, ``[DONE]``, or the end of a body that had
one), so no call from a cut or broken stream can run.

Server differences this absorbs, each seen in the wild: a call's id and name sent
again with every fragment, or a whole call in one chunk (Ollama, llama.cpp); no
``index`` on a call delta; Ollama's parallel calls all at ``index`` 0, told apart by
id; a fresh id on every fragment of one call (some LM Studio builds, Poolside), which
is why a new id opens a new call only when it comes with a name; arguments sent as
a JSON object rather than a string; reasoning as ``reasoning_content`` or
``reasoning``, or inside the content as ``<think>...</think>`` (servers without a
reasoning parser; ``ThinkSplitter``); usage on the finish chunk (llama.cpp) or on a
usage-only chunk.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import httpx

from nehanda.config.profiles import family_vision, omit_tool_choice
from nehanda.config.settings import ProviderConfig
from nehanda.errors import AuthenticationError, StreamProtocolError, with_hint
from nehanda.events import (
    MessageEnd,
    ReasoningDelta,
    StopReason,
    StreamEvent,
    ToolUseArgsDelta,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.providers import bounded_json
from nehanda.providers.arguments import native_tool_use
from nehanda.providers.base import Capabilities, ChatRequest
from nehanda.providers.http import Exchange, HTTPProvider, RetryPolicy, open_stream
from nehanda.providers.http_errors import Target, error_message, key_hint
from nehanda.providers.prefix import Prefix
from nehanda.providers.sse import SSEDecoder, SSEEvent
from nehanda.providers.streaming import stream_events
from nehanda.providers.think_split import ThinkSplitter
from nehanda.providers.window import ask_window
from nehanda.types import (
    DocumentPart,
    ImagePart,
    JsonObject,
    Message,
    Part,
    TextPart,
    ToolResult,
    ToolSpec,
    ToolUse,
    Usage,
    new_call_id,
)

STOP_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}


@dataclass
class _Call:
    index: int
    id: str | None = None
    name: str | None = None
    fragments: list[str] = field(default_factory=list)
    started: bool = False
    ended: bool = False


class OpenAIStreamState:
    """Chunks in, events out; ``finish`` when the body ends. One instance per response."""

    def __init__(self, *, provider: str = "", model: str = "") -> None:
        self.provider = provider
        self.model = model
        self.done = False
        self._finish_reason: str | None = None
        self._usage = Usage()
        self._calls: list[_Call] = []
        self._by_raw_index: dict[int, _Call] = {}
        self._last_raw_index = 0
        self._think = ThinkSplitter()

    def handle(self, event: SSEEvent) -> list[StreamEvent]:
        """One SSE event: ``[DONE]``, a JSON chunk, or an error the server reports."""
        data = event.data.strip()
        if not data or self.done:
            return []
        if data == "[DONE]":
            self.done = True
            return []
        if event.event == "error":
            raise self._error(f"the server reported an error mid-stream: {error_message(data)}")
        try:
            chunk = bounded_json.loads(data)
        except json.JSONDecodeError as exc:
            raise self._error(f"a chunk is not JSON ({exc.msg}): {data[:200]!r}") from exc
        if not isinstance(chunk, dict):
            raise self._error(f"a chunk is not a JSON object: {data[:200]!r}")
        return self.handle_chunk(chunk)

    def handle_chunk(self, chunk: JsonObject) -> list[StreamEvent]:
        """One ``chat.completion.chunk`` object."""
        if chunk.get("error") or chunk.get("object") == "error":
            message = error_message(json.dumps(chunk))
            raise self._error(f"the server reported an error mid-stream: {message}")
        usage = chunk.get("usage")
        if isinstance(usage, dict):
            self._usage = Usage(
                _int(usage.get("prompt_tokens")), _int(usage.get("completion_tokens"))
            )
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or ():
            if isinstance(choice, dict) and choice.get("index", 0) in (0, None):
                events += self._choice(choice)
        return events

    def finish(self) -> list[StreamEvent]:
        """The body ended: the closing events, or ``StreamProtocolError`` if it was cut."""
        if self._finish_reason is None and not self.done:
            raise self._error("the stream ended before its finish_reason or [DONE]")
        events: list[StreamEvent] = [*self._think.finish(), *self._end_calls()]
        reason = self._finish_reason
        if reason is None or (reason == "stop" and self._calls):
            reason = "tool_calls" if self._calls else "stop"
        events.append(MessageEnd(STOP_REASONS.get(reason, "other"), self._usage))
        return events

    def _choice(self, choice: JsonObject) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        delta = choice.get("delta")
        if isinstance(delta, dict):
            reasoning = delta.get("reasoning_content") or delta.get("reasoning")
            if isinstance(reasoning, str) and reasoning:
                events.append(ReasoningDelta(reasoning))
            content = delta.get("content")
            if isinstance(content, str) and content:
                events += self._think.feed(content)
            calls = delta.get("tool_calls")
            if isinstance(delta.get("function_call"), dict):  # the legacy single-call form
                calls = [{"index": 0, "function": delta["function_call"]}]
            for entry in calls if isinstance(calls, list) else ():
                if isinstance(entry, dict):
                    events += self._call_delta(entry)
        reason = choice.get("finish_reason")
        if isinstance(reason, str) and reason and self._finish_reason is None:
            self._finish_reason = reason
            events += self._end_calls()
        return events

    def _call_delta(self, entry: JsonObject) -> list[StreamEvent]:
        function = entry.get("function")
        if not isinstance(function, dict):
            function = {}
        call_id = _text(entry.get("id"))
        name = _text(function.get("name"))
        call = self._call_for(entry.get("index"), call_id, name)
        if call.ended:
            raise self._error(f"tool call {call.index} got more data after the stream finished")
        call.id = call.id or call_id
        call.name = call.name or name
        arguments = function.get("arguments")
        if isinstance(arguments, dict | list):  # some servers send the object itself
            arguments = json.dumps(arguments)
        fragment = arguments if isinstance(arguments, str) else ""
        if fragment:
            call.fragments.append(fragment)
        if call.started:
            return [ToolUseArgsDelta(call.index, fragment)] if fragment else []
        return self._start(call) if call.name else []

    def _call_for(self, raw_index: Any, call_id: str | None, name: str | None) -> _Call:
        if not isinstance(raw_index, int) or isinstance(raw_index, bool):
            raw_index = self._last_raw_index
        self._last_raw_index = raw_index
        call = self._by_raw_index.get(raw_index)
        opens_new = call_id and name and call is not None and call.id and call.id != call_id
        if call is None or opens_new:
            call = _Call(index=len(self._calls))
            self._calls.append(call)
            self._by_raw_index[raw_index] = call
        return call

    def _start(self, call: _Call) -> list[StreamEvent]:
        call.started = True
        call.id = call.id or new_call_id()
        events: list[StreamEvent] = [ToolUseStart(call.index, call.id, call.name or "")]
        if call.fragments:
            events.append(ToolUseArgsDelta(call.index, "".join(call.fragments)))
        return events

    def _end_calls(self) -> list[StreamEvent]:
        events: list[StreamEvent] = []
        for call in self._calls:
            if call.ended:
                continue
            if not call.started:
                events += self._start(call)
            call.ended = True
            events.append(ToolUseEnd(call.index, _tool_use(call)))
        return events

    def _error(self, message: str) -> StreamProtocolError:
        where = f"{self.provider} (model {self.model})" if self.model else self.provider
        return StreamProtocolError(
            f"{where}: {message}" if where else message, provider=self.provider, model=self.model
        )


def _tool_use(call: _Call) -> ToolUse:
    return native_tool_use(call.id or new_call_id(), call.name or "", "".join(call.fragments))


def _text(value: Any) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)  # some servers send numeric ids
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def tool_to_openai(tool: ToolSpec) -> JsonObject:
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.input_schema,
        },
    }


def messages_to_openai(messages: tuple[Message, ...] | list[Message]) -> list[JsonObject]:
    """Our transcript as chat-completions messages; reasoning is never sent back."""
    return [entry for message in messages for entry in message_to_openai(message)]


def message_to_openai(message: Message) -> list[JsonObject]:
    """One message as chat-completions messages (a results message becomes several).

    A tool message holds only text, so the images results showed follow them in a user
    message, as the best agents send them."""
    out: list[JsonObject] = [
        {"role": "tool", "tool_call_id": part.tool_use_id, "content": part.content}
        for part in message.parts
        if isinstance(part, ToolResult)
    ]
    text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
    calls = [p for p in message.parts if isinstance(p, ToolUse)]
    shown = [image for result in message.tool_results for image in result.images]
    if message.role == "assistant":
        if text or calls:
            out.append(_assistant(text, calls))
    elif text or shown or not message.parts or _shows(message.parts):
        role = "user" if message.role == "tool" else message.role
        out.append({"role": role, "content": _content(message.parts, shown)})
    return out


def _shows(parts: tuple[Part, ...]) -> bool:
    return any(isinstance(p, ImagePart | DocumentPart) for p in parts)


def _content(parts: tuple[Part, ...], shown: list[ImagePart]) -> str | list[JsonObject]:
    """A user message's content: its text alone, or a list of parts once it shows more."""
    own = [p for p in parts if isinstance(p, TextPart | ImagePart | DocumentPart)]
    if shown:
        own = [TextPart("The images the tool results above showed:"), *shown, *own]
    if all(isinstance(p, TextPart) for p in own):
        return "".join(p.text for p in own if isinstance(p, TextPart))
    return [content_part(p) for p in own]


def content_part(part: TextPart | ImagePart | DocumentPart) -> JsonObject:
    """A content part: text, an ``image_url`` (a data URL, or the image's address), or a
    ``file`` for a document's bytes; a text document is its text."""
    if isinstance(part, ImagePart):
        return {"type": "image_url", "image_url": {"url": part.data_url}}
    if isinstance(part, DocumentPart):
        if part.text is not None:
            return {"type": "text", "text": part.text}
        if part.data is None:
            return {"type": "text", "text": part.note}
        data = f"data:{part.media_type};base64,{part.base64}"
        return {"type": "file", "file": {"filename": part.title or "document", "file_data": data}}
    return {"type": "text", "text": part.text}


def _assistant(text: str, calls: list[ToolUse]) -> JsonObject:
    message: JsonObject = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": json.dumps(call.input)},
            }
            for call in calls
        ]
    return message


def build_payload(
    request: ChatRequest,
    model: str,
    *,
    send_tool_choice: bool = True,
    messages: list[JsonObject] | None = None,
) -> JsonObject:
    """The JSON body of a streaming ``/chat/completions`` request; ``messages``, when
    given, is ``request.messages`` already rendered."""
    payload: JsonObject = {
        "model": model,
        "messages": messages_to_openai(request.messages) if messages is None else messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if request.tools:
        payload["tools"] = [tool_to_openai(tool) for tool in request.tools]
        if request.tool_choice is not None and send_tool_choice:
            payload["tool_choice"] = request.tool_choice
    if request.max_tokens is not None:
        payload["max_tokens"] = request.max_tokens
    if request.temperature is not None:
        payload["temperature"] = request.temperature
    if request.stop:
        payload["stop"] = list(request.stop)
    return {**request.extra, **payload}


class OpenAICompatProvider(HTTPProvider):
    """A ``Provider`` for any server speaking OpenAI's streaming chat-completions API."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        super().__init__(config, api_key=api_key, client=client, retry=retry)
        self._windows: dict[str, int | None] = {}
        # Each message rendered once for the conversation, not once per request.
        self._rendered: Prefix[Message, list[JsonObject]] = Prefix(message_to_openai)

    async def capabilities(self, model: str) -> Capabilities:
        """Native tools are found out by asking; the window is what the server reports."""
        if model not in self._windows:
            self._windows[model] = await ask_window(
                self._client, self._config, model, self._auth_headers()
            )
        return Capabilities(
            native_tools=None,
            context_length=self._windows[model],
            vision=family_vision(self._config.type, model),
        )

    def _auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {}

    def exchange(self, path: str, payload: JsonObject, model: str) -> Exchange:
        """A request to another endpoint of this server (``path`` below the base URL),
        with this provider's key, timeouts and retries; ``nehanda serve`` passes
        ``/completions`` and ``/embeddings`` through it."""
        target = Target(self._config.base_url.rstrip("/") + path, self.name, model)
        return open_stream(
            self._client,
            target,
            payload,
            headers=self._auth_headers(),
            timeout=self._timeout,
            retry=self._retry,
        )

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamEvent]:
        model = request.model or self._config.model or ""
        url = self._config.base_url.rstrip("/") + "/chat/completions"
        headers = {"Accept": "text/event-stream", **self._auth_headers()}
        target = Target(url, self.name, model)
        payload = build_payload(
            request,
            model,
            send_tool_choice=not omit_tool_choice(self._config.type),
            messages=list(chain.from_iterable(self._rendered.map(request.messages))),
        )
        opened = open_stream(
            self._client, target, payload, headers=headers, timeout=self._timeout, retry=self._retry
        )
        state = OpenAIStreamState(provider=self.name, model=model)
        try:
            async for event in stream_events(
                opened, SSEDecoder(provider=self.name, model=model), state
            ):
                yield event
        except AuthenticationError as exc:
            if self._api_key:
                raise
            raise with_hint(exc, f" ({key_hint(self._config.api_key_env)})") from exc
