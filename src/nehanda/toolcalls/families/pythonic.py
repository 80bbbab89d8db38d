"""Pythonic call families: Llama 3.2 / Llama 4 / BFCL, Olmo 3 and LFM2.

- ``LLAMA4`` (Llama 3.2 and Llama 4 zero-shot, BFCL's prompt format): the whole message
  is ``[NAME(k="v", n=1), OTHER()]``, optionally inside ``<|python_start|>`` ...
  ``<|python_end|>`` (vLLM ``llama4_pythonic_tool_parser.py`` strips those two tokens;
  ``pythonic_tool_parser.py`` reads the bare list). A bare list counts only as the whole
  message, so "[Note] ..." or "[Read(path)] is how you would call it" stays prose.
- ``OLMO``: ``<function_calls>NAME(k="v")\\nOTHER()</function_calls>``, one call a line,
  with JSON literals (``true``, ``null``) accepted (vLLM ``olmo3_tool_parser.py``).
- ``LFM2``: ``<|tool_call_start|>[NAME(k="v")]<|tool_call_end|>`` (vLLM
  ``lfm2_tool_parser.py``); llama.cpp's LFM2 template writes the same block with a JSON
  list ``[{"name": ..., "arguments": {...}}]`` inside, which is read too.

The values map to JSON as ``nehanda.toolcalls.pythonic`` describes.
"""

from __future__ import annotations

import re

from nehanda.toolcalls import pythonic
from nehanda.toolcalls.family import Body, Family, Section, StartForm
from nehanda.toolcalls.jsonvalue import Failure, decode
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.shapes import Found, calls_in, failure_found

_NAME = r"[^\W\d][\w.\-]{0,255}"
# What may follow an opener for it to start a call: NAME( or [NAME(, whitespace first.
HEAD = re.compile(rf"\s*(?:\[\s*)?{_NAME}\s*\(")
# A message that is a bare list of calls begins "[NAME(": "[Note] ..." never matches.
BARE_LIST = re.compile(rf"\[\s*{_NAME}\s*\(")
# Anything but a name and "(" after the bracket ("[Note]", "[1, 2]") rules it out at once.
NOT_A_LIST = re.compile(rf"\[\s*(?:[^\w\s]|\d|{_NAME}\s*[^\w.\-\s(])")
# LFM2's block may also hold llama.cpp's JSON list.
LFM2_HEAD = re.compile(rf"\s*(?:\[\s*)?(?:{_NAME}\s*\(|\{{)")


def decode_block(body: Body) -> list[Found] | None:
    """A block reserved for calls: a list, or calls one a line; problems are reported."""
    return pythonic.decode_block(body.text, body.known, closed=body.closed)


def decode_bare_list(body: Body) -> list[Found] | None:
    """A whole message that is ``[NAME(...), ...]``; anything else is prose."""
    return pythonic.decode_bare_list(body.text, body.known)


def decode_lfm2(body: Body) -> list[Found] | None:
    """LFM2's block: a pythonic list (the model's own format) or a JSON list (llama.cpp's)."""
    found = pythonic.decode_block(body.text, body.known, closed=body.closed)
    if found is not None:
        return found
    text = body.text.strip()
    if not text.startswith(("[", "{")):
        return None
    value = decode(text)
    if isinstance(value, Failure):
        if not body.closed:
            return [truncated(None)]
        return [failure_found(None, value)]
    return calls_in(value, body.known)


LLAMA4 = Family(
    key="llama4_pythonic",
    source="vllm-project/vllm vllm/tool_parsers/llama4_pythonic_tool_parser.py",
    sections=(
        Section("llama4_python", "<|python_start|>", ("<|python_end|>",), decode_block, HEAD),
    ),
    starts=(StartForm("pythonic_list", BARE_LIST, decode_bare_list, "[", NOT_A_LIST),),
    markup=("<|python_end|>",),
)

OLMO = Family(
    key="olmo3",
    source="vllm-project/vllm vllm/frontend/processing/tool_parsers/olmo3_tool_parser.py",
    sections=(Section("olmo3", "<function_calls>", ("</function_calls>",), decode_block, HEAD),),
)

LFM2 = Family(
    key="lfm2",
    source="vllm-project/vllm vllm/tool_parsers/lfm2_tool_parser.py",
    sections=(
        Section("lfm2", "<|tool_call_start|>", ("<|tool_call_end|>",), decode_lfm2, LFM2_HEAD),
    ),
    # LFM2 often echoes its call after the end token and caps the echo with a second one.
    markup=("<|tool_call_end|>",),
)

FAMILIES = (LLAMA4, OLMO, LFM2)
