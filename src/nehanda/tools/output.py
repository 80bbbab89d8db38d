"""Caps on what a tool sends back to the model.

A model's context is small and every byte of tool output is paid for on every later
turn, so output is cut, always saying how much was left out so the model can ask
for the rest in a narrower way.
"""

from __future__ import annotations

from collections.abc import Sequence

# About 25,000 tokens: enough for a large source file, small enough for a 32k context.
MAX_OUTPUT_BYTES = 100_000


def cap_output(
    text: str, max_bytes: int = MAX_OUTPUT_BYTES, *, dropped_bytes: int = 0, dropped_lines: int = 0
) -> str:
    """Keep the head and the tail of ``text`` within ``max_bytes``, noting what was cut.

    Cuts fall on line boundaries where one is near, and never inside a character.
    ``dropped_bytes`` and ``dropped_lines`` count what was already cut from the middle
    of ``text`` before it got here (``HeadTail``); the note includes them.
    """
    data = text.encode("utf-8", "replace")
    if len(data) <= max_bytes and not dropped_bytes:
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
    lines = omitted.count(b"\n") + dropped_lines
    separator = "" if head_text.endswith("\n") else "\n"
    note = f"[... {len(omitted) + dropped_bytes} bytes ({lines} lines) omitted ...]"
    return f"{head_text}{separator}{note}\n{tail_text}"


def cap_lines(lines: Sequence[str], limit: int) -> str:
    """Join at most ``limit`` lines, ending with "... and N more" when some were dropped."""
    shown = list(lines[:limit])
    if len(lines) > limit:
        shown.append(f"... and {len(lines) - limit} more")
    return "\n".join(shown)


class HeadTail:
    """Collects a stream of bytes keeping only its two ends (sans-I/O: ``feed``, ``text``).

    A command may print gigabytes; ``max_bytes`` at each end are kept in memory and the
    bytes and lines dropped between them are counted, so the note stays exact.
    """

    def __init__(self, max_bytes: int = MAX_OUTPUT_BYTES) -> None:
        self.max_bytes = max_bytes
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped_bytes = 0
        self._dropped_lines = 0

    def feed(self, chunk: bytes) -> None:
        room = self.max_bytes - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        self._tail += chunk
        # Trimming only once the tail has doubled keeps the cost linear in the input.
        if len(self._tail) > 2 * self.max_bytes:
            cut = len(self._tail) - self.max_bytes
            self._dropped_bytes += cut
            self._dropped_lines += self._tail.count(b"\n", 0, cut)
            del self._tail[:cut]

    def text(self) -> str:
        """Everything fed, as text, cut to ``max_bytes`` with a note of what was left out."""
        data = bytes(self._head + self._tail).decode("utf-8", "replace")
        return cap_output(
            data,
            self.max_bytes,
            dropped_bytes=self._dropped_bytes,
            dropped_lines=self._dropped_lines,
        )
