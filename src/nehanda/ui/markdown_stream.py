"""Streamed Markdown cut into finished blocks and the unfinished tail (sans-I/O).

A renderer prints each finished block once, for good, and redraws only the tail as
text arrives, so the part of the screen that changes stays small however long the
answer grows. A block ends at a blank line outside a fenced code block, once the next
line starts unindented: an indented line may still belong to the block above (a list
item's second paragraph), so the cut waits for it. Each character is looked at once,
when its line is complete.
"""

from __future__ import annotations

FENCE_CHARS = ("`", "~")


class MarkdownBlocks:
    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        self._lines: list[str] = []  # complete lines of the open block
        self._partial = ""  # the line being written
        self._fence = ""  # the marker of the open code fence, if any
        self._gap = False  # a blank line was seen after text in the open block

    def feed(self, text: str) -> list[str]:
        """Takes the next piece of text; returns the blocks it finished."""
        if "\n" not in text:
            self._partial += text
            return []
        first, *middle, last = text.split("\n")
        finished: list[str] = []
        for line in (self._partial + first, *middle):
            block = self._line(line)
            if block:
                finished.append(block)
        self._partial = last
        return finished

    @property
    def tail(self) -> str:
        """The unfinished block as written so far."""
        return "\n".join([*self._lines, self._partial]).strip("\n")

    def finish(self) -> str:
        """The rest, once the text is complete; the splitter is empty again afterwards."""
        rest = self.tail
        self._reset()
        return rest

    def _line(self, line: str) -> str | None:
        """Adds one complete line; returns the block it finished, if any."""
        stripped = line.lstrip()
        if self._fence:
            if stripped.startswith(self._fence) and not stripped.strip(self._fence[0]).strip():
                self._fence = ""
            self._lines.append(line)
            return None
        if not stripped:
            self._gap = bool(self._lines)
            self._lines.append(line)
            return None
        finished = None
        if self._gap and line == stripped:
            finished = "\n".join(self._lines).strip("\n")
            self._lines = []
        self._gap = False
        if stripped.startswith(FENCE_CHARS):
            marker = stripped[0] * (len(stripped) - len(stripped.lstrip(stripped[0])))
            self._fence = marker if len(marker) >= 3 else ""
        self._lines.append(line)
        return finished
