"""GLM-4.5, 4.6 and 4.7 (Zhipu / Z.ai): ``<tool_call>NAME`` and key/value tag pairs.

A call is the tool name right after ``<tool_call>``, then ``<arg_key>k</arg_key>``
``<arg_value>v</arg_value>`` pairs, then ``</tool_call>``. GLM-4.5/4.6 put a newline
after the name and between the tags (the chat template, llama.cpp
``models/templates/GLM-4.6.jinja``; vLLM ``vllm/tool_parsers/glm4_moe_tool_parser.py``
and ``tests/tool_parsers/test_glm4_moe_tool_parser.py``); GLM-4.7 writes it all on
one line, and a call without arguments is ``<tool_call>NAME</tool_call>`` (vLLM
``vllm/tool_parsers/glm47_moe_tool_parser.py``, ``tests/tool_parsers/
test_glm47_moe_tool_parser.py``; sglang ``python/sglang/srt/function_call/
glm47_moe_detector.py``; llama.cpp ``common/chat.cpp`` ``common_chat_parse_glm_4_5``,
whose XML form has the same tags and ``<think>`` reasoning). Between a key and its
value 4.7 sometimes prints a literal backslash-n, which both servers skip.

Values are raw text, typed by the tool's schema (``rawargs.raw_call``): the template
writes strings as they are and anything else as JSON. vLLM keeps string values
untouched; nehanda drops one framing newline on each side like every raw-text
dialect. A value runs to its ``</arg_value>``, so a ``</tool_call>`` inside it is
content (the section protects it).

``<tool_call>`` is also Hermes' opener (``<tool_call>{json}``, ``<tool_call>NAME{json}``,
``<tool_call><function=...>``): the section's head claims only a bare name followed by
``<arg_key>`` or ``</tool_call>``, and ``refuse`` hands anything else to Hermes at once.
"""

from __future__ import annotations

import re

from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.jsonvalue import Failure
from nehanda.toolcalls.rawargs import raw_call, truncated
from nehanda.toolcalls.shapes import Found, failure_found

OPENER = "<tool_call>"
CLOSER = "</tool_call>"
KEY, KEY_END = "<arg_key>", "</arg_key>"
VALUE, VALUE_END = "<arg_value>", "</arg_value>"

_NAME = r"[\w][\w.\-]{0,127}+"
# Whitespace, or the literal backslash-n GLM-4.7 sometimes writes between tags.
_GAP = r"(?:\s|\\n)"
_GAP_RE = re.compile(_GAP + "*")
_NAME_RE = re.compile(r"\s*(" + _NAME + r")")

HEAD = re.compile(r"\s{0,16}+" + _NAME + _GAP + r"{0,64}+(?=<arg_key>|</tool_call>)")
# Anything but a bare name then "<" (JSON, "<function=", "Name{", prose) is Hermes'.
REFUSE = re.compile(r"\s{0,16}+(?:[^\w\s]|" + _NAME + _GAP + r"{0,64}+[^\s<\\])")


def decode_glm(body: Body) -> list[Found] | None:
    """One GLM call: the name, then its key/value pairs, in order.

    A tag written twice in a row is one tag (GLM-4.7 prints ``</arg_key></arg_key>``
    and ``<arg_key><arg_key>``), and a key never holds markup.
    """
    text = body.text
    m = _NAME_RE.match(text)
    if m is None:
        return None
    name = m.group(1)
    params: list[tuple[str, str]] = []
    n = len(text)
    i = _GAP_RE.match(text, m.end()).end()  # type: ignore[union-attr]
    while i < n:
        if not text.startswith(KEY, i):
            # Stray text between pairs: skip to the next key, if any.
            nxt = text.find(KEY, i)
            if nxt < 0:
                break
            i = nxt
        i = _past(text, i, KEY)
        key_end = text.find(KEY_END, i)
        if key_end < 0:
            return [truncated(name)] if not body.closed else [_broken(name, "an unclosed key")]
        key = text[i:key_end].strip()
        if "<" in key or ">" in key:
            return [_broken(name, f"markup in the key {key!r}")]
        j = _past(text, key_end, KEY_END)
        if not text.startswith(VALUE, j):
            if j >= n and not body.closed:
                return [truncated(name)]
            return [_broken(name, f"no value for the key {key!r}")]
        start = _past(text, j, VALUE, gaps=False)
        end = text.find(VALUE_END, start)
        if end < 0:
            if not body.closed:
                return [truncated(name)]
            # The model forgot the closing tag before </tool_call>: the value ends there.
            params.append((key, text[start:]))
            break
        params.append((key, text[start:end]))
        i = _past(text, end, VALUE_END)
    if not body.closed:
        return [truncated(name)]
    return [raw_call(name, params, body.known, body.schemas)]


def _past(text: str, i: int, tag: str, *, gaps: bool = True) -> int:
    """Past ``tag`` at ``i`` and any repeats of it (and the gaps after, unless not)."""
    while text.startswith(tag, i):
        i += len(tag)
        after = _GAP_RE.match(text, i).end()  # type: ignore[union-attr]
        if not text.startswith(tag, after) and not gaps:
            return i
        i = after
    return i


def _broken(name: str, detail: str) -> Found:
    return failure_found(name, Failure("invalid_json", detail))


GLM = Section(
    "glm",
    OPENER,
    (CLOSER,),
    decode_glm,
    head=HEAD,
    refuse=REFUSE,
    protect=((VALUE, VALUE_END),),
)

FAMILY = Family(
    key="glm",
    source="vllm-project/vllm vllm/tool_parsers/glm4_moe_tool_parser.py, "
    "vllm/tool_parsers/glm47_moe_tool_parser.py; sgl-project/sglang "
    "python/sglang/srt/function_call/glm47_moe_detector.py; ggml-org/llama.cpp "
    "models/templates/GLM-4.6.jinja, common/chat.cpp (common_chat_parse_glm_4_5)",
    sections=(GLM,),
    # GLM ends a turn of calls with this stop token; a server that leaks it leaks markup.
    markup=("<|observation|>",),
)
