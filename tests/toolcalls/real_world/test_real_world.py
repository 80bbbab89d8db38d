"""The real-world corpus read whole and streamed: every case right, no false call.

A case's answer is the calls that would run (a call whose arguments could not be read
runs nothing); the whole text, 1- and 7-character deltas and seeded random splits
must all give it, and the same events.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from nehanda.toolcalls.parse import ParseResult, collect, parse_tool_calls
from toolcalls.real_world.corpus import Case, load, threads
from toolcalls.toolcall_render import feed_in_pieces, summary

CASES = load()
# Cases the parser still misses, each with what stands in the way; strict, so a fix shows.
OPEN: dict[str, str] = {}


def marked(case: Case) -> Any:
    reason = OPEN.get(case.key)
    if reason is None:
        return case
    return pytest.param(case, marks=pytest.mark.xfail(reason=reason, strict=True))


def runnable(result: ParseResult) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.input) for c in result.calls if c.input_error is None]


def splits(case: Case) -> list[list[int]]:
    size = len(case.text)
    seeded = random.Random(case.key)
    drawn = [sorted(seeded.sample(range(1, size), min(size - 1, 6))) for _ in range(4)]
    return [list(range(1, size)), list(range(7, size, 7)), *drawn] if size > 1 else []


@pytest.mark.parametrize("case", [marked(c) for c in CASES], ids=[c.key for c in CASES])
def test_the_calls_a_careful_reader_sees(case: Case) -> None:
    whole = parse_tool_calls(case.text, frozenset(case.tools), case.tools)
    assert runnable(whole) == case.calls
    for cuts in splits(case):
        pieces = collect(feed_in_pieces(case.text, cuts, case.tools, case.tools))
        assert summary(pieces) == summary(whole)


def test_the_corpus_is_as_wide_as_promised() -> None:
    """At least 100 cases from 30 threads, with no fewer no-call cases than call cases."""
    no_call = sum(1 for case in CASES if not case.calls)
    assert len(CASES) >= 100
    assert len({case.thread for case in CASES}) >= 30
    assert all(thread["url"].startswith("https://github.com/") for thread in threads())
    assert no_call >= len(CASES) - no_call
    assert len({case.key for case in CASES}) == len(CASES)
    assert set(OPEN) <= {case.key for case in CASES}
