"""Calls a model may have copied out of tool output rather than meant.

A file or a command's output can hold a tool call: a README with a fenced JSON
example, a log of an earlier session, a page written to steer an agent. Small models
repeat what they read, and a repeated call parses like any other. The canonical
delimiters are defused in rescue-mode tool output (``toolcalls.prompt.neutralize``),
but an object cannot be without changing what the model reads. So each tool result is
read once for the calls written in it (once the tools' own framing, such as Read's line
numbers, is taken away; after Grep's file names too): in any format the rescue parser
knows, and as any object anywhere that names a tool and its arguments
(``toolcalls.objects``: JSON, Python or JavaScript literals, nested or not).

A later call that repeats one of them is marked ``copied_from``: permissions then ask
the user before it runs, whatever rule would have allowed it. A repeat need not be
exact. For a tool whose calls are judged by a command or a path (the
``ToolFacts.key_arguments`` on its spec), a call repeats a written one when those
arguments are the same, whatever else it adds or changes (a timeout, a Write's
content); for another tool (an MCP tool), when it has every argument the written one
has, with the same value.
Values are compared without their whitespace, quotes and line continuations, with
JSON's ``\\/`` read as ``/``, and as paths: ``./x`` is ``x``, and a relative path is the
absolute one it ends. Tool names and keys are read in any case.

The reading stays linear and cannot be worn out by padding (thousands of objects or
tags left open before a call): the rescue parser also reads the text from each call
opener its dialects know (``dialect_windows``), and ``toolcalls.objects`` counts its
work. Should a text still exceed its budget, every later call is marked, so that
wearing the scan out only makes nehanda ask.
"""

from __future__ import annotations

import functools
import json
import posixpath
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace
from itertools import pairwise
from typing import Any

from nehanda.providers.prefix import Prefix
from nehanda.types import JsonObject, Message, ToolSpec, ToolUse

# The rescue parser (``toolcalls``, every dialect) loads once tool output is read, not
# before: a native-mode run sends its first request without it.

# Text besides tool output that a model may copy a call from rather than mean it.
_WRITTEN_BY = {
    "system": "the instructions nehanda was given (AGENTS.md)",
    "user": "the user's message",
}
_SLASHES = re.compile(r"/{2,}")
_QUOTES = str.maketrans("", "", "'\"")
# Values nested deeper are compared as their JSON text.
_MAX_DEPTH = 32


class ToolOutputCalls:
    """The calls written in a conversation's tool results, read as results arrive."""

    def __init__(
        self,
        tools: Sequence[ToolSpec],
        plain_output: Callable[[str], str],
    ) -> None:
        """``tools`` and ``plain_output`` are the toolset's (``Toolset``)."""
        self._plain_output = plain_output
        self._tools = tools
        self._names = frozenset(spec.name for spec in tools)
        self._schemas = {spec.name: spec.input_schema for spec in tools}
        self._written = _WrittenCalls({spec.name: spec.facts.key_arguments for spec in tools})
        # Messages taken in but not read yet: reading waits for a call to check, so
        # that the first request goes out without the parser.
        self._unread: list[Message] = []
        self._tool_names: dict[str, str] = {}  # call id -> tool name
        # Only new messages are read: compaction replaces old ones and keeps recent ones.
        self._read_messages: Prefix[Message, None] = Prefix(self._unread.append)
        self._unreadable: str | None = None  # where an output too costly to read was

    def learn(self, tools: Sequence[ToolSpec]) -> None:
        """Takes in the tools offered now (an MCP server joined, ToolSearch loaded some):
        with new ones, every message is read again at the next ``mark``, for their calls."""
        if tools is self._tools:
            return
        self._tools = tools
        new = [spec for spec in tools if spec.name not in self._names]
        if not new:
            return
        self._names |= {spec.name for spec in new}
        self._schemas.update((spec.name, spec.input_schema) for spec in new)
        self._written.know({spec.name: spec.facts.key_arguments for spec in new})
        self._unread.clear()
        self._read_messages = Prefix(self._unread.append)

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
            if (where := self._written.find(call.name, call.input) or self._unreadable)
            else call
            for call in calls
        ]

    def read(self, messages: Sequence[Message]) -> None:
        """Takes in the messages not taken yet; the engine calls it before a compaction too,
        so that calls written in results it replaces are still known."""
        self._read_messages.map(messages)

    def _read_one(self, message: Message) -> None:
        if message.role in _WRITTEN_BY and message.text:
            self._note_calls(message.text, _WRITTEN_BY[message.role])
        self._tool_names.update((use.id, use.name) for use in message.tool_uses)
        for result in message.tool_results:
            name = self._tool_names.get(result.tool_use_id, "")
            where = " ".join(f"the output of an earlier {name} call".split())
            self._note_calls(self._plain_output(result.content), where)

    def _note_calls(self, text: str, where: str) -> None:
        from nehanda.toolcalls.objects import Unreadable

        try:
            for name, arguments in self._calls_in(text):
                self._written.add(name, arguments, where)
        except Unreadable:
            self._unreadable = self._unreadable or (
                f"{where}, which holds too much call-like text to be read for calls"
            )

    def _calls_in(self, text: str) -> Iterator[tuple[str, JsonObject]]:
        from nehanda.toolcalls.objects import Budget, object_calls
        from nehanda.toolcalls.parse import parse_tool_calls

        for window in (text, *dialect_windows(text)):
            for call in parse_tool_calls(window, self._names, self._schemas).calls:
                yield call.name, call.input
        yield from object_calls(text, self._names, Budget(len(text)))


class _WrittenCalls:
    """Calls as written, found again by the arguments that say what a call does.

    A written call is kept as what a repeat must match: its key arguments when it gives
    them all, else every argument it gives. Kept by tool and by the last path part of
    each key argument, a call is found among the few written calls that may match it.
    """

    def __init__(self, key_arguments: Mapping[str, tuple[str, ...]]) -> None:
        """``key_arguments``: each tool's, by name (``ToolFacts.key_arguments``)."""
        self._key_arguments = dict(key_arguments)
        # (tool, last parts of its key arguments, or None) -> wanted, as JSON -> (wanted, where)
        self._kept: dict[tuple[str, tuple[str, ...] | None], dict[str, tuple[Any, str]]] = {}

    def know(self, key_arguments: Mapping[str, tuple[str, ...]]) -> None:
        """More tools' key arguments, by name."""
        self._key_arguments.update(key_arguments)

    def add(self, name: str, arguments: JsonObject, where: str) -> None:
        plain = _plain(arguments)
        keyed, bucket = self._keyed(name, plain)
        wanted = plain if bucket is None else keyed
        kept = self._kept.setdefault((name, bucket), {})
        kept.setdefault(json.dumps(wanted, sort_keys=True), (wanted, where))

    def find(self, name: str, arguments: JsonObject) -> str | None:
        """Where a call ``arguments`` repeats was written, if anywhere."""
        plain = _plain(arguments)
        keyed, bucket = self._keyed(name, plain)
        if bucket is not None and (where := self._match((name, bucket), keyed)):
            return where
        return self._match((name, None), plain)

    def _keyed(self, name: str, plain: Any) -> tuple[Any, tuple[str, ...] | None]:
        """The key arguments compared, and the last path parts they are kept by (None
        when the tool has none, or the call does not give each as a single value)."""
        keys = [key.lower() for key in self._key_arguments.get(name, ())]
        keyed = {key: plain[key] for key in keys if key in plain}
        if not keys or not all(isinstance(keyed.get(key), tuple) for key in keys):
            return keyed, None
        return keyed, tuple(keyed[key][-1] for key in keys)

    def _match(self, bucket: tuple[str, tuple[str, ...] | None], given: Any) -> str | None:
        candidates = self._kept.get(bucket, {}).values()
        # A call written with no arguments is repeated only by one with none.
        return next(
            (
                where
                for wanted, where in candidates
                if (wanted or not given) and _covers(wanted, given)
            ),
            None,
        )


def _plain(value: Any, depth: int = 0) -> Any:
    """``value`` as compared: keys in lower case, each string (or other single value) as
    its path parts, once its whitespace, quotes and line continuations are taken out."""
    if depth < _MAX_DEPTH and isinstance(value, dict):
        return {str(key).lower(): _plain(item, depth + 1) for key, item in value.items()}
    if depth < _MAX_DEPTH and isinstance(value, list):
        return [_plain(item, depth + 1) for item in value]
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    text = "".join(text.replace("\\\n", "").split()).replace("\\/", "/").translate(_QUOTES)
    return tuple(posixpath.normpath(_SLASHES.sub("/", text)).split("/"))


def _covers(wanted: Any, given: Any) -> bool:
    """Whether ``given`` has everything ``wanted`` has (both ``_plain``)."""
    if isinstance(wanted, dict):
        return isinstance(given, dict) and all(
            key in given and _covers(item, given[key]) for key, item in wanted.items()
        )
    if isinstance(wanted, list):
        return (
            isinstance(given, list)
            and len(given) == len(wanted)
            and all(map(_covers, wanted, given))
        )
    return isinstance(given, tuple) and _same_path(wanted, given)


def _same_path(one: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """The same parts, or a relative path (or one from ``~``) that an absolute one ends with."""
    if one == other:
        return True
    short, long = sorted((one, other), key=len)
    if short[0] == "" or long[0] not in ("", "~"):
        return False
    tail = short[1:] if short[0] == "~" else short
    return bool(tail) and long[-len(tail) :] == tail


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
