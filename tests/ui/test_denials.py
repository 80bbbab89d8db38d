"""The closing line of a run with refused calls, and what decides exit code 3."""

from __future__ import annotations

from typing import Literal

import pytest

from nehanda.events import ToolExecuted
from nehanda.tools.registry import builtin_facts
from nehanda.types import Refusal, ToolResult, ToolUse
from nehanda.ui.denials import Denials

By = Literal["user", "rules", "nobody"]


def executed(name: str, by: By | None, **arguments: str) -> ToolExecuted:
    refusal = None if by is None else Refusal(by, "it needs approval")
    call = ToolUse(f"id-{name}", name, dict(arguments))
    result = ToolResult(call.id, "x", is_error=by is not None, refusal=refusal)
    return ToolExecuted(call, result, 0.0, builtin_facts()[name])


@pytest.mark.parametrize(
    ("events", "line", "nothing_ran"),
    [
        ([executed("Read", None, file_path="a")], None, False),
        (
            [executed("Write", "nobody", file_path="a.py", content="")] * 2,
            "2 calls were not run: Write a.py, Write a.py; "
            "rerun with --permission-mode accept-edits or --yes",
            True,
        ),
        (
            [executed("Bash", "nobody", command="make"), executed("Read", None, file_path="a")],
            "1 call was not run: Bash make; rerun with --yes, or allow them in [permissions] allow",
            False,
        ),
        ([executed("Bash", "user", command="rm x")], "1 call was not run: Bash rm x", True),
    ],
)
def test_the_closing_line_names_the_calls_and_what_lets_them_run(
    events: list[ToolExecuted], line: str | None, nothing_ran: bool
) -> None:
    denials = Denials()
    for event in events:
        denials.add(event)
    assert denials.line() == line
    assert denials.nothing_ran is nothing_ran
    assert len(denials.entries()) == len(denials.refused)
