"""Where a backtick run mid-line ends what it quotes: inline code is a mention.

A run of one to sixteen backticks opens inline code that ends at the next run of
the same length on the same line, within 500 characters; what it holds is prose,
never a call. A run with no partner there (or a longer run, or the rest of one) is
literal text. The answer depends only on the text, so the streaming scanner and the
whole-text fast path agree.
"""

from __future__ import annotations

import re

_TICKS = re.compile(r"`+")
_TICK_OR_LINE_END = re.compile(r"`+|\n")
LIMIT = 500
_MAX_TICKS = 16


def inline_code_end(text: str, at: int, *, final: bool = True, before: str = "") -> int | None:
    """The end of the span the run at ``at`` starts: after its partner run, or after the
    run itself when it is literal. None while the text so far cannot tell.

    ``before`` is the character before ``text`` (a chunk's predecessor), if any.
    """
    run = _TICKS.match(text, at).end()  # type: ignore[union-attr]
    if run - at > _MAX_TICKS or (text[at - 1] if at > 0 else before) == "`":
        return run
    if run == len(text) and not final:
        return None
    found = partner(text, run, text[at:run], run + LIMIT, final=final)
    if found is None:
        return None
    closed, end = found
    return end if closed else run


def open_span(text: str, before: str = "") -> tuple[str, int] | None:
    """The run left waiting for its partner at the end of ``text``, and what is left of
    its window; None if every run is decided. No run may end ``text``.
    """
    pos = 0
    while (j := text.find("`", pos)) >= 0:
        end = inline_code_end(text, j, final=False, before=before)
        if end is None:
            run = _TICKS.match(text, j).end()  # type: ignore[union-attr]
            return text[j:run], LIMIT - (len(text) - run)
        pos = end
    return None


def partner(
    text: str, start: int, ticks: str, limit: int, *, final: bool
) -> tuple[bool, int] | None:
    """Whether the span that ``ticks`` opened before ``start`` closes in ``text``.

    ``(True, end)``: its partner run ends at ``end``; ``(False, at)``: a line end or the
    end of its window (``limit``) comes first, at ``at``, and the run was literal. None
    while the text so far cannot tell. A scanner that has let the text before ``start``
    go asks again with what follows.
    """
    stop = min(len(text), limit)
    for m in _TICK_OR_LINE_END.finditer(text, start, stop):
        if m.group() == "\n":
            return False, m.start()
        if m.group() == ticks and (m.end() < len(text) or final):
            return True, m.end()
    if not final and stop == len(text):
        return None  # the line goes on past this chunk
    return False, stop
