"""Helpers for the tool-call tests: render calls in every format, feed in pieces, compare."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from nehanda.events import StreamEvent
from nehanda.toolcalls.parse import ParseResult, collect, parse_tool_calls
from nehanda.toolcalls.scanner import ToolCallScanner

KNOWN = frozenset({"Read", "Write", "Bash", "Edit", "mcp__git.log-v2"})
SCHEMAS: dict[str, dict[str, Any]] = {
    "Read": {
        "type": "object",
        "properties": {
            "file_path": {"type": "string"},
            "limit": {"type": "integer"},
            "offset": {"type": ["integer", "null"]},
        },
    },
    "Bash": {
        "type": "object",
        "properties": {
            "command": {"type": "string"},
            "timeout": {"type": "number"},
            "background": {"type": "boolean"},
            "env": {"type": "object"},
            "args": {"type": "array"},
        },
    },
}


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def render(fmt: str, name: str, args: dict[str, Any]) -> str:
    """One well-formed call in format ``fmt``."""
    call = dumps({"name": name, "arguments": args})
    if fmt == "tool_call":
        return f"[TOOL_CALL]{call}[/TOOL_CALL]"
    if fmt == "tool_call_spaced":
        return f"[TOOL_CALL]\n{call}\n[/TOOL_CALL]"
    if fmt == "hermes":
        return f"<tool_call>\n{call}\n</tool_call>"
    if fmt == "qwen_xml":
        params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in args.items())
        return f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
    if fmt == "mistral_array":
        return f"[TOOL_CALLS][{call}]"
    if fmt == "mistral_args":
        return f"[TOOL_CALLS]{name}[ARGS]{dumps(args)}"
    if fmt == "llama":
        return "<|python_tag|>" + dumps({"name": name, "parameters": args}) + "<|eom_id|>"
    if fmt == "deepseek_v3":
        return (
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
            f"{name}\n```json\n{dumps(args)}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        )
    if fmt == "deepseek_v31":
        return (
            f"<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>{name}<｜tool▁sep｜>{dumps(args)}"
            "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
        )
    if fmt == "fence":
        return "\n```json\n" + dumps({"tool": name, "input": args}) + "\n```\n"
    raise ValueError(fmt)


# Pieces of delimiter soup for the property tests.
TRICKY = '"\\{}[]<>/`|｜▁:,;\n\t abTx'
SNIPPETS = [
    "[TOOL_CALL]",
    "[/TOOL_CALL]",
    "[TOOL_CALLS]",
    "<tool_call>",
    "</tool_call>",
    "<function=Read>",
    "<parameter=file_path>",
    "</parameter>",
    "</function>",
    "<|python_tag|>",
    "<｜tool▁calls▁begin｜>",
    "<｜tool▁call▁begin｜>",
    "<｜tool▁sep｜>",
    "<｜tool▁call▁end｜>",
    "<think>",
    "</think>",
    "[THINK]",
    "[/THINK]",
    "<reasoning>",
    "```",
    "```json\n",
    "```python\n",
    "\n",
    "`",
    "[ARGS]",
    '{"name": "Read", "arguments": {"file_path": "a"}}',
    '{"name": "Nope", "arguments": {}}',
    '{"name": "Read", "arguments": {"a": 1, "a": 2}}',
    "{'name': 'Bash', 'arguments': {'command': 'ls',}}",
    '"',
    "{",
    "}",
    "Read",
    "Some prose. ",
]


FORMATS = (
    "tool_call",
    "tool_call_spaced",
    "hermes",
    "qwen_xml",
    "mistral_array",
    "mistral_args",
    "llama",
    "deepseek_v3",
    "deepseek_v31",
    "fence",
)


def feed_in_pieces(
    text: str,
    cuts: Iterable[int],
    known: Iterable[str] = KNOWN,
    schemas: dict[str, dict[str, Any]] | None = None,
) -> list[StreamEvent]:
    scanner = ToolCallScanner(frozenset(known), schemas)
    events: list[StreamEvent] = []
    start = 0
    for cut in sorted({c for c in cuts if 0 < c < len(text)}):
        events += scanner.feed(text[start:cut])
        start = cut
    events += scanner.feed(text[start:])
    events += scanner.finish()
    return events


def summary(result: ParseResult) -> tuple[Any, ...]:
    """Everything but the generated ids."""
    calls = [(c.name, c.input, c.origin, c.input_error, c.unclosed) for c in result.calls]
    problems = [(p.kind, p.message, p.raw) for p in result.problems]
    return calls, result.text, problems


def parse(text: str, known: Iterable[str] = KNOWN) -> ParseResult:
    return parse_tool_calls(text, frozenset(known), SCHEMAS)


def streamed(text: str, size: int, known: Iterable[str] = KNOWN) -> ParseResult:
    cuts = range(size, len(text), size)
    return collect(feed_in_pieces(text, cuts, known, SCHEMAS))


def calls_of(result: ParseResult) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.input) for c in result.calls]


def kinds(result: ParseResult) -> list[str]:
    return [p.kind for p in result.problems]
