"""The project files that steer later runs, compared across a Bash command."""

from __future__ import annotations

import asyncio
from pathlib import Path

from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.tools.watched import MAX_FILES, changes, snapshot, steering_note
from nehanda.types import ToolResult, ToolUse


def bash(workspace: Path, command: str) -> ToolResult:
    use = ToolUse("b", "Bash", {"command": command})
    return asyncio.run(execute_builtin_tool(use, ToolContext(workspace)))


def test_each_kind_of_change_is_named(tmp_path: Path) -> None:
    (tmp_path / ".git" / "hooks").mkdir(parents=True)
    (tmp_path / ".git" / "hooks" / "pre-push").write_text("#!/bin/sh\n")
    (tmp_path / ".envrc").write_text("export A=1\n")
    (tmp_path / "src.py").write_text("x = 1\n")
    content = bash(
        tmp_path,
        "chmod +x .git/hooks/pre-push && rm .envrc && mkdir -p .vscode .nehanda"
        " && echo '{}' > .vscode/tasks.json && echo x > .nehanda/settings.toml"
        " && echo y > src.py && ln -s /etc/passwd .mcp.json",
    ).content
    note = steering_note(content)
    assert note is not None
    for named in (
        ".git/hooks/pre-push (changed)",
        ".envrc (removed)",
        ".vscode/tasks.json (added)",
        ".nehanda/settings.toml (added)",
        ".mcp.json (added)",
    ):
        assert named in note
    assert "src.py" not in note


def test_git_init_reports_its_config_but_not_its_sample_hooks(tmp_path: Path) -> None:
    note = steering_note(bash(tmp_path, "git init -q").content)
    assert note is not None and ".git/config (added)" in note
    assert ".sample" not in note


def test_a_command_that_touches_none_of_them_says_nothing(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n")
    assert steering_note(bash(tmp_path, "echo hi > notes.txt && cat .git/config").content) is None


def test_a_failed_command_still_reports_its_changes(tmp_path: Path) -> None:
    result = bash(tmp_path, "echo '{}' > .mcp.json; exit 3")
    assert result.is_error and "(exit code 3)" in result.content
    assert steering_note(result.content) is not None
    assert ".mcp.json (added)" in result.content


def test_a_flood_of_files_in_a_watched_folder_is_bounded(tmp_path: Path) -> None:
    before = snapshot(tmp_path)
    (tmp_path / ".vscode").mkdir()
    for index in range(MAX_FILES + 50):
        (tmp_path / ".vscode" / f"f{index}").write_text("x")
    assert len(changes(before, snapshot(tmp_path))) == MAX_FILES
