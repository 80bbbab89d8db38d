"""Rescue tool calling: reading tool calls out of model text, in any split.

``parse_tool_calls`` and ``ToolCallScanner`` are what the engine uses;
``parse_xml_tool_calls`` and ``parse_manual_tool_calls`` are the specification's
two parsers. Everything here is pure: no I/O, and no input makes it raise.
"""

from nehanda.toolcalls.parse import (
    ParseResult,
    parse_manual_tool_calls,
    parse_tool_calls,
    parse_xml_tool_calls,
)
from nehanda.toolcalls.scanner import ToolCallScanner

__all__ = [
    "ParseResult",
    "ToolCallScanner",
    "parse_manual_tool_calls",
    "parse_tool_calls",
    "parse_xml_tool_calls",
]
