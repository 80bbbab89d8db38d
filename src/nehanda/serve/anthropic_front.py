"""The Anthropic Messages front: requests read into a ``ClientRequest``, replies written
as ``message`` objects or the Messages event stream.

``AnthropicEvents`` is sans-I/O: one event in, the server-sent events it makes out, in
the order the official clients expect: ``message_start`` and a ``ping``; for each
block ``content_block_start``, its deltas (``text_delta``, ``thinking_delta`` and a
``signature_delta``, or a call's whole input as one ``input_json_delta``) and
``content_block_stop``; then ``message_delta`` with the stop reason and usage, and
``message_stop``. Reasoning goes out as ``thinking`` blocks only when the request
enabled thinking. The client's ``thinking`` goes to a Claude upstream, and so do the
signed thinking blocks of the history (which Claude requires before a call when thinking
is on); no other upstream is sent either. Fields serve does not know (Claude Code's
``context_management``, ``output_config``...) and server tools (no ``input_schema``)
are ignored, named once in the debug log; ``cache_control`` marks are dropped with the
blocks' other extras.
"""

from __future__ import annotations

import json

from nehanda.events import MessageEnd, ReasoningDelta, StopReason, TextDelta
from nehanda.providers import bounded_json
from nehanda.providers.base import ChatRequest, ToolChoice
from nehanda.serve.media import content_part, tool_result
from nehanda.serve.turn import CallOut, ServeEvent
from nehanda.serve.wire import (
    BadRequest,
    ClientRequest,
    Collected,
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
    ReasoningPart,
    ToolSpec,
    ToolUse,
)
from nehanda.types import new_call_id as _new_id

STOP_REASONS: dict[StopReason, str] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "refusal": "refusal",
    "other": "end_turn",
}
_PASSED_ON = ("top_p", "top_k", "metadata", "thinking")
_READ = frozenset(
    {"model", "messages", "system", "max_tokens", "tools", "tool_choice", "stream",
     "temperature", "stop_sequences", *_PASSED_ON}
)  # fmt: skip

SSE = tuple[str, JsonObject]


def parse_anthropic(body: JsonObject) -> ClientRequest:
    """A ``/v1/messages`` body; ``BadRequest`` says what is wrong with it."""
    model, raw_messages = model_and_messages(body)
    system = text_of(body.get("system"), "system")
    messages = [_message(m, f"messages[{i}]") for i, m in enumerate(raw_messages)]
    if system:
        messages.insert(0, Message.text_message("system", system))
    choice, named, parallel = _tool_choice(body.get("tool_choice"))
    tools, choice = choose_tools(_tools(body.get("tools")), choice, named)
    thinking = body.get("thinking")
    for key in body.keys() - _READ:
        ignored(key)
    chat = ChatRequest(
        model=model,
        messages=tuple(messages),
        tools=tools,
        tool_choice=choice if tools else None,
        max_tokens=optional_int(body, "max_tokens"),
        temperature=optional_number(body, "temperature"),
        stop=stop_list(body.get("stop_sequences"), "stop_sequences"),
    )
    return ClientRequest(
        chat,
        stream=body.get("stream") is True,
        include_usage=True,
        thinking=isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive"),
        parallel=parallel,
        passthrough={key: body[key] for key in _PASSED_ON if key in body},
        protocol="anthropic",
    )


def _message(raw: object, where: str) -> Message:
    message = require_dict(raw, where)
    role = message.get("role")
    if role not in ("user", "assistant"):
        raise BadRequest(f"{where}: role must be user or assistant")
    content = message.get("content")
    if isinstance(content, str):
        return Message.text_message(role, content)
    if not isinstance(content, list):
        raise BadRequest(f"{where}: content must be a string or a list of blocks")
    parts = [part for i, b in enumerate(content) if (part := _part(b, f"{where}.content[{i}]"))]
    return Message(role, tuple(parts))


def _part(raw: object, where: str) -> Part | None:
    block = require_dict(raw, where)
    kind = block.get("type")
    if kind == "tool_use":
        name, call_id = block.get("name"), block.get("id")
        if not isinstance(name, str) or not isinstance(call_id, str):
            raise BadRequest(f"{where}: a tool_use block needs its id and name")
        arguments = block.get("input")
        return ToolUse(call_id, name, arguments if isinstance(arguments, dict) else {})
    if kind == "tool_result":
        call_id = block.get("tool_use_id")
        if not isinstance(call_id, str):
            raise BadRequest(f"{where}: a tool_result block needs its tool_use_id")
        content, failed = block.get("content"), block.get("is_error") is True
        return tool_result(call_id, content, failed, f"{where}.content")
    if kind == "thinking" and isinstance(block.get("signature"), str) and block["signature"]:
        # Only a Claude upstream sends it back, and only its own verifies.
        return ReasoningPart(str(block.get("thinking") or ""), block["signature"])
    if kind in ("thinking", "redacted_thinking"):
        return None  # unsigned, or no text to carry: never sent upstream
    return content_part(block, where)


def _tools(raw: object) -> tuple[ToolSpec, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise BadRequest("tools must be a list")
    specs = []
    for index, entry in enumerate(raw):
        tool = require_dict(entry, f"tools[{index}]")
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"tools[{index}].name is required")
        if "input_schema" not in tool:
            ignored(f"server tool {tool.get('type') or name!r}")  # the upstream would run it
            continue
        schema = require_dict(tool["input_schema"], f"tools[{index}].input_schema")
        specs.append(ToolSpec(name, str(tool.get("description") or ""), schema))
    return tuple(specs)


def _tool_choice(raw: object) -> tuple[ToolChoice | None, str | None, bool]:
    if raw is None:
        return "auto", None, True
    choice = require_dict(raw, "tool_choice")
    parallel = choice.get("disable_parallel_tool_use") is not True
    kind = choice.get("type")
    if kind == "auto":
        return "auto", None, parallel
    if kind == "any":
        return "required", None, parallel
    if kind == "none":
        return "none", None, parallel
    if kind == "tool" and isinstance(choice.get("name"), str):
        return "required", str(choice["name"]), parallel
    raise BadRequest('tool_choice.type must be "auto", "any", "tool" (with a name) or "none"')


class AnthropicEvents:
    """Events in, Messages stream events out (name and data); one per response."""

    def __init__(self, model: str, *, thinking: bool) -> None:
        self.id = "msg_" + _new_id()[5:]
        self.model = model
        self.thinking = thinking
        self._started = False
        self._index = -1
        self._open: str | None = None

    def handle(self, event: ServeEvent) -> list[SSE]:
        out: list[SSE] = [] if self._started else self._start()
        if isinstance(event, TextDelta) and event.text:
            out += self._into("text", {"type": "text", "text": ""})
            out.append(self._delta({"type": "text_delta", "text": event.text}))
        elif isinstance(event, ReasoningDelta) and self.thinking:
            out += self._thinking(event)
        elif isinstance(event, CallOut):
            out += self._call(event)
        elif isinstance(event, MessageEnd):
            out += self._close()
            delta = {"stop_reason": STOP_REASONS[event.stop_reason], "stop_sequence": None}
            ending = {"type": "message_delta", "delta": delta, "usage": event.usage.as_dict()}
            out += [("message_delta", ending), ("message_stop", {"type": "message_stop"})]
        return out

    def _thinking(self, event: ReasoningDelta) -> list[SSE]:
        out: list[SSE] = []
        if event.text:
            out += self._into("thinking", {"type": "thinking", "thinking": "", "signature": ""})
            out.append(self._delta({"type": "thinking_delta", "thinking": event.text}))
        if event.signature and self._open == "thinking":
            out.append(self._delta({"type": "signature_delta", "signature": event.signature}))
        return out

    def _call(self, call: CallOut) -> list[SSE]:
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        arguments = call.arguments if _object(call.arguments) else "{}"
        return [
            *self._into("tool_use", block),
            self._delta({"type": "input_json_delta", "partial_json": arguments}),
            *self._close(),
        ]

    def _start(self) -> list[SSE]:
        self._started = True
        message = {**_message_shell(self.id, self.model), "content": [], "stop_reason": None}
        return [
            ("message_start", {"type": "message_start", "message": message}),
            ("ping", {"type": "ping"}),
        ]

    def _into(self, kind: str, block: JsonObject) -> list[SSE]:
        if self._open == kind and kind != "tool_use":
            return []
        out = self._close()
        self._index += 1
        self._open = kind
        start = {"type": "content_block_start", "index": self._index, "content_block": block}
        return [*out, ("content_block_start", start)]

    def _close(self) -> list[SSE]:
        if self._open is None:
            return []
        self._open = None
        return [("content_block_stop", {"type": "content_block_stop", "index": self._index})]

    def _delta(self, delta: JsonObject) -> SSE:
        data = {"type": "content_block_delta", "index": self._index, "delta": delta}
        return ("content_block_delta", data)


def _message_shell(message_id: str, model: str) -> JsonObject:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }


def message(reply: Collected, model: str, *, thinking: bool) -> JsonObject:
    """The non-streaming ``message`` object."""
    content: list[JsonObject] = []
    if thinking and reply.reasoning:
        text = "".join(reply.reasoning)
        content.append({"type": "thinking", "thinking": text, "signature": reply.signature or ""})
    if reply.text:
        content.append({"type": "text", "text": "".join(reply.text)})
    for call in reply.calls:
        arguments = _object(call.arguments)
        content.append({"type": "tool_use", "id": call.id, "name": call.name, "input": arguments})
    return {
        **_message_shell("msg_" + _new_id()[5:], model),
        "content": content,
        "stop_reason": STOP_REASONS[reply.stop_reason],
        "usage": reply.usage.as_dict(),
    }


def _object(text: str) -> JsonObject:
    """The call's arguments, or ``{}`` when they are not a JSON object serve can read."""
    try:
        value = bounded_json.loads(text)
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}
