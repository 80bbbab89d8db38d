"""Error lines as the user sees them: ``error: ...``, wrapped at word boundaries on a terminal.

A terminal wraps a long line wherever the width runs out, mid-word and mid-path; wrapping
here keeps words and paths whole and indents the continuation under the message. Piped
stderr stays one line per line written, for programs and ``grep``.
"""

from __future__ import annotations

import sys
from typing import IO

PREFIX = "error: "


def error_text(message: str, width: int | None) -> str:
    """``message`` as an error line (or lines), wrapped to ``width`` unless it is ``None``."""
    text = PREFIX + message
    if width is None:
        return text + "\n"
    import textwrap  # here, not at the top: main imports this module on every start

    lines: list[str] = []
    for index, line in enumerate(text.splitlines()):
        lead = len(PREFIX) if index == 0 else len(line) - len(line.lstrip(" ")) + 2
        lines += textwrap.wrap(
            line,
            width=max(width, 20),
            subsequent_indent=" " * lead,
            break_long_words=False,
            break_on_hyphens=False,
        ) or [""]
    return "\n".join(lines) + "\n"


def show_error(message: str, stream: IO[str] | None = None) -> None:
    import shutil

    stream = stream or sys.stderr
    width = None
    if stream.isatty():
        # A server's error body can carry escape sequences; none may drive the terminal.
        from nehanda.ui.shown_text import printable

        message = printable(message)
        width = shutil.get_terminal_size().columns
    stream.write(error_text(message, width))
    stream.flush()
