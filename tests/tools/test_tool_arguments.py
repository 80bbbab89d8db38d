"""Argument values small models get subtly wrong, and which of them ``check_call`` accepts."""

from __future__ import annotations

from typing import Any

import pytest

from nehanda.tools.registry import check_call
from nehanda.types import ToolResult, ToolUse


@pytest.mark.parametrize(
    ("name", "given", "field", "read_as"),
    [
        ("Grep", {"pattern": 404}, "pattern", "404"),
        ("Grep", {"pattern": -3}, "pattern", "-3"),
        ("Grep", {"pattern": 2.5}, "pattern", "2.5"),
        ("Grep", {"pattern": "x", "glob": 7}, "glob", "7"),  # optional: str | None
        ("Read", {"file_path": 2024}, "file_path", "2024"),
        ("Bash", {"command": 42}, "command", "42"),
        ("Write", {"file_path": "n.txt", "content": 10}, "content", "10"),
        # The other way round, as before: pydantic reads these.
        ("Read", {"file_path": "a", "offset": "5"}, "offset", 5),
        ("Grep", {"pattern": "x", "ignore_case": 1}, "ignore_case", True),
        ("Read", {"file_path": "a", "limit": 10.0}, "limit", 10),
    ],
)
def test_accepted_and_read_as(name: str, given: dict[str, Any], field: str, read_as: Any) -> None:
    checked = check_call(ToolUse("a", name, given))
    assert not isinstance(checked, ToolResult), checked.content
    value = getattr(checked.arguments, field)
    assert (type(value), value) == (type(read_as), read_as)


@pytest.mark.parametrize(
    ("name", "given", "says"),
    [
        ("Grep", {"pattern": True}, "'pattern': Input should be a valid string (got True)"),
        ("Grep", {"pattern": [404]}, "parameter 'pattern': Input should be a valid string"),
        ("Grep", {"pattern": {"re": 1}}, "parameter 'pattern': Input should be a valid string"),
        ("Grep", {"pattern": "x", "output_mode": 5}, "parameter 'output_mode': Input should be"),
        ("Read", {"file_path": "a", "offset": 2.5}, "parameter 'offset'"),
        ("Edit", {"file_path": "a", "old_string": "x", "new_string": "y", "replace_all": "maybe"},
         "parameter 'replace_all'"),
    ],
)  # fmt: skip
def test_refused_with_a_reason(name: str, given: dict[str, Any], says: str) -> None:
    checked = check_call(ToolUse("a", name, given))
    assert isinstance(checked, ToolResult) and checked.is_error
    assert says in checked.content


def test_the_call_itself_is_left_as_the_model_wrote_it() -> None:
    tool_use = ToolUse("a", "Grep", {"pattern": 404})
    check_call(tool_use)
    assert tool_use.input == {"pattern": 404}
