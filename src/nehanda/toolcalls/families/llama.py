"""Llama 3: ``<|python_tag|>`` JSON calls, and the template tokens that leak around them.

``LLAMA`` reads ``<|python_tag|>{"name": ..., "parameters": {...}}`` up to
``<|eom_id|>`` / ``<|eot_id|>`` or the end of the output (vLLM
``vllm/tool_parsers/llama_tool_parser.py``).

A server that does not strip special tokens passes on the end-of-turn tokens
``<|eot_id|>`` / ``<|eom_id|>`` and sometimes a whole role header
``<|start_header_id|>assistant<|end_header_id|>`` before the call (the Llama 3.1/3.2
JSON tool templates: vLLM ``examples/tool_chat_template_llama3.1_json.jinja``,
``examples/tool_chat_template_llama3.2_json.jinja``; the call itself is
``{"name": ..., "parameters": {...}}``, vLLM ``vllm/tool_parsers/llama_tool_parser.py``).
The tokens are markup; a role header is read as a section that yields no call, so
the header disappears with its role word and the JSON after it is still at the
start of the message.
"""

from __future__ import annotations

import re

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.shapes import Found

LLAMA = Dialect(
    "llama",
    "<|python_tag|>",
    ("<|eom_id|>", "<|eot_id|>"),
    closer_required=False,
)
HEADER_OPEN = "<|start_header_id|>"
HEADER_CLOSE = "<|end_header_id|>"

_ROLE = re.compile(r"\s*(?:assistant|user|system|ipython|tool)\s*\Z")
_HEAD = re.compile(r"\s*(?:assistant|user|system|ipython|tool)\s*<\|end_header_id\|>")


def decode_header(body: Body) -> list[Found] | None:
    """A role header holds no call: [] (consumed, nothing visible), else None (prose)."""
    if body.closed and _ROLE.match(body.text):
        return []
    return None


FAMILY = Family(
    key="llama",
    source="vllm-project/vllm examples/tool_chat_template_llama3.1_json.jinja, "
    "vllm/tool_parsers/llama_tool_parser.py",
    dialects=(LLAMA,),
    sections=(Section("llama_header", HEADER_OPEN, (HEADER_CLOSE,), decode_header, head=_HEAD),),
    markup=("<|eot_id|>", "<|eom_id|>"),
)
