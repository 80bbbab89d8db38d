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

The reading stays linear and cannot be worn out by padding (thousands of objects or
tags left open before a call): the rescue parser also reads the text from each call
opener its dialects know (``dialect_windows``), JSON is decoded only where a tool is
named, and brackets are matched in one pass. Should a text still exceed the budget,
every later call is marked, so that wearing the scan out only makes nehanda ask.
"""

from __future__ import annotations

import functools
import json
import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any

from nehanda.providers.prefix import Prefix
from nehanda.types import Message, ToolSpec, ToolUse

# The rescue parser (``toolcalls``, every dialect) loads once tool output is read, not
# before: a native-mode run sends its first request without it.

_NAME_KEYS = ("name", "tool", "tool_name")
_ARGUMENT_KEYS = ("arguments", "parameters", "input")
Call = tuple[str, Mapping[str, Any]]

# The string bodies and the text between brackets, as ``toolcalls.jsonvalue`` scans them.
_OUTSIDE = re.compile(r'[^"{}\[\]]*')
_STRING_BODY = re.compile(r'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_BRACKET = re.compile(r"[{\[]")
_NAME_KEY = re.compile(r'"(?:name|tool|tool_name)"\s*:\s*"([^"\\]{1,200})"')
# How many times its length a text may cost to scan. The scan is linear (each stretch of
# text is walked once per way of reading its quotes, and there are two); this only
# guards against a shape nobody has found. A text past it is unreadable, and then every
# later call asks: wearing the scan out can only make nehanda ask more.
_SCAN_BUDGET = 16


# Text besides tool output that a model may copy a call from rather than mean it.
_WRITTEN_BY = {
    "system": "the instructions nehanda was given (AGENTS.md)",
    "user": "the user's message",
}


class Unreadable(Exception):
    """A tool output too costly to read for calls."""


class ToolOutputCalls:
    """The calls written in a conversation's tool results, read as results arrive."""

    def __init__(self, tools: Sequence[ToolSpec], plain_output: Callable[[str], str]) -> None:
        """``plain_output`` takes the tools' framing off an output (``Toolset.plain_output``)."""
        self._plain_output = plain_output
        self._names = frozenset(spec.name for spec in tools)
        self._schemas = {spec.name: spec.input_schema for spec in tools}
        self._written: dict[str, str] = {}  # call key -> where it is written
        # Messages taken in but not read yet: reading waits for a call to check, so
        # that the first request goes out without the parser.
        self._unread: list[Message] = []
        self._tool_names: dict[str, str] = {}  # call id -> tool name
        # Only new messages are read: compaction replaces old ones and keeps recent ones.
        self._read_messages: Prefix[Message, None] = Prefix(self._unread.append)
        self._unreadable: str | None = None  # where an output too costly to read was

    def mark(self, calls: Sequence[ToolUse], messages: Sequence[Message]) -> list[ToolUse]:
        """``calls``, each one written in an earlier result of ``messages`` marked so."""
        if not calls:
            return []
        self.read(messages)
        for message in self._unread:
            self._read_one(message)
        self._unread.clear()
        return [
            replace(call, copied_from=where)
            if (where := self._written.get(_key(call.name, call.input)) or self._unreadable)
            else call
            for call in calls
        ]

    def read(self, messages: Sequence[Message]) -> None:
        """Takes in the messages not taken yet; the engine calls it before a compaction too,
        so that calls written in results it replaces are still known."""
        self._read_messages.map(messages)

    def _read_one(self, message: Message) -> None:
        if message.role in _WRITTEN_BY and message.text:
            self._note_calls(message.text, _WRITTEN_BY[message.role], plain=True)
        self._tool_names.update((use.id, use.name) for use in message.tool_uses)
        for result in message.tool_results:
            name = self._tool_names.get(result.tool_use_id, "")
            where = " ".join(f"the output of an earlier {name} call".split())
            self._note_calls(result.content, where, plain=False)

    def _note_calls(self, content: str, where: str, *, plain: bool) -> None:
        try:
            for key in self._keys_in(content if plain else self._plain_output(content)):
                self._written.setdefault(key, where)
        except Unreadable:
            self._unreadable = self._unreadable or (
                f"{where}, which holds too much call-like text to be read for calls"
            )

    def _keys_in(self, text: str) -> Iterator[str]:
        from nehanda.toolcalls.parse import parse_tool_calls

        for window in (text, *dialect_windows(text)):
            for call in parse_tool_calls(window, self._names, self._schemas).calls:
                yield _key(call.name, call.input)
        for name, arguments in json_calls(text, self._names):
            yield _key(name, arguments)


def dialect_windows(text: str) -> list[str]:
    """The text from each call opener any dialect knows to the next one.

    Read as a whole, a text can hide a call behind something left open before it (a
    JSON value never closed swallows the rest); each window starts afresh at an opener,
    and the windows share no text, so reading them all stays linear.
    """
    starts = [match.start() for match in _openers().finditer(text)]
    return [text[start:end] for start, end in pairwise([*starts, len(text)])]


@functools.cache
def _openers() -> re.Pattern[str]:
    from nehanda.toolcalls.registry import FULL, grammar

    found = grammar(FULL)
    words = sorted({*found.blocks, *found.sections}, key=len, reverse=True)
    return re.compile("|".join(re.escape(word) for word in words))


def json_calls(text: str, names: Collection[str]) -> Iterator[Call]:
    """Every call to a tool in ``names`` written as JSON in ``text``, nested or not.

    The openers come first: a text naming none of the tools as a ``"name"`` (``"tool"``,
    ``"tool_name"``) holds no call and is not scanned. Otherwise the brackets are matched
    once, over the whole text (``_bracket_ends``), and each outermost closed object that
    holds an opener is decoded once; its values are searched for objects that name a
    tool and carry its arguments. ``Unreadable`` if the text is past the budget.
    """
    openers = [m.start() for m in _NAME_KEY.finditer(text) if m.group(1) in names]
    if not openers:
        return
    ends = _bracket_ends(text)
    position = 0
    while (start := text.find("{", position, openers[-1])) >= 0:
        end = ends.get(start, -1)
        if end < 0:
            position = start + 1
            continue
        position = end
        if bisect_left(openers, start) < bisect_left(openers, end):
            yield from _calls_within(_decode(text[start:end]), names)


def _bracket_ends(text: str) -> dict[int, int]:
    """For each ``{`` or ``[`` read as structure, where its value ends (-1: never).

    A scan from a bracket knows the end of every bracket it meets outside a string. A
    bracket it met inside one (a stray quote in prose) is scanned afresh; where that scan
    meets a bracket already known, the two read the text alike from there on, so it
    skips the known value, and stops once nothing of its own is left open.
    """
    ends: dict[int, int] = {}
    budget = _SCAN_BUDGET * len(text) + 65536
    for bracket in _BRACKET.finditer(text):
        if bracket.start() not in ends:
            budget -= _scan(text, bracket.start(), ends)
            if budget < 0:
                raise Unreadable
    return ends


def _scan(text: str, position: int, ends: dict[int, int]) -> int:
    """Scan from the bracket at ``position``, filling ``ends``; returns the length walked."""
    stack: list[int] = []
    begin, size = position, len(text)
    while position < size:
        position = _OUTSIDE.match(text, position).end()  # type: ignore[union-attr]
        if position >= size:
            break
        char = text[position]
        if char == '"':
            position = _STRING_BODY.match(text, position + 1).end() + 1  # type: ignore[union-attr]
            continue
        if char in "{[":
            known = ends.get(position)
            if known is not None and known < 0:
                break  # it never closes, so neither does anything open around it
            if known is not None and not stack:
                break
            if known is not None:
                position = known
                continue
            stack.append(position)
        elif stack:
            ends[stack.pop()] = position + 1
        position += 1
    for opened in stack:
        ends[opened] = -1
    return position - begin


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
        arguments = _decode(arguments)
    return (name, arguments) if isinstance(arguments, dict) else None


def _decode(text: str) -> Any:
    from nehanda.toolcalls.jsonvalue import decode

    return decode(text)


def _key(name: str, arguments: Mapping[str, Any]) -> str:
    return json.dumps([name, arguments], sort_keys=True, ensure_ascii=False)
