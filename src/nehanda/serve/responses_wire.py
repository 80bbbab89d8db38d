"""The Responses API's requests (``POST /v1/responses``) read into a ``ClientRequest``.

``input`` is a string or a list of items: ``message`` (roles user, assistant, system,
developer), ``function_call`` and ``custom_tool_call`` (joined into the assistant turn
before them), their ``*_output`` items (tool results), and ``reasoning`` items, which
are accepted and not sent on. ``instructions`` become the first system message (a
previous response's are not carried over, as in OpenAI's API). ``previous_response_id``
puts the stored conversation (``serve.response_store``) before ``input``.

Tools: ``function`` tools as they are; a ``custom`` (freeform) tool is offered as a
function taking one string, ``input`` (its grammar, if any, told in that argument's
description), the same in native and rescue mode; the front turns its calls back into
``custom_tool_call``s. Hosted tool types serve cannot run (``web_search``,
``local_shell``, …) are left out, logged at debug level.

The upstream gets the Chat Completions forms of what it can take: ``reasoning.effort``
as ``reasoning_effort``, ``text.format`` as ``response_format``, ``top_p`` (the one that
crosses to other upstreams, ``wire.for_upstream``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from nehanda.providers.base import ChatRequest, ToolChoice
from nehanda.serve.media import content_parts, tool_result
from nehanda.serve.response_store import new_response_id
from nehanda.serve.wire import (
    BadRequest,
    ClientRequest,
    arguments_object,
    choose_tools,
    optional_int,
    optional_number,
    require_dict,
    text_of,
)
from nehanda.types import JsonObject, Message, Part, TextPart, ToolSpec, ToolUse

log = logging.getLogger("nehanda.serve")
CUSTOM_ARGUMENT = "input"
# Fields that would change what the answer means; refused rather than ignored.
_REFUSED = {
    "background": "background responses are not supported; leave background out",
    "conversation": "conversations are not supported; send previous_response_id or input",
    "prompt": "prompt templates are not supported; send instructions and input",
}
_ECHOED = (
    "instructions", "max_output_tokens", "metadata", "previous_response_id", "top_p",
    "reasoning", "temperature", "text", "tool_choice", "tools", "truncation", "user",
)  # fmt: skip


@dataclass(frozen=True)
class ResponsesRequest(ClientRequest):
    response_id: str = ""
    # The conversation, previous response's items first: what the store keeps.
    items: tuple[JsonObject, ...] = ()
    custom_tools: frozenset[str] = frozenset()
    store: bool = True
    # The request's own fields, which the response object repeats.
    echo: Mapping[str, Any] = field(default_factory=dict)


def parse_responses(
    body: JsonObject, previous: Callable[[str], list[JsonObject] | None]
) -> ResponsesRequest:
    """A ``/v1/responses`` body; ``previous`` finds a stored conversation by its id."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise BadRequest("model is required: the name of the model to answer")
    for key, why in _REFUSED.items():
        if body.get(key) not in (None, False):
            raise BadRequest(f"{key}: {why}")
    stored = _previous(body.get("previous_response_id"), previous)
    items = [*stored, *_input_items(body.get("input"))]
    messages = _messages(items, len(stored))
    instructions = body.get("instructions")
    if isinstance(instructions, str) and instructions:
        messages.insert(0, Message.text_message("system", instructions))
    if not messages:
        raise BadRequest("input is required: a string, or a list of items")
    offered, custom = _tools(body.get("tools"))
    tools, choice = _tool_choice(body.get("tool_choice"), offered)
    chat = ChatRequest(
        model=model,
        messages=tuple(messages),
        tools=tools,
        tool_choice=choice if tools else None,
        max_tokens=optional_int(body, "max_output_tokens"),
        temperature=optional_number(body, "temperature"),
    )
    return ResponsesRequest(
        chat,
        stream=body.get("stream") is True,
        include_usage=True,
        thinking=True,
        parallel=body.get("parallel_tool_calls") is not False,
        passthrough=_passthrough(body),
        protocol="openai",
        response_id=new_response_id(),
        items=tuple(items),
        custom_tools=frozenset(custom),
        store=body.get("store") is not False,
        echo={key: body[key] for key in _ECHOED if key in body},
    )


def _previous(
    response_id: object, previous: Callable[[str], list[JsonObject] | None]
) -> list[JsonObject]:
    if response_id is None:
        return []
    found = previous(response_id) if isinstance(response_id, str) else None
    if found is None:
        raise BadRequest(
            f"previous_response_id {str(response_id)[:80]!r} is unknown or has expired "
            "(serve keeps only recent responses); send the whole conversation as input"
        )
    return found


def _input_items(raw: object) -> list[JsonObject]:
    if raw is None:
        return []
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": raw}]
    if not isinstance(raw, list):
        raise BadRequest("input must be a string or a list of items")
    return [require_dict(item, f"input[{index}]") for index, item in enumerate(raw)]


def _messages(items: list[JsonObject], stored: int) -> list[Message]:
    messages: list[Message] = []
    for index, item in enumerate(items):
        where = f"input[{index - stored}]" if index >= stored else "the previous response"
        kind = item.get("type", "message")
        if kind == "message":
            _add_message(messages, item, where)
        elif kind in ("function_call", "custom_tool_call"):
            _add_to_assistant(messages, _history_call(item, where))
        elif kind in ("function_call_output", "custom_tool_call_output"):
            output = _output_parts(item.get("output"))
            result = tool_result(_call_id(item, where), output, False, f"{where}.output")
            messages.append(Message("tool", (result,)))
        elif kind == "item_reference":
            raise BadRequest(f"{where}: item_reference is not supported; send the item itself")
        elif kind != "reasoning":  # reasoning echoed back is accepted and not sent on
            log.debug("%s: left out an item of type %r", where, kind)
    return messages


def _add_message(messages: list[Message], item: JsonObject, where: str) -> None:
    role = item.get("role")
    if role == "user":  # its images and files go on to the upstream (``serve.media``)
        messages.append(Message("user", content_parts(item.get("content"), f"{where}.content")))
        return
    text = text_of(_output_parts(item.get("content")), where)
    if role in ("system", "developer"):
        messages.append(Message.text_message("system", text))
    elif role == "assistant":
        if text:
            _add_to_assistant(messages, TextPart(text))
    else:
        raise BadRequest(f"{where}: role must be user, assistant, system or developer")


def _add_to_assistant(messages: list[Message], part: Part) -> None:
    """``part`` joins the assistant turn that ends ``messages``, or starts one."""
    if messages and messages[-1].role == "assistant":
        messages[-1] = Message("assistant", (*messages[-1].parts, part))
    else:
        messages.append(Message("assistant", (part,)))


def _output_parts(content: object) -> object:
    """Content whose ``output_text`` and ``refusal`` parts read as text parts."""
    if not isinstance(content, list):
        return content
    return [
        {"type": "text", "text": part.get("text") or part.get("refusal") or ""}
        if isinstance(part, dict) and part.get("type") in ("output_text", "refusal")
        else part
        for part in content
    ]


def _call_id(item: JsonObject, where: str) -> str:
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        raise BadRequest(f"{where}: a {item.get('type')} item needs its call_id")
    return call_id


def _history_call(item: JsonObject, where: str) -> ToolUse:
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise BadRequest(f"{where}: a {item.get('type')} item needs its name")
    if item.get("type") == "custom_tool_call":
        return ToolUse(_call_id(item, where), name, {CUSTOM_ARGUMENT: str(item.get("input") or "")})
    return ToolUse(_call_id(item, where), name, arguments_object(item.get("arguments"), where))


def _tools(raw: object) -> tuple[tuple[ToolSpec, ...], set[str]]:
    if raw is None:
        return (), set()
    if not isinstance(raw, list):
        raise BadRequest("tools must be a list")
    specs, custom = [], set()
    for index, entry in enumerate(raw):
        tool = require_dict(entry, f"tools[{index}]")
        kind = tool.get("type")
        if kind not in ("function", "custom"):
            log.debug(
                "tools[%d]: left out a tool of type %r, which serve cannot offer", index, kind
            )
            continue
        if kind == "function" and isinstance(tool.get("function"), dict):
            tool = tool["function"]  # the Chat Completions form, which some clients send
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(f"tools[{index}].name is required")
        description = str(tool.get("description") or "")
        if kind == "custom":
            specs.append(ToolSpec(name, description, _custom_schema(tool.get("format"))))
            custom.add(name)
            continue
        parameters = tool.get("parameters") or {"type": "object", "properties": {}}
        specs.append(
            ToolSpec(name, description, require_dict(parameters, f"tools[{index}].parameters"))
        )
    return tuple(specs), custom


def _custom_schema(format_: object) -> JsonObject:
    """A freeform tool's one string argument; a grammar is told in its description."""
    told = "The whole input, as plain text."
    if isinstance(format_, dict) and format_.get("type") == "grammar":
        syntax = format_.get("syntax") or "lark"
        told = f"The whole input, as plain text following this {syntax} grammar:\n"
        told += str(format_.get("definition") or "")
    argument = {"type": "string", "description": told}
    return {
        "type": "object",
        "properties": {CUSTOM_ARGUMENT: argument},
        "required": [CUSTOM_ARGUMENT],
    }


def _tool_choice(
    raw: object, tools: tuple[ToolSpec, ...]
) -> tuple[tuple[ToolSpec, ...], ToolChoice | None]:
    if raw is None or raw == "auto":
        return tools, "auto"
    if raw in ("none", "required"):
        return tools, raw
    if isinstance(raw, dict) and raw.get("type") in ("function", "custom"):
        name = raw.get("name")
        if isinstance(name, str) and name:
            return choose_tools(tools, "required", name)
    if isinstance(raw, dict) and raw.get("type") == "allowed_tools":
        allowed = raw.get("tools")
        listed = allowed if isinstance(allowed, list) else []
        names = {tool.get("name") for tool in listed if isinstance(tool, dict)}
        mode: ToolChoice = "required" if raw.get("mode") == "required" else "auto"
        return tuple(spec for spec in tools if spec.name in names), mode
    raise BadRequest(
        'tool_choice must be "auto", "none", "required", {"type": "function", "name": ...}, '
        '{"type": "custom", "name": ...} or {"type": "allowed_tools", ...}; '
        "serve offers no hosted tools"
    )


def _passthrough(body: JsonObject) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    if body.get("top_p") is not None:
        extra["top_p"] = body["top_p"]
    reasoning = body.get("reasoning")
    if isinstance(reasoning, dict) and isinstance(reasoning.get("effort"), str):
        extra["reasoning_effort"] = reasoning["effort"]
    text = body.get("text")
    format_ = text.get("format") if isinstance(text, dict) else None
    if isinstance(format_, dict) and format_.get("type") == "json_schema":
        schema = {
            key: format_[key]
            for key in ("name", "schema", "strict", "description")
            if key in format_
        }
        extra["response_format"] = {"type": "json_schema", "json_schema": schema}
    elif isinstance(format_, dict) and format_.get("type") == "json_object":
        extra["response_format"] = {"type": "json_object"}
    return extra
