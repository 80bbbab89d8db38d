"""Waiting for what a child process or a server thread makes happen: for as long as it
takes, up to a guard against a hung test, never a window the thing must fit in (on a
loaded machine a start-up or a shutdown takes many times what it takes on an idle one)."""

from __future__ import annotations

import time
from collections.abc import Callable

# Under the 60-second limit of a test (pyproject), so a hang fails naming what it waited for.
GUARD = 45.0


def until(happened: Callable[[], bool], what: str) -> None:
    """Returns once ``happened()``; fails saying ``what`` did not after GUARD seconds."""
    deadline = time.monotonic() + GUARD
    while not happened():
        assert time.monotonic() < deadline, f"{what}: not after {GUARD:.0f} s"
        time.sleep(0.02)
