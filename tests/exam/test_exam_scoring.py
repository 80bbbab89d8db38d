"""Scoring one reply against its turn: what passes, what is malformed, what is false."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.events import ToolCallProblem
from nehanda.exam.checks import Contains, Equals, OneOf, SameText
from nehanda.exam.scoring import score_turn
from nehanda.exam.tasks import TASKS, call, turn
from nehanda.types import ToolUse

READ = turn(call("Read", "  1\tx", file_path=Equals("a.txt")))
TWO = turn(
    call("Read", "first", file_path=Equals("a")), call("Read", "second", file_path=Equals("b"))
)
NONE = turn(answer=Contains(("8431",)))


def use(name: str, index: int = 0, error: str | None = None, **arguments: Any) -> ToolUse:
    return ToolUse(f"id{index}", name, arguments, input_error=error)


@pytest.mark.parametrize(
    ("expected", "calls", "text", "passed", "malformed", "false", "failure"),
    [
        (READ, [use("Read", file_path="a.txt")], "", True, 0, 0, None),
        (READ, [use("Read", file_path="a.txt", limit=5)], "", True, 0, 0, None),
        (READ, [], "I'd read a.txt", False, 0, 0, "no call (expected Read)"),
        (READ, [use("Read", file_path="b.txt")], "", False, 0, 1,
         "Read file_path: got 'b.txt', expected 'a.txt'"),
        (READ, [use("Bash", command="cat a.txt")], "", False, 0, 1,
         "called Bash where Read was expected"),
        (READ, [use("Read", file_path="a.txt"), use("LS", 1)], "", False, 0, 1,
         "called LS() but it was not asked for"),
        (READ, [use("Read", file_path="a.txt", lines=3)], "", False, 1, 0,
         "malformed call: Invalid arguments for Read: unknown parameter 'lines'"),
        (READ, [use("Read", error="Invalid JSON in the arguments")], "", False, 1, 0,
         "malformed call: Invalid JSON in the arguments"),
        (READ, [use("Reed", file_path="a.txt")], "", False, 1, 0,
         "malformed call: Unknown tool 'Reed'"),
        (TWO, [use("Read", 0, file_path="b"), use("Read", 1, file_path="a")], "", True, 0, 0, None),
        (TWO, [use("Read", file_path="a")], "", False, 0, 0,
         "made 1 of the 2 calls asked for in one reply"),
        (NONE, [], "It listens on port 8431.", True, 0, 0, None),
        (NONE, [], "It listens on port 80.", False, 0, 0, "the answer is not text with '8431'"),
        (NONE, [], "  ", False, 0, 0, "an empty answer"),
        (NONE, [use("Bash", command="ls")], "8431", False, 0, 1,
         "called Bash(command='ls') but no call was needed"),
    ],
)  # fmt: skip
def test_a_reply_scored_against_its_turn(
    expected: Any,
    calls: list[ToolUse],
    text: str,
    passed: bool,
    malformed: int,
    false: int,
    failure: str | None,
) -> None:
    score = score_turn(expected, text, calls, [])
    assert (score.passed, score.malformed, score.false_calls) == (passed, malformed, false)
    assert score.failure == failure


def test_canned_results_answer_the_calls_made_in_their_order() -> None:
    score = score_turn(TWO, "", [use("Read", 7, file_path="b"), use("Read", 8, file_path="a")], [])
    assert [(r.tool_use_id, r.content) for r in score.results] == [
        ("id7", "second"),
        ("id8", "first"),
    ]
    assert score_turn(READ, "", [use("Read", file_path="z")], []).results == ()


def test_text_the_parser_dropped_is_malformed_and_a_repair_is_not() -> None:
    dropped = ToolCallProblem("invalid_json", "The Read call's JSON could not be read.")
    score = score_turn(READ, "", [], [dropped])
    assert (score.passed, score.malformed) == (False, 1)
    assert score.failure == "malformed call: The Read call's JSON could not be read"
    repaired = ToolCallProblem("repaired", "repaired a missing brace")
    kept = score_turn(READ, "", [use("Read", file_path="a.txt")], [repaired])
    assert (kept.passed, kept.malformed) == (True, 1)  # the model wrote it badly; it ran


def test_arguments_are_compared_as_the_tool_reads_them() -> None:
    """A run accepts ``"120"`` for an integer; a boolean must still be a boolean."""
    wanted = turn(call("Read", file_path=Equals("f"), offset=Equals(120)))
    assert score_turn(wanted, "", [use("Read", file_path="f", offset="120")], []).passed
    flag = turn(call("Grep", pattern=Equals("x"), ignore_case=Equals(True)))
    assert not score_turn(flag, "", [use("Grep", pattern="x")], []).passed
    assert score_turn(flag, "", [use("Grep", pattern="x", ignore_case=True)], []).passed


@pytest.mark.parametrize(
    ("check", "good", "bad"),
    [
        (Equals(True), [True], [1, "true", False]),
        (Equals(40), [40], [40.5, "40", True]),
        (SameText("a\nb"), ["a\nb", "a\nb\n"], ["a\nb ", "a b", 3]),
        (OneOf(("x", "./x")), ["x", "./x"], ["y"]),
        (Contains(("Transfer Protocol",)), ["hypertext transfer protocol"], ["HTTP", None]),
    ],
)
def test_checks(check: Any, good: list[Any], bad: list[Any]) -> None:
    assert all(check(value) for value in good)
    assert not any(check(value) for value in bad)


def test_the_exam_covers_what_the_issue_lists_and_names_are_unique() -> None:
    names = [task.name for task in TASKS]
    assert len(names) == len(set(names)) and 10 <= len(names) <= 15
    assert any(len(task.turns) > 1 for task in TASKS)  # a result fed back
    assert any(not task.turns[0].calls for task in TASKS)  # no call needed
    assert any(len(task.turns[0].calls) == 2 for task in TASKS)  # two calls in one reply
    long = next(task for task in TASKS if task.name == "long_argument")
    content = long.turns[0].calls[0].arguments["content"]
    assert isinstance(content, SameText) and len(content.value) >= 2000


POOL = [
    use("Read", 0, file_path="a"),
    use("Read", 1, file_path="b"),
    use("Read", 2, file_path="c"),
    use("Bash", 3, command="ls"),
    use("Reed", 4, file_path="a"),
]


@given(st.lists(st.sampled_from(range(len(POOL))), max_size=5, unique=True), st.randoms())
def test_a_turn_passes_exactly_when_the_expected_calls_alone_were_made(
    picks: list[int], rnd: Any
) -> None:
    calls = [POOL[i] for i in picks]
    rnd.shuffle(calls)
    score = score_turn(TWO, "", calls, [])
    assert score.passed == (sorted(picks) == [0, 1])
    assert score.malformed == (4 in picks)
    assert score.false_calls == len(set(picks) & {2, 3})
    if score.passed:
        by_id = {result.tool_use_id: result.content for result in score.results}
        assert by_id == {"id0": "first", "id1": "second"}
