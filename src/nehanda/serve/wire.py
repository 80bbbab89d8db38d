"""What both client protocols share: the parsed request, the collected reply, bad input.

``ClientRequest`` is a client's request read into the provider layer's ``ChatRequest``
plus what only the front needs (streaming, usage on streams, thinking, parallel calls).
A named ``tool_choice`` becomes a request that offers that one tool and requires a call.
``Collected`` gathers a reply's events for the non-streaming answers. A field or tool
serve does not read is ignored, never refused, and named once in the debug log
(``ignored``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from nehanda.events import MessageEnd, ReasoningDelta, StopReason, TextDelta
from nehanda.providers import bounded_json
from nehanda.providers.base import ChatRequest, ToolChoice
from nehanda.serve.turn import CallOut, ServeEvent
from nehanda.types import JsonObject, ToolSpec, Usage

log = logging.getLogger("nehanda.serve")
_IGNORED: set[str] = set()


class BadRequest(ValueError):
    """The client's request cannot be read; the message says what was wrong."""


@dataclass(frozen=True)
class ClientRequest:
    chat: ChatRequest
    stream: bool = False
    include_usage: bool = False
    thinking: bool = False
    parallel: bool = True
    # The client's own fields the upstream may take, by the wire API they belong to.
    passthrough: Mapping[str, Any] = field(default_factory=dict)
    protocol: str = "openai"
    # The request used the legacy ``functions``: answer with a ``function_call``.
    legacy_functions: bool = False


def choose_tools(
    tools: tuple[ToolSpec, ...], choice: ToolChoice | None, named: str | None
) -> tuple[tuple[ToolSpec, ...], ToolChoice | None]:
    """The tools to offer and the choice to send; a named tool is required, alone."""
    if named is None:
        return tools, choice
    chosen = tuple(spec for spec in tools if spec.name == named)
    if not chosen:
        raise BadRequest(f"tool_choice names {named!r}, which is not among the tools")
    return chosen, "required"


def for_upstream(request: ClientRequest, upstream_protocol: str, model: str) -> ChatRequest:
    """The request for one upstream: its model, and the client's extra fields only when
    the upstream speaks the client's protocol (``top_p`` crosses over)."""
    if upstream_protocol == request.protocol:
        extra = dict(request.passthrough)
    else:
        extra = {k: v for k, v in request.passthrough.items() if k == "top_p"}
    if upstream_protocol == "ollama":
        extra = {}
    for key in request.passthrough.keys() - extra.keys():
        ignored(f"{key} (for a {upstream_protocol} upstream)")
    return replace(request.chat, model=model, extra=extra)


def ignored(what: str) -> None:
    """Says at debug level, once per process, that serve ignored ``what``."""
    if what not in _IGNORED:
        _IGNORED.add(what)
        log.debug("nehanda serve ignores %s", what)


def arguments_object(raw: object, where: str) -> JsonObject:
    """A history call's arguments: an object, or JSON text of one."""
    if isinstance(raw, dict):
        return raw
    if raw is None or raw == "":
        return {}
    if isinstance(raw, str):
        try:
            value = bounded_json.loads(raw)
        except json.JSONDecodeError:
            return {"arguments": raw}
        if isinstance(value, dict):
            return value
    raise BadRequest(f"{where}: the arguments must be a JSON object")


def text_of(content: object, where: str) -> str:
    """A message's text: a string, or the text of a list of content parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [_part_text(part, where) for part in content]
        return "".join(text for text in texts if text)
    raise BadRequest(f"{where}: content must be a string or a list of parts")


def _part_text(part: object, where: str) -> str:
    if not isinstance(part, dict):
        raise BadRequest(f"{where}: each content part must be an object")
    if part.get("type") in ("text", "input_text"):
        return str(part.get("text") or "")
    if part.get("type") in ("image_url", "image", "input_image", "document"):
        return "[an image was attached; this model cannot see it]"
    return ""


def model_and_messages(body: JsonObject) -> tuple[str, list[Any]]:
    """The two fields both protocols require, or ``BadRequest`` saying which is wrong."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("model is required: the name of the model to answer")
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise BadRequest("messages must be a non-empty list")
    return model, messages


def require_dict(value: object, where: str) -> JsonObject:
    if not isinstance(value, dict):
        raise BadRequest(f"{where} must be a JSON object")
    return value


def optional_number(body: JsonObject, key: str) -> float | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRequest(f"{key} must be a number")
    return float(value)


def optional_int(body: JsonObject, *keys: str) -> int | None:
    for key in keys:
        value = body.get(key)
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise BadRequest(f"{key} must be a whole number above 0")
        return value
    return None


def stop_list(value: object, key: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise BadRequest(f"{key} must be a string or a list of strings")


@dataclass
class Collected:
    """A whole reply, gathered from its events, for the non-streaming answers."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    signature: str | None = None
    calls: list[CallOut] = field(default_factory=list)
    stop_reason: StopReason = "end_turn"
    usage: Usage = field(default_factory=Usage)

    @classmethod
    def of(cls, events: Iterable[ServeEvent]) -> Collected:
        collected = cls()
        for event in events:
            collected.add(event)
        return collected

    def add(self, event: ServeEvent) -> None:
        if isinstance(event, TextDelta):
            self.text.append(event.text)
        elif isinstance(event, ReasoningDelta):
            self.reasoning.append(event.text)
            self.signature = event.signature or self.signature
        elif isinstance(event, CallOut):
            self.calls.append(event)
        elif isinstance(event, MessageEnd):
            self.stop_reason, self.usage = event.stop_reason, event.usage
