"""The shape every dialect family module fills in, and the body its decoder reads.

A family is one model lineage's way of printing calls. It lists:

- ``dialects``: JSON-bodied blocks read by the streaming ``Block`` (opener, closers,
  whether a bare tool name precedes the JSON);
- ``sections``: blocks read whole: the scanner finds the opener, checks that the
  text right after it can start a call (``head``), collects the body up to a closer
  (a closer inside a ``protect`` span is content), then hands the finished ``Body``
  to the family's sans-I/O ``decode``;
- ``lines``: JSON blocks whose opener is a word that counts only at the start of a
  line and is directly followed by the value's ``[`` (Phi-4's ``functools[``);
- ``starts``: forms recognised only where a bare JSON message could start (before
  any content, or first in a reasoning section): a bare pythonic list, Gemma's
  ``call:``;
- ``opening``: tokens that are markup only as the output's very first text
  (Functionary's ``all\\n``);
- ``fences``: code-fence languages whose body is a call (Gemma 3's ``tool_code``);
- ``reasoning``: (opener, closer) pairs whose text is reasoning, not an answer;
- ``markup``: tokens that are template markup: removed from the visible text.

Every pattern here is matched against the text that has arrived so far, so it must
be decided by what it has read: a match on a prefix must stay a match on any longer
text (no negative look-ahead that the end of a chunk satisfies).

Decoders return the calls found (``Found``, problems included) or None when the
text is not a call at all, which puts it back into the prose as written. A decoder
of a body that runs to the end of the output (a message-start form) may return
``Decoded`` instead, saying where its calls end: the text after them is prose again.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any

from nehanda.toolcalls.dialects import Dialect
from nehanda.toolcalls.shapes import Found


@dataclass(frozen=True)
class Body:
    """A section's text between its opener (and ``head``) and its closer.

    ``closed`` is False when the output ended before any closer: the decoder
    then answers a truncated problem if the text starts like a call, else None.
    ``known`` is None when any tool name is accepted. ``schemas`` maps a tool name
    to its input JSON Schema, for typing raw-text values.
    """

    text: str
    closed: bool
    known: Collection[str] | None
    schemas: Mapping[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Decoded:
    """The calls a body holds, and where in ``Body.text`` they end."""

    found: list[Found]
    end: int


START_WINDOW = 64

Decoder = Callable[[Body], list[Found] | Decoded | None]


@dataclass(frozen=True)
class Section:
    """A call format read as one body between ``opener`` and one of ``closers``.

    ``head``: a pattern that must match right after the opener (within 256
    characters) for the opener to start a call; otherwise it was a mention. Its
    match is part of the body. ``refuse``: a pattern that, matching there, settles
    at once that the opener is a mention (so prose is not held back while the
    window fills); it must never match where ``head`` would. ``closers`` empty: the
    body runs to the end of the output. ``protect``: (start, end) pairs inside which
    a closer is content; ``json_strings``: so is a JSON string (escapes understood),
    for bodies that hold JSON after a header without quotes. ``tail``: for a form with
    no marker of its own (its wrapper eaten), the words that may follow it; it then
    counts only at a line start and when nothing but blanks, those words and further
    such sections follow it to the end of the output, else it is a quotation (prose).
    ``blank_gaps`` (a form with no marker of its own): outside protected spans, past the
    ``head``, only blanks may stand before a closer or a span; anything else makes it a
    mention at once, so that the text after it is read as ever. One the output ended
    inside gives its body back to be read again, once per output.
    ``cut_at_closer`` (with ``json_strings``, for a form on another family's opener): a
    stray quote that runs a string past the closer must not take the rest of the output
    with it; when the body is then no call (the output ended inside it, or the decoder
    refused it), its first closer after a closed value (``}``, ``]``, ``)``) ends it after
    all and the text after it is read again, once per output (as ``Block`` does).
    """

    key: str
    opener: str
    closers: tuple[str, ...]
    decode: Decoder
    head: re.Pattern[str] | None = None
    refuse: re.Pattern[str] | None = None
    protect: tuple[tuple[str, str], ...] = ()
    json_strings: bool = False
    tail: tuple[str, ...] | None = None
    cut_at_closer: bool = False
    blank_gaps: bool = False


@dataclass(frozen=True)
class StartForm:
    """A call form valid only where the whole message may be a call.

    ``pattern`` must match at the message start (after whitespace) within
    ``START_WINDOW`` characters; the body is the rest of the output, from the match's
    start, decoded at the end. First in a reasoning section, the body runs to the
    section's closer instead. ``firsts``: the characters the form may begin with;
    only a message beginning with one of them waits for the window to fill.
    ``refuse``, as for a section: matching there, it rules the form out at once, so
    that a message's first words are not held back.
    """

    key: str
    pattern: re.Pattern[str]
    decode: Decoder
    firsts: str
    refuse: re.Pattern[str] | None = None


def refuse_unless_led_by(*leads: str) -> re.Pattern[str]:
    """A ``refuse`` pattern for forms that begin with one of ``leads``, written out.

    It matches (ruling the form out) as soon as the text is neither one of the leads
    nor a start of one cut by the end of what has arrived.
    """
    options = [re.escape(lead) for lead in leads]
    options += [re.escape(lead[:k]) + r"\Z" for lead in leads for k in range(1, len(lead))]
    return re.compile("(?!" + "|".join(options) + ")")


@dataclass(frozen=True)
class Family:
    key: str
    source: str
    dialects: tuple[Dialect, ...] = ()
    sections: tuple[Section, ...] = ()
    lines: tuple[Dialect, ...] = ()
    starts: tuple[StartForm, ...] = ()
    opening: tuple[str, ...] = ()
    fences: tuple[tuple[str, Decoder], ...] = ()
    reasoning: tuple[tuple[str, str], ...] = ()
    markup: tuple[str, ...] = ()
