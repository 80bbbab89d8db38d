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
LIMIT = 500
_MAX_TICKS = 16
# For each run: a line end, or its partner (a run of the same length, as far as the
# window shows it).
# ``open_span``'s answer when it cannot tell without the text.
UNSURE = ("", 0)
_CLOSERS = {"`" * k: re.compile(f"\n|(?<!`){'`' * k}(?!`)") for k in range(1, _MAX_TICKS + 1)}


def inline_code_end(text: str, at: int, *, final: bool = True, before: str = "") -> int | None:
    """The end of the span the run at ``at`` starts: after its partner run, or after the
    run itself when it is literal. None while the text so far cannot tell.

    ``before`` is the character before ``text`` (a chunk's predecessor), if any.
    """
    return _span_end(text, at, _TICKS.match(text, at).end(), final, before)  # type: ignore[union-attr]


def _span_end(text: str, at: int, run: int, final: bool, before: str) -> int | None:
    """``inline_code_end`` of the run from ``at`` to ``run``."""
    if run - at > _MAX_TICKS or (text[at - 1] if at > 0 else before) == "`":
        return run
    if run == len(text) and not final:
        return None
    found = partner(text, run, text[at:run], run + LIMIT, final=final)
    if found is None:
        return None
    closed, end = found
    return end if closed else run


def open_span(
    text: str, before: str = "", code: tuple[str, int] | None = None
) -> tuple[str, int] | None:
    """The run left waiting for its partner at the end of ``text``, and what is left of
    its window; None if every run is decided. No run may end ``text``.

    ``code``: the span still open before ``text`` (as this answers it), if any. The
    answer is ``UNSURE`` when the span left open holds another run: should the span
    prove literal at its window's end, that run opens a span of its own, whose window
    reaches further, so its text must be kept to be read again.
    """
    pos = 0
    if code is not None:
        ticks, left = code
        found = partner(text, 0, ticks, left, final=False)
        if found is None:
            return UNSURE if "`" in text else (ticks, left - len(text))
        closed, end = found
        if closed:
            pos = end
        # else the run was literal: every run from the start is read afresh
    while (m := _TICKS.search(text, pos)) is not None:
        at, run = m.span()
        past = _span_end(text, at, run, False, before)
        if past is None:
            if text.find("`", run) >= 0:
                return UNSURE
            return text[at:run], LIMIT - (len(text) - run)
        pos = past
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
    m = _CLOSERS[ticks].search(text, start, stop)
    if m is None:
        if not final and stop == len(text):
            return None  # the line goes on past this chunk
        return False, stop
    if m.group() == "\n":
        return False, m.start()
    if m.end() == len(text) and not final:
        return None  # a longer run may follow
    return True, m.end()
