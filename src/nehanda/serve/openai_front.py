"""The OpenAI Chat Completions front: requests read into a ``ClientRequest``, replies
written as ``chat.completion`` objects or ``chat.completion.chunk`` streams.

``OpenAIChunks`` is sans-I/O: one event in, the chunks it makes out. A call goes out
whole: a delta with its id and name, then one with its arguments, the way servers
with a tool parser send them. Usage on a stream follows ``stream_options.include_usage``
(a last chunk with no choices), as OpenAI's API does.

The legacy function calling is read as tools: ``functions`` as function tools,
``function_call`` as ``tool_choice``, an assistant's ``function_call`` as its call and a
``role: "function"`` message as the result of the call before it; such a request is
answered in kind, one ``function_call`` and the finish reason ``function_call``.
"""

from __future__ import annotations

import time
from typing import Any

from nehanda.events import MessageEnd, ReasoningDelta, StopReason, TextDelta
from nehanda.providers.base import ChatRequest, ToolChoice
from nehanda.serve.media import content_parts
from nehanda.serve.turn import CallOut, ServeEvent
from nehanda.serve.wire import (
    BadRequest,
    ClientRequest,
    Collected,
    arguments_object,
    choose_tools,
    ignored,
    model_and_messages,
    optional_int,
    optional_number,
    require_dict,
    stop_list,
    text_of,
)
from nehanda.types import (
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

FINISH_REASONS: dict[StopReason, str] = {
    "end_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
    "other": "stop",
}
# Fields nehanda reads itself; the rest go to an OpenAI-compatible upstream as they are.
_HANDLED = frozenset(
    {
        "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "stream",
        "stream_options", "max_tokens", "max_completion_tokens", "temperature", "stop", "n",
        "functions", "function_call",
    }
)  # fmt: skip


def parse_openai(body: JsonObject) -> ClientRequest:
    """A ``/v1/chat/completions`` body; ``BadRequest`` says what is wrong with it."""
    model, raw_messages = model_and_messages(body)
    if body.get("n") not in (None, 1):
        raise BadRequest("n must be 1: nehanda serve returns one choice")
    messages = _messages(raw_messages)
    legacy = body.get("tools") is None and body.get("functions") is not None
    if legacy:
        choice, named = _tool_choice(_legacy_choice(body.get("function_call")))
        offered = _tools([{"type": "function", "function": f} for f in _list(body, "functions")])
    else:
        choice, named = _tool_choice(body.get("tool_choice"))
        offered = _tools(body.get("tools"))
    tools, choice = choose_tools(offered, choice, named)
    options = body.get("stream_options")
    chat = ChatRequest(
        model=model,
        messages=messages,
        tools=tools,
        tool_choice=choice if tools else None,
        max_tokens=optional_int(body, "max_completion_tokens", "max_tokens"),
        temperature=optional_number(body, "temperature"),
        stop=stop_list(body.get("stop"), "stop"),
    )
    return ClientRequest(
        chat,
        stream=body.get("stream") is True,
        include_usage=isinstance(options, dict) and options.get("include_usage") is True,
        thinking=True,
        parallel=body.get("parallel_tool_calls") is not False and not legacy,
        passthrough={k: v for k, v in body.items() if k not in _HANDLED},
        protocol="openai",
        legacy_functions=legacy,
    )


def _list(body: JsonObject, key: str) -> list[Any]:
    value = body.get(key)
    if not isinstance(value, list):
        raise BadRequest(f"{key} must be a list")
    return value


def _legacy_choice(raw: object) -> object:
    """``function_call`` as the ``tool_choice`` it stands for."""
    if isinstance(raw, dict) and "name" in raw:
        return {"type": "function", "function": {"name": raw["name"]}}
    return raw


def _messages(raw_messages: list[Any]) -> tuple[Message, ...]:
    """The history; a ``function`` message answers the legacy call just before it."""
    messages: list[Message] = []
    asked: str | None = None  # the id given to the last legacy call
    for index, raw in enumerate(raw_messages):
        where = f"messages[{index}]"
        if isinstance(raw, dict) and raw.get("role") == "function":
            call_id, asked = asked or new_call_id(), None
            result = ToolResult(call_id, text_of(raw.get("content"), where))
            messages.append(Message("tool", (result,)))
            continue
        message = _message(raw, where)
        legacy = raw.get("function_call") if isinstance(raw, dict) else None
        if message.role == "assistant" and legacy is not None:
            call = _history_call({"function": legacy}, f"{where}.function_call")
            message, asked = Message("assistant", (*message.parts, call)), call.id
        messages.append(message)
    return tuple(messages)


def _message(raw: object, where: str) -> Message:
    message = require_dict(raw, where)
    role = message.get("role")
    if role in ("system", "developer"):
        return Message.text_message("system", text_of(message.get("content"), where))
    if role == "user":
        return Message("user", content_parts(message.get("content"), where))
    if role == "tool":
        call_id = message.get("tool_call_id")
        if not isinstance(call_id, str) or not call_id:
            raise BadRequest(f"{where}: a tool message needs its tool_call_id")
        return Message("tool", (ToolResult(call_id, text_of(message.get("content"), where)),))
    if role == "assistant":
        parts: list[Part] = []
        text = text_of(message.get("content"), where)
        if text:
            parts.append(TextPart(text))
        calls = message.get("tool_calls") or []
        if not isinstance(calls, list):
            raise BadRequest(f"{where}.tool_calls must be a list")
        parts += [_history_call(call, f"{where}.tool_calls[{i}]") for i, call in enumerate(calls)]
        return Message("assistant", tuple(parts))
    raise BadRequest(f"{where}: role must be system, developer, user, assistant, tool or function")


def _history_call(raw: object, where: str) -> ToolUse:
    call = require_dict(raw, where)
    function = require_dict(call.get("function"), f"{where}.function")
    name = function.get("name")
    if not isinstance(name, str) or not name:
        raise BadRequest(f"{where}: the call needs its function name")
    call_id = call.get("id") if isinstance(call.get("id"), str) else new_call_id()
    return ToolUse(str(call_id), name, arguments_object(function.get("arguments"), where))


def _tools(raw: object) -> tuple[ToolSpec, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise BadRequest("tools must be a list")
    specs = []
    for index, entry in enumerate(raw):
        tool = require_dict(entry, f"tools[{index}]")
        if tool.get("type", "function") != "function":
            ignored(f"tools[].type {tool.get('type')!r}")  # a tool serve cannot offer
            continue
        function = require_dict(tool.get("function"), f"tools[{index}].function")
        name = function.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"tools[{index}].function.name is required")
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        schema = require_dict(parameters, f"tools[{index}].function.parameters")
        specs.append(ToolSpec(name, str(function.get("description") or ""), schema))
    return tuple(specs)


def _tool_choice(raw: object) -> tuple[ToolChoice | None, str | None]:
    if raw is None or raw == "auto":
        return "auto", None
    if raw in ("none", "required"):
        return raw, None
    if isinstance(raw, dict) and isinstance(raw.get("function"), dict):
        name = raw["function"].get("name")
        if isinstance(name, str) and name:
            return "required", name
    raise BadRequest(
        'tool_choice must be "auto", "none", "required" or '
        '{"type": "function", "function": {"name": ...}}'
    )


class OpenAIChunks:
    """Events in, ``chat.completion.chunk`` objects out; one per response."""

    def __init__(self, model: str, *, include_usage: bool, legacy: bool = False) -> None:
        self.id = "chatcmpl-" + new_call_id()[5:]
        self.model = model
        self.created = int(time.time())
        self.include_usage = include_usage
        self.legacy = legacy
        self._started = False

    def handle(self, event: ServeEvent) -> list[JsonObject]:
        chunks = [] if self._started else [self._chunk({"role": "assistant", "content": ""})]
        self._started = True
        if isinstance(event, TextDelta) and event.text:
            chunks.append(self._chunk({"content": event.text}))
        elif isinstance(event, ReasoningDelta) and event.text:
            chunks.append(self._chunk({"reasoning_content": event.text}))
        elif isinstance(event, CallOut) and self.legacy:
            named = {"name": event.name, "arguments": ""}
            chunks.append(self._chunk({"function_call": named}))
            chunks.append(self._chunk({"function_call": {"arguments": event.arguments}}))
        elif isinstance(event, CallOut):
            opening = {"index": event.index, "id": event.id, "type": "function"}
            opening["function"] = {"name": event.name, "arguments": ""}
            chunks.append(self._chunk({"tool_calls": [opening]}))
            fragment = {"index": event.index, "function": {"arguments": event.arguments}}
            chunks.append(self._chunk({"tool_calls": [fragment]}))
        elif isinstance(event, MessageEnd):
            chunks.append(self._chunk({}, finish_reason(event.stop_reason, self.legacy)))
            if self.include_usage:
                chunks.append({**self._chunk({}), "choices": [], "usage": usage(event.usage)})
        return chunks

    def _chunk(self, delta: JsonObject, finish: str | None = None) -> JsonObject:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }


def finish_reason(stop: StopReason, legacy: bool) -> str:
    reason = FINISH_REASONS[stop]
    return "function_call" if legacy and reason == "tool_calls" else reason


def completion(reply: Collected, model: str, *, legacy: bool = False) -> JsonObject:
    """The non-streaming ``chat.completion`` object."""
    message: dict[str, Any] = {"role": "assistant", "content": "".join(reply.text) or None}
    if reply.reasoning:
        message["reasoning_content"] = "".join(reply.reasoning)
    if reply.calls and legacy:
        call = reply.calls[0]
        message["function_call"] = {"name": call.name, "arguments": call.arguments}
    elif reply.calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in reply.calls
        ]
    return {
        "id": "chatcmpl-" + new_call_id()[5:],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": finish_reason(reply.stop_reason, legacy),
            }
        ],
        "usage": usage(reply.usage),
    }


def usage(counts: Usage) -> JsonObject:
    return {
        "prompt_tokens": counts.input_tokens,
        "completion_tokens": counts.output_tokens,
        "total_tokens": counts.input_tokens + counts.output_tokens,
    }
