"""What a big paste or a long line typed during a REPL reply costs to read and to show.

Run by hand: ``python bench/type_ahead.py``. For each shape (one 1 MB line, 1 MB of
70-column lines, a bracketed 1 MB paste) the table shows the seconds ``TurnKeys`` takes
to read it off a real pseudo-terminal (written in 4 KB pieces, as a terminal writes a
paste), and the milliseconds to draw the footer under the reply once it is typed (the
live view draws it 8 times a second). The suite holds only a generous blow-up guard.
"""

from __future__ import annotations

import asyncio
import io
import os
import pty
import threading
import time

from rich.console import Console
from rich.text import Text

from nehanda.cli.turn_keys import TurnKeys, TypeAhead
from nehanda.ui.tool_lines import printable

SHAPES = {
    "one 1 MB line": b"x" * 1_000_000,
    "1 MB of lines": (b"y" * 70 + b"\n") * 14_000,
    "bracketed 1 MB": b"\x1b[200~" + (b"z" * 70 + b"\n") * 14_000 + b"\x1b[201~",
}


async def _read(payload: bytes, expected: int) -> tuple[float, TypeAhead]:
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "r")
    keys = TurnKeys(stream, lambda: None, lambda: None)

    def write() -> None:
        for start in range(0, len(payload), 4096):
            os.write(master, payload[start : start + 4096])

    started = time.perf_counter()
    with keys.reading() as typed:
        writer = threading.Thread(target=write)
        writer.start()
        while len(typed.line) < expected and time.perf_counter() - started < 120:
            await asyncio.sleep(0.005)
        writer.join()
    took = time.perf_counter() - started
    os.close(master)
    stream.close()
    return took, typed


def _footer_ms(typed: TypeAhead) -> float:
    console = Console(file=io.StringIO(), width=100, force_terminal=True)
    started = time.perf_counter()
    for text, style in typed.rows("> ", console.width):
        row = Text(printable(text), style)
        row.no_wrap, row.overflow = True, "ellipsis"
        console.print(row)
    return (time.perf_counter() - started) * 1000


def main() -> None:
    print(f"{'shape':<16} {'read s':>8} {'footer ms':>10}")
    for name, payload in SHAPES.items():
        expected = len(payload.replace(b"\x1b[200~", b"").replace(b"\x1b[201~", b""))
        took, typed = asyncio.run(_read(payload, expected))
        print(f"{name:<16} {took:>8.2f} {_footer_ms(typed):>10.2f}")


if __name__ == "__main__":
    main()
