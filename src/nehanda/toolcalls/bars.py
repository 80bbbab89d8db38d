"""Bar-like characters: the look-alike spellings of a special token's bars.

Models that print their special tokens as text often change the bars around a
token's word: DeepSeek's ``<｜DSML｜invoke>`` comes back as ``<‖DSML‖invoke>``,
``<｜｜DSML｜｜invoke>``, ``< | DSML | invoke>`` or with two kinds mixed. A marker is
recognised by its word with any short run of these characters (and spaces) around it.
"""

from __future__ import annotations

import re

# ASCII and fullwidth vertical lines, the double bar, and the lines that render like them.
BARS = "|｜‖∣¦│┃︱ǀ"
# A short run of bars and blanks, never a newline: bounded so that a match is linear.
RUN = "[" + re.escape(BARS) + " \t]{0,8}"


def barred(word: str) -> str:
    """A pattern for ``word`` with a run of bars (or none) on either side."""
    return RUN + re.escape(word) + RUN


def openers() -> tuple[str, ...]:
    """The literal starts of a barred tag: ``<`` and one bar, after at most one blank."""
    return tuple(f"<{space}{bar}" for bar in BARS for space in ("", " "))
