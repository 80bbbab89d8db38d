"""nehanda's own ``[TOOL_CALL]`` format, the one the rescue prompt asks for, and its slips.

The canonical block may hold a bare name before the JSON or a Qwen3-Coder
``<function=...>`` element. Models that were shown ``[TOOL_CALL]...[/TOOL_CALL]`` in
a prompt write it in lower case (``[tool_call]...[/tool_call]``), or as a
``tool_call`` code fence (read through ``dialects.JSON_FENCE_LANGS``).
"""

from __future__ import annotations

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.family import Family

TOOL_CALL = Dialect(
    "tool_call",
    "[TOOL_CALL]",
    ("[/TOOL_CALL]", "[/TOOL_CALLS]"),
    name_prefix=True,
    xml=True,
)
TOOL_CALL_LOWER = Dialect(
    "tool_call_lower",
    "[tool_call]",
    ("[/tool_call]", "[/tool_calls]"),
    name_prefix=True,
    xml=True,
)

FAMILY = Family(
    key="tool_call",
    source="nehanda's [TOOL_CALL] format (src/nehanda/toolcalls/prompt.py), as asked and mis-cased",
    dialects=(TOOL_CALL, TOOL_CALL_LOWER),
)
