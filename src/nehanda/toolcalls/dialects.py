"""The tool-call formats the rescue parser accepts, as data.

Each delimited format is a ``Dialect``: the opener that starts a block, the closers
that may end it, and what may sit between them. The prose scanner looks for every
opener, reasoning tag and code fence at once with one compiled regex; the tables of
prefixes let it hold back only a possible delimiter prefix at the end of a chunk.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Dialect:
    """One delimited call format.

    ``closer_required``: a block that ends with the output before its closer is
    marked ``unclosed``. ``name_prefix``: a bare tool name may precede the JSON (then
    the JSON holds only the arguments), as in Mistral's ``Name[ARGS]{...}`` and
    DeepSeek's ``name<｜tool▁sep｜>{...}``. ``xml``: Qwen3-Coder's ``<function=...>``
    may follow the opener. ``weak``: the delimiter is ordinary markdown or no
    delimiter at all, so anything that is not a call to a known tool stays prose.
    ``repair``: whether the repairs for a delimited block apply.
    """

    key: str
    opener: str
    closers: tuple[str, ...] = ()
    closer_required: bool = True
    name_prefix: bool = False
    name_required: bool = False
    multi: bool = True
    xml: bool = False
    weak: bool = False
    repair: bool = True


TOOL_CALL = Dialect(
    "tool_call",
    "[TOOL_CALL]",
    ("[/TOOL_CALL]", "[/TOOL_CALLS]"),
    name_prefix=True,
    xml=True,
)
# Mistral's own token: no closer in Mistral's format, but a model confusing it with
# the canonical one writes the canonical closer, which is then consumed.
MISTRAL = Dialect(
    "mistral",
    "[TOOL_CALLS]",
    ("[/TOOL_CALLS]", "[/TOOL_CALL]"),
    closer_required=False,
    name_prefix=True,
)
HERMES = Dialect("hermes", "<tool_call>", ("</tool_call>",), name_prefix=True, xml=True)
LLAMA = Dialect(
    "llama",
    "<|python_tag|>",
    ("<|eom_id|>", "<|eot_id|>"),
    closer_required=False,
)
DEEPSEEK = Dialect(
    "deepseek",
    "<｜tool▁call▁begin｜>",
    ("<｜tool▁call▁end｜>",),
    name_prefix=True,
    name_required=True,
    multi=False,
)
# A Qwen3-Coder function element without its <tool_call> wrapper.
QWEN_XML = Dialect("qwen_xml", "<function=", ("</tool_call>",), closer_required=False, xml=True)
FENCE = Dialect("fence", "```", ("```",), multi=False, weak=True)
BARE = Dialect("bare", "", (), closer_required=False, multi=False, weak=True, repair=False)

BLOCK_DIALECTS: dict[str, Dialect] = {
    d.opener: d for d in (TOOL_CALL, MISTRAL, HERMES, LLAMA, DEEPSEEK, QWEN_XML)
}

REASONING_OPENERS = frozenset({"<think>", "<thinking>", "<reasoning>", "[THINK]"})
REASONING_CLOSERS = frozenset({"</think>", "</thinking>", "</reasoning>", "[/THINK]"})
# DeepSeek wraps its calls in a section; the wrapper is markup, never prose.
WRAPPERS = frozenset({"<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"})
FENCE_MARK = "```"

JSON_FENCE_LANGS = frozenset({"", "json", "jsonc", "json5"})


def _alternation(words: frozenset[str] | set[str]) -> str:
    # Longest first, so that "[TOOL_CALLS]" is never read as "[TOOL_CALL]" + "S]".
    return "|".join(re.escape(w) for w in sorted(words, key=lambda w: (-len(w), w)))


def _prefixes(words: frozenset[str] | set[str]) -> frozenset[str]:
    return frozenset(w[:i] for w in words for i in range(1, len(w)))


@dataclass(frozen=True)
class TriggerSet:
    """The words that interrupt prose in one scanning mode, compiled."""

    words: frozenset[str]
    find: re.Pattern[str]
    prefixes: frozenset[str]
    longest: int
    starts: re.Pattern[str]

    def held(self, buf: str, lo: int) -> int:
        """Where the start of a word the next chunk may finish begins (``len(buf)``: none).

        Every word starts with "[", "<" or a backtick and holds its "[" or "<" only
        there, so a partial word can only start at the last "[" or "<".
        """
        n = len(buf)
        lo = max(lo, n - self.longest + 1)
        if not self.starts.search(buf, lo):
            return n
        k = max(buf.rfind("<", lo), buf.rfind("[", lo))
        if k >= 0 and buf[k:] in self.prefixes:
            return k
        if "`" in self.prefixes and lo < n and buf[-1] == "`":
            return n - 2 if n - 2 >= lo and buf[n - 2] == "`" else n - 1
        return n


def trigger_set(words: frozenset[str] | set[str]) -> TriggerSet:
    frozen = frozenset(words)
    for word in frozen:
        assert word[0] in "[<`" and (word[0] == "`" or word[0] not in word[1:]), word
    return TriggerSet(
        frozen,
        re.compile(_alternation(frozen)),
        _prefixes(frozen),
        max(len(w) for w in frozen),
        re.compile("[" + re.escape("".join(sorted({w[0] for w in frozen}))) + "]"),
    )


@dataclass(frozen=True)
class Profile:
    """Which formats one parser recognises: everything, or one of the spec's parsers."""

    openers: frozenset[str]
    fences: bool
    bare: bool
    reasoning: bool


FULL = Profile(frozenset(BLOCK_DIALECTS), fences=True, bare=True, reasoning=True)
SPEC_XML = Profile(frozenset({TOOL_CALL.opener}), fences=False, bare=False, reasoning=False)
SPEC_MANUAL = Profile(frozenset(), fences=True, bare=False, reasoning=False)


@functools.cache
def prose_triggers(profile: Profile) -> tuple[TriggerSet, TriggerSet, TriggerSet]:
    """Trigger sets for plain prose, a code fence, and a code fence inside reasoning."""
    words = set(profile.openers)
    if profile.fences:
        words.add(FENCE_MARK)
    if profile.reasoning:
        words |= REASONING_OPENERS | REASONING_CLOSERS
    if DEEPSEEK.opener in profile.openers:
        words |= WRAPPERS
    in_fence = {FENCE_MARK}
    return trigger_set(words), trigger_set(in_fence), trigger_set(in_fence | REASONING_CLOSERS)
