"""Calls written as objects anywhere in a text: JSON, or Python or JavaScript literals.

Tool output can hold a call a model may copy: a README's JSON example, a Python list of
calls in a test, a log. A call object names a tool (its ``name``, ``tool``, ``tool_name``
or ``function``, quoted either way or bare) and carries its arguments (``arguments``,
``parameters``, ``input`` or ``args``: an object, or text holding one), or holds them
beside the name. Whatever stands around it (values that are no literal, an object left
open, a call or a string it is written in), it is found from the key naming a tool (an
opener) and read on its own (``pythonic.read_object``, which leaves out what it cannot
read).

The text is scanned once for its brackets, strings in either quote skipped. A string
ends on its line, and a quote with no partner on its line is prose, so a stray
apostrophe hides nothing beyond its line; the ``{`` inside strings are noted. An
opener's object starts at one of the ``{`` around it as scanned, or at one noted inside
a string on its line (a call written in a string, or after a stray quote): these are
tried from the nearest out, each read at most once, and the first reading with the
opener among its keys (at any depth) gives its object. The work is counted against a
``Budget``, about linear in the text; past it the text is ``Unreadable``, and the caller
must assume the worst of it.
"""

from __future__ import annotations

import heapq
import re
from bisect import bisect_left, bisect_right
from collections.abc import Collection, Iterator
from typing import Any

from nehanda.toolcalls.pythonic import LooseObject, read_object
from nehanda.toolcalls.shapes import ARG_KEYS, META_KEYS, NAME_KEYS

Call = tuple[str, dict[str, Any]]

_NAMING = "|".join(NAME_KEYS)
_OPENER = re.compile(
    rf"""(?:(["'])(?:{_NAMING})\1|(?<![\w$"'])(?:{_NAMING}))\s*:\s*(["'])([^"'\\\n]{{1,200}})\2""",
    re.I,
)
# An opener inside a string, its quotes escaped: a call in a log's JSON string.
_ESCAPED_OPENER = re.compile(rf"""\\+(["'])(?:{_NAMING})\\+\1\s*:\s*\\+\1""", re.I)
_ESCAPE = re.compile(r"""\\(["'\\/bfnrt])""")
_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}  # the others: themselves
_MAX_ESCAPES = 3  # strings in strings in strings
_OUTSIDE = re.compile(r"""[^"'{}\[\]]*""")
# A string up to its closing quote, which it lacks where the line (or the text) ends first.
_STRING = {q: re.compile(rf"{q}[^{q}\\\n]*(?:\\.[^{q}\\\n]*)*", re.S) for q in "\"'"}
# How many times its length a text may cost to read. Each character is scanned once and
# read as part of an object about once; this guards against a shape nobody has found.
SCAN_BUDGET = 16


class Unreadable(Exception):
    """A text too costly to read for calls."""


class Budget:
    """The work one text may cost: characters scanned or read as objects, and the
    objects tried. ``spend`` raises ``Unreadable`` past it."""

    def __init__(self, text_length: int) -> None:
        self.left = SCAN_BUDGET * text_length + 65536
        self.spent = 0

    def spend(self, amount: int) -> None:
        self.spent += amount
        if self.spent > self.left:
            raise Unreadable


def object_calls(text: str, names: Collection[str], budget: Budget) -> Iterator[Call]:
    """Every call to a tool in ``names`` written as an object in ``text``, nested or not,
    in strings with their quotes escaped or not; names and keys in any case.

    A text with no opener naming one of the tools holds no call and is not scanned.
    """
    return _calls(text, {name.lower(): name for name in names}, budget, _MAX_ESCAPES)


def _calls(text: str, tools: dict[str, str], budget: Budget, escapes: int) -> Iterator[Call]:
    openers = [m.start() for m in _OPENER.finditer(text) if m.group(3).lower() in tools]
    found: set[int] = set()
    for owner in _Owners(text, budget).find(openers) if openers else ():
        if id(owner) not in found:
            found.add(id(owner))
            if call := _as_call(owner, tools, budget):
                yield call
    if escapes and _ESCAPED_OPENER.search(text):
        budget.spend(len(text))
        unescaped = _ESCAPE.sub(lambda m: _ESCAPED.get(m.group(1), m.group(1)), text)
        yield from _calls(unescaped, tools, budget, escapes - 1)


class _Owners:
    """The objects the openers are keys of, found among the text's brackets."""

    def __init__(self, text: str, budget: Budget) -> None:
        self.text, self.budget = text, budget
        self.ends, self.quoted = _scan(text, budget)
        self.lines = [m.start() for m in re.finditer("\n", text)]
        self.read: dict[int, LooseObject] = {}
        self.keys: dict[int, dict[str, Any]] = {}  # every key read: where, and its object

    def find(self, openers: list[int]) -> Iterator[dict[str, Any]]:
        """For each opener, the object it is a key of."""
        size, ends = len(self.text), self.ends
        starts = iter(sorted(ends))
        upcoming = next(starts, None)
        around: list[int] = []  # brackets begun before the opener, the innermost last
        for opener in openers:
            while upcoming is not None and upcoming < opener:
                around.append(upcoming)
                upcoming = next(starts, None)
            while around and _end(ends[around[-1]], size) <= opener:
                around.pop()
            owner = self.keys.get(opener)
            yield self._owner(opener, reversed(around)) if owner is None else owner

    def _owner(self, opener: int, around: Iterator[int]) -> dict[str, Any]:
        """The object ``opener`` is a key of in the first reading that has it as one, from
        the nearest candidate out: the brackets around it and the ``{`` in strings on its
        line, up to the first bracket whose reading reaches past it (a reading from further
        out reads it alike). Failing that, the entries from the opener on its line, as if
        a ``{`` stood before it (a word no reading gets past may stand before the key)."""
        size, ends = len(self.text), self.ends
        scanned = ((start, True) for start in around if _end(ends[start], size) > opener)
        for start, was_scanned in heapq.merge(
            scanned, self._quoted_before(opener), key=lambda c: c[0], reverse=True
        ):
            self.budget.spend(1)
            if self.text[start] != "{":
                continue
            read = self._read(start, _end(ends[start], size) if was_scanned else None)
            if opener in read.keys:
                return read.keys[opener]
            if was_scanned and read.reached > opener:
                break
        entries = read_object(self.text, opener, self._line_end(opener), opened=True)
        assert entries is not None
        self.budget.spend(entries.reached - opener)
        return entries.value

    def _quoted_before(self, opener: int) -> Iterator[tuple[int, bool]]:
        """The ``{`` inside strings on the opener's line before it, nearest first."""
        before = bisect_left(self.lines, opener)
        line = self.lines[before - 1] + 1 if before else 0
        first, last = bisect_left(self.quoted, line), bisect_left(self.quoted, opener)
        return ((self.quoted[i], False) for i in range(last - 1, first - 1, -1))

    def _read(self, start: int, end: int | None) -> LooseObject:
        """The object at ``start``, read up to ``end`` (None: the end of its line)."""
        if start not in self.read:
            read = read_object(self.text, start, self._line_end(start) if end is None else end)
            assert read is not None  # a "{" starts it
            self.budget.spend(read.reached - start)
            self.read[start] = read
            self.keys.update(read.keys)
        return self.read[start]

    def _line_end(self, position: int) -> int:
        after = bisect_right(self.lines, position)
        return self.lines[after] if after < len(self.lines) else len(self.text)


def _scan(text: str, budget: Budget) -> tuple[dict[int, int], list[int]]:
    """Where each bracket outside strings ends (-1: never), and the ``{`` inside strings."""
    ends: dict[int, int] = {}
    quoted: list[int] = []
    stack: list[int] = []
    # Up to where a quote has no partner: one that found none before its line's end
    # leaves none for a later one before it (both read the text after them alike).
    alone = {'"': -1, "'": -1}
    position, size = 0, len(text)
    while (position := _OUTSIDE.match(text, position).end()) < size:  # type: ignore[union-attr]
        char = text[position]
        if char in "\"'":
            if position < alone[char]:
                position += 1
                continue
            end = _STRING[char].match(text, position).end()  # type: ignore[union-attr]
            if not text.startswith(char, end):  # no partner on its line: prose
                alone[char] = end
                position += 1
                continue
            brace = text.find("{", position, end)
            while brace >= 0:
                quoted.append(brace)
                brace = text.find("{", brace + 1, end)
            position = end + 1
            continue
        if char in "{[":
            stack.append(position)
        elif stack:
            ends[stack.pop()] = position + 1
        position += 1
    for opened in stack:
        ends[opened] = -1
    budget.spend(size)
    return ends, quoted


def _end(end: int, size: int) -> int:
    return size if end < 0 else end


def _as_call(obj: dict[str, Any], tools: dict[str, str], budget: Budget) -> Call | None:
    """The call ``obj`` is, if it names one of ``tools`` (by its name in lower case)."""
    keyed = {key.lower(): value for key, value in obj.items()}
    name = next(
        (
            tools[value.lower()]
            for key in NAME_KEYS
            if isinstance(value := keyed.get(key), str) and value.lower() in tools
        ),
        None,
    )
    if name is None:
        return None
    key = next((key for key in ARG_KEYS if key in keyed), None)
    if key is None:
        beside = {k: v for k, v in obj.items() if k.lower() not in (*NAME_KEYS, *META_KEYS)}
        return (name, beside) if beside else None
    arguments = keyed[key]
    if isinstance(arguments, str):  # OpenAI's function calls carry their arguments as text
        budget.spend(len(arguments))
        written = read_object(arguments)
        arguments = written.value if written else None
    return (name, arguments) if isinstance(arguments, dict) else None
