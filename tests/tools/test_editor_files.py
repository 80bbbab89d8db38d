"""Read, Write and Edit through the editor's files (``ToolContext.editor``): each of
their checks comes before the editor is asked, so a path outside the workspace, a
symlink out of it or a FIFO never reaches the editor; inside, the editor's text is
what they read and write.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse


class Buffers:
    """An editor's buffers in memory, recording each path it is asked for."""

    def __init__(self, texts: dict[Path, str]) -> None:
        self.texts = texts
        self.asked: list[Path] = []

    async def read_text(self, path: Path) -> str:
        self.asked.append(path)
        if path not in self.texts:
            raise FileNotFoundError(path)
        return self.texts[path]

    async def write_text(self, path: Path, text: str) -> None:
        self.asked.append(path)
        self.texts[path] = text


def run(ws: Path, buffers: Buffers, tool: str, **args: Any) -> ToolResult:
    context = ToolContext(ws, editor=buffers)
    return asyncio.run(execute_builtin_tool(ToolUse("call_1", tool, args), context))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "secret").write_text("outside\n")
    return (tmp_path / "ws").resolve()


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("Read", {"file_path": "/etc/passwd"}),
        ("Read", {"file_path": "../secret"}),
        ("Read", {"file_path": "link"}),
        ("Read", {"file_path": "fifo"}),
        ("Edit", {"file_path": "../secret", "old_string": "out", "new_string": "in"}),
        ("Edit", {"file_path": "fifo", "old_string": "a", "new_string": "b"}),
        ("Write", {"file_path": "../new", "content": "escaped\n"}),
        ("Write", {"file_path": "link", "content": "escaped\n"}),
    ],
)
def test_a_path_the_checks_refuse_never_reaches_the_editor(
    ws: Path, tool: str, args: dict[str, Any]
) -> None:
    (ws / "link").symlink_to(ws.parent / "secret")
    os.mkfifo(ws / "fifo")
    buffers = Buffers({Path("/etc/passwd"): "root:x:0:0\n", ws.parent / "secret": "x\n"})
    result = run(ws, buffers, tool, **args)
    assert result.is_error and buffers.asked == []
    assert (ws.parent / "secret").read_text() == "outside\n"


def test_the_editors_text_is_read_edited_and_written(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\n")
    buffers = Buffers({ws / "a.py": "x = 1\ny = 2\n", ws / "unsaved.py": "z = 0\n"})
    assert "1\tz = 0" in run(ws, buffers, "Read", file_path="unsaved.py").content
    edited = run(ws, buffers, "Edit", file_path="a.py", old_string="y = 2", new_string="y = 3")
    assert not edited.is_error, edited.content
    assert not run(ws, buffers, "Write", file_path="b.txt", content="new\n").is_error
    assert buffers.texts[ws / "a.py"] == "x = 1\ny = 3\n" and buffers.texts[ws / "b.txt"] == "new\n"
    assert (ws / "a.py").read_text() == "x = 1\n" and not (ws / "b.txt").exists()
