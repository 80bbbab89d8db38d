"""Kimi K2: calls in a ``<|tool_calls_section_begin|>`` section, one JSON body each.

From vLLM ``vllm/tool_parsers/kimi_k2_tool_parser.py`` and sglang
``python/sglang/srt/function_call/kimik2_detector.py`` (after Moonshot's
``docs/tool_call_guidance.md``)::

    <|tool_calls_section_begin|>
    <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{"k": "v"}<|tool_call_end|>
    <|tool_call_begin|>functions.OTHER:1<|tool_call_argument_begin|>{}<|tool_call_end|>
    <|tool_calls_section_end|>

The call id is ``functions.NAME:IDX``; both parsers also accept ``NAME:IDX``
(sglang's id regex) and vLLM accepts the singular ``<|tool_call_section_begin|>``
/ ``<|tool_call_section_end|>`` wrappers. Only the ``functions.`` prefix and the
``:IDX`` suffix are removed, so a dotted tool name stays whole (vLLM's
``split(".")[-1]`` would cut ``mcp__git.log-v2`` to ``log-v2``). The section
wrappers are markup; each call is its own section.

``<|tool_call_begin|>`` is also DeepSeek's opener written in ASCII
(``<|tool_call_begin|>NAME<|tool_sep|>{json}<|tool_call_end|>``), so the one
section here reads both: a body whose header holds ``<|tool_call_argument_begin|>``
is Kimi's, one holding a ``tool_sep`` goes to ``deepseek.decode_call_body``.
"""

from __future__ import annotations

import re

from nehanda.toolcalls.families import deepseek
from nehanda.toolcalls.families.deepseek import good_name, json_call
from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.jsonvalue import split_outside_strings
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.shapes import Found

SOURCE = (
    "vllm-project/vllm vllm/tool_parsers/kimi_k2_tool_parser.py; "
    "sgl-project/sglang python/sglang/srt/function_call/kimik2_detector.py"
)

OPENER = "<|tool_call_begin|>"
ARGUMENT_BEGIN = "<|tool_call_argument_begin|>"
_OPENER = re.compile(re.escape(OPENER))
_ID_MAX = 256
_INDEX = re.compile(r":\d{1,9}\Z")
# The header: an id (functions.NAME, or NAME:IDX) up to the argument token, or a
# DeepSeek-style NAME<|tool_sep|>; "<|tool_call_begin|> and ..." is prose.
_HEAD = re.compile(
    r"\s*+(?:functions\.[^\s<>]{1,200}+|[^\s<>:]{1,200}+:\d{1,9}+)\s*+"
    r"<\|tool_call_argument_begin\|>|\n?[^\s<>]{1,200}+<[｜|]tool[▁_]sep[｜|]>"
)


def call_name(call_id: str) -> str:
    """``functions.NAME:IDX`` -> ``NAME``: the namespace prefix and index removed."""
    name = call_id.strip()
    m = _INDEX.search(name)
    if m is not None:
        name = name[: m.start()]
    if name.startswith("functions."):
        name = name[len("functions.") :]
    return name


def _one_call(text: str, closed: bool, body: Body) -> Found | None:
    at = text.find(ARGUMENT_BEGIN, 0, _ID_MAX + len(ARGUMENT_BEGIN))
    if at < 0:
        if deepseek.SEP.search(text, 0, min(len(text), _ID_MAX)):
            return _deepseek(text, closed, body)
        return None if closed else truncated(None)
    name = call_name(text[:at])
    if not good_name(name):
        return None
    return json_call(name, text[at + len(ARGUMENT_BEGIN) :], body.known, closed=closed)


def _deepseek(text: str, closed: bool, body: Body) -> Found | None:
    found = deepseek.decode_call_body(Body(text, closed, body.known, body.schemas))
    return found[0] if found else None


def decode_call(body: Body) -> list[Found] | None:
    """One ``<|tool_call_begin|>`` body; a forgotten ``<|tool_call_end|>`` leaves the
    next call inside it, so the body is split at every further opener outside a JSON
    string (one inside an argument is data, vllm-project/vllm#44137)."""
    pieces = split_outside_strings(body.text, _OPENER)
    found: list[Found] = []
    for i, piece in enumerate(pieces):
        last = i == len(pieces) - 1
        call = _one_call(piece, body.closed or not last, body)
        if call is None:
            if i == 0:
                return None
            continue
        found.append(call)
    return found or None


ASCII_CALL = Section(
    "kimi_k2",
    OPENER,
    (
        "<|tool_call_end|>",
        "<|tool_calls_section_end|>",
        "<|tool_call_section_end|>",
        # DeepSeek's ASCII section end, when its call end was forgotten.
        "<|tool_calls_end|>",
        "<|tool▁call▁end|>",
    ),
    decode_call,
    head=_HEAD,
    json_strings=True,
)

MARKUP = (
    "<|tool_calls_section_begin|>",
    "<|tool_calls_section_end|>",
    "<|tool_call_section_begin|>",
    "<|tool_call_section_end|>",
)

FAMILY = Family(
    key="kimi",
    source=SOURCE,
    sections=(ASCII_CALL,),
    # K2-Thinking reasons in <think>...</think>, which the classic family already reads.
    markup=MARKUP,
)
