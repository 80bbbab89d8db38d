"""Caps on what a tool sends back to the model.

A model's context is small and every byte of tool output is paid for on every later
turn, so output is cut, always saying how much was left out so the model can ask
for the rest in a narrower way.
"""

from __future__ import annotations

from collections.abc import Sequence

# About 25,000 tokens: enough for a large source file, small enough for a 32k context.
MAX_OUTPUT_BYTES = 100_000


def cap_output(text: str, max_bytes: int = MAX_OUTPUT_BYTES) -> str:
    """Keep the head and the tail of ``text`` within ``max_bytes``, noting what was cut.

    Cuts fall on line boundaries where one is near, and never inside a character.
    """
    data = text.encode("utf-8", "replace")
    if len(data) <= max_bytes:
        return text
    half = max_bytes // 2
    head = data[:half]
    newline = head.rfind(b"\n")
    if newline >= half // 2:
        head = head[: newline + 1]
    tail_start = len(data) - half
    if data[tail_start - 1] != ord("\n"):
        newline = data.find(b"\n", tail_start, tail_start + half // 2)
        tail_start = tail_start if newline < 0 else newline + 1
    tail = data[tail_start:]
    head_text = head.decode("utf-8", "ignore")
    tail_text = tail.decode("utf-8", "ignore")
    start = len(head_text.encode())
    omitted = data[start : len(data) - len(tail_text.encode())]
    lines = omitted.count(b"\n")
    separator = "" if head_text.endswith("\n") else "\n"
    note = f"[... {len(omitted)} bytes ({lines} lines) omitted ...]"
    return f"{head_text}{separator}{note}\n{tail_text}"


def cap_lines(lines: Sequence[str], limit: int) -> str:
    """Join at most ``limit`` lines, ending with "... and N more" when some were dropped."""
    shown = list(lines[:limit])
    if len(lines) > limit:
        shown.append(f"... and {len(lines) - limit} more")
    return "\n".join(shown)
