"""What a pipe or a file on stdin adds to a prompt given as an argument
(``git diff | nehanda -p "review this"``).

A terminal adds nothing. A pipe whose writer sends nothing within a grace period (a
parent that holds stdin open and never writes, as some harnesses do) adds nothing
either, with a note, rather than waiting forever; once a first byte has come, the whole
of it is read. What is added is capped, and its size is named.
"""

from __future__ import annotations

import os
import re
import select
import stat
from dataclasses import dataclass

CAP_BYTES = 100_000
GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class Piped:
    """The first ``CAP_BYTES`` of stdin and how many bytes it held in all; ``waited``
    when nothing came within the grace and stdin was left unread."""

    data: bytes = b""
    total: int = 0
    waited: bool = False


def read_piped(fd: int = 0, grace: float = GRACE_SECONDS) -> Piped:
    """stdin's contents, when it is a pipe, a socket or a file; nothing for a terminal."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return Piped()
    if os.isatty(fd):
        return Piped()
    streaming = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
    if streaming and not select.select([fd], [], [], grace)[0]:
        return Piped(waited=True)
    return _read_all(fd)


def _read_all(fd: int) -> Piped:
    kept = bytearray()
    total = 0
    while chunk := os.read(fd, 1 << 16):
        total += len(chunk)
        if len(kept) < CAP_BYTES:
            kept += chunk[: CAP_BYTES - len(kept)]
    return Piped(bytes(kept), total)


def with_piped(prompt: str, piped: Piped) -> str:
    """The prompt, then stdin's text in a fenced block that no backtick run in it can end,
    under a line naming its size (and how much of it was kept)."""
    if not piped.data.strip():
        return prompt
    text = piped.data.decode("utf-8", errors="replace")
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    size = _size(piped.total)
    said = (
        f"stdin ({size})"
        if piped.total == len(piped.data)
        else f"the first {_size(len(piped.data))} of stdin ({size} in all)"
    )
    return f"{prompt}\n\n{said}:\n{fence}\n{text.rstrip(chr(10))}\n{fence}"


def _longest_backtick_run(text: str) -> int:
    return max(map(len, re.findall("`+", text)), default=0)


def _size(count: int) -> str:
    if count < 1000:
        return f"{count} bytes"
    if count < 1_000_000:
        return f"{count / 1000:.1f} KB"
    return f"{count / 1_000_000:.1f} MB"
