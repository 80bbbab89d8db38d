"""How the scan for calls copied from tool output grows with the text.

Run by hand: ``python bench/copied_calls.py``. For each shape of text (objects left
open, closed objects naming a tool, braces of code, empty objects) the table shows the
time ``json_calls`` takes for 2,000 and 16,000 repeats and their ratio: linear is 8, a
quadratic 64. The suite keeps a coarse guard for the two worst shapes only.
"""

from __future__ import annotations

import time

from nehanda.toolcalls.objects import Budget, object_calls

NAMES = {"Bash", "Read"}
SHAPES = (
    '{"name": "Bash", "a": [',
    '{"tool": "',
    '{"name": "Bash"} ',
    "{ if (a) ",
    "{}",
    '{"x": ',
    '"{',
    '{"a": "\\"',
)


def seconds(text: str) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        list(json_calls(text, NAMES))
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    print(f"{'shape':26} {'2k ms':>8} {'16k ms':>8} {'ratio':>6}")
    for unit in SHAPES:
        small, large = seconds(unit * 2_000), seconds(unit * 16_000)
        print(f"{unit!r:26} {small * 1000:8.2f} {large * 1000:8.2f} {large / small:6.1f}")


if __name__ == "__main__":
    main()
