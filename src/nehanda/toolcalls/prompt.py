"""What rescue mode tells the model: tool descriptions, the late directive, and the
transcript rendered as plain text.

Pure string building, in two tiers: the full one, and a compact one for windows of 8k
tokens or less (first sentences only, one example in all). Tools are described
compactly (a parameter line each, not the JSON Schema) with an example call whose
values are placeholders no real call would carry, so an example copied back verbatim
can be recognised and refused.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from nehanda.toolcalls.brief_specs import compact_spec
from nehanda.toolcalls.registry import FULL, grammar
from nehanda.types import JsonObject, ToolResult, ToolSpec, ToolUse

OPEN, CLOSE = "[TOOL_CALL]", "[/TOOL_CALL]"

INSTRUCTIONS = """\
# Tools
You can call the tools below. To call one, write a block exactly like this, JSON inside:
[TOOL_CALL]{"name": "ToolName", "arguments": {"param": "value"}}[/TOOL_CALL]
- Call a tool whenever it helps; several blocks may follow one another.
- After your calls, stop: each result comes back in a [TOOL_RESULT] block.
- Never write a [TOOL_RESULT] yourself or guess what a tool would return.
- Without a call, your text is the final answer."""

COMPACT_INSTRUCTIONS = """\
# Tools
To call a tool, write a block like this, JSON inside, then stop for its [TOOL_RESULT]:
[TOOL_CALL]{"name": "ToolName", "arguments": {"param": "value"}}[/TOOL_CALL]
Never write a [TOOL_RESULT] yourself. Without a call, your text is the final answer."""

DIRECTIVE = (
    "[SYSTEM DIRECTIVE] If a tool is needed, call it now: "
    '[TOOL_CALL]{"name": ..., "arguments": {...}}[/TOOL_CALL], then stop and wait '
    "for the result. If none is needed, answer directly. [/SYSTEM DIRECTIVE]"
)

# Openers the parser reacts to (every registered dialect's markers among them); inside
# tool output they are defused by swapping their first character for a look-alike, so
# an echoed file cannot become a call.
_DELIMITERS = re.compile(
    r"\[/?TOOL_(?:CALLS?|RESULT)\b|\[/?SYSTEM DIRECTIVE\]|\[ARGS\]|\[/?THINK\]"
    r"|</?tool_call\b|<function=|</?parameter\b|<\|python_tag\|>|<｜tool|"
    + "|".join(
        re.escape(word)
        for word in sorted(grammar(FULL).plain.words, key=len, reverse=True)
        if len(word) > 1 and word[0] in "<["
    ),
    re.IGNORECASE,
)
_LOOKALIKE = {"[": "［", "<": "‹"}


def render_tool_prompt(tools: Iterable[ToolSpec], *, compact: bool = False) -> str:
    """The system-prompt section that teaches the model every tool and the call format;
    ``compact``, for small windows: short texts and a single example."""
    if compact:
        shown = [_render_tool(compact_spec(s), i == 0) for i, s in enumerate(tools)]
        return "\n\n".join([COMPACT_INSTRUCTIONS, *shown])
    return "\n\n".join([INSTRUCTIONS, *(_render_tool(spec) for spec in tools)])


def _render_tool(spec: ToolSpec, example: bool = True) -> str:
    # A client of serve sends any JSON as a schema: ``true``, a string, a list where an
    # object belongs. What is not the shape described is shown as "any", never a crash.
    lines = [f"## {spec.name}", spec.description.strip()]
    properties = _mapping(spec.input_schema.get("properties"))
    required = _names(spec.input_schema.get("required"))
    if properties:
        lines.append("Parameters:")
        lines += [
            _render_parameter(str(name), _mapping(schema), name in required)
            for name, schema in properties.items()
        ]
    if example:
        lines.append(render_call(spec.name, example_arguments(spec)))
    return "\n".join(lines)


def _render_parameter(name: str, schema: Mapping[str, Any], required: bool) -> str:
    facts = [_type_name(schema), "required" if required else "optional"]
    if isinstance(schema.get("enum"), list):
        facts.append("one of " + ", ".join(json.dumps(value) for value in schema["enum"]))
    if "default" in schema and schema["default"] is not None:
        facts.append(f"default {json.dumps(schema['default'])}")
    description = schema.get("description", "")
    description = description if isinstance(description, str) else ""
    return f"- {name} ({', '.join(facts)})" + (f": {description}" if description else "")


def _type_name(schema: Mapping[str, Any], depth: int = 0) -> str:
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if isinstance(kind, list):
        return "/".join(str(k) for k in kind)
    any_of = schema.get("anyOf")
    options = [
        _type_name(option, depth + 1)
        for option in (any_of if isinstance(any_of, list) and depth < 8 else [])
        if isinstance(option, dict) and option.get("type") != "null"
    ]
    return "/".join(options) or "any"


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, dict) else {}


def _names(value: object) -> list[str]:
    return [name for name in value if isinstance(name, str)] if isinstance(value, list) else []


def example_arguments(spec: ToolSpec) -> JsonObject:
    """Placeholder values (``"<file_path>"``) for the required parameters, or the first one.

    An example always carries a placeholder when the tool has parameters, so that a
    real call with no arguments is never mistaken for an echo of it.
    """
    names = _names(spec.input_schema.get("required")) or [
        str(name) for name in list(_mapping(spec.input_schema.get("properties")))[:1]
    ]
    return {name: f"<{name}>" for name in names}


def is_example_echo(tool_use: ToolUse, tools: Iterable[ToolSpec]) -> bool:
    """Whether a call repeats a prompt example verbatim (small models copy their prompt)."""
    return bool(tool_use.input) and any(
        spec.name == tool_use.name and example_arguments(spec) == tool_use.input for spec in tools
    )


def render_call(name: str, arguments: JsonObject) -> str:
    """A call in the canonical form, with normalised JSON."""
    body = json.dumps({"name": name, "arguments": arguments}, ensure_ascii=False)
    return f"{OPEN}{body}{CLOSE}"


def render_result(result: ToolResult, tool_name: str) -> str:
    status = " error=true" if result.is_error else ""
    return (
        f"[TOOL_RESULT name={tool_name} id={result.tool_use_id}{status}]\n"
        f"{neutralize(result.content)}\n[/TOOL_RESULT]"
    )


def neutralize(text: str) -> str:
    """Tool output with every call, result or directive delimiter defused."""
    return _DELIMITERS.sub(lambda match: _LOOKALIKE[match[0][0]] + match[0][1:], text)


REQUIRED_DIRECTIVE = (
    "[SYSTEM DIRECTIVE] Call a tool now: "
    '[TOOL_CALL]{"name": ..., "arguments": {...}}[/TOOL_CALL], then stop and wait '
    "for the result. An answer without a tool call is not accepted. [/SYSTEM DIRECTIVE]"
)


def with_directive(text: str, *, required: bool = False) -> str:
    """``text`` with the late directive; ``required`` asks for a call (``tool_choice``)."""
    return f"{text.rstrip()}\n\n{REQUIRED_DIRECTIVE if required else DIRECTIVE}"
