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
    # Here, not at the top: main imports this module on every start.
    from nehanda.ui.word_wrap import wrap_text

    lines = wrap_text(text, max(width, 20), hang=len(PREFIX))
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
