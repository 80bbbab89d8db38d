"""``LeakWatch`` answers as ``LeakedCalls`` does, whatever the text and its split, and
loads the parser only for a reply that may hold a call."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from nehanda.events import (
    LeakedCallsRecovered,
    MessageEnd,
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolUseEnd,
)
from nehanda.providers.leak_watch import LeakWatch
from nehanda.providers.leaks import LeakedCalls
from nehanda.types import ToolSpec
from toolcalls.test_dialect_splits import pieces
from toolcalls.toolcall_render import SCHEMAS

TOOLS = tuple(ToolSpec(name, name, schema) for name, schema in SCHEMAS.items())
PROSE = ["Sure, ", "I will read it.", "ok", "\n", " ", "functools", "Read", "all", "\n\n"]
texts = st.lists(st.one_of(pieces, st.sampled_from(PROSE)), min_size=1, max_size=10).map("".join)


def streamed(reader: Any, text: str, cuts: list[int]) -> list[StreamEvent]:
    bounds = sorted({0, len(text), *cuts})
    out: list[StreamEvent] = []
    for start, end in itertools.pairwise(bounds):
        out += reader.handle(TextDelta(text[start:end]))
    return out + reader.handle(MessageEnd("end_turn"))


def seen(events: list[StreamEvent]) -> tuple[Any, ...]:
    """What a user and the engine get: the prose, the reasoning, the calls, the problems."""
    return (
        "".join(e.text for e in events if isinstance(e, TextDelta)),
        "".join(e.text for e in events if isinstance(e, ReasoningDelta)),
        [(e.tool_use.name, e.tool_use.input) for e in events if isinstance(e, ToolUseEnd)],
        [e.kind for e in events if isinstance(e, ToolCallProblem)],
        sum(isinstance(e, LeakedCallsRecovered) for e in events),
    )


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.data())
@example('Read\n{"file_path": "a"}', [4])  # functionary's NAME, then its brace
@example("Some prose.\nfunctools", [21])  # a line opener word before its [
@example("analysisWe need to read it", [3, 8])  # Harmony, its special tokens stripped
def test_the_watch_reads_any_split_of_any_text_as_the_parser_does(
    text: str, data: st.DataObject | list[int]
) -> None:
    cuts = data if isinstance(data, list) else data.draw(st.lists(st.integers(0, len(text))))
    watched = streamed(LeakWatch(TOOLS), text, cuts)
    assert seen(watched) == seen(streamed(LeakedCalls(TOOLS), text, cuts))


def test_prose_streams_as_it_comes_without_the_parser() -> None:
    watch = LeakWatch(TOOLS)
    shown = [watch.handle(TextDelta(piece)) for piece in ("The file ", "says hi.\n", "Done")]
    assert shown == [[TextDelta("The file ")], [TextDelta("says hi.\n")], []]
    assert watch.handle(MessageEnd("end_turn")) == [TextDelta("Done"), MessageEnd("end_turn")]
    assert watch.leaks is None


def test_a_call_in_the_prose_still_runs_and_its_markup_is_not_shown() -> None:
    watch = LeakWatch(TOOLS)
    text = 'Reading it.\n<tool_call>{"name": "Read", "arguments": {"file_path": "a"}}</tool_call>'
    events = streamed(watch, text, [5, 14, 30])
    assert seen(events) == ("Reading it.\n", "", [("Read", {"file_path": "a"})], [], 1)
    assert watch.leaks is not None
