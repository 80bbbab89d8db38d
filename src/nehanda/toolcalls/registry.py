"""Every dialect family the rescue parser reads, and the tables derived from them.

Adding a dialect means one module under ``families/``, one row in ``FAMILIES`` and
its tests. ``grammar(profile)`` turns the rows into what the scanner looks up: the
openers of JSON blocks (anywhere, or as a word at a line start) and of whole-body
sections, message-start forms and opening markup, call-bearing fence languages,
reasoning tags, markup, and the trigger words of each scanning mode.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from nehanda.toolcalls.dialects import FENCE_MARK, Dialect
from nehanda.toolcalls.families import (
    anthropic,
    apertus,
    cohere,
    deepseek,
    dsml,
    ernie,
    functionary,
    functions,
    gemma,
    glm,
    granite,
    harmony,
    hermes,
    internlm,
    jamba,
    kimi,
    llama,
    minimax,
    mistral,
    phi,
    pythonic,
    qwen,
    seed,
    step3,
    think,
    tool_call,
    xlam,
)
from nehanda.toolcalls.family import Decoder, Family, Section, StartForm
from nehanda.toolcalls.line_openers import LineOpeners
from nehanda.toolcalls.triggers import TriggerSet, trigger_set

# Order matters where two families share an opener: the earlier one's JSON block wins,
# and sections are tried in this order (before any JSON block with that opener).
FAMILIES: tuple[Family, ...] = (
    tool_call.FAMILY,
    mistral.FAMILY,
    think.FAMILY,
    qwen.FAMILY,
    granite.FAMILY,
    phi.FAMILY,
    cohere.FAMILY,
    xlam.FAMILY,
    jamba.FAMILY,
    internlm.FAMILY,
    hermes.FAMILY,
    apertus.FAMILY,
    ernie.FAMILY,
    tool_call.FAMILY,
    llama.FAMILY,
    anthropic.FAMILY,  # before Olmo's: its <function_calls> rules itself out at once
    *pythonic.FAMILIES,
    gemma.FAMILY,
    harmony.FAMILY,
    kimi.FAMILY,
    deepseek.FAMILY,
    dsml.FAMILY,
    step3.FAMILY,
    glm.FAMILY,
    minimax.FAMILY,
    seed.FAMILY,
    functions.FAMILY,
    functionary.FAMILY,
)

# Single characters that start a JSON value alone on its line.
LINE_STARTS = ("{", "[")
# A backtick opens inline code, whose content is a mention (see the scanner).
TICK = "`"


@dataclass(frozen=True, eq=False)
class Profile:
    """Which formats one parser recognises: everything, or one of the spec's parsers.

    Compared by identity: profiles are module constants, and ``grammar`` is cached
    by profile without hashing every family in it.
    """

    families: tuple[Family, ...]
    only_openers: frozenset[str] | None
    fences: bool
    bare: bool
    reasoning: bool


FULL = Profile(FAMILIES, None, fences=True, bare=True, reasoning=True)
SPEC_XML = Profile(
    FAMILIES, frozenset({tool_call.TOOL_CALL.opener}), fences=False, bare=False, reasoning=False
)
SPEC_MANUAL = Profile(FAMILIES, frozenset(), fences=True, bare=False, reasoning=False)


@dataclass(frozen=True)
class Grammar:
    """What the scanner looks up for one profile."""

    blocks: dict[str, Dialect]
    lines: LineOpeners | None
    sections: dict[str, tuple[Section, ...]]
    starts: tuple[StartForm, ...]
    opening: tuple[str, ...]
    fence_langs: dict[str, Decoder]
    reasoning_openers: frozenset[str]
    reasoning_closers: frozenset[str]
    reasoning_stops: tuple[str, ...]  # the closers, in a fixed order
    markup: frozenset[str]
    # The closers and openers of delimited JSON blocks: a bare call right before an
    # opener (past its own orphan closer) is one whose opener the server ate.
    call_closers: tuple[str, ...]
    call_openers: tuple[str, ...]
    plain: TriggerSet
    in_fence: TriggerSet
    in_fence_reasoning: TriggerSet


@functools.cache
def grammar(profile: Profile) -> Grammar:
    allowed = profile.only_openers
    blocks: dict[str, Dialect] = {}
    lines: dict[str, Dialect] = {}
    opening: list[str] = []
    sections: dict[str, tuple[Section, ...]] = {}
    starts: list[StartForm] = []
    fence_langs: dict[str, Decoder] = {}
    openers: set[str] = set()
    closers: set[str] = set()
    markup: set[str] = set()
    for family in profile.families:
        for dialect in family.dialects:
            if allowed is None or dialect.opener in allowed:
                blocks.setdefault(dialect.opener, dialect)
        if allowed is not None:
            continue
        for dialect in family.lines:
            lines.setdefault(dialect.opener, dialect)
        opening += family.opening
        for section in family.sections:
            sections[section.opener] = (*sections.get(section.opener, ()), section)
        starts += family.starts
        fence_langs.update(family.fences)
        markup.update(family.markup)
        if profile.reasoning:
            for opener, closer in family.reasoning:
                openers.add(opener)
                closers.add(closer)
    words = set(blocks) | set(sections) | markup | openers | closers
    if profile.fences:
        words.add(FENCE_MARK)
    if profile.bare:
        words.add(TICK)
    if profile.bare:
        words.update(LINE_STARTS)
    in_fence = {FENCE_MARK}
    return Grammar(
        blocks,
        LineOpeners(lines) if lines else None,
        sections,
        tuple(starts),
        tuple(opening),
        fence_langs,
        frozenset(openers),
        frozenset(closers),
        tuple(sorted(closers)),
        frozenset(markup),
        tuple(sorted({c for d in blocks.values() if d.opener for c in d.closers})),
        tuple(sorted(o for o in blocks if o)),
        trigger_set(words, frozenset(lines)),
        trigger_set(in_fence),
        trigger_set(in_fence | closers),
    )
