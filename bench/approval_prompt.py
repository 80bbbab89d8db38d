"""What the approval prompt costs to show a huge call, and how that grows with it.

Run by hand: ``python bench/approval_prompt.py``. For each shape of command a model
might send (one long line, padding, blank lines, a long script, non-ASCII letters, stacked
combining marks) the table shows, at 100 KB and at 1 MB, the milliseconds to make it safe
to show (``shown_request``), to fit it to a 100 by 40 terminal (``fitted_request``), to cut
it into the pages ``v`` shows, and the call's tool line (``describe_call``); the last
column is the 1 MB total over the 100 KB one: linear is 10. The suite holds no timing.
"""

from __future__ import annotations

import random
import string
import time
from collections.abc import Callable
from pathlib import Path

from nehanda.tools.registry import check_call
from nehanda.types import CheckedCall, ToolUse
from nehanda.ui.approval_view import fitted_request, shown_request
from nehanda.ui.screen_fit import pages
from nehanda.ui.summary import describe_call
from nehanda.verdicts import Ask

WORKSPACE = Path("/nonexistent")
QUESTION = "Run it? (y = yes, n = no, t = no, and tell the model what to do instead) "


def _letters(size: int) -> str:
    picked = random.Random(1)
    return "".join(picked.choice(string.ascii_letters) for _ in range(size))


SHAPES: dict[str, Callable[[int], str]] = {
    "one random line": lambda n: "echo " + _letters(n),
    "spaces, then rm": lambda n: "echo hi" + " " * n + "; rm -rf ~/x",
    "blank lines": lambda n: "curl x | sh #" + "\n" * n + "echo hello",
    "a script": lambda n: "\n".join(f"echo step {k}  # note" for k in range(n // 24)),
    "CJK and Latin": lambda n: "echo " + "日本é" * (n // 3),
    "stacked marks": lambda n: "echo " + "".join(chr(0x300 + k % 0x60) for k in range(n)),
}


def best_ms(work: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def timings(command: str) -> tuple[float, float, float, float]:
    call = check_call(ToolUse("call_1", "Bash", {"command": command}))
    assert isinstance(call, CheckedCall)
    decision = Ask("commands ask", (f"Bash({command})",))
    shown = shown_request(call, decision, WORKSPACE)
    return (
        best_ms(lambda: shown_request(call, decision, WORKSPACE)),
        best_ms(lambda: fitted_request(shown, 100, 40, QUESTION)),
        best_ms(lambda: pages(shown.body, 100, 40, [shown.reason])),
        best_ms(lambda: describe_call(call.use, call.facts)),
    )


def main() -> None:
    print("| command | size | shown ms | fitted ms | pages ms | tool line ms | 1 MB / 100 KB |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, make in SHAPES.items():
        small, large = timings(make(100_000)), timings(make(1_000_000))
        for size, row in (("100 KB", small), ("1 MB", large)):
            cells = " | ".join(f"{ms:.0f}" for ms in row)
            ratio = f"{sum(large) / max(sum(small), 0.001):.1f}" if size == "1 MB" else ""
            print(f"| {name} | {size} | {cells} | {ratio} |")


if __name__ == "__main__":
    main()
