"""DeepSeek V3.2 and V4: DSML blocks, with any spelling of the bars around ``DSML``.

V3.2 writes DSML (vLLM ``deepseekv32_tool_parser.py``, sglang
``deepseekv32_detector.py``, the model's ``encoding/encoding_dsv32.py``); V4 names its
wrapper ``tool_calls`` instead of ``function_calls``::

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="NAME">
    <｜DSML｜parameter name="k" string="true">raw text</｜DSML｜parameter>
    <｜DSML｜parameter name="n" string="false">42</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

``string="true"`` values are raw text (typed only by the tool's schema);
``string="false"`` values are JSON. An invoke may also hold a JSON object
instead of parameters (sglang's second format). Reports quote the markers with other
bars (``‖``, doubled ``｜｜``, spaced ASCII, mixed; lsdefine/GenericAgent#804,
AgentFlocks/flocks#687): ``bars.barred`` reads any of them. The two canonical
wrappers and bare invokes stream as sections with their closers; any other spelling
opens at ``<`` and a bar and reads to the end of the output, handing back the text
after its last invoke.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from nehanda.toolcalls import bars, messages
from nehanda.toolcalls.elements import Element, elements
from nehanda.toolcalls.families.deepseek import json_call, placeholder
from nehanda.toolcalls.family import Body, Decoded, Decoder, Family, Section
from nehanda.toolcalls.jsonvalue import Failure, decode
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.shapes import Found, checked
from nehanda.toolcalls.xmlcalls import schema_property, typed, unframe

SOURCE = (
    "vllm-project/vllm vllm/tool_parsers/deepseekv32_tool_parser.py, "
    "vllm/tokenizers/deepseek_v32_encoding.py; "
    "sgl-project/sglang python/sglang/srt/function_call/deepseekv32_detector.py"
)

_DSML = bars.barred("DSML")
_INVOKE = re.compile(r"<" + _DSML + r"invoke\s+name=\"([^\"<>]{1,200})\"\s*>")
_INVOKE_END = re.compile(r"</(?:" + _DSML + r")?invoke>")
_PARAM = re.compile(
    r"<(?:" + _DSML + r")?parameter\s+name=\"([^\"<>]{1,200})\""
    r"(?:\s+string=\"([^\"<>]{0,16})\")?\s*>"
)
_PARAM_END = re.compile(r"</(?:" + _DSML + r")?parameter>")
_WRAPPER_END = re.compile(r"\s*</" + _DSML + r"(?:function_calls|tool_calls)>")


def _dsml_value(raw: str, string: str | None, prop: Mapping[str, Any]) -> Any:
    if string == "false":
        value = decode(raw.strip())
        if not isinstance(value, Failure):
            return value
    return typed(unframe(raw), prop)


def _invoke_args(
    name: str, inner: str, schemas: Mapping[str, Mapping[str, Any]], known: Collection[str] | None
) -> Found:
    """The arguments of one invoke: DSML parameters, or a JSON object written directly."""
    stripped = inner.strip()
    if stripped.startswith("{"):
        return json_call(name, stripped, known, closed=True)
    schema = schemas.get(name)
    args: dict[str, Any] = {}
    for element in elements(inner, _PARAM, _PARAM_END):
        key, string = element.tag.group(1), element.tag.group(2)
        if key in args:
            return Found(name, {}, ("duplicate_key", messages.duplicate_key(name, key)))
        args[key] = _dsml_value(element.inner, string, schema_property(schema, key))
    return checked(name, args, known)


def _decode_invokes(invokes: list[Element], body: Body) -> list[Found]:
    found: list[Found] = []
    for element in invokes:
        name = element.tag.group(1).strip()
        if element.to_end and not body.closed:
            found.append(truncated(name))
            return found
        if placeholder(name):
            continue
        found.append(_invoke_args(name, element.inner, body.schemas, body.known))
    return found


def decode_dsml(body: Body) -> list[Found] | None:
    """A ``function_calls`` block (or one bare invoke): its invokes, in order."""
    found = _decode_invokes(list(elements(body.text, _INVOKE, _INVOKE_END)), body)
    if found:
        return found
    # The head saw an invoke start: an output that ends before its name closes is cut.
    return None if body.closed else [truncated(None)]


def _read_to_end(opener: str) -> Decoder:
    """A block in another spelling, read to the output's end: its invokes, and where
    they end (after the wrapper's closer, if one follows the last invoke)."""

    def read(body: Body) -> Decoded | None:
        text = opener + body.text
        invokes = list(elements(text, _INVOKE, _INVOKE_END))
        if not invokes:
            return None
        found = _decode_invokes(invokes, Body(text, False, body.known, body.schemas))
        last = invokes[-1]
        end = len(text)
        if last.closed:
            close = _INVOKE_END.search(text, last.tag.end() + len(last.inner))
            end = close.end() if close is not None else end
            wrapper = _WRAPPER_END.match(text, end)
            end = wrapper.end() if wrapper is not None else end
        return Decoded(found, max(0, end - len(opener)))

    return read


def _bare_invoke(opener: str, closer: str) -> Decoder:
    def read(body: Body) -> list[Found] | None:
        text = opener + body.text + (closer if body.closed else "")
        return decode_dsml(Body(text, body.closed, body.known, body.schemas))

    return read


_INVOKE_HEAD = re.compile(r"\s*<" + _DSML + r"invoke\s+name=\"")
# A parameter, a JSON object or the end tag must follow the bare invoke's name.
_BARE_INVOKE_HEAD = re.compile(
    r"name=\"[^\"<>]{1,200}+\"\s*+>\s*+(?:<(?:"
    + _DSML
    + r")?parameter\s|</(?:"
    + _DSML
    + r")?invoke>|\{)"
)
# After ``<`` and a bar: the rest of the bars, the word, and what it opens.
_ANY_HEAD = re.compile(_DSML + r"(?:function_calls|tool_calls)\s*>|" + _DSML + r"invoke\s")
# Anything but more bars or the start of the word settles it: the tag is another one.
_ANY_REFUSE = re.compile(
    bars.RUN + r"(?![" + re.escape(bars.BARS) + r" \t]|DSML|DSM\Z|DS\Z|D\Z|\Z)"
)

_CANONICAL = (
    Section(
        "deepseek_dsml",
        "<｜DSML｜function_calls>",
        ("</｜DSML｜function_calls>", "</|DSML|function_calls>"),
        decode_dsml,
        head=_INVOKE_HEAD,
    ),
    Section(
        "deepseek_dsml_ascii",
        "<|DSML|function_calls>",
        ("</|DSML|function_calls>", "</｜DSML｜function_calls>"),
        decode_dsml,
        head=_INVOKE_HEAD,
    ),
    # An invoke written without its function_calls wrapper (sglang accepts it streaming).
    Section(
        "deepseek_dsml_invoke",
        "<｜DSML｜invoke ",
        ("</｜DSML｜invoke>", "</|DSML|invoke>"),
        _bare_invoke("<｜DSML｜invoke ", "</｜DSML｜invoke>"),
        head=_BARE_INVOKE_HEAD,
    ),
    Section(
        "deepseek_dsml_invoke_ascii",
        "<|DSML|invoke ",
        ("</|DSML|invoke>", "</｜DSML｜invoke>"),
        _bare_invoke("<|DSML|invoke ", "</|DSML|invoke>"),
        head=_BARE_INVOKE_HEAD,
    ),
)
_ANY_SPELLING = tuple(
    Section("deepseek_dsml_any", op, (), _read_to_end(op), head=_ANY_HEAD, refuse=_ANY_REFUSE)
    for op in bars.openers()
)

FAMILY = Family(key="dsml", source=SOURCE, sections=(*_CANONICAL, *_ANY_SPELLING))
