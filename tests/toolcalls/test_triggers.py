"""The candidate table: a chunk it passes over holds no word, whatever came before it.

The scanner sends such a chunk straight out as prose (its fast path), so the table
must never pass over a word, part of one at the chunk's end, or a line opener's start.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nehanda.toolcalls.registry import FULL, grammar
from nehanda.toolcalls.triggers import LINE_WORDS, Finder, TriggerSet, trie_pattern

GRAMMAR = grammar(FULL)
PLAIN = GRAMMAR.plain
SETS = {"plain": PLAIN, "in fence": GRAMMAR.in_fence, "reasoning fence": GRAMMAR.in_fence_reasoning}
LINE_OPENERS = sorted(GRAMMAR.lines.dialects) if GRAMMAR.lines else []
WORDS = sorted(PLAIN.words | set(LINE_OPENERS))
# Words, their starts and ends, and the prose around them.
FRAGMENTS = sorted(
    {w[:k] for w in WORDS for k in range(1, len(w) + 1)}
    | {w[k:] for w in WORDS for k in range(len(w))}
    | {"a", " ", "\t", "\n", "x", "<", ">", "[", "]", "{", "}", "`", "|", "s", "i", " < 1 "}
)
chunks = st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join)


def passed_over(triggers: TriggerSet, chunk: str, line_start: bool) -> bool:
    """Whether the scanner's fast path would send ``chunk`` out as prose."""
    if triggers.may.search(chunk):
        return False
    return not (line_start and triggers.lead.match(chunk))


@pytest.mark.parametrize(
    ("chunk", "line_start", "candidate"),
    [
        ("Plain words only.", True, False),
        ("if a < b and c > d", False, False),
        ("Vec<String> x[i] {k: 1}", False, False),
        ("<div> and </p> too", False, False),
        ("a > b", False, False),
        ("a >", False, True),  # may start ">>>"
        ("<think>", False, True),
        ("x <thi", False, True),  # a word's start at the end: the next chunk may finish it
        ("ends in <", False, True),
        ("<|im_end|>", False, True),
        ("[TOOL_CALL]", False, True),
        ("a [", False, True),
        ("x[0] = 1", False, False),
        ("list:\n  [1, 2]", False, True),  # a JSON value may start a line
        ("list:\n{", False, True),
        ("{k: 1}", False, False),  # mid-line: the chunk does not start a line
        ("{k: 1}", True, True),
        ("  [", True, True),
        ("functools[", False, True),
        ("\nfunct", False, True),  # a line opener's start, at a line start
        ("dysfunct", False, False),
        ("funct", True, True),
        ("a `b` c", False, True),  # inline code
        ("x >>> y", False, True),
        ("x -> y", False, False),
    ],
)
def test_the_candidate_table(chunk: str, line_start: bool, candidate: bool) -> None:
    assert passed_over(PLAIN, chunk, line_start) is not candidate


def _line_start_words(triggers: TriggerSet, chunk: str) -> bool:
    """Whether the only words in ``chunk`` are line words at its start (then mid-line)."""
    for i in range(len(chunk)):
        m = triggers.at.match(chunk, i)
        if m is not None and not (m.group() in LINE_WORDS and not chunk[:i].strip(" \t")):
            return False
    return True


@settings(max_examples=600, deadline=None)
@given(chunks, st.booleans())
def test_a_chunk_passed_over_holds_no_word(chunk: str, line_start: bool) -> None:
    for name, triggers in SETS.items():
        if not passed_over(triggers, chunk, line_start):
            continue
        assert triggers.held(chunk, 0) == len(chunk), name
        if line_start:
            assert triggers.at.search(chunk) is None, name
        else:
            assert _line_start_words(triggers, chunk), name
        if triggers is PLAIN:
            for word in LINE_OPENERS:
                tail = "|".join(re.escape(word[:k]) for k in range(1, len(word) + 1))
                edge = "(?:^|\n)" if line_start else "\n"
                assert not re.search(f"{edge}[ \t]*(?:{tail})(?:\\Z|\\[)", chunk), name


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(FRAGMENTS), max_size=200).map("".join), st.integers(0, 700))
def test_the_finder_finds_what_the_regex_finds(text: str, pos: int) -> None:
    """Short or long (past its regex-only size), the finder answers as ``re.search``."""
    finder = Finder(PLAIN)
    text = "prose " * 100 + text * 4  # past the size below which it is the regex itself
    while True:  # a walk from left to right, as a reader makes it
        m, expected = finder.search(text, pos), PLAIN.at.search(text, pos)
        assert (m and m.span()) == (expected and expected.span())
        if m is None:
            return
        pos = m.start() + 1


FAR = ["x" * 600, "a < b, x[i] {k} " * 40]  # past the regex's own reach, dense or not


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(FRAGMENTS) | st.sampled_from(FAR), max_size=40).map("".join),
    st.lists(st.integers(0, 30_000), max_size=12),
)
def test_the_finder_answers_as_the_regex_from_any_position(text: str, positions: list[int]) -> None:
    """Back and forth, near a word or far from every one: what ``re.search`` answers."""
    finder = Finder(PLAIN)
    for pos in positions:
        pos %= len(text) + 1
        m, expected = finder.search(text, pos), PLAIN.at.search(text, pos)
        assert (m and m.span()) == (expected and expected.span())


@pytest.mark.parametrize(
    ("alternatives", "pattern"),
    [
        ({("ab", ""), ("ac", r"\Z")}, r"a(?:b|c\Z)"),
        ({("a", ""), ("abc", "")}, "a"),  # "abc" starts with "a": nothing to add
        ({("a", r"\Z"), ("abc", "")}, r"a(?:\Z|bc)"),
        ({("[", "(?<=x\\[)"), ("<", "")}, r"(?:<|\[(?<=x\[))"),
    ],
)
def test_the_trie_of_a_table(alternatives: set[tuple[str, str]], pattern: str) -> None:
    assert trie_pattern(alternatives) == pattern


LITERALS = st.text("ab<[", min_size=1, max_size=4)
TAILS = st.sampled_from(["", r"\Z", "(?<=b<)", r"(?<=a\[)"])


@settings(max_examples=300, deadline=None)
@given(st.sets(st.tuples(LITERALS, TAILS), min_size=1, max_size=8), st.text("ab<[", max_size=12))
def test_the_trie_matches_where_the_alternation_does(
    alternatives: set[tuple[str, str]], text: str
) -> None:
    flat = "|".join(re.escape(literal) + tail for literal, tail in sorted(alternatives))
    found, expected = re.search(trie_pattern(alternatives), text), re.search(flat, text)
    assert (found and found.start()) == (expected and expected.start())


@pytest.mark.parametrize(
    ("alternatives", "pattern"),
    [
        ({("a", ""), ("abc", "")}, "a(?:bc|)"),  # the longer word is tried first
        ({("[", "(?<=x\\[)"), ("[T]", "")}, r"\[(?:T\]|(?<=x\[))"),
        ({("a", ""), ("a", r"\Z")}, "a"),  # its end alone: any tail is redundant
    ],
)
def test_the_longest_first_trie_of_a_table(
    alternatives: set[tuple[str, str]], pattern: str
) -> None:
    assert trie_pattern(alternatives, longest=True) == pattern


@settings(max_examples=300, deadline=None)
@given(st.sets(st.tuples(LITERALS, TAILS), min_size=1, max_size=8), st.text("ab<[", max_size=12))
def test_the_longest_first_trie_matches_what_the_longest_first_alternation_does(
    alternatives: set[tuple[str, str]], text: str
) -> None:
    ordered = sorted(alternatives, key=lambda pair: (-len(pair[0]), pair))
    flat = "|".join(re.escape(literal) + tail for literal, tail in ordered)
    found = re.search(trie_pattern(alternatives, longest=True), text)
    expected = re.search(flat, text)
    assert (found and found.span()) == (expected and expected.span())
