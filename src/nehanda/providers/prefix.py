"""``Prefix``: per-item results for a list that grows at its end, computed once per item.

A conversation is sent again with every request; only its last few messages are new
(in rescue mode the last one also changes, as the directive moves). Results for the
longest stretch at the start that holds the very same objects as last time are reused;
the check is one C-level identity comparison per item, so a request costs a pass over
pointers, not over text. Anything else (a compaction that rewrote the middle) shortens
the reused stretch to what is still the same.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
_LOOK_BACK = 3  # how many changed items at the end are tried before starting over


class Prefix(Generic[Item, Result]):
    def __init__(self, step: Callable[[Item], Result]) -> None:
        self._step = step
        self._items: list[Item] = []
        self._results: list[Result] = []

    def map(self, items: Sequence[Item]) -> list[Result]:
        keep = self._same_start(items)
        results = self._results[:keep]
        results.extend(self._step(item) for item in items[keep:])
        self._items, self._results = list(items), results
        return results

    def _same_start(self, items: Sequence[Item]) -> int:
        longest = min(len(self._items), len(items))
        for keep in range(longest, max(longest - _LOOK_BACK, 0) - 1, -1):
            if all(map(operator.is_, self._items[:keep], items[:keep])):
                return keep
        return 0
