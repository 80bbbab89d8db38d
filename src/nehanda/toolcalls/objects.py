"""Calls written as objects anywhere in a text: JSON, or Python or JavaScript literals.

Tool output can hold a call a model may copy: a README's JSON example, a Python list of
calls in a test, a log. A call object names a tool (its ``name``, ``tool``, ``tool_name``
or ``function``, quoted either way or bare) and carries its arguments (``arguments``,
``parameters``, ``input`` or ``args``: an object, or text holding one), or holds them
beside the name. Whatever stands around it (values that are no literal, an object left
open, a call or a string it is written in), it is read on its own, from the key naming
a tool (an opener) to the object that key belongs to.

Brackets are matched once over the whole text, strings in either quote skipped (a string
ends at its line's end at the latest, so that a stray apostrophe in prose leaves the next
line alone). A bracket met inside a string is matched afresh from itself, since the quote
may have been prose; so an opener may lie inside several objects, as the text is read one
way or another. From the innermost out, the first whose own keys include the opener is
its object, read once (``pythonic.read_object``, which leaves out what it cannot read).
The work is counted against a ``Budget``, about linear in the text; past it the text is
``Unreadable``, and the caller must assume the worst of it.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterator
from itertools import pairwise
from typing import Any

from nehanda.toolcalls.pythonic import LooseObject, read_object
from nehanda.toolcalls.shapes import ARG_KEYS, META_KEYS, NAME_KEYS

Call = tuple[str, dict[str, Any]]

_NAMING = "|".join(NAME_KEYS)
_OPENER = re.compile(
    rf"""(?:(["'])(?:{_NAMING})\1|(?<![\w$"'])(?:{_NAMING}))\s*:\s*(["'])([^"'\\\n]{{1,200}})\2"""
)
_BRACKET = re.compile(r"[{\[]")
_OUTSIDE = re.compile(r"""[^"'{}\[\]]*""")
_STRING = {q: re.compile(rf"{q}[^{q}\\\n]*(?:\\.[^{q}\\\n]*)*{q}?", re.S) for q in "\"'"}
# How many times its length a text may cost to read. The scan walks each stretch of text
# once per way of reading its quotes, and each object is read once; this guards against
# a shape nobody has found.
SCAN_BUDGET = 16
_NOTHING = LooseObject({}, frozenset())


class Unreadable(Exception):
    """A text too costly to read for calls."""


class Budget:
    """The work one text may cost: characters walked by the bracket scan or read as
    objects, and enclosing objects tried. ``spend`` raises ``Unreadable`` past it."""

    def __init__(self, text_length: int) -> None:
        self.left = SCAN_BUDGET * text_length + 65536
        self.spent = 0

    def spend(self, amount: int) -> None:
        self.spent += amount
        if self.spent > self.left:
            raise Unreadable


def object_calls(text: str, names: Collection[str], budget: Budget) -> Iterator[Call]:
    """Every call to a tool in ``names`` written as an object in ``text``, nested or not.

    A text with no opener naming one of the tools holds no call and is not scanned.
    """
    openers = [m.start() for m in _OPENER.finditer(text) if m.group(3) in names]
    if not openers:
        return
    objects = _Objects(text, _bracket_ends(text, budget), budget)
    for start in objects.owners(openers):
        if call := _as_call(objects.at(start).value, names, budget):
            yield call


class _Objects:
    """The text's objects, each read once, when first asked for."""

    def __init__(self, text: str, ends: dict[int, int], budget: Budget) -> None:
        self.text, self.ends, self.budget = text, ends, budget
        # An object left open is read up to the next one left open, not to the text's end.
        unclosed = sorted(start for start, end in ends.items() if end < 0)
        self.cut_at = dict(pairwise([*unclosed, len(text)]))
        self.read: dict[int, LooseObject] = {}

    def at(self, start: int) -> LooseObject:
        if start not in self.read:
            end = self.ends[start] if self.ends[start] >= 0 else self.cut_at[start]
            self.budget.spend(end - start)
            self.read[start] = read_object(self.text[start:end]) or _NOTHING
        return self.read[start]

    def owners(self, openers: list[int]) -> Iterator[int]:
        """Where the object each opener is a key of starts, each start once."""
        size, ends = len(self.text), self.ends
        starts = iter(sorted(ends))
        upcoming = next(starts, None)
        around: list[int] = []  # brackets begun before the opener; the innermost last
        owned: set[int] = set()
        for opener in openers:
            while upcoming is not None and upcoming < opener:
                around.append(upcoming)
                upcoming = next(starts, None)
            while around and _end(ends[around[-1]], size) <= opener:
                around.pop()
            for start in reversed(around):
                self.budget.spend(1)
                if self.text[start] != "{" or _end(ends[start], size) <= opener:
                    continue
                if opener - start in self.at(start).keys:
                    if start not in owned:
                        owned.add(start)
                        yield start
                    break


def _end(end: int, size: int) -> int:
    return size if end < 0 else end


def _as_call(obj: dict[str, Any], names: Collection[str], budget: Budget) -> Call | None:
    name = next(
        (obj[key] for key in NAME_KEYS if isinstance(obj.get(key), str) and obj[key] in names),
        None,
    )
    if name is None:
        return None
    key = next((key for key in ARG_KEYS if key in obj), None)
    if key is None:
        beside = {k: v for k, v in obj.items() if k not in NAME_KEYS and k not in META_KEYS}
        return (name, beside) if beside else None
    arguments = obj[key]
    if isinstance(arguments, str):  # OpenAI's function calls carry their arguments as text
        budget.spend(len(arguments))
        written = read_object(arguments)
        arguments = written.value if written else None
    return (name, arguments) if isinstance(arguments, dict) else None


def _bracket_ends(text: str, budget: Budget) -> dict[int, int]:
    """For each ``{`` or ``[``, where its value ends (-1: never), as a scan from it reads it.

    A scan from a bracket knows the end of every bracket it meets outside a string. A
    bracket it met inside one (a stray quote in prose) is scanned afresh; where that scan
    meets a bracket already known, the two read the text alike from there on, so it
    skips the known value, and stops once nothing of its own is left open.
    """
    ends: dict[int, int] = {}
    for bracket in _BRACKET.finditer(text):
        if bracket.start() not in ends:
            budget.spend(_scan(text, bracket.start(), ends))
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
        if char in "\"'":
            position = _STRING[char].match(text, position).end()  # type: ignore[union-attr]
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
