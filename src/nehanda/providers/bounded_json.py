"""JSON from a server or a client, parsed with its nesting bounded.

``json.loads`` meets a document nested a thousand levels deep with a ``RecursionError``,
which no caller expects, and one a little shallower still overflows the recursive code
that reads it next (schemas rendered, arguments encoded again). ``loads`` refuses nesting
deeper than ``MAX_DEPTH`` with ``TooDeep``, a ``json.JSONDecodeError``, so that whatever a
caller does with JSON it cannot read, it does with this too.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 128  # far beyond any request, chunk or tool schema seen; far below the stack


class TooDeep(json.JSONDecodeError):
    """Arrays and objects nested deeper than the bound."""


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads(text)``, or ``TooDeep`` for nesting deeper than ``max_depth``."""
    problem = f"nested deeper than {max_depth} levels of arrays and objects"
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep(problem, "", 0) from None
    if _openings(text) > max_depth and _deeper(value, max_depth):
        raise TooDeep(problem, "", 0)
    return value


def _openings(text: str | bytes) -> int:
    """How many arrays and objects ``text`` could open at most (strings may hold some)."""
    if isinstance(text, bytes):
        return text.count(b"[") + text.count(b"{")
    return text.count("[") + text.count("{")


def _deeper(value: Any, max_depth: int) -> bool:
    stack = [(value, 1)] if isinstance(value, dict | list) else []
    while stack:
        item, depth = stack.pop()
        if depth > max_depth:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack += [(child, depth + 1) for child in children if isinstance(child, dict | list)]
    return False
