"""Microsoft Phi-4-mini: ``functools[{"name": ..., "arguments": {...}}, ...]``.

The template tells the model to "prefix function calls with functools marker (no
closing marker required)" and to write "a single JSON list" after it (vLLM
``examples/tool_chat_template_phi4_mini.jinja``). vLLM's parser
(``vllm/tool_parsers/phi4mini_tool_parser.py``, tests in
``tests/tool_parsers/test_phi4mini_tool_parser.py``) searches for ``functools[``
anywhere in the output and drops all other text; it accepts ``parameters`` for
``arguments``. ``functools`` is an ordinary word, so here it counts only where the
whole message may be a call (a ``StartForm``); after a line of prose it needs the
scanner's line-start form (see the report). Phi-4-mini's tokenizer also has
``<|tool_call|>...<|/tool_call|>`` (shared with Granite, ``granite.py``), and a
widely copied template variant asks for ``<|tool_calls|>[...]<|/tool_calls|>``
(vLLM issue #14682).
"""

from __future__ import annotations

import re
from typing import Any

from nehanda.toolcalls.arrays import read_array
from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.families.granite import GRANITE
from nehanda.toolcalls.family import Body, Family, StartForm, refuse_unless_led_by
from nehanda.toolcalls.jsonvalue import Failure, sniff_name
from nehanda.toolcalls.shapes import Found, calls_in, failure_found

MARKER = re.compile(r"\s*functools\s*(?=\[)")
# The form is recognised only when a call object follows: "functools[] is..." is prose.
START = re.compile(r"functools\s*\[\s*\{")

PHI_TOOL_CALLS = Dialect(
    "phi_tool_calls", "<|tool_calls|>", ("<|/tool_calls|>",), closer_required=False
)


def _sniff(text: str) -> str | None:
    return sniff_name(text[1:].lstrip()) if text.startswith("[") else None


def decode_functools(body: Body) -> list[Found] | None:
    """The calls after ``functools`` (the body starts at the marker), or None."""
    m = MARKER.match(body.text)
    if m is None:
        return None
    text, start = body.text, m.end()

    def shape(value: Any) -> list[Found] | None:
        if not isinstance(value, list) or not value or not all(isinstance(v, dict) for v in value):
            return None
        found = calls_in(value, body.known)
        if found is None:
            return [failure_found(None, Failure("invalid_json", "no tool name"))]
        return found

    return read_array(text, start, body.known, shape, name_of=_sniff).found


FAMILY = Family(
    key="phi",
    source="vllm-project/vllm vllm/tool_parsers/phi4mini_tool_parser.py, "
    "examples/tool_chat_template_phi4_mini.jinja",
    dialects=(GRANITE, PHI_TOOL_CALLS),
    starts=(
        StartForm("phi_functools", START, decode_functools, "f", refuse_unless_led_by("functools")),
    ),
)
