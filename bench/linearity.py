"""The time ratios behind the suite's blow-up guards, which count work instead.

Run by hand: ``python bench/linearity.py [--scale N] [-k EXPR]``. It runs the tests that
call ``toolcalls.linear.assert_linear`` (every shape of every parser the suite guards)
with that function swapped for one that times ``run`` on ``make(size)`` and on
``make(8 * size)``, sizes scaled by N (10 by default: the sizes the suite timed before
it counted), and prints one row per call: the sizes, the best time of each in µs, their
ratio, and the ratio of the work the suite counts. Linear is 8 (a large input falling
out of the caches can cost up to twice that), a quadratic 64. Where the work ratio is
1 the whole job is one C call, which only the time shows: a rescan inside ``str.find``
or a regex that backtracks. Idle machines only: a busy one inflates either time.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

TESTS = Path(__file__).resolve().parents[1] / "tests"
FACTOR = 8


def seconds_per_run(run: Callable[[], object], repeat: int, batches: int = 3) -> float:
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


class Timer:
    """A pytest plugin: ``assert_linear`` measured, not asserted; a row per call."""

    def __init__(self, scale: int) -> None:
        self.scale = scale
        self.rows: list[tuple[str, int, float, float, float]] = []

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config: Any) -> None:
        import toolcalls.linear as linear

        def timed(run: Callable[[str], object], make: Callable[[int], str], size: int) -> None:
            small, large = make(size * self.scale), make(FACTOR * size * self.scale)
            base = seconds_per_run(lambda: run(small), runs_for(lambda: run(small)))
            grown = seconds_per_run(lambda: run(large), runs_for(lambda: run(large)))
            work = linear.work(lambda: run(large)) / max(linear.work(lambda: run(small)), 1)
            path, test = os.environ["PYTEST_CURRENT_TEST"].rsplit(" ", 1)[0].split("::", 1)
            name = f"{Path(path).stem.removeprefix('test_')}::{test}"
            self.rows.append((name, size * self.scale, base, grown, work))

        linear.assert_linear = timed

    def table(self) -> str:
        lines = [f"{'test':100} {'size':>8} {'µs':>10} {'8x µs':>11} {'time x':>7} {'work x':>7}"]
        for name, size, base, grown, work in self.rows:
            lines.append(
                f"{name[:100]:100} {size:>8} {base * 1e6:>10.0f} {grown * 1e6:>11.0f}"
                f" {grown / base:>7.1f} {work:>7.1f}"
            )
        worst = max(self.rows, key=lambda row: row[3] / row[2])
        lines.append(f"worst time ratio: {worst[3] / worst[2]:.1f} ({worst[0]})")
        return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=10, help="sizes times this (default 10)")
    parser.add_argument("-k", default="", help="only the tests pytest -k selects")
    options = parser.parse_args()
    files = sorted(str(p) for p in TESTS.rglob("test_*.py") if "assert_linear(" in p.read_text())
    select = "(linear or one_pass) and not guard"
    if options.k:
        select = f"({select}) and ({options.k})"
    # tests/toolcalls is a namespace package, which this folder's toolcalls.py would hide.
    here = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != here]
    timer = Timer(options.scale)
    args = [*files, "-q", "-k", select, "-o", "timeout=0"]  # no time limit while timing
    code = pytest.main(args, [timer])
    print(timer.table() if timer.rows else "no test called assert_linear")
    sys.exit(code)


if __name__ == "__main__":
    main()
