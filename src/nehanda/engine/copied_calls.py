"""Calls a model may have copied out of tool output rather than meant.

A file or a command's output can hold a tool call: a README with a fenced JSON
example, a log of an earlier session, a page written to steer an agent. Small models
repeat what they read, and a repeated call parses like any other. The canonical
delimiters are defused in rescue-mode tool output (``toolcalls.prompt.neutralize``),
but a JSON object cannot be without changing what the model reads. So each tool
result is read once for the calls written in it: in any format the rescue parser
knows, and as any JSON object anywhere (once the tools' own framing, such as Read's
line numbers, is taken away; after Grep's file names too) that names a tool and its
arguments, in whatever key order, nested or not, with arguments as an object or as a
JSON string. A later call identical to one of them, same tool and same arguments, is
marked ``copied_from``: permissions then ask the user before it runs, whatever rule
would have allowed it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from nehanda.providers.prefix import Prefix
from nehanda.toolcalls import parse_tool_calls
from nehanda.toolcalls.jsonvalue import CLOSED, ValueScanner, decode
from nehanda.types import Message, ToolSpec, ToolUse

_NAME_KEYS = ("name", "tool", "tool_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "input")
Call = tuple[str, Mapping[str, Any]]

# How many times its length a text may cost to scan: objects left open are scanned to
# the end of the text, and a text made of them would otherwise take quadratic time.
_SCAN_BUDGET = 8


class ToolOutputCalls:
    """The calls written in a conversation's tool results, read as results arrive."""

    def __init__(self, tools: Sequence[ToolSpec], plain_output: Callable[[str], str]) -> None:
        """``plain_output`` takes the tools' framing off an output (``Toolset.plain_output``)."""
        self._plain_output = plain_output
        self._names = frozenset(spec.name for spec in tools)
        self._schemas = {spec.name: spec.input_schema for spec in tools}
        self._written: dict[str, str] = {}  # call key -> where it is written
        self._tool_names: dict[str, str] = {}  # call id -> tool name
        # Only new messages are read: compaction replaces old ones and keeps recent ones.
        self._read: Prefix[Message, None] = Prefix(self._read_one)

    def mark(self, calls: Sequence[ToolUse], messages: Sequence[Message]) -> list[ToolUse]:
        """``calls``, each one written in an earlier result of ``messages`` marked so."""
        if not calls:
            return []
        self.read(messages)
        return [
            replace(call, copied_from=where)
            if (where := self._written.get(_key(call.name, call.input)))
            else call
            for call in calls
        ]

    def read(self, messages: Sequence[Message]) -> None:
        """Reads the results not read yet; the engine calls it before a compaction too, so
        that calls written in results it replaces are still known."""
        self._read.map(messages)

    def _read_one(self, message: Message) -> None:
        self._tool_names.update((use.id, use.name) for use in message.tool_uses)
        for result in message.tool_results:
            name = self._tool_names.get(result.tool_use_id, "")
            where = " ".join(f"the output of an earlier {name} call".split())
            for key in self._keys_in(result.content):
                self._written.setdefault(key, where)

    def _keys_in(self, output: str) -> Iterator[str]:
        text = self._plain_output(output)
        for call in parse_tool_calls(text, self._names, self._schemas).calls:
            yield _key(call.name, call.input)
        for name, arguments in json_calls(text, self._names):
            yield _key(name, arguments)


def json_calls(text: str, names: Collection[str]) -> Iterator[Call]:
    """Every call to a tool in ``names`` written as JSON in ``text``, nested or not.

    Each outermost object is found by a structural scan and decoded once; its values
    are searched for objects that name a tool and carry its arguments. An object left
    open is skipped, and scanning goes on from the next brace, within a budget of a
    few times the text's length, which keeps the time linear.
    """
    budget = _SCAN_BUDGET * len(text) + 65536
    position = 0
    while budget > 0 and (start := text.find("{", position)) >= 0:
        status, end = ValueScanner(closers=()).scan(text, start, final=True)
        budget -= end - start
        if status != CLOSED:
            position = start + 1
            continue
        position = end
        yield from _calls_within(decode(text[start:end]), names)


def _calls_within(value: Any, names: Collection[str]) -> Iterator[Call]:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if call := _as_call(item, names):
                yield call
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)


def _as_call(item: Mapping[str, Any], names: Collection[str]) -> Call | None:
    name = next((item[key] for key in _NAME_KEYS if isinstance(item.get(key), str)), "")
    if not isinstance(name, str) or name not in names:
        return None
    arguments = next((item[key] for key in _ARGUMENT_KEYS if key in item), None)
    if isinstance(arguments, str):  # OpenAI's function calls carry their arguments as text
        arguments = decode(arguments)
    return (name, arguments) if isinstance(arguments, dict) else None


def _key(name: str, arguments: Mapping[str, Any]) -> str:
    return json.dumps([name, arguments], sort_keys=True, ensure_ascii=False)
