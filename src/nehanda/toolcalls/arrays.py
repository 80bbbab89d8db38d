"""A JSON array of calls read from a finished text, telling a cut value from a missing ``]``.

``read_array`` tells a value cut off by the end of the output (truncated) from one
whose items are all complete and only the final ``]`` is missing (Mistral's
``[TOOL_CALLS][{...}`` at the very end, Apertus without its suffix): those calls are
whole and run, marked repaired. ``complete_items`` is the check itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from nehanda.toolcalls.jsonvalue import CLOSED, DECODER, Failure, ValueScanner, decode
from nehanda.toolcalls.rawargs import truncated
from nehanda.toolcalls.repair import Repaired, repair
from nehanda.toolcalls.shapes import Found, failure_found

_WS = re.compile(r"\s*")
_ITEM_SEP = re.compile(r"\s*(,)?\s*")

Shape = Callable[[Any], list[Found] | None]


@dataclass(frozen=True)
class ArrayRead:
    """What ``read_array`` found: the calls (or problems) and where the value ended."""

    found: list[Found] | None
    end: int


def complete_items(text: str, start: int) -> tuple[list[Any], int] | None:
    """The items of an array that starts at ``start`` and is open at the end of ``text``.

    Returns them when every item is a complete value and nothing but whitespace (or
    one trailing comma) follows the last one; None otherwise. Each item is decoded
    once, so the work is linear in the text.
    """
    pos = _WS.match(text, start + 1).end()  # type: ignore[union-attr]
    items: list[Any] = []
    n = len(text)
    while pos < n:
        if text[pos] not in "{[":
            return None
        try:
            item, pos = DECODER.raw_decode(text, pos)
        except (ValueError, RecursionError):
            return None
        items.append(item)
        m = _ITEM_SEP.match(text, pos)
        assert m is not None
        pos = m.end()
        if m.group(1) is None:
            break
    if pos < n or not items:
        return None
    return items, n


def read_array(
    text: str,
    start: int,
    known: Collection[str] | None,
    shape: Shape,
    *,
    name_of: Callable[[str], str | None],
) -> ArrayRead:
    """Read the JSON array at ``text[start]`` (which must be ``[``) into calls.

    ``shape`` turns the decoded list into calls (None: not calls). A value cut off
    by the end of ``text`` is a truncated call (``name_of`` sniffs its tool name from
    the text), unless all its items are complete and only the closing bracket is
    missing. Malformed JSON gets the block repairs; duplicate keys are a problem.
    """
    status, end = ValueScanner(()).scan(text, start, True)
    if status != CLOSED:
        items = complete_items(text, start)
        if items is None:
            return ArrayRead([truncated(name_of(text[start:]))], len(text))
        found = shape(items[0])
        if found:
            for call in found:
                if call.problem is None:
                    call.repaired = ("a missing closing bracket",)
        return ArrayRead(found, items[1])
    body = text[start:end]
    value = decode(body)
    if not isinstance(value, Failure):
        return ArrayRead(shape(value), end)
    if value.kind == "duplicate_key" or not value.repairable:
        return ArrayRead([failure_found(name_of(body), value)], end)
    fixed = repair(body)
    if isinstance(fixed, Repaired):
        found = shape(fixed.value)
        if found:
            for call in found:
                if call.problem is None:
                    call.repaired = fixed.notes
            return ArrayRead(found, end)
        return ArrayRead(found, end)
    return ArrayRead([failure_found(name_of(body), fixed)], end)
