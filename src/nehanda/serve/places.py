"""How many requests each upstream answers at once, and the answer past that: 429.

A request takes a place at its upstream (by base URL) before it is sent and gives it
back when its answer ends. An upstream has ``limit`` places (``[serve]
max_concurrency``, per worker); a request that finds none is answered at once with a
429 and ``Retry-After``, which the official clients wait for and retry, rather than
waiting in silence behind streams that may last minutes. One event loop takes and
gives, so a count is all ``Places`` needs; ``Ending`` gives a place back once, however
its answer ended, and closes the upstream request.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncGenerator

import anyio

from nehanda.serve.errors import Failure
from nehanda.serve.turn import ServeEvent

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


class Ending:
    """What ends an answer, once, however it ended (even a stream never begun, whose
    client left first): its upstream's place given back, the upstream request closed."""

    def __init__(self, places: Places, upstream: str, events: AsyncGenerator[ServeEvent, None]):
        self._places, self._upstream, self._events = places, upstream, events
        self._ended = False

    async def __call__(self) -> None:
        if self._ended:
            return
        self._ended = True
        self._places.give(self._upstream)
        # A disconnect cancels this task's scope at every await until it ends; shielded,
        # closing the upstream request can finish.
        with anyio.CancelScope(shield=True):
            await self._events.aclose()
