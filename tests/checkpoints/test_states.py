"""What undoing turns would do, decided without touching a file (``checkpoints.states``)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nehanda.checkpoints.states import (
    ABSENT,
    Change,
    State,
    changes_from_json,
    changes_to_json,
    net_changes,
    plan,
    safe_relative,
)

ONE, TWO, THREE = (State("file", c * 64) for c in "123")
HUGE = State("kept", "9:1", why="over the checkpoint size cap")


@pytest.mark.parametrize(
    ("change", "now", "restored", "conflict", "lost"),
    [
        (Change(ONE, TWO), TWO, ONE, False, False),  # changed by the turn
        (Change(ABSENT, TWO), TWO, ABSENT, False, False),  # created
        (Change(ONE, ABSENT), ABSENT, ONE, False, False),  # deleted
        (Change(ONE, TWO), ONE, None, False, False),  # already as it was
        (Change(ONE, TWO), THREE, ONE, True, False),  # changed since
        (Change(ONE, TWO), ABSENT, ONE, True, False),  # deleted since
        (Change(ONE, None), THREE, ONE, False, False),  # cut short: nothing to compare
        (Change(HUGE, TWO), TWO, None, False, True),  # never copied
    ],
)
def test_plan(
    change: Change, now: State, restored: State | None, conflict: bool, lost: bool
) -> None:
    decided = plan({"f": change}, {"f": now})
    assert decided.restore == ((("f", restored),) if restored else ())
    assert bool(decided.conflicts) == conflict
    assert bool(decided.lost) == lost


def test_net_changes_keep_the_first_before_and_the_last_after() -> None:
    net = net_changes(
        [{"f": Change(ONE, TWO)}, {"f": Change(TWO, THREE), "g": Change(ABSENT, ONE)}]
    )
    assert net == {"f": Change(ONE, THREE), "g": Change(ABSENT, ONE)}


states = st.sampled_from([ONE, TWO, THREE, ABSENT])


@given(st.dictionaries(st.sampled_from("abc"), st.tuples(states, states, states)))
def test_a_plan_puts_every_file_back_and_flags_those_changed_since(
    table: dict[str, tuple[State, State, State]],
) -> None:
    changes = {path: Change(before, after) for path, (before, after, _) in table.items()}
    current = {path: now for path, (_, _, now) in table.items()}
    decided = plan(changes, current)
    result = {**current, **dict(decided.restore)}
    conflicted = {line.split(" ", 1)[0] for line in decided.conflicts}
    for path, change in changes.items():
        assert result[path].same(change.before)
        now, after = current[path], change.after
        assert after is not None
        assert (path in conflicted) == (not now.same(after) and not now.same(change.before))


@pytest.mark.parametrize(
    ("path", "safe"),
    [
        ("a.txt", True), ("sub/a", True), ("../a", False), ("/etc/passwd", False),
        ("a/../../b", False), ("a//b", False), ("./a", False), ("", False), (".git/config", False),
        ("a\0b", False), ("a\\..\\b", False), (7, False), ("a/", False),
    ],
)  # fmt: skip
def test_safe_relative_accepts_only_plain_paths_below(path: object, safe: bool) -> None:
    assert (safe_relative(path) is not None) == safe


def test_records_round_trip_and_hostile_ones_are_refused() -> None:
    changes = {"a": Change(ONE, None), "b": Change(ABSENT, HUGE)}
    assert changes_from_json(changes_to_json(changes)) == changes
    for bad in (
        {"../x": changes_to_json(changes)["a"]},
        {"a": {"before": {"kind": "file", "digest": "../../etc"}, "after": None}},
        {"a": {"before": {"kind": "device"}, "after": None}},
    ):
        with pytest.raises(ValueError):
            changes_from_json(bad)
