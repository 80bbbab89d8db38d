"""Words that open a JSON call only at the start of a line: Phi-4's ``functools[``.

Such a word cannot be a trigger (it starts with a letter, and letters are everywhere);
the ``[`` right after it is one, and the scanner looks back from there
(``LineOpeners.before``). Until that ``[`` arrives, a line that so far reads as the
start of such a word is held back at a chunk's end (``held``), so that the word never
leaves as prose in one split of a text and opens a call in another.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from nehanda.toolcalls.dialects import Dialect

# Whether a line starts at an index of a buffer (the scanner's own rule).
LineStart = Callable[[str, int], bool]


class LineOpeners:
    """The line opener words of one grammar, with the checks the scanner makes."""

    def __init__(self, dialects: Mapping[str, Dialect]) -> None:
        self.dialects = dict(dialects)
        prefixes = sorted({w[:k] for w in dialects for k in range(1, len(w) + 1)}, key=len)
        alternation = "|".join(re.escape(p) for p in reversed(prefixes)) or "(?!)"
        self._longest = max(map(len, prefixes), default=0)
        self.chars = frozenset("".join(prefixes))
        self._firsts = sorted({w[0] for w in dialects})
        self._prefix_end = re.compile(f"(?:{alternation})\\Z")

    def before(
        self, buf: str, pos: int, i: int, line_start: LineStart
    ) -> tuple[int, Dialect] | None:
        """The opener word that ends at ``i`` and starts a line at or after ``pos``."""
        for word, dialect in self.dialects.items():
            lead = i - len(word)
            if lead >= pos and buf.startswith(word, lead) and line_start(buf, lead):
                return lead, dialect
        return None

    def held(self, buf: str, pos: int, keep: int, line_start: LineStart) -> int:
        """Where a line that reads as the start of an opener word, up to ``keep``, begins.

        ``keep`` when there is none. Only the longest candidate needs a look: a shorter
        one has a letter before it, so it starts no line.
        """
        lo = max(pos, keep - self._longest)
        if all(buf.find(first, lo, keep) < 0 for first in self._firsts):
            return keep
        m = self._prefix_end.search(buf, lo, keep)
        if m is None or not line_start(buf, m.start()):
            return keep
        return m.start()
