"""A guard against blow-ups: eight times the input must cost well under 64 times the work.

Work is counted, not timed: the Python lines run and the calls made (to Python and to
C functions) while ``run`` works, so the count is the same on an idle machine and on a
loaded one, and a small input measures as well as a large one. That sees a quadratic
in Python code (a rescan of the buffer per chunk, a re-parse per delta, a loop over
all that came before). A rescan hidden inside a single C call per chunk (``str.find``
from the start of the buffer) costs one call whatever its length, so only its time
shows it: ``bench/linearity.py`` measures the time ratios of the same runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

FACTOR, BOUND = 8, 16.0


def work(run: Callable[[], object]) -> int:
    """The lines ``run`` executes plus the calls it makes, Python and C alike (a tracer
    already set, coverage's, is paused meanwhile: other tests cover these lines)."""
    count = 0

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        count += 1
        return trace

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event == "c_call":
            count += 1

    tracing, profiling = sys.gettrace(), sys.getprofile()
    sys.settrace(trace)
    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(profiling)
        sys.settrace(tracing)
    return count


def assert_linear(run: Callable[[str], object], make: Callable[[int], str], size: int) -> None:
    """``run`` on ``make(FACTOR * size)`` does under BOUND times the work of ``make(size)``.

    Linear work grows by FACTOR (less, where a fixed cost is part of the small run); a
    quadratic grows by FACTOR squared, four times over the bound.
    """
    small, large = make(size), make(FACTOR * size)
    base, grown = work(lambda: run(small)), work(lambda: run(large))
    ratio = grown / max(base, 1)
    assert ratio < BOUND, f"{FACTOR}x the input did {ratio:.1f}x the work ({base} -> {grown})"
