"""LS: one directory's entries, sorted, directories marked."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Path(os.path.realpath(workspace))


def ls(ws: Path, **args: Any) -> ToolResult:
    return asyncio.run(execute_builtin_tool(ToolUse("call_1", "LS", args), ToolContext(ws)))


def test_entries_are_sorted_with_directories_marked(ws: Path) -> None:
    for name in ("b.txt", "a.py", ".env"):
        (ws / name).write_text("")
    (ws / "src").mkdir()
    (ws / "link").symlink_to("a.py")
    assert ls(ws).content == ".env\na.py\nb.txt\nlink -> a.py\nsrc/"


def test_a_subdirectory_by_relative_path(ws: Path) -> None:
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "src" / "main.py").write_text("")
    assert ls(ws, path="src").content == "main.py\npkg/"


def test_many_entries_are_capped_with_a_count(ws: Path) -> None:
    for n in range(1005):
        (ws / f"f{n:04}").write_text("")
    lines = ls(ws).content.splitlines()
    assert len(lines) == 1001
    assert lines[-2:] == ["f0999", "... and 5 more"]


@pytest.mark.parametrize(
    ("setup", "path", "message"),
    [
        ("file", "a.txt", "a.txt is a file, not a directory; use Read to see it."),
        ("none", "missing", "Directory not found: missing."),
        ("none", "..", "is outside the workspace"),
    ],
)
def test_errors_say_what_to_do(ws: Path, setup: str, path: str, message: str) -> None:
    if setup == "file":
        (ws / "a.txt").write_text("")
    result = ls(ws, path=path)
    assert result.is_error
    assert message in result.content


def test_empty_directory_says_so(ws: Path) -> None:
    assert ls(ws).content == "(. is an empty directory.)"
