"""Inline code while it streams: shown as it comes, its words mentions once it closes.

A backtick run's text goes out before its partner arrives (nothing in it can be a
call unless the span proves literal), and any split decides like the whole text.
"""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from nehanda.events import TextDelta
from nehanda.toolcalls.inline_code import LIMIT, UNSURE, open_span, partner
from nehanda.toolcalls.scanner import ToolCallScanner
from toolcalls.toolcall_render import KNOWN, calls_of, parse, streamed

CALL = '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "a.py"}}[/TOOL_CALL]'
READ = ("Read", {"file_path": "a.py"})


def shown(deltas: list[str]) -> list[str]:
    """The visible text after each delta."""
    scanner = ToolCallScanner(KNOWN)
    seen, out = "", []
    for delta in deltas:
        seen += "".join(e.text for e in scanner.feed(delta) if isinstance(e, TextDelta))
        out.append(seen)
    return out


def test_the_text_of_open_inline_code_is_shown_before_its_closing_backtick() -> None:
    first, second, _ = shown(["Run `pytest", " -q tests", "` now."])
    assert first == "Run `pytest"
    assert second == "Run `pytest -q tests"


def test_a_word_in_open_inline_code_waits_for_the_span_to_decide() -> None:
    first, second = shown(["Write `<tool_call> tags", "` like that."])
    assert first == "Write `"  # "<tool_call>" may be an opener until the span closes
    assert second == "Write `<tool_call> tags` like that."


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        (f"Use `{CALL}` to read.", []),  # quoted in inline code: a mention
        (f"Use ``x ` {CALL} `` to read.", []),  # a shorter run inside is content
        (f"A lone ` then {CALL}\nmore", [READ]),  # no partner on its line: literal
        (f"A lone ` then\n{CALL}", [READ]),
        ("Past the window: `" + "x" * 600 + f" {CALL} `", [READ]),
        (f"Two spans `a` and `b` then {CALL}", [READ]),
        # "`" finds no partner in its window (500 characters): it was literal, and the
        # "``" it held opens a span of its own, which closes before the call.
        ("Inside `b ``c" + "x" * 489 + f"`` {CALL} `` end", [READ]),
        # Runs that a chunk's end may cut: they wait alone while the text before goes.
        (f"Ends on its run `a` `` {CALL} ``\n{CALL} `", [READ]),
        (
            'Then a fence:\n```json\n{"name": "Read", "arguments": {"file_path": "a.py"}}\n```',
            [READ],
        ),
        (f"Run `` `x` `` and ``\n{CALL}", [READ]),
    ],
)
@pytest.mark.parametrize("size", [1, 2, 3, 8, 64])
def test_inline_code_decides_alike_in_any_pieces(
    text: str, calls: list[tuple[str, dict[str, str]]], size: int
) -> None:
    whole = parse(text)
    assert calls_of(whole) == calls
    pieces = streamed(text, size)
    assert calls_of(pieces) == calls
    assert pieces.text == whole.text


@pytest.mark.parametrize(
    ("text", "before", "expected"),
    [
        ("a `b` c", "", None),
        ("a `b c", "", ("`", LIMIT - 3)),
        ("a ``b` c", "", UNSURE),  # "`" opens a span if "``" proves literal
        ("``b`` `c", "", ("`", LIMIT - 1)),
        ("`a\nb", "", None),  # its line ended: the run was literal
        ("`x", "`", None),  # the rest of a longer run: literal
    ],
)
def test_the_span_left_open_at_a_chunks_end(
    text: str, before: str, expected: tuple[str, int] | None
) -> None:
    assert open_span(text, before) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("b` c", None),  # its partner
        ("bc", ("`", 8)),
        ("b``c", UNSURE),
        ("b\n`c", ("`", LIMIT - 1)),  # literal at the line end; "`c" opens another
        ("bcdefghijkl", None),  # past its window: literal
        ("b` `c", ("`", LIMIT - 1)),
    ],
)
def test_the_span_open_before_a_chunk_goes_on(text: str, expected: tuple[str, int] | None) -> None:
    assert open_span(text, "a", ("`", 10)) == expected


# Runs, line ends, prose, and enough of it to run past a window.
PIECES = ["`", "``", "a", " ", "\n", "x" * 120]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts, texts, st.sampled_from(["", "a", "`"]))
def test_the_span_left_open_carries_over_as_the_whole_text_decides(
    first: str, second: str, before: str
) -> None:
    """A chunk read from the state the one before it left ends as both read as one."""
    assume(not first.endswith("`") and not second.endswith("`"))
    state = open_span(first, before)
    assume(state is not UNSURE)
    carried = open_span(second, (before + first)[-1:], state)
    assert carried is UNSURE or carried == open_span(first + second, before)


@pytest.mark.parametrize(
    ("text", "limit", "final", "expected"),
    [
        ("ab` c", LIMIT, False, (True, 3)),
        ("ab\n`", LIMIT, False, (False, 2)),
        ("abc", LIMIT, False, None),
        ("abc", LIMIT, True, (False, 3)),
        ("abcdef", 3, False, (False, 3)),  # past its window
        ("ab`", LIMIT, False, None),  # a longer run may follow
        ("ab``c`", LIMIT, True, (True, 6)),  # a run of another length is content
    ],
)
def test_where_an_open_span_closes(
    text: str, limit: int, final: bool, expected: tuple[bool, int] | None
) -> None:
    assert partner(text, 0, "`", limit, final=final) == expected
