"""Calls a model may have copied out of tool output rather than meant.

A file or a command's output can hold a tool call: a README with a fenced JSON
example, a log of an earlier session, a page written to steer an agent. Small models
repeat what they read, and a repeated call parses like any other. The canonical
delimiters are defused in rescue-mode tool output (``toolcalls.prompt.neutralize``),
but a JSON object cannot be without changing what the model reads. So each tool
result is read once for the calls written in it, in any format the rescue parser
knows or as a JSON object anywhere (after Read's line numbers or Grep's file names),
and a later call identical to one of them, same tool and same arguments, is marked
``copied_from``: permissions then ask the user before it runs, whatever rule would
have allowed it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from nehanda.toolcalls import parse_tool_calls
from nehanda.toolcalls.jsonvalue import CLOSED, ValueScanner, decode
from nehanda.types import Message, ToolSpec, ToolUse

_LINE_NUMBERS = re.compile(r"(?m)^ *\d+\t")  # Read's gutter, which splits a multi-line object
_OBJECT_NAMING_A_TOOL = re.compile(r'\{\s*"(?:name|tool)"\s*:\s*"')
_ARGUMENT_KEYS = ("arguments", "parameters", "input")


class ToolOutputCalls:
    """The calls written in a conversation's tool results, read as results arrive."""

    def __init__(self, tools: Sequence[ToolSpec]) -> None:
        self._names = frozenset(spec.name for spec in tools)
        self._schemas = {spec.name: spec.input_schema for spec in tools}
        self._written: dict[str, str] = {}  # call key -> where it is written
        self._read: set[str] = set()  # ids of the results read so far

    def mark(self, calls: Sequence[ToolUse], messages: Sequence[Message]) -> list[ToolUse]:
        """``calls``, each one written in an earlier result of ``messages`` marked so."""
        if not calls:
            return []
        self._read_results(messages)
        return [
            replace(call, copied_from=where)
            if (where := self._written.get(_key(call.name, call.input)))
            else call
            for call in calls
        ]

    def _read_results(self, messages: Sequence[Message]) -> None:
        tool_names: dict[str, str] = {}
        for message in messages:
            tool_names.update((use.id, use.name) for use in message.tool_uses)
            for result in message.tool_results:
                if result.tool_use_id in self._read:
                    continue
                self._read.add(result.tool_use_id)
                where = f"the output of an earlier {tool_names.get(result.tool_use_id, '')} call"
                for key in self._keys_in(result.content):
                    self._written.setdefault(key, " ".join(where.split()))

    def _keys_in(self, output: str) -> Iterator[str]:
        text = _LINE_NUMBERS.sub("", output)
        for call in parse_tool_calls(text, self._names, self._schemas).calls:
            yield _key(call.name, call.input)
        for name, arguments in json_calls(text, self._names):
            yield _key(name, arguments)


def json_calls(text: str, names: Collection[str]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Every JSON object in ``text`` that names a tool in ``names``, with its arguments.

    Linear: the structural scan finds where an object ends before anything decodes
    it, and the search resumes after it, so no character is read twice. An object
    nested in one that names a tool, or in one left open, is not looked at.
    """
    position = 0
    while match := _OBJECT_NAMING_A_TOOL.search(text, position):
        status, end = ValueScanner(closers=()).scan(text, match.start(), final=True)
        if status != CLOSED:
            return
        position = end
        value = decode(text[match.start() : end])
        if not isinstance(value, dict):
            continue
        name = value.get("name", value.get("tool"))
        arguments = next((value[k] for k in _ARGUMENT_KEYS if k in value), None)
        if isinstance(name, str) and name in names and isinstance(arguments, dict):
            yield name, arguments


def _key(name: str, arguments: Mapping[str, Any]) -> str:
    return json.dumps([name, arguments], sort_keys=True, ensure_ascii=False)
