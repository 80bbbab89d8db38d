"""What TodoWrite tells the model: the list's size and how much of it is done."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from nehanda.tools.base import ToolContext
from nehanda.tools.todo_write import TodoWriteArgs, write_todos


def todos(*statuses: str) -> TodoWriteArgs:
    items = [
        {"content": f"t{n}", "status": s, "activeForm": f"doing t{n}"}
        for n, s in enumerate(statuses)
    ]
    return TodoWriteArgs.model_validate({"todos": items})


@pytest.mark.parametrize(
    ("statuses", "said"),
    [
        (("pending",), "1 item (0 completed)"),
        (("completed", "pending"), "2 items (1 completed)"),
        ((), "0 items (0 completed)"),
    ],
)
def test_the_model_is_told_the_lists_size_in_words(
    tmp_path: Path, statuses: tuple[str, ...], said: str
) -> None:
    answer = asyncio.run(write_todos(todos(*statuses), ToolContext(tmp_path)))
    assert answer.startswith(f"The todo list now has {said}.")
