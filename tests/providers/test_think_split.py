"""ThinkSplitter: ``<think>`` reasoning split out of streamed content, whatever the chunks."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.events import ReasoningDelta, TextDelta
from nehanda.providers.think_split import ThinkSplitter


def split(*pieces: str) -> tuple[str, str]:
    """The reasoning and the text that ``pieces``, fed in order, come out as."""
    splitter = ThinkSplitter()
    events = [event for piece in pieces for event in splitter.feed(piece)] + splitter.finish()
    reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
    return reasoning, "".join(e.text for e in events if isinstance(e, TextDelta))


@pytest.mark.parametrize(
    ("content", "reasoning", "text"),
    [
        ("Hello there.", "", "Hello there."),
        ("<think>\nWhat now?\n</think>\n\nHello.", "What now?\n", "Hello."),
        ("  \n<think>hm</think>Hello.", "hm", "Hello."),
        ("<think>\n\n</think>\n\nHello.", "", "Hello."),  # Qwen3's empty section
        ("<think>cut off while thinking", "cut off while thinking", ""),
        ("<think>a</think>b</think>c", "a", "b</think>c"),
        ("<think>a<think>b</think>c", "a<think>b", "c"),
        ("<think>a</think>b<think>c</think>", "a", "b<think>c</think>"),
        # A <think> after any other content is text.
        ("Sure. <think>no</think> yes", "", "Sure. <think>no</think> yes"),
        ("<thinking>x</thinking>", "", "<thinking>x</thinking>"),
        ("<thin", "", "<thin"),
        ("  ", "", "  "),
        ("  <", "", "  <"),
        ("", "", ""),
        # The opener was in the prompt: the closer stays text (see the module doc).
        ("Reasoning.\n</think>\n\nHello.", "", "Reasoning.\n</think>\n\nHello."),
        ("</think>Hello.", "", "</think>Hello."),
        ("<think>a </th", "a </th", ""),
    ],
)
def test_table(content: str, reasoning: str, text: str) -> None:
    assert split(content) == (reasoning, text)


def test_only_a_possible_tag_is_held_back() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("  <th") == []
    assert splitter.feed("ink>I wonder") == [ReasoningDelta("I wonder")]
    assert splitter.feed(" if</th") == [ReasoningDelta(" if")]
    assert splitter.feed("ey</think>") == [ReasoningDelta("</they")]
    assert splitter.feed("\n\n") == []
    assert splitter.feed("Yes.") == [TextDelta("Yes.")]
    assert splitter.feed(" <think>") == [TextDelta(" <think>")]
    assert splitter.finish() == []


def test_text_that_cannot_open_a_section_streams_at_once() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("<b>") == [TextDelta("<b>")]
    assert splitter.feed("</think>") == [TextDelta("</think>")]


def test_one_feed_gives_one_event_of_each_kind() -> None:
    splitter = ThinkSplitter()
    assert splitter.feed("<think>a</think> b") == [ReasoningDelta("a"), TextDelta("b")]


CONTENTS = st.lists(
    st.sampled_from(["<think>", "</think>", "<", "</", "think", ">", " ", "\n", "a", "b."]),
    max_size=14,
).map("".join)


@given(CONTENTS, st.lists(st.integers(min_value=0, max_value=40), max_size=10))
def test_any_split_gives_the_same_reasoning_and_text(content: str, cuts: list[int]) -> None:
    points = sorted({min(cut, len(content)) for cut in cuts})
    pieces = [content[a:b] for a, b in zip([0, *points], [*points, len(content)], strict=True)]
    assert split(*pieces) == split(content)


@given(CONTENTS)
def test_nothing_is_lost_but_tags_and_the_blanks_after_them(content: str) -> None:
    reasoning, text = split(content)
    if not content.lstrip().startswith("<think>"):
        assert (reasoning, text) == ("", content)
    else:
        assert len(reasoning) + len(text) <= len(content) - len("<think>")
