"""Whole-text entry points: the engine's ``parse_tool_calls`` and the spec's two parsers.

Each runs the streaming scanner over the complete text once, so a complete text
and the same text streamed in any split always agree.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from nehanda.events import StreamEvent, TextDelta, ToolCallProblem, ToolUseEnd
from nehanda.toolcalls.fastpath import parse_simple
from nehanda.toolcalls.registry import FULL, SPEC_MANUAL, SPEC_XML, Profile
from nehanda.toolcalls.scanner import ToolCallScanner
from nehanda.types import ToolUse


@dataclass(frozen=True)
class ParseResult:
    """Calls in order of appearance, the prose the user should see, and what was dropped."""

    calls: list[ToolUse]
    text: str
    problems: list[ToolCallProblem]


def collect(events: list[StreamEvent]) -> ParseResult:
    """Fold a scanner's events into a ``ParseResult``."""
    calls: list[ToolUse] = []
    text: list[str] = []
    problems: list[ToolCallProblem] = []
    for event in events:
        if isinstance(event, TextDelta):
            text.append(event.text)
        elif isinstance(event, ToolUseEnd):
            calls.append(event.tool_use)
        elif isinstance(event, ToolCallProblem):
            problems.append(event)
    return ParseResult(calls, "".join(text), problems)


def _scan(
    text: str,
    known: Collection[str] | None,
    schemas: Mapping[str, Mapping[str, Any]] | None,
    profile: Profile,
) -> ParseResult:
    scanner = ToolCallScanner(known, schemas, profile=profile)
    events = scanner.feed(text)
    events += scanner.finish()
    return collect(events)


def parse_tool_calls(
    text: str,
    known_tools: Collection[str],
    schemas: Mapping[str, Mapping[str, Any]] | None = None,
) -> ParseResult:
    """Every call in ``text`` in any format the rescue path accepts; see ``scanner``.

    ``schemas`` maps a tool name to its input JSON Schema, used to type values from
    formats that carry only text (Qwen3-Coder XML).
    """
    known = known_tools if type(known_tools) in (set, frozenset) else frozenset(known_tools)
    simple = parse_simple(text, known)
    if simple is not None:
        return ParseResult(simple[0], simple[1], [])
    return _scan(text, known, schemas, FULL)


def parse_xml_tool_calls(text: str, known_tool_names: Collection[str]) -> list[ToolUse]:
    """The specification's parser: ``[TOOL_CALL]...[/TOOL_CALL]`` blocks only.

    Finds the blocks, extracts their JSON, strips leaked ``<arguments>`` and
    ``<tool_call>`` tags, repairs the ``{"ToolName", "arguments": {...}}`` shorthand,
    keeps only known tool names and returns the calls.
    """
    return _scan(text, known_tool_names, None, SPEC_XML).calls


def parse_manual_tool_calls(text: str) -> list[ToolUse]:
    """The specification's fallback: calls in fenced ``json`` blocks, any tool name.

    A block holds ``{"tool": ..., "input": {...}}`` (or the other key spellings
    ``parse_tool_calls`` understands); fences holding anything else are ignored.
    """
    return _scan(text, None, None, SPEC_MANUAL).calls
