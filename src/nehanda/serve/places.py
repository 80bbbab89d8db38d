"""How many requests each upstream answers at once, and the answer past that: 429.

A request takes a place at its upstream (by base URL) before it is sent and gives it
back when its answer ends. An upstream has ``limit`` places (``[serve]
max_concurrency``, per worker); a request that finds none is answered at once with a
429 and ``Retry-After``, which the official clients wait for and retry, rather than
waiting in silence behind streams that may last minutes. Sans I/O: one event loop
takes and gives, so a count is all it needs.
"""

from __future__ import annotations

from collections import Counter

from nehanda.serve.errors import Failure

RETRY_AFTER = 1  # seconds: a client's retry lands after a stream or two have ended


class Busy(Exception):
    """Every place at this upstream is taken; ``failure`` is the 429 to answer."""

    def __init__(self, upstream: str, limit: int) -> None:
        super().__init__(upstream)
        message = (
            f"nehanda serve is already answering {limit} requests to {upstream}, its "
            f"limit ([serve] max_concurrency); retry after {RETRY_AFTER} s"
        )
        self.failure = Failure(429, "rate_limit_error", message)


class Places:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._taken: Counter[str] = Counter()

    def take(self, upstream: str, shown: str) -> None:
        """A place at ``upstream``, or ``Busy`` (``shown`` names it in the message)."""
        if self._taken[upstream] >= self.limit:
            raise Busy(shown, self.limit)
        self._taken[upstream] += 1

    def give(self, upstream: str) -> None:
        self._taken[upstream] -= 1
        if self._taken[upstream] <= 0:
            del self._taken[upstream]
