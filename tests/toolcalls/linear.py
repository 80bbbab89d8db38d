"""A guard against blow-ups: eight times the input must take well under 64 times as long.

The bound (20x) is generous because a large input also falls out of the processor's
caches, which alone has cost up to twice the linear time on CI machines; a quadratic
in Python code lands far above it. Small runs are batched to 20 ms and the collector
is paused while timing, so a millisecond run is not timed against the clock's noise.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

FACTOR, BOUND = 8, 20.0


def seconds_per_run(run: Callable[[], object], repeat: int = 1, batches: int = 3) -> float:
    """Best of ``batches`` batches of ``repeat`` runs, without the collector's pauses."""
    gc.collect()
    gc.disable()
    try:
        best = float("inf")
        for _ in range(batches):
            started = time.perf_counter()
            for _ in range(repeat):
                run()
            best = min(best, (time.perf_counter() - started) / repeat)
        return best
    finally:
        gc.enable()


def runs_for(run: Callable[[], object], at_least: float = 0.02) -> int:
    """How many runs a batch needs to last ``at_least`` seconds."""
    started = time.perf_counter()
    run()
    once = time.perf_counter() - started
    return max(1, min(200, int(at_least / max(once, 1e-6)) + 1))


def assert_linear(run: Callable[[str], object], make: Callable[[int], str], size: int) -> None:
    """``run`` on ``make(FACTOR * size)`` takes under BOUND times ``run`` on ``make(size)``.

    A busy machine can slow either measurement, so a ratio over the bound is measured
    again, both sides, up to three times; a quadratic is over it every time.
    """
    small, large = make(size), make(FACTOR * size)
    ratios = []
    for attempt in range(3):
        base = seconds_per_run(lambda: run(small), runs_for(lambda: run(small)))
        grown = seconds_per_run(lambda: run(large), batches=1 if attempt == 0 else 3)
        ratios.append(grown / base)
        if ratios[-1] < BOUND:
            return
    raise AssertionError(f"{FACTOR}x the input took {min(ratios):.1f}x the time: {ratios}")
