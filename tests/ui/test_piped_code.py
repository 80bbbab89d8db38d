"""The REPL's output through a pipe: a code block is its lines, not padded to 80 columns."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from nehanda.events import MessageEnd, TextDelta
from nehanda.ui.live import LiveRenderer

ANSWER = "Run this:\n\n```python\nprint('hi')\nx = 1\n```\n\nDone.\n"


def test_a_piped_code_block_is_its_lines_without_padding() -> None:
    out = io.StringIO()
    renderer = LiveRenderer(Console(file=out, width=80), Path())
    for piece in (ANSWER[:20], ANSWER[20:]):
        renderer.handle(TextDelta(piece))
    renderer.handle(MessageEnd("end_turn"))
    lines = out.getvalue().splitlines()
    assert [line.strip() for line in lines if "print" in line or "x =" in line] == [
        "print('hi')",
        "x = 1",
    ]
    assert [line for line in lines if line != line.rstrip()] == []
