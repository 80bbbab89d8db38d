"""A native tool call's arguments, as a wire API delivered them, made into a ``ToolUse``.

Arguments arrive as a JSON object (Ollama) or as JSON text, whole or in fragments
(Anthropic's ``input_json_delta``). Text that is not a JSON object still becomes a
call, marked with ``input_error``, so that the engine answers it with a message the
model can act on instead of running it.
"""

from __future__ import annotations

import json
from typing import Any

from nehanda.providers import bounded_json
from nehanda.types import ToolUse

_QUOTE = 200


def native_tool_use(call_id: str, name: str, arguments: Any) -> ToolUse:
    """The call, given its arguments as an object, as JSON text, or as nothing."""
    if not name:
        return ToolUse(call_id, name, {}, "native", "The tool call had no tool name.")
    if isinstance(arguments, dict):
        return ToolUse(call_id, name, arguments)
    if arguments is None:
        return ToolUse(call_id, name)
    raw = (arguments if isinstance(arguments, str) else json.dumps(arguments)).strip()
    if not raw:
        return ToolUse(call_id, name)
    try:
        value = bounded_json.loads(raw)
    except json.JSONDecodeError as exc:
        problem = f"are not valid JSON ({exc.msg} at character {exc.pos})"
    else:
        if isinstance(value, dict):
            return ToolUse(call_id, name, value)
        problem = f"must be a JSON object, not {type(value).__name__}"
    quote = raw if len(raw) <= _QUOTE else raw[:_QUOTE] + "…"
    message = (
        f"The arguments for {name} {problem}; they began: {quote!r}. "
        f"Call {name} again with its arguments as one JSON object."
    )
    return ToolUse(call_id, name, {}, "native", message)
