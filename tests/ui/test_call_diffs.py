"""The diff a Write or an Edit makes, shown under its line unless its approval showed it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fakes import checked
from nehanda.types import CheckedCall, ToolUse
from nehanda.ui.call_diffs import CallDiffs, NotingApprover
from nehanda.verdicts import Answer, Ask


class Yes:
    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        return Answer(True)


def test_a_diff_is_taken_before_the_call_runs_and_shown_once(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    diffs = CallDiffs(tmp_path)
    write = ToolUse("c1", "Write", {"file_path": "a.txt", "content": "two\n"})
    diffs.started(write, checked(write).facts)
    (tmp_path / "a.txt").write_text("two\n")  # the call ran
    shown = diffs.made("c1")
    assert shown is not None and "-one" in shown and "+two" in shown
    assert diffs.made("c1") is None


def test_no_diff_for_a_call_whose_approval_showed_it(tmp_path: Path) -> None:
    diffs = CallDiffs(tmp_path)
    write = ToolUse("c2", "Write", {"file_path": "new.txt", "content": "hello\n"})
    diffs.started(write, checked(write).facts)
    answer = asyncio.run(NotingApprover(Yes(), diffs).ask(checked(write), Ask("it writes a file")))
    assert answer.run and diffs.made("c2") is None


def test_other_tools_and_broken_calls_have_no_diff(tmp_path: Path) -> None:
    diffs = CallDiffs(tmp_path)
    read = ToolUse("c3", "Read", {"file_path": "a.txt"})
    diffs.started(read, checked(read).facts)
    edit = ToolUse("c4", "Edit", {"file_path": "missing.txt", "old_string": "x"})
    diffs.started(edit, checked(edit).facts)
    assert diffs.made("c3") is None and diffs.made("c4") is None
