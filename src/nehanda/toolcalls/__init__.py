"""Rescue tool calling: reading tool calls out of model text, in any split.

``parse.parse_tool_calls`` and ``scanner.ToolCallScanner`` are what the engine uses;
``parse.parse_xml_tool_calls`` and ``parse.parse_manual_tool_calls`` are the
specification's two parsers. Everything here is pure: no I/O, and no input makes it raise.
"""
