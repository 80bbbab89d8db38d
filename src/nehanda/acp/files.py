"""The text of a file a call changes, read before and after it runs, for the editor's diff.

Read as the approval prompt reads it (``tools.workfile.read_regular``: a regular file,
opened following no symlink, so a FIFO or device the model names is never opened for
reading), and only up to ``LIMIT`` bytes: a larger file gets no diff.
"""

from __future__ import annotations

from pathlib import Path

from nehanda.tools.text_encoding import decode_text
from nehanda.tools.workfile import read_regular

LIMIT = 1 << 20


def file_text(path: Path) -> str | None:
    """The file's text, ``None`` when it is missing, unreadable, binary or too large."""
    try:
        resolved = path.resolve()
        if resolved.stat().st_size > LIMIT:
            return None
        return decode_text(read_regular(resolved))[0]
    except (OSError, ValueError, RuntimeError):  # NotText is a ValueError
        return None
