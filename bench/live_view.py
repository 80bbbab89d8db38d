"""CPU the REPL's live view costs while an answer streams, and its long-line buffers.

Run by hand: ``python bench/live_view.py [deltas per second]`` (default 400, about a
fast local model). Each row streams through the REPL's real ``LiveRenderer`` on a
terminal console (100x40) writing to /dev/null, at the given pace in real time, so the
live view refreshes at its own 8 Hz as it would on screen. "off" is the same renderer
with the live area never started: finished text is still printed, nothing is redrawn.
CPU is the process's (all threads). Target: "on" at most 1.3x "off" for the 600-line
code block. The other rows time one redraw of the live area over a 1,000-line open
block, and one 1 MB line arriving in 8-character deltas (no newline), which must grow
linearly: the 8x row at about 8 times the 1x row.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from rich.console import Console

from nehanda.events import TextDelta
from nehanda.ui.live import LiveRenderer

PACE = float(sys.argv[1]) if len(sys.argv) > 1 else 400.0
DELTA = 8  # characters per delta: about two tokens


def code_block(lines: int) -> str:
    """A fenced Python block of ``lines`` lines: functions, docstrings, comments, strings."""
    body: list[str] = []
    n = 0
    while len(body) < lines:
        body += [
            f"def handler_{n}(request, retries={n % 5}):",
            f'    """Answer request {n}, retrying up to {n % 5} times."""',
            f"    # the {n}th handler keeps its state in a dict",
            f"    state = {{'name': 'handler-{n}', 'count': {n * 7}}}",
            "    for attempt in range(retries):",
            f"        if request.get('id') == {n}:",
            "            return state['count'] + attempt",
            "",
        ]
        n += 1
    return "Here it is:\n\n```python\n" + "\n".join(body[:lines]) + "\n```\n\nDone.\n"


def terminal() -> Console:
    sink = Path(os.devnull).open("w")  # noqa: SIM115 - open for the whole run
    return Console(file=sink, force_terminal=True, width=100, height=40, highlight=False)


def stream_cpu(text: str, live: bool) -> float:
    """CPU seconds to stream ``text`` through the renderer at PACE deltas per second."""
    renderer = LiveRenderer(terminal(), Path())
    if not live:
        renderer.resume = lambda: None  # type: ignore[method-assign]
    deltas = [text[i : i + DELTA] for i in range(0, len(text), DELTA)]
    started_cpu, started = time.process_time(), time.perf_counter()
    with renderer.turn("bench"):
        for index, delta in enumerate(deltas):
            renderer.handle(TextDelta(delta))
            if (wait := started + (index + 1) / PACE - time.perf_counter()) > 0:
                time.sleep(wait)
    return time.process_time() - started_cpu


def refresh_seconds(text: str) -> float:
    """One redraw of the live area while ``text`` is the open block: best of three."""
    renderer = LiveRenderer(terminal(), Path())
    renderer.resume = lambda: None  # type: ignore[method-assign]
    with renderer.turn("bench"):
        renderer.handle(TextDelta(text))
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            renderer.console.render_lines(renderer._view, renderer.console.options)
            best = min(best, time.perf_counter() - started)
    return best


def long_line_seconds(size: int) -> float:
    """A line of ``size`` characters in 8-character deltas, the live area redrawn 8 times."""
    renderer = LiveRenderer(terminal(), Path())
    renderer.resume = lambda: None  # type: ignore[method-assign]
    delta = "abcdefg "
    every = size // DELTA // 8
    started = time.perf_counter()
    with renderer.turn("bench"):
        for index in range(size // DELTA):
            renderer.handle(TextDelta(delta))
            if index % every == 0:
                renderer.console.render_lines(renderer._view, renderer.console.options)
    return time.perf_counter() - started


def main() -> None:
    code = code_block(600)
    print(f"pace: {PACE:.0f} deltas/s of {DELTA} characters; {len(code):,} characters")
    print(f"{'case':44} {'value':>10}")
    off = stream_cpu(code, live=False)
    on = stream_cpu(code, live=True)
    print(f"{'600-line code block, live view off (CPU s)':44} {off:10.2f}")
    print(f"{'600-line code block, live view on (CPU s)':44} {on:10.2f}")
    print(f"{'  on / off':44} {on / off:10.2f}")
    open_code = code_block(1000).split("\n```\n")[0]
    open_list = "\n".join(f"- item {n}: something to do about part {n}" for n in range(1000))
    for name, block in (("code block", open_code), ("list", open_list)):
        label = f"refresh, 1,000-line open {name} (ms)"
        print(f"{label:44} {refresh_seconds(block) * 1e3:10.1f}")
    small = long_line_seconds(125_000)
    large = long_line_seconds(1_000_000)
    print(f"{'one 125 kB line, 8-char deltas (s)':44} {small:10.2f}")
    print(f"{'one 1 MB line, 8-char deltas (s)':44} {large:10.2f}")
    print(f"{'  8x the input: x the time':44} {large / small:10.1f}")


if __name__ == "__main__":
    main()
