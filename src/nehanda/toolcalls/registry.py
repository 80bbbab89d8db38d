"""Every dialect family the rescue parser reads, and the tables derived from them.

Adding a dialect means one module under ``families/``, one row in ``FAMILIES`` and
its tests. ``grammar(profile)`` turns the rows into what the scanner looks up: the
openers of JSON blocks and of whole-body sections, message-start forms, call-bearing
fence languages, reasoning tags, markup, and the trigger words of each scanning mode.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from nehanda.toolcalls.dialects import (
    DEEPSEEK,
    FENCE_MARK,
    HERMES,
    LLAMA,
    MISTRAL,
    QWEN_XML,
    REASONING_PAIRS,
    TOOL_CALL,
    WRAPPERS,
    Dialect,
)
from nehanda.toolcalls.family import Decoder, Family, Section, StartForm
from nehanda.toolcalls.triggers import TriggerSet, trigger_set

CLASSIC = Family(
    "classic",
    "nehanda's own [TOOL_CALL] and the 2024 formats",
    dialects=(TOOL_CALL, MISTRAL, HERMES, LLAMA, DEEPSEEK, QWEN_XML),
    reasoning=REASONING_PAIRS,
    markup=WRAPPERS,
)

FAMILIES: tuple[Family, ...] = (CLASSIC,)

# Single characters that start a JSON value alone on its line.
LINE_STARTS = ("{", "[")


@dataclass(frozen=True)
class Profile:
    """Which formats one parser recognises: everything, or one of the spec's parsers."""

    families: tuple[Family, ...]
    only_openers: frozenset[str] | None
    fences: bool
    bare: bool
    reasoning: bool


FULL = Profile(FAMILIES, None, fences=True, bare=True, reasoning=True)
SPEC_XML = Profile(
    FAMILIES, frozenset({TOOL_CALL.opener}), fences=False, bare=False, reasoning=False
)
SPEC_MANUAL = Profile(FAMILIES, frozenset(), fences=True, bare=False, reasoning=False)


@dataclass(frozen=True)
class Grammar:
    """What the scanner looks up for one profile."""

    blocks: dict[str, Dialect]
    sections: dict[str, tuple[Section, ...]]
    starts: tuple[StartForm, ...]
    fence_langs: dict[str, Decoder]
    reasoning_openers: frozenset[str]
    reasoning_closers: frozenset[str]
    markup: frozenset[str]
    plain: TriggerSet
    in_fence: TriggerSet
    in_fence_reasoning: TriggerSet


@functools.cache
def grammar(profile: Profile) -> Grammar:
    allowed = profile.only_openers
    blocks: dict[str, Dialect] = {}
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
        words.update(LINE_STARTS)
    in_fence = {FENCE_MARK}
    return Grammar(
        blocks,
        sections,
        tuple(starts),
        fence_langs,
        frozenset(openers),
        frozenset(closers),
        frozenset(markup),
        trigger_set(words),
        trigger_set(in_fence),
        trigger_set(in_fence | closers),
    )
