"""Step-3: steptml invokes inside DeepSeek-like markers spelled with ``_``.

From vLLM ``vllm/tool_parsers/step3_tool_parser.py`` (and its test
``tests/tool_parsers/test_step3_tool_parser.py``) and sglang
``python/sglang/srt/function_call/step3_detector.py``::

    <｜tool_calls_begin｜>
    <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="NAME">
    <steptml:parameter name="k">raw text</steptml:parameter>
    </steptml:invoke><｜tool_call_end｜>
    <｜tool_calls_end｜>

The markers use fullwidth bars and ASCII underscores (DeepSeek's use ``▁``). vLLM's
test also shows calls without the ``function<｜tool_sep｜>`` prefix, a tool name
between the separator and the invoke, and a stray ``<｜tool_sep｜>`` between calls.
Values are raw text: one framing newline dropped on each side, typed only where
the tool's schema asks (``rawargs.raw_call``; vLLM strips them, sglang json-loads
them, and the dialect rule wins). A DeepSeek-style body (``NAME<｜tool_sep｜>{json}``)
under this opener is read by ``deepseek.decode_call_body``. An invoke printed
without the special tokens (a server that strips them) is read on its own.
"""

from __future__ import annotations

import re

from nehanda.toolcalls.elements import elements
from nehanda.toolcalls.families import deepseek
from nehanda.toolcalls.family import Body, Family, Section
from nehanda.toolcalls.rawargs import raw_call, truncated
from nehanda.toolcalls.shapes import Found

SOURCE = (
    "vllm-project/vllm vllm/tool_parsers/step3_tool_parser.py; "
    "sgl-project/sglang python/sglang/srt/function_call/step3_detector.py"
)

OPENER = "<｜tool_call_begin｜>"
INVOKE_OPEN = "<steptml:invoke "
_INVOKE = re.compile(r"<steptml:invoke\s+name=\"([^\"<>]{1,200})\"\s*>")
_INVOKE_END = "</steptml:invoke>"
_INVOKE_END_RE = re.compile(re.escape(_INVOKE_END))
_PARAM = re.compile(r"<steptml:parameter\s+name=\"([^\"<>]{1,200})\"\s*>")
_PARAM_END = re.compile(re.escape("</steptml:parameter>"))
_HEAD = re.compile(
    r"\s*+(?:[^<>]{0,64}+<｜tool_sep｜>[^<>]{0,200}+)?<steptml:invoke\s"
    r"|\n?[^\s<>]{1,200}+<[｜|]tool[▁_]sep[｜|]>"
)


def _params(inner: str) -> list[tuple[str, str]]:
    """(key, raw value) pairs in order; a value whose closing tag is missing runs to
    the next parameter."""
    return [(e.tag.group(1), e.inner) for e in elements(inner, _PARAM, _PARAM_END)]


def decode_invokes(body: Body) -> list[Found] | None:
    """Every ``<steptml:invoke>`` in ``body.text``, in order; None when there is none."""
    found: list[Found] = []
    for element in elements(body.text, _INVOKE, _INVOKE_END_RE):
        name = element.tag.group(1).strip()
        if element.to_end and not body.closed:
            found.append(truncated(name))
            return found
        found.append(raw_call(name, _params(element.inner), body.known, body.schemas))
    if found:
        return found
    return None if body.closed else [truncated(None)]


def decode_call(body: Body) -> list[Found] | None:
    """One ``<｜tool_call_begin｜>`` body: steptml invokes, else a DeepSeek-style call."""
    if INVOKE_OPEN in body.text or "<steptml:invoke\n" in body.text:
        return decode_invokes(body)
    return deepseek.decode_call_body(body)


def _bare_invoke(body: Body) -> list[Found] | None:
    text = INVOKE_OPEN + body.text + (_INVOKE_END if body.closed else "")
    return decode_invokes(Body(text, body.closed, body.known, body.schemas))


CALL = Section(
    "step3",
    OPENER,
    ("<｜tool_call_end｜>", "<｜tool_calls_end｜>"),
    decode_call,
    head=_HEAD,
)
# The invoke alone: the special tokens were stripped, or the model left them out.
INVOKE = Section(
    "step3_invoke",
    INVOKE_OPEN,
    (_INVOKE_END,),
    _bare_invoke,
    # A parameter or the end tag must follow: '<steptml:invoke name="X"> tags' is prose.
    head=re.compile(r"name=\"[^\"<>]{1,200}+\"\s*+>\s*+(?:<steptml:parameter\s|</steptml:invoke>)"),
)

MARKUP = ("<｜tool_calls_begin｜>", "<｜tool_calls_end｜>", "<｜tool_sep｜>")

FAMILY = Family(
    key="step3",
    source=SOURCE,
    sections=(CALL, INVOKE),
    # Step-3 reasons in <think>...</think>, which the classic family already reads.
    markup=MARKUP,
)
