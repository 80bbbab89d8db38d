"""The Responses API's replies: ``response`` objects and their event stream.

``ResponsesEvents`` is sans-I/O: one event in, the server-sent events it makes out, in
the order the official SDKs and Codex read them, each with its ``sequence_number``:
``response.created`` and ``response.in_progress``; for each output item
``response.output_item.added``, then for a message ``response.content_part.added``,
``response.output_text.delta``s, ``response.output_text.done`` and
``response.content_part.done`` (reasoning the same with ``reasoning_text`` parts), for
a function call one ``response.function_call_arguments.delta`` with its whole
arguments and ``.done``, for a custom tool's call ``response.custom_tool_call_input``
``.delta`` and ``.done``; then ``response.output_item.done`` (where Codex reads its
items); last ``response.completed``, or ``response.incomplete`` with its reason, or
``response.failed`` with the error when the upstream fails mid-stream (``fail``).

A non-streaming reply runs the same encoder over the collected reply and answers its
final ``response``. ``on_done`` gets that final response (the app keeps it for
``previous_response_id``).
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from typing import Any

from nehanda.events import MessageEnd, ReasoningDelta, StopReason, TextDelta
from nehanda.providers import bounded_json
from nehanda.serve.responses_wire import CUSTOM_ARGUMENT, ResponsesRequest
from nehanda.serve.turn import CallOut, ServeEvent
from nehanda.serve.wire import Collected
from nehanda.types import JsonObject, Usage

SSE = tuple[str, JsonObject]
_INCOMPLETE: dict[StopReason, str] = {
    "max_tokens": "max_output_tokens",
    "refusal": "content_filter",
}


class ResponsesEvents:
    """Events in, Responses API server-sent events out; one per response."""

    def __init__(
        self,
        request: ResponsesRequest,
        model: str,
        on_done: Callable[[JsonObject], None] = lambda response: None,
    ) -> None:
        self.response = _shell(request, model)
        self.custom = request.custom_tools
        self.on_done = on_done
        self.output: list[JsonObject] = []
        self._open: JsonObject | None = None  # the message or reasoning item streaming
        self._sequence = 0
        self._started = False

    def handle(self, event: ServeEvent) -> list[SSE]:
        out = [] if self._started else self._start()
        self._started = True
        if isinstance(event, TextDelta) and event.text:
            out += self._delta("message", "response.output_text.delta", event.text)
        elif isinstance(event, ReasoningDelta) and event.text:
            out += self._delta("reasoning", "response.reasoning_text.delta", event.text)
        elif isinstance(event, CallOut):
            out += [*self._close(), *self._call(event)]
        elif isinstance(event, MessageEnd):
            out += [
                *self._close("incomplete" if event.stop_reason == "max_tokens" else "completed")
            ]
            out.append(self._end(event))
        return out

    def fail(self, code: str, message: str) -> list[SSE]:
        """The end of a stream whose upstream failed: ``response.failed``, nothing kept."""
        out = [*([] if self._started else self._start()), *self._close("incomplete")]
        self._started = True
        self.response = {**self.response, "output": self.output, "status": "failed"}
        self.response["error"] = {"code": code, "message": message}
        return [*out, self._sse("response.failed", response=self.response)]

    def _start(self) -> list[SSE]:
        return [
            self._sse("response.created", response=self.response),
            self._sse("response.in_progress", response=self.response),
        ]

    def _delta(self, kind: str, name: str, text: str) -> list[SSE]:
        out = []
        if self._open is None or self._open["type"] != kind:
            out += [*self._close(), *self._open_item(kind)]
        item = self._open
        assert item is not None
        item["content"][0]["text"] += text
        where = {"item_id": item["id"], "output_index": len(self.output), "content_index": 0}
        extra: JsonObject = {"logprobs": []} if kind == "message" else {}
        return [*out, self._sse(name, **where, delta=text, **extra)]

    def _open_item(self, kind: str) -> list[SSE]:
        if kind == "message":
            item = {"id": _id("msg"), "type": "message", "role": "assistant", "content": []}
            part: JsonObject = {
                "type": "output_text",
                "text": "",
                "annotations": [],
                "logprobs": [],
            }
        else:
            item = {"id": _id("rs"), "type": "reasoning", "summary": [], "content": []}
            part = {"type": "reasoning_text", "text": ""}
        self._open = {**item, "status": "in_progress"}
        where = {"item_id": item["id"], "output_index": len(self.output), "content_index": 0}
        added = self._sse(
            "response.output_item.added", output_index=len(self.output), item=self._open
        )
        self._open = {**self._open, "content": [part]}
        return [added, self._sse("response.content_part.added", **where, part=dict(part))]

    def _close(self, status: str = "completed") -> list[SSE]:
        item, self._open = self._open, None
        if item is None:
            return []
        part = item["content"][0]
        where = {"item_id": item["id"], "output_index": len(self.output), "content_index": 0}
        if item["type"] == "message":
            done = self._sse("response.output_text.done", **where, text=part["text"], logprobs=[])
        else:
            done = self._sse("response.reasoning_text.done", **where, text=part["text"])
        return [
            done,
            self._sse("response.content_part.done", **where, part=part),
            self._done(item, status),
        ]

    def _call(self, call: CallOut) -> list[SSE]:
        index = len(self.output)
        if call.name in self.custom:
            kind, field, prefix = "custom_tool_call", "input", "response.custom_tool_call_input"
            value, item_id = custom_input(call.arguments), _id("ctc")
        else:
            kind, field, prefix = "function_call", "arguments", "response.function_call_arguments"
            value, item_id = call.arguments, _id("fc")
        item = {"id": item_id, "type": kind, "status": "in_progress", "call_id": call.id}
        item |= {"name": call.name, field: ""}
        where = {"item_id": item_id, "output_index": index}
        return [
            self._sse("response.output_item.added", output_index=index, item=item),
            self._sse(prefix + ".delta", **where, delta=value),
            self._sse(prefix + ".done", **where, **{field: value}),
            self._done({**item, field: value}, "completed"),
        ]

    def _done(self, item: JsonObject, status: str) -> SSE:
        finished = {**item, "status": status}
        self.output.append(finished)
        return self._sse(
            "response.output_item.done", output_index=len(self.output) - 1, item=finished
        )

    def _end(self, end: MessageEnd) -> SSE:
        reason = _INCOMPLETE.get(end.stop_reason)
        final = {**self.response, "output": self.output, "usage": usage(end.usage)}
        final |= {"status": "incomplete" if reason else "completed"}
        final |= {"incomplete_details": {"reason": reason} if reason else None}
        self.response = final
        self.on_done(final)
        return self._sse("response.incomplete" if reason else "response.completed", response=final)

    def _sse(self, name: str, **fields: Any) -> SSE:
        self._sequence += 1
        return name, {"type": name, "sequence_number": self._sequence - 1, **fields}


def response_object(
    reply: Collected,
    request: ResponsesRequest,
    model: str,
    on_done: Callable[[JsonObject], None] = lambda response: None,
) -> JsonObject:
    """The non-streaming answer: the final ``response`` of the same event sequence."""
    events = ResponsesEvents(request, model, on_done)
    replayed: list[ServeEvent] = [
        ReasoningDelta("".join(reply.reasoning)),
        TextDelta("".join(reply.text)),
        *reply.calls,
        MessageEnd(reply.stop_reason, reply.usage),
    ]
    for event in replayed:
        events.handle(event)
    return events.response


def custom_input(arguments: str) -> str:
    """A custom tool's input from the one-argument function call the model made."""
    try:
        value = bounded_json.loads(arguments)
    except ValueError:
        return arguments
    if isinstance(value, dict):
        if isinstance(value.get(CUSTOM_ARGUMENT), str):
            return str(value[CUSTOM_ARGUMENT])
        strings = [v for v in value.values() if isinstance(v, str)]
        if len(strings) == 1 and len(value) == 1:
            return strings[0]
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def usage(counts: Usage) -> JsonObject:
    return {
        "input_tokens": counts.input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": counts.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": counts.input_tokens + counts.output_tokens,
    }


def _shell(request: ResponsesRequest, model: str) -> JsonObject:
    """The response as it starts: in progress, no output yet, the request's fields."""
    echo = request.echo
    return {
        "id": request.response_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": "in_progress",
        "error": None,
        "incomplete_details": None,
        "instructions": echo.get("instructions"),
        "max_output_tokens": echo.get("max_output_tokens"),
        "metadata": echo.get("metadata") or {},
        "model": model,
        "output": [],
        "parallel_tool_calls": request.parallel,
        "previous_response_id": echo.get("previous_response_id"),
        "reasoning": echo.get("reasoning") or {"effort": None, "summary": None},
        "store": request.store,
        "temperature": echo.get("temperature"),
        "text": echo.get("text") or {"format": {"type": "text"}},
        "tool_choice": echo.get("tool_choice") or "auto",
        "tools": echo.get("tools") or [],
        "top_p": echo.get("top_p"),
        "truncation": echo.get("truncation") or "disabled",
        "usage": None,
        "user": echo.get("user"),
    }


def _id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(16)}"
