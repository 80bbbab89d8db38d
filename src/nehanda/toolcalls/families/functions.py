"""Calls written as ``<function...>`` elements, read whole from a finished body.

Four spellings carry one call each (llama.cpp ``common/chat.cpp``
``common_chat_parse_hermes_2_pro`` and ``common_chat_parse_functionary_v3_1_llama_3_1``;
vLLM ``vllm/tool_parsers/qwen3coder_tool_parser.py`` and
``vllm/tool_parsers/minicpm5xml_tool_parser.py``):

- ``<function=NAME>{json}</function>``: Llama 3.1 as Functionary v3.1 and Hermes 2 Pro
  print it, the arguments a JSON object;
- ``<function=NAME><parameter=k>v</parameter></function>``: Qwen3-Coder, and the body
  of Seed-OSS's ``<seed:tool_call>`` (see ``seed.py``);
- ``<function name="NAME">{json}</function>``: Hermes 2 Pro's second spelling;
- ``<function name="NAME"><parameter name="k">v</parameter></function>``, and MiniCPM's
  ``<param name="k">`` (optionally inside ``<arguments>``).

Parameter values are raw text: a value runs to its ``</parameter>``, so a
``<parameter=KEY>`` or ``</function>`` written inside it (a file that documents the
format) is content. Only when no closing tag follows at all did the model forget
it; then the value ends at the next parameter or ``</function>``. Values are typed
by the tool's schema (``rawargs.raw_call``).

The unwrapped ``<function=`` opener is also ``qwen.QWEN_XML``'s: ``FUNCTION_EQ``
claims it only when a JSON object follows the name, which that reader rejects;
parameters stay with the streaming reader (``xmlcalls.XmlReader``). In a JSON body a
``</function>`` inside a string is content (``json_strings``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.jsonvalue import CLOSED, CLOSER, Failure, ValueScanner, decode
from nehanda.toolcalls.rawargs import raw_call, truncated
from nehanda.toolcalls.repair import Repaired, repair
from nehanda.toolcalls.shapes import Found, checked, failure_found

_WS = re.compile(r"\s*")
# ``<function=NAME>``: the name runs to ">" on its line (Qwen3-Coder's own rule).
_EQ_NAME = re.compile(r"([^<>\n]{1,256})>")
# ``<function name="NAME">``: quoted either way, or bare.
_NAMED = r"""\s{0,8}(?:"([^"<>\n]{1,256})"|'([^'<>\n]{1,256})'|([^\s"'<>]{1,256}))\s{0,8}>"""
_NAMED_NAME = re.compile(_NAMED)
_PARAM = re.compile(
    r"<(?:parameter=([^<>\n]{1,256})>"
    r"|(parameter|param)\s+name\s*=\s*"
    r"""(?:"([^"<>\n]{1,256})"|'([^'<>\n]{1,256})'|([^\s"'<>]{1,256}))\s*>)"""
)
_FUNCTION_END = "</function>"
_ARGUMENTS = ("<arguments>", "</arguments>")


@dataclass
class Element:
    """One function element read from a body: its call, and where reading stopped."""

    found: Found
    end: int
    complete: bool


def json_args(name: str, text: str, known: Collection[str] | None) -> Found:
    """A call whose arguments are the JSON object ``text`` holds (slips repaired)."""
    stripped = text.strip()
    if not stripped:
        return checked(name, {}, known)
    value = decode(stripped)
    if isinstance(value, Failure):
        if value.kind == "duplicate_key" or not value.repairable:
            return failure_found(name, value)
        fixed = repair(stripped)
        if not isinstance(fixed, Repaired):
            return failure_found(name, value)
        found = checked(name, fixed.value, known) if isinstance(fixed.value, dict) else None
        if found is None:
            return failure_found(name, Failure("invalid_json", "the arguments are not an object"))
        if found.problem is None:
            found.repaired = fixed.notes
        return found
    if not isinstance(value, dict):
        return failure_found(name, Failure("invalid_json", "the arguments are not an object"))
    return checked(name, value, known)


CLOSED_VALUE, OPEN_VALUE, OPEN_STRING = "closed", "open", "string"


def json_end(text: str, pos: int, closers: tuple[str, ...] = ()) -> tuple[int, str]:
    """Where the JSON value at ``pos`` ends, and how: CLOSED_VALUE, OPEN_VALUE, OPEN_STRING.

    The value's structure is followed (strings skipped); it stops early before one of
    ``closers`` written outside a string. Open: the text ran out (or a closer came)
    with brackets still open, OPEN_STRING when inside a string at that point.
    """
    scanner = ValueScanner(closers)
    status, at = scanner.scan(text, pos, True)
    if status == CLOSED:
        return at, CLOSED_VALUE
    end = at if status == CLOSER else len(text)
    return end, OPEN_STRING if scanner.in_string else OPEN_VALUE


class Closers:
    """The next place of each tag, found once: a body costs one pass per tag.

    ``find(tag, pos)`` is ``text.find(tag, pos)`` for positions that never decrease
    (per tag), which is how the readers move through a body.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._next: dict[str, int] = {}

    def find(self, tag: str, pos: int) -> int:
        at = self._next.get(tag)
        if at is None or (0 <= at < pos):
            at = self.text.find(tag, pos)
            self._next[tag] = at
        return at


def read_element(
    text: str,
    pos: int,
    *,
    named: bool,
    known: Collection[str] | None,
    schemas: Mapping[str, Mapping[str, Any]],
    closers: Closers | None = None,
) -> Element | None:
    """The element whose opener (``<function=`` or ``<function name=``) ends at ``pos``.

    Reading stops after ``</function>``, before another ``<function``, or at the end
    of ``text``; ``complete`` says whether ``</function>`` was seen. None when no
    name closes the tag: the opener was a mention.
    """
    if named:
        m = _NAMED_NAME.match(text, pos)
        name = (m.group(1) or m.group(2) or m.group(3)).strip() if m else ""
    else:
        m = _EQ_NAME.match(text, pos)
        name = m.group(1).strip() if m else ""
    if m is None or not name:
        return None
    tags = closers or Closers(text)
    n = len(text)
    i = _WS.match(text, m.end()).end()  # type: ignore[union-attr]
    wrapped = text.startswith(_ARGUMENTS[0], i)
    if wrapped:
        i = _WS.match(text, i + len(_ARGUMENTS[0])).end()  # type: ignore[union-attr]
    if i < n and text[i] in "{[":
        end, state = json_end(text, i, (_FUNCTION_END,))
        if state == OPEN_STRING:
            # Cut inside a string: a closer written in it ended the body early, or the
            # output stopped there. Repairing would invent the rest of the value.
            found = failure_found(name, Failure("invalid_json", "a string is not closed"))
        else:
            found = json_args(name, text[i:end], known)
        i = end
    else:
        params, i = _read_params(text, i, tags)
        found = raw_call(name, params, known, schemas)
    i = _WS.match(text, i).end()  # type: ignore[union-attr]
    if wrapped and text.startswith(_ARGUMENTS[1], i):
        i = _WS.match(text, i + len(_ARGUMENTS[1])).end()  # type: ignore[union-attr]
    if text.startswith(_FUNCTION_END, i):
        return Element(found, i + len(_FUNCTION_END), True)
    # Text that is neither a parameter nor the closing tag: skip to what may end it.
    stop = tags.find(_FUNCTION_END, i)
    if stop >= 0:
        nxt = text.find("<function", i, stop)
        if nxt < 0:
            return Element(found, stop + len(_FUNCTION_END), True)
        return Element(found, nxt, False)
    nxt = text.find("<function", i)
    return Element(found, n if nxt < 0 else nxt, False)


def _read_params(text: str, pos: int, tags: Closers) -> tuple[list[tuple[str, str]], int]:
    """The parameters from ``pos`` on, in order, and where they end."""
    params: list[tuple[str, str]] = []
    n = len(text)
    i = pos
    while i < n:
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        m = _PARAM.match(text, i)
        if m is None:
            if i >= n or text.startswith(("</function>", "<function"), i):
                return params, i
            # Stray text between parameters: skip to the next tag.
            tag = text.find("<", i + 1)
            if tag < 0:
                return params, n
            i = tag
            continue
        if m.group(1) is not None:
            key, closer = m.group(1).strip(), "</parameter>"
        else:
            key = (m.group(3) or m.group(4) or m.group(5)).strip()
            closer = f"</{m.group(2)}>"
        start = m.end()
        end = tags.find(closer, start)
        if end >= 0:
            params.append((key, text[start:end]))
            i = end + len(closer)
            continue
        # The model forgot the closing tag: the value ends at what comes next.
        nxt = _PARAM.search(text, start)
        stop = tags.find(_FUNCTION_END, start)
        cut = min(x for x in (nxt.start() if nxt else -1, stop, n) if x >= 0)
        params.append((key, text[start:cut]))
        i = cut
    return params, i


def read_elements(body: Body, *, named: bool = False) -> list[Found] | None:
    """Every ``<function=`` element in a wrapper's body (Seed-OSS, a Hermes block).

    Elements closed by ``</function>`` are calls even when the wrapper's closer is
    missing (servers often drop that special token); an element the output ended
    inside is truncated.
    """
    text = body.text
    opener = "<function name=" if named else "<function="
    tags = Closers(text)
    found: list[Found] = []
    pos = text.find(opener)
    while pos >= 0:
        element = read_element(
            text,
            pos + len(opener),
            named=named,
            known=body.known,
            schemas=body.schemas,
            closers=tags,
        )
        if element is None:
            pos = text.find(opener, pos + len(opener))
            continue
        if not element.complete and not body.closed and element.end >= len(text):
            found.append(truncated(element.found.name))
            break
        found.append(element.found)
        pos = text.find(opener, element.end)
    if found:
        return found
    return None if body.closed else [truncated(None)]


def _single(named: bool) -> Callable[[Body], list[Found] | None]:
    def decode_one(body: Body) -> list[Found] | None:
        """The body of one ``<function...>`` section: its name, then its arguments."""
        element = read_element(body.text, 0, named=named, known=body.known, schemas=body.schemas)
        if element is None:
            return None
        if not body.closed:
            return [truncated(element.found.name)]
        return [element.found]

    return decode_one


decode_function_eq = _single(False)
decode_function_named = _single(True)

# The JSON-bodied form only: Qwen3-Coder parameters stay with dialects.QWEN_XML.
EQ_HEAD = re.compile(r"[^<>\n]{1,256}+>\s{0,64}+\{")
# Settled at once: no name on the line, or the name is followed by something other
# than a JSON object (a parameter, prose).
EQ_REFUSE = re.compile(r"[^<>\n]{0,256}+(?:[<\n]|>\s{0,64}+[^\s{])")

_NAMED_VALUE = r"""(?:"[^"<>\n]{1,256}+"|'[^'<>\n]{1,256}+'|[^\s"'<>]{1,256}+)"""
NAMED_HEAD = re.compile(
    r"\s{0,8}+" + _NAMED_VALUE + r"\s{0,8}+>\s{0,64}+"
    r"(?:\{|<parameter[\s=]|<param\s|<arguments>|</function>)"
)
NAMED_REFUSE = re.compile(r"\s{0,8}+" + _NAMED_VALUE + r"\s{0,8}+(?:[^\s>]|>\s{0,64}+[^\s{<])")

FUNCTION_EQ = Section(
    "function_eq_json",
    "<function=",
    (_FUNCTION_END,),
    decode_function_eq,
    head=EQ_HEAD,
    refuse=EQ_REFUSE,
    json_strings=True,
)
FUNCTION_NAMED = Section(
    "function_named",
    "<function name=",
    (_FUNCTION_END,),
    decode_function_named,
    head=NAMED_HEAD,
    refuse=NAMED_REFUSE,
    protect=(("<parameter", "</parameter>"), ("<param ", "</param>")),
    # The name's quotes pair up; parameter values are protected spans.
    json_strings=True,
)

FAMILY = Family(
    key="functions",
    source="ggml-org/llama.cpp common/chat.cpp (common_chat_parse_hermes_2_pro, "
    "common_chat_parse_functionary_v3_1_llama_3_1); vllm-project/vllm "
    "vllm/tool_parsers/qwen3coder_tool_parser.py, vllm/tool_parsers/minicpm5xml_tool_parser.py",
    sections=(FUNCTION_EQ, FUNCTION_NAMED),
)
