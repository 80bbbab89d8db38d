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

MiniMax-M3 writes the namespace token ``]<]minimax[>[`` before every tag, and a
parameter is an element named after it (ml-explore/mlx-lm#1416, ai-dynamo/frontend-crates
#83, ikawrakow/ik_llama.cpp#2008)::

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="NAME">
    ]<]minimax[>[<k>v]<]minimax[>[</k>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>

The chat template's ``to_xml`` writes a mapping as child elements, a list as ``<item>``
children and anything else as raw text, typed by the schema as above. Only a tag right
after the token is markup, so ``<`` in a value is text; without the token, or with
no namespaced invoke after it, ``<tool_call>`` is Hermes' (or GLM's) opener. The
scanner's words start with ``<``, so the token's first ``]`` before ``<tool_call>``
stays in the visible text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from nehanda.toolcalls.families.functions import Closers
from nehanda.toolcalls.family import Body, Decoded, Family, Section, refuse_unless_led_by
from nehanda.toolcalls.jsonvalue import Failure
from nehanda.toolcalls.rawargs import raw_call, truncated
from nehanda.toolcalls.shapes import Found, checked, failure_found
from nehanda.toolcalls.xmlcalls import schema_property, typed, unframe

OPENER = "<minimax:tool_call>"
CLOSER = "</minimax:tool_call>"

_QUOTED = r"""(?:"([^"<>\n]{1,256})"|'([^'<>\n]{1,256})'|([^\s"'<>]{1,256}))"""
_INVOKE = re.compile(r"<invoke\s+name\s*=\s*" + _QUOTED + r"\s*>")
_INVOKE_END = "</invoke>"
_PARAM = re.compile(r"<parameter\s+name\s*=\s*" + _QUOTED + r"\s*>")
_PARAM_END = "</parameter>"
_WS = re.compile(r"\s*")

HEAD = re.compile(r"\s{0,64}+<invoke\s")
# Right after "<invoke": its name attribute (a bare invoke has no other marker).
INVOKE_HEAD = re.compile(r"\s+name\s*=\s*" + _QUOTED + r"\s*>")
INVOKE_REFUSE = re.compile(r"[^\s]|\s++[^\sn]")
REFUSE = re.compile(r"\s{0,64}+[^\s<]")


def _name(m: re.Match[str]) -> str:
    return (m.group(1) or m.group(2) or m.group(3) or "").strip()


def decode_minimax(body: Body) -> list[Found] | None:
    """Every invoke in one block, in order."""
    read = _invokes(body)
    return read if read is None else read[0]


def decode_block(body: Body) -> list[Found] | Decoded | None:
    """``decode_minimax`` for a block whose closer may be dropped: one the output ended
    in, past a last invoke that closed, ends there, and the text after it is prose."""
    read = _invokes(body)
    if read is None:
        return None
    found, end = read
    if body.closed or not end or found[-1].problem is not None:
        return found
    return Decoded(found, end)


def _invokes(body: Body) -> tuple[list[Found], int] | None:
    """The invokes of one block, and where the last one that closed ends (0: none)."""
    text = body.text
    n = len(text)
    found: list[Found] = []
    last_end = 0
    tags = Closers(text)
    m = _INVOKE.search(text)
    while m is not None:
        name = _name(m)
        params: list[tuple[str, str]] = []
        i = m.end()
        complete = closed_here = False
        cut = False
        while True:
            i = _WS.match(text, i).end()  # type: ignore[union-attr]
            if text.startswith(_INVOKE_END, i):
                i += len(_INVOKE_END)
                complete = closed_here = True
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
            return found, last_end
        found.append(raw_call(name, params, body.known, body.schemas))
        if closed_here:
            last_end = i
        m = nxt
    if found:
        return found, last_end
    return None if body.closed else ([truncated(None)], 0)


MINIMAX = Section(
    "minimax_m2",
    OPENER,
    (CLOSER,),
    decode_block,
    head=HEAD,
    refuse=REFUSE,
    protect=(("<parameter", _PARAM_END),),
)

# ---------------------------------------------------------------- MiniMax-M3

NAMESPACE = "]<]minimax[>["
M3_OPENER = NAMESPACE[1:] + "<tool_call>"
M3_CLOSER = NAMESPACE + "</tool_call>"
M3_HEAD = re.compile(r"\s{0,64}+" + re.escape(NAMESPACE) + r"<invoke\s")
M3_REFUSE = re.compile(
    r"\s{0,64}+(?=.)" + refuse_unless_led_by(NAMESPACE + "<invoke").pattern, re.S
)
_M3_TAG = re.compile(r"<(/?)([^\s<>/]{1,256})>")
_MAX_DEPTH = 64


class _Bad(Exception):
    def __init__(self, failure: Failure) -> None:
        super().__init__(failure.detail)
        self.failure = failure


_MISPLACED = Failure("invalid_json", "a misplaced tag")
_UNFINISHED = Failure("invalid_json", "the call is not finished")


@dataclass
class _Element:
    """An open element: its tag, its schema, its text and the children closed so far."""

    tag: str
    prop: Mapping[str, Any]
    text: str
    children: list[tuple[str, Any]] = field(default_factory=list)

    def value(self) -> Any:
        """Raw text typed by the schema; ``<item>`` children a list; others a mapping."""
        if not self.children:
            return typed(unframe(self.text), self.prop)
        if all(tag == "item" for tag, _ in self.children):
            return [value for _, value in self.children]
        return _mapping(self.children)


def _mapping(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Bad(Failure("duplicate_key", key))
        out[key] = value
    return out


class _Invoke:
    """One M3 invoke being read, tag by tag."""

    def __init__(self, name: str, schema: Mapping[str, Any]) -> None:
        self.name = name
        self.schema = schema
        self.stack: list[_Element] = []
        self.params: list[tuple[str, Any]] = []

    def tag(self, piece: str) -> dict[str, Any] | None:
        """Read the tag ``piece`` starts with; the arguments once it is ``</invoke>``."""
        m = _M3_TAG.match(piece)
        if m is None or len(self.stack) >= _MAX_DEPTH:
            raise _Bad(_MISPLACED)
        closing, key = m.group(1), m.group(2)
        stack = self.stack
        if not closing:
            parent = stack[-1].prop if stack else self.schema
            items = parent.get("items")
            prop = items if key == "item" and isinstance(items, Mapping) else None
            stack.append(_Element(key, prop or schema_property(parent, key), piece[m.end() :]))
        elif stack and stack[-1].tag == key:
            element = stack.pop()
            (stack[-1].children if stack else self.params).append((key, element.value()))
        elif not stack and key == "invoke":
            return _mapping(self.params)
        else:
            raise _Bad(_MISPLACED)
        return None


def decode_minimax_m3(body: Body) -> list[Found] | None:
    """Every invoke of one M3 block, in order; text between tags is skipped."""
    found: list[Found] = []
    call: _Invoke | None = None
    for piece in body.text.split(NAMESPACE)[1:]:
        invoke = _INVOKE.match(piece)
        if invoke is not None:
            if call is not None:  # a new invoke: the open one never ended
                found.append(failure_found(call.name, _UNFINISHED))
            name = _name(invoke)
            call = _Invoke(name, body.schemas.get(name) or {})
            continue
        if call is None:
            continue
        try:
            args = call.tag(piece)
        except _Bad as bad:
            found.append(failure_found(call.name, bad.failure))
            call = None
            continue
        if args is not None:
            found.append(checked(call.name, args, body.known))
            call = None
    if call is not None:
        cut = truncated(call.name)
        found.append(cut if not body.closed else failure_found(call.name, _UNFINISHED))
    if found:
        return found
    return None if body.closed else [truncated(None)]


MINIMAX_M3 = Section(
    "minimax_m3",
    M3_OPENER,
    (M3_CLOSER,),
    decode_minimax_m3,
    head=M3_HEAD,
    refuse=M3_REFUSE,
)

FAMILY = Family(
    key="minimax",
    source="vllm-project/vllm vllm/tool_parsers/minimax_m2_tool_parser.py; sgl-project/sglang "
    "python/sglang/srt/function_call/minimax_m2.py; ggml-org/llama.cpp "
    "models/templates/unsloth-MiniMax-M2.jinja, common/chat.cpp (common_chat_parse_minimax_m2)",
    sections=(MINIMAX, MINIMAX_M3),
)
