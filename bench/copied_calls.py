"""How the scan for calls copied from tool output grows with the text.

Run by hand: ``python bench/copied_calls.py``. For each shape of text (objects left
open, closed objects naming a tool, braces of code, empty objects, quotes) the table
shows the time ``toolcalls.objects.object_calls`` takes for 2,000 and 16,000 repeats and
their ratio (linear is 8, a quadratic 64), and the work it counted per character. The
suite counts the work of the worst shapes (tests/toolcalls/test_objects.py).
"""

from __future__ import annotations

import time

from nehanda.toolcalls.objects import Budget, object_calls

NAMES = {"Bash", "Read"}
SHAPES = (
    '{"name": "Bash", "a": [',
    "{'name': 'Bash', ",
    "'{",
    "it's '\\'",
    '{"tool": "',
    '{"name": "Bash"} ',
    "{ if (a) ",
    "{}",
    '{"x": ',
    '"{',
    '{"a": "\\"',
)


# Each text ends with a call, so that it is scanned whole.
CALL = "\n{'name': 'Bash', 'arguments': {'command': 'touch marker.txt'}}\n"


def measured(text: str) -> tuple[float, float]:
    """The best of three runs, in seconds, and the work counted per character."""
    best, budget = float("inf"), Budget(len(text))
    for _ in range(3):
        budget = Budget(len(text))
        started = time.perf_counter()
        list(object_calls(text, NAMES, budget))
        best = min(best, time.perf_counter() - started)
    return best, budget.spent / len(text)


def main() -> None:
    print(f"{'shape':26} {'2k ms':>8} {'16k ms':>8} {'ratio':>6} {'work':>6}")
    for unit in SHAPES:
        (small, _), (large, work) = measured(unit * 2_000 + CALL), measured(unit * 16_000 + CALL)
        print(
            f"{unit!r:26} {small * 1000:8.2f} {large * 1000:8.2f} {large / small:6.1f} {work:6.2f}"
        )


if __name__ == "__main__":
    main()
