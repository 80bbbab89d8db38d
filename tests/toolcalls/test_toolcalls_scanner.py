"""The streaming scanner: events as text arrives, and agreement with the whole-text parse."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nehanda.events import (
    ReasoningDelta,
    StreamEvent,
    TextDelta,
    ToolCallProblem,
    ToolUseEnd,
    ToolUseStart,
)
from nehanda.toolcalls.parse import collect, parse_tool_calls
from nehanda.toolcalls.scanner import ToolCallScanner
from toolcalls.toolcall_render import (
    FORMATS,
    KNOWN,
    SCHEMAS,
    SNIPPETS,
    TRICKY,
    feed_in_pieces,
    render,
    summary,
)

CALL = '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "a"}}[/TOOL_CALL]'


def texts(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


class TestEvents:
    def test_prose_is_released_at_once_except_a_possible_delimiter_prefix(self) -> None:
        scanner = ToolCallScanner(KNOWN)
        assert scanner.feed("Hello, wor") == [TextDelta("Hello, wor")]
        assert scanner.feed("ld. x[0] <b> [TOOL_") == [TextDelta("ld. x[0] <b> ")]
        assert scanner.feed("CA") == []
        assert scanner.feed("T] no") == [TextDelta("[TOOL_CAT] no")]
        assert scanner.feed(" <thi") == [TextDelta(" ")]
        # A final ">" may begin Functionary's ">>>" recipient: it waits for the next chunk.
        assert scanner.feed("s>") == [TextDelta("<this")]
        assert scanner.finish() == [TextDelta(">")]

    def test_a_partial_prefix_is_released_at_the_end(self) -> None:
        scanner = ToolCallScanner(KNOWN)
        assert scanner.feed("see [TOOL") == [TextDelta("see ")]
        assert scanner.finish() == [TextDelta("[TOOL")]

    def test_a_call_starts_when_its_name_is_known_and_ends_when_complete(self) -> None:
        scanner = ToolCallScanner(KNOWN)
        assert scanner.feed("<think>ok</think>Reading.\n") == [
            ReasoningDelta("ok"),
            TextDelta("Reading.\n"),
        ]
        assert scanner.feed('[TOOL_CALL]{"name": "Wri') == []
        (start,) = scanner.feed('te", "arguments": {"content": "x')
        assert isinstance(start, ToolUseStart) and (start.index, start.name) == (0, "Write")
        assert scanner.feed("y" * 100) == []
        (end,) = scanner.feed('"}}[/TOOL_CALL]')
        assert isinstance(end, ToolUseEnd) and end.index == 0
        assert end.tool_use.id == start.id and end.tool_use.input == {"content": "x" + "y" * 100}
        assert scanner.finish() == []

    def test_a_name_outside_the_json_starts_the_call_at_once(self) -> None:
        scanner = ToolCallScanner(KNOWN)
        scanner.feed("[THINK]plan[/THINK]")
        (start,) = scanner.feed('[TOOL_CALLS]Bash[ARGS]{"comm')
        assert isinstance(start, ToolUseStart) and start.name == "Bash"

    def test_calls_before_any_reasoning_tag_wait_for_the_end(self) -> None:
        # A later "</think>" with no opener would make them drafts.
        scanner = ToolCallScanner(KNOWN)
        assert scanner.feed("Let me read.\n" + CALL) == [TextDelta("Let me read.\n")]
        events = scanner.finish()
        assert [type(e) for e in events] == [ToolUseStart, ToolUseEnd]
        assert isinstance(events[1], ToolUseEnd) and events[1].tool_use.name == "Read"

    def test_indices_count_calls_in_order(self) -> None:
        events = feed_in_pieces("<think></think>" + CALL * 3, range(0, 400, 5))
        ends = [e for e in events if isinstance(e, ToolUseEnd)]
        starts = [e for e in events if isinstance(e, ToolUseStart)]
        assert [e.index for e in ends] == [0, 1, 2] == [e.index for e in starts]
        assert [e.tool_use.id for e in ends] == [e.id for e in starts]

    def test_a_started_call_that_is_dropped_gets_a_problem_instead_of_an_end(self) -> None:
        scanner = ToolCallScanner(KNOWN)
        scanner.feed("<think></think>")
        events = scanner.feed('[TOOL_CALL]{"name": "Read", "arguments": {"a": 1, ')
        events += scanner.feed('"a": 2}}[/TOOL_CALL]')
        events += scanner.finish()
        assert [type(e) for e in events] == [ToolUseStart, ToolCallProblem]

    def test_reasoning_streams_as_reasoning_deltas(self) -> None:
        events = feed_in_pieces("<think>step one, step two</think>Answer.", range(0, 60, 4))
        reasoning = "".join(e.text for e in events if isinstance(e, ReasoningDelta))
        assert reasoning == "step one, step two"
        assert texts(events) == "Answer."

    def test_nothing_after_finish(self) -> None:
        scanner = ToolCallScanner(KNOWN)
        scanner.feed("hi")
        scanner.finish()
        assert scanner.feed("more") == [] and scanner.finish() == []

    def test_the_unclosed_final_call_is_known_only_at_the_end(self) -> None:
        text = '<think></think>[TOOL_CALL]{"name": "Read", "arguments": {}}'
        scanner = ToolCallScanner(KNOWN)
        assert not any(isinstance(e, ToolUseEnd) for e in scanner.feed(text))
        (end,) = [e for e in scanner.finish() if isinstance(e, ToolUseEnd)]
        assert end.tool_use.unclosed


# -- split invariance ----------------------------------------------------------

values = st.one_of(
    st.text(alphabet=TRICKY, max_size=12),
    st.integers(-5, 10**6),
    st.booleans(),
    st.none(),
    st.sampled_from(SNIPPETS),
)
arguments = st.dictionaries(
    st.sampled_from(["file_path", "command", "content", "limit", "env"]), values, max_size=3
)


@st.composite
def call_block(draw: st.DrawFn) -> str:
    fmt = draw(st.sampled_from(FORMATS))
    name = draw(st.sampled_from(["Read", "Bash", "Write", "Nope", "mcp__git.log-v2"]))
    text = render(fmt, name, draw(arguments))
    damage = draw(st.sampled_from(["none", "none", "truncate", "no-closer", "quotes", "comma"]))
    if damage == "truncate":
        text = text[: draw(st.integers(1, max(1, len(text) - 1)))]
    elif damage == "no-closer":
        text = text.rsplit("[/", 1)[0].rsplit("</", 1)[0]
    elif damage == "quotes":
        text = text.replace('"', "'")
    elif damage == "comma":
        text = text.replace("}", ",}", 1)
    return text


pieces = st.one_of(
    call_block(),
    st.sampled_from(SNIPPETS),
    st.text(alphabet=TRICKY, max_size=10),
    st.text(max_size=6),
)
outputs = st.lists(pieces, max_size=8).map("".join)


@st.composite
def output_and_cuts(draw: st.DrawFn) -> tuple[str, list[int]]:
    text = draw(outputs)
    if draw(st.booleans()) and text:
        cuts = list(range(1, len(text)))
    else:
        cuts = draw(st.lists(st.integers(0, max(0, len(text))), max_size=20))
    return text, cuts


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(output_and_cuts())
def test_any_split_parses_like_the_whole(case: tuple[str, list[int]]) -> None:
    text, cuts = case
    whole = parse_tool_calls(text, KNOWN, SCHEMAS)
    pieces = collect(feed_in_pieces(text, cuts, KNOWN, SCHEMAS))
    assert summary(pieces) == summary(whole)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(SNIPPETS), min_size=1, max_size=10).map("".join), st.data())
def test_any_split_of_delimiter_soup_parses_like_the_whole(text: str, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12))
    whole = parse_tool_calls(text, KNOWN, SCHEMAS)
    assert summary(collect(feed_in_pieces(text, cuts, KNOWN, SCHEMAS))) == summary(whole)


# -- nothing lost, invented or doubled -----------------------------------------

prose = st.text(alphabet="abcdefghij KLMN.,!?-'", min_size=1, max_size=30).map(
    lambda s: "a" + s + "z"
)
plain_values = st.one_of(
    st.text(alphabet='abc xyz/."\\\n\t[]{}:,', max_size=15),
    st.integers(),
    st.booleans(),
    st.lists(st.integers(), max_size=3),
)
xml_values = st.text(alphabet="abc xyz/.\"'\n\t[]{}:,=", max_size=15)


@st.composite
def well_formed_call(draw: st.DrawFn) -> tuple[str, str, dict[str, Any]]:
    fmt = draw(st.sampled_from(FORMATS))
    name = draw(st.sampled_from(["Write", "Edit", "mcp__git.log-v2"]))
    keys = st.sampled_from(["content", "path", "old", "new"])
    vals = xml_values if fmt == "qwen_xml" else plain_values
    args = draw(st.dictionaries(keys, vals, max_size=3))
    return render(fmt, name, args).strip("\n"), name, args


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.one_of(st.none(), prose), well_formed_call()), max_size=5),
    st.one_of(st.none(), prose),
    st.integers(1, 9),
)
def test_well_formed_calls_come_out_exactly_once_in_order(
    parts: list[tuple[str | None, tuple[str, str, dict[str, Any]]]],
    tail: str | None,
    size: int,
) -> None:
    chunks: list[str] = []
    visible: list[str] = []
    expected: list[tuple[str, dict[str, Any]]] = []
    for before, (block, name, args) in parts:
        if before is not None:
            chunks.append(before)
            visible.append(before)
        chunks.append("\n" + block + "\n")
        visible.append("\n\n")
        expected.append((name, args))
    if tail is not None:
        chunks.append(tail)
        visible.append(tail)
    text = "".join(chunks)
    whole = parse_tool_calls(text, KNOWN, SCHEMAS)
    pieces = collect(feed_in_pieces(text, range(size, len(text), size), KNOWN, SCHEMAS))
    for result in (whole, pieces):
        assert [(c.name, c.input) for c in result.calls] == expected
        assert result.problems == []
        assert result.text == "".join(visible)


def test_a_large_call_streamed_byte_by_byte() -> None:
    args = {"content": "line\n" * 2000 + '"[/TOOL_CALL]"'}
    text = "Writing.\n[TOOL_CALL]" + json.dumps({"name": "Write", "arguments": args})
    text += "[/TOOL_CALL]\nDone."
    result = collect(feed_in_pieces(text, range(1, len(text))))
    assert [(c.name, c.input) for c in result.calls] == [("Write", args)]
    assert result.text == "Writing.\n\nDone."
