"""Calls a native-mode server failed to parse: the model printed a complete call to a
known tool as text and the server passed it on as prose (the most reported failure of
local setups). Only complete, closed calls count; prose mentioning a tool does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from nehanda.toolcalls.parse import parse_tool_calls
from nehanda.types import ToolSpec, ToolUse


def recover_leaked_calls(text: str, tools: Sequence[ToolSpec]) -> list[ToolUse]:
    if not text.strip() or not tools:
        return []
    parsed = parse_tool_calls(
        text, {spec.name for spec in tools}, {spec.name: spec.input_schema for spec in tools}
    )
    return [replace(use, origin="native") for use in parsed.calls if not use.unclosed]
