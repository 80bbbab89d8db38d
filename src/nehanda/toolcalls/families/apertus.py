"""Swiss AI Apertus: ``<|tools_prefix|>[{"NAME": {args}}, ...]<|tools_suffix|>``.

Each call is an object with one key, the tool's name, whose value is the arguments
(llama.cpp ``common/chat.cpp`` ``common_chat_parse_apertus``, "short form"; vLLM
``vllm/tool_parsers/apertus_tool_parser.py`` and
``tests/tool_parsers/test_apertus_tool_parser.py``, which also accept a missing
suffix). Reasoning sits between ``<|inner_prefix|>`` and ``<|inner_suffix|>``.
"""

from __future__ import annotations

import re
from typing import Any

from nehanda.toolcalls import messages
from nehanda.toolcalls.arrays import read_array
from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.jsonvalue import Failure
from nehanda.toolcalls.shapes import Found, calls_in, checked, failure_found

OPENER = "<|tools_prefix|>"
CLOSER = "<|tools_suffix|>"

_WS = re.compile(r"\s*")
_HEAD = re.compile(r"\s*\[\s*\{")
# Anything else right after the opener settles that it was named in prose.
_REFUSE = re.compile(r"\s*(?:[^\s\[]|\[\s*[^\s{])")
_NAME = re.compile(r'\[\s*\{\s*"([^"\\\n]{1,200})"')


def _sniff(text: str) -> str | None:
    m = _NAME.match(text)
    return m.group(1) if m else None


def _short_form(item: Any, known: Any) -> Found | None:
    if isinstance(item, dict) and len(item) == 1:
        ((name, args),) = item.items()
        if isinstance(args, dict):
            return checked(name, args, known)
        return Found(
            name,
            {},
            ("invalid_json", messages.invalid_json(name, "the arguments are not an object")),
        )
    # A model that drifts to {"name": ..., "arguments": ...} inside the same block.
    found = calls_in(item, known)
    return found[0] if found else None


def decode_tools(body: Body) -> list[Found] | None:
    """The calls of one ``<|tools_prefix|>`` body, or None when it holds no array."""
    text = body.text
    start = _WS.match(text).end()  # type: ignore[union-attr]
    if start >= len(text) or text[start] != "[":
        return None

    def shape(value: Any) -> list[Found] | None:
        if not isinstance(value, list) or not value:
            return None
        found = [_short_form(item, body.known) for item in value]
        if any(item is None for item in found):
            return [failure_found(None, Failure("invalid_json", "no tool name"))]
        return [item for item in found if item is not None]

    return read_array(text, start, body.known, shape, name_of=_sniff).found


FAMILY = Family(
    key="apertus",
    source="ggml-org/llama.cpp common/chat.cpp (common_chat_parse_apertus); "
    "vllm-project/vllm vllm/tool_parsers/apertus_tool_parser.py",
    sections=(
        Section(
            "apertus",
            OPENER,
            (CLOSER,),
            decode_tools,
            head=_HEAD,
            refuse=_REFUSE,
        ),
    ),
    reasoning=(("<|inner_prefix|>", "<|inner_suffix|>"),),
)
