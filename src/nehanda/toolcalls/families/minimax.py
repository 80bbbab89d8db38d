"""MiniMax-M2: ``<minimax:tool_call>`` blocks of ``<invoke>`` elements.

One block holds one or more calls::

    <minimax:tool_call>
    <invoke name="NAME">
    <parameter name="k">v</parameter>
    </invoke>
    </minimax:tool_call>

(the chat template, llama.cpp ``models/templates/unsloth-MiniMax-M2.jinja``; vLLM
``vllm/tool_parsers/minimax_m2_tool_parser.py`` and
``tests/tool_parsers/test_minimax_m2_tool_parser.py``; sglang
``python/sglang/srt/function_call/minimax_m2.py``; llama.cpp ``common/chat.cpp``
``common_chat_parse_minimax_m2``, with ``<think>`` reasoning). Names are quoted with ``"`` or
``'`` (vLLM accepts both). Values are raw text typed by the tool's schema, one
framing newline dropped on each side (``rawargs.raw_call``); sglang's HTML unescape
is not applied, since no escape is decoded in a raw-text value. A value runs to its
``</parameter>``, so the block's closer inside it is content.

The closer is a special token that servers may drop: invokes closed by
``</invoke>`` count even when the block's closer is missing; an invoke the output
ended inside is truncated. Reasoning is ``<think>...</think>``; the template's
generation prompt opens it, so the output often starts inside it (a lone
``</think>``, which the scanner already reads as the end of reasoning).
"""

from __future__ import annotations

import re

from nehanda.toolcalls.families.functions import Closers
from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.rawargs import raw_call, truncated
from nehanda.toolcalls.shapes import Found

OPENER = "<minimax:tool_call>"
CLOSER = "</minimax:tool_call>"

_QUOTED = r"""(?:"([^"<>\n]{1,256})"|'([^'<>\n]{1,256})'|([^\s"'<>]{1,256}))"""
_INVOKE = re.compile(r"<invoke\s+name\s*=\s*" + _QUOTED + r"\s*>")
_INVOKE_END = "</invoke>"
_PARAM = re.compile(r"<parameter\s+name\s*=\s*" + _QUOTED + r"\s*>")
_PARAM_END = "</parameter>"
_WS = re.compile(r"\s*")

HEAD = re.compile(r"\s{0,64}+<invoke\s")
REFUSE = re.compile(r"\s{0,64}+[^\s<]")


def _name(m: re.Match[str]) -> str:
    return (m.group(1) or m.group(2) or m.group(3) or "").strip()


def decode_minimax(body: Body) -> list[Found] | None:
    """Every invoke in one block, in order."""
    text = body.text
    n = len(text)
    found: list[Found] = []
    tags = Closers(text)
    m = _INVOKE.search(text)
    while m is not None:
        name = _name(m)
        params: list[tuple[str, str]] = []
        i = m.end()
        complete = False
        cut = False
        while True:
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text.startswith(_INVOKE_END, i):
                i += len(_INVOKE_END)
                complete = True
                break
            p = _PARAM.match(text, i)
            if p is None:
                # Stray text: skip to the next tag, unless another invoke starts here.
                nxt_tag = text.find("<", i + 1)
                if i >= n or text.startswith("<invoke", i) or nxt_tag < 0:
                    break
                i = nxt_tag
                continue
            start = p.end()
            end = tags.find(_PARAM_END, start)
            if end < 0:
                # No closing tag anywhere after: the value ends at the next tag.
                cut = True
                stops = (tags.find("<parameter", start), tags.find(_INVOKE_END, start))
                stop = min((x for x in stops if x >= 0), default=n)
                params.append((_name(p), text[start:stop]))
                i = stop
                continue
            params.append((_name(p), text[start:end]))
            i = end + len(_PARAM_END)
        nxt = _INVOKE.search(text, i)
        if not complete and nxt is not None:
            # Skip stray text up to a closing tag that comes before the next invoke.
            stop = tags.find(_INVOKE_END, i)
            complete = 0 <= stop < nxt.start()
        elif not complete:
            complete = tags.find(_INVOKE_END, i) >= 0
        if not body.closed and nxt is None and (not complete or cut):
            found.append(truncated(name))
            return found
        found.append(raw_call(name, params, body.known, body.schemas))
        m = nxt
    if found:
        return found
    return None if body.closed else [truncated(None)]


MINIMAX = Section(
    "minimax_m2",
    OPENER,
    (CLOSER,),
    decode_minimax,
    head=HEAD,
    refuse=REFUSE,
    protect=(("<parameter", _PARAM_END),),
)

FAMILY = Family(
    key="minimax",
    source="vllm-project/vllm vllm/tool_parsers/minimax_m2_tool_parser.py; sgl-project/sglang "
    "python/sglang/srt/function_call/minimax_m2.py; ggml-org/llama.cpp "
    "models/templates/unsloth-MiniMax-M2.jinja, common/chat.cpp (common_chat_parse_minimax_m2)",
    sections=(MINIMAX,),
)
