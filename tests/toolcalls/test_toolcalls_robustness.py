"""No input makes the parser raise, stall or go quadratic, whole or streamed."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nehanda.events import StreamEvent, TextDelta, ToolCallProblem, ToolUseEnd
from nehanda.toolcalls.parse import ParseResult, parse_tool_calls
from nehanda.toolcalls.scanner import ToolCallScanner
from toolcalls.linear import assert_linear, work
from toolcalls.toolcall_render import KNOWN, SCHEMAS, SNIPPETS

# -- never raises, always quick -------------------------------------------------

garbage = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(SNIPPETS) | st.text(max_size=4), max_size=40).map("".join),
    st.binary(max_size=200).map(lambda b: b.decode("latin-1")),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(garbage, st.integers(1, 16))
def test_garbage_never_raises_and_stays_quick(text: str, size: int) -> None:
    scanner = ToolCallScanner(KNOWN, SCHEMAS)
    events: list[StreamEvent] = []
    results: list[ParseResult] = []

    def run() -> None:
        results.append(parse_tool_calls(text, KNOWN, SCHEMAS))
        for i in range(0, len(text), size):
            events.extend(scanner.feed(text[i : i + size]))
        events.extend(scanner.finish())

    # Up to about 200 steps a character were seen: five times that is a blow-up.
    assert work(run) < 1_000 * (len(text) + 10)
    result = results[0]
    assert all(call.name in KNOWN and call.origin == "rescue" for call in result.calls)
    assert len(result.text) <= len(text)
    assert all(isinstance(p, ToolCallProblem) and p.message for p in result.problems)
    streamed_text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert streamed_text == result.text
    assert sum(isinstance(e, ToolUseEnd) for e in events) == len(result.calls)


# -- linear, also when streamed -------------------------------------------------


def _whole(text: str) -> Callable[[], object]:
    return lambda: parse_tool_calls(text, KNOWN, SCHEMAS)


def _streamed(text: str, size: int = 8) -> Callable[[], object]:
    def run() -> None:
        scanner = ToolCallScanner(KNOWN, SCHEMAS)
        for i in range(0, len(text), size):
            scanner.feed(text[i : i + size])
        scanner.finish()

    return run


CALL = '[TOOL_CALL]{"name": "Read", "arguments": {"file_path": "src/a.py"}}[/TOOL_CALL]\n'
PROSE = "Some prose explaining what happens next, with a [link](x) and a < b.\n"

# Each shape makes an output of about ``n`` characters.
SHAPES: dict[str, Callable[[int], str]] = {
    "prose with calls": lambda n: (PROSE * 10 + CALL) * (n // (len(PROSE) * 10 + len(CALL))),
    "one big argument": lambda n: (
        "[TOOL_CALL]"
        + json.dumps({"name": "Write", "arguments": {"content": 'x\n"y' * (n // 5)}})
        + "[/TOOL_CALL]"
    ),
    "big XML value": lambda n: (
        "<tool_call><function=Write><parameter=content>"
        + "a<b\n" * (n // 4)
        + "</parameter></function></tool_call>"
    ),
    "many calls": lambda n: CALL * (n // len(CALL)),
    "unclosed [TOOL_CALL]": lambda n: "[TOOL_CALL]" * (n // 11),
    "unclosed <tool_call>": lambda n: "<tool_call>" * (n // 11),
    "unclosed openers with JSON": lambda n: '[TOOL_CALL]{"a": "' * (n // 18),
    "unclosed json fences": lambda n: '\n```json\n{"' * (n // 12),
    "unclosed braces": lambda n: '[TOOL_CALL]{"a": ' + "{" * n,
    "deep nesting, closed": lambda n: (
        '[TOOL_CALL]{"name": "Read", "arguments": {"a": '
        + "[" * (n // 2)
        + "]" * (n // 2)
        + "}}[/TOOL_CALL]"
    ),
    "reasoning drafts": lambda n: "<think>" + CALL * (n // len(CALL)),
    "angle brackets": lambda n: "<" * n,
    "backticks": lambda n: "`" * n,
    "malformed big argument": lambda n: (
        "[TOOL_CALL]{'name': 'Write', 'arguments': {'c': '" + "x\ny" * (n // 3) + "',}}[/TOOL_CALL]"
    ),
}


@pytest.mark.parametrize("mode", ["whole", "streamed"])
@pytest.mark.parametrize("shape", list(SHAPES))
def test_work_grows_linearly_with_the_input(shape: str, mode: str) -> None:
    """Eight times the input must cost well under the 64 times a quadratic would.

    A quadratic in Python code (a rescan of the buffer per chunk) lands far above the
    bound; one inside a C call is what bench/linearity.py times."""
    size = 10_000 if mode == "whole" else 2_000
    runner = _whole if mode == "whole" else _streamed
    assert_linear(lambda text: runner(text)(), SHAPES[shape], size)
