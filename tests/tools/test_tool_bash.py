"""Bash as the model uses it: contained, bounded, and killed whole when it must stop."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from nehanda.tools import bash
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse
from processes import gone

NOTE = re.compile(r"\[\.\.\. (\d+) bytes \((\d+) lines\) omitted \.\.\.\]\n")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


def run(ws: Path, command: str, **args: Any) -> ToolResult:
    tool_use = ToolUse("call_1", "Bash", {"command": command, **args})
    context = ToolContext(ws, secret_env=frozenset({"CUSTOM_KEY"}))
    return asyncio.run(execute_builtin_tool(tool_use, context))


needs_proc = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def test_output_and_exit_code(ws: Path) -> None:
    result = run(ws, "echo out; echo err >&2")
    assert (result.is_error, result.content) == (False, "out\nerr\n\n(exit code 0)")
    failed = run(ws, "echo nope; exit 3")
    assert (failed.is_error, failed.content) == (True, "nope\n\n(exit code 3)")
    assert run(ws, "true").content == "(no output)\n\n(exit code 0)"


def test_claude_codes_description_argument_is_taken_and_others_are_not(ws: Path) -> None:
    described = run(ws, "echo out", description="Print a word")
    assert (described.is_error, described.content) == (False, "out\n\n(exit code 0)")
    assert run(ws, "echo out", colour="red").is_error


def test_runs_in_the_workspace_in_its_own_process_group(ws: Path) -> None:
    result = run(ws, "pwd; python3 -c 'import os; print(os.getpgrp(), os.getsid(0))'")
    lines = result.content.splitlines()
    assert lines[0] == str(ws)
    group, session = map(int, lines[1].split())
    assert group == session != os.getpgrp()


def test_a_command_waiting_for_input_gets_end_of_file(ws: Path) -> None:
    # Waiting for input, it would run into the 30-second limit instead.
    result = run(ws, 'read -r line; echo "status $? line [$line]"; cat', timeout=30)
    assert result.content.startswith("status 1 line []")


def test_the_environment_has_no_api_keys_and_no_prompts(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "NEHANDA_API_KEY", "Mistral_Api_Key"):
        monkeypatch.setenv(name, "sk-secret")
    monkeypatch.setenv("CUSTOM_KEY", "sk-custom")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-token")
    monkeypatch.setenv("HARMLESS", "kept")
    result = run(ws, "env")
    assert "sk-secret" not in result.content and "sk-custom" not in result.content
    assert "GITHUB_TOKEN" not in result.content
    assert "HARMLESS=kept" in result.content
    for guard in ("GIT_EDITOR=true", "GIT_TERMINAL_PROMPT=0", "PAGER=cat", "EDITOR=true"):
        assert guard in result.content.splitlines()


@needs_proc
def test_a_command_that_never_ends_is_killed_with_its_children(ws: Path) -> None:
    result = run(ws, "sleep 300 & echo $! > child.pid; sleep 300", timeout=0.5)
    assert result.is_error
    assert "still running after 0.5 seconds and was stopped" in result.content
    assert gone(int((ws / "child.pid").read_text()))


@needs_proc
def test_a_command_that_ignores_sigterm_gets_sigkill(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bash, "TERM_GRACE", 0.2)
    result = run(ws, "trap '' TERM; echo $$ > shell.pid; sleep 300", timeout=0.3)
    assert result.is_error
    assert gone(int((ws / "shell.pid").read_text()))


@needs_proc
def test_cancelling_the_call_kills_the_whole_group(ws: Path) -> None:
    marker = ws / "child.pid"

    async def cancel_midway() -> None:
        tool_use = ToolUse("call_1", "Bash", {"command": f"sleep 300 & echo $! > {marker}; wait"})
        task = asyncio.ensure_future(execute_builtin_tool(tool_use, ToolContext(ws)))
        while not marker.exists() or not marker.read_text().strip():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_midway())
    assert gone(int(marker.read_text()))


def test_a_background_child_holding_the_output_does_not_hold_the_call(ws: Path) -> None:
    # Waiting for the child, it would run into the 30-second limit instead.
    result = run(ws, "sleep 300 & echo started", timeout=30)
    assert result.content.startswith("started\n(processes it left running in the background")


@needs_proc
def test_a_background_job_not_holding_the_output_is_stopped_as_the_command_ends(ws: Path) -> None:
    """Without the sandbox's PID namespace, the process group is what is left to stop."""
    result = run(ws, "sleep 1000 > /dev/null 2>&1 & echo $! > job.pid; echo started")
    pid = int((ws / "job.pid").read_text())
    try:
        assert gone(pid)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert result.content.startswith("started\n(processes it left running in the background")


def test_huge_output_keeps_head_and_tail_and_counts_the_rest(ws: Path) -> None:
    total = 5_000_000
    result = run(ws, f"seq 1 1000000 | head -c {total}")
    assert not result.is_error
    match = NOTE.search(result.content)
    assert match is not None
    head, tail = result.content[: match.start()], result.content[match.end() :]
    tail = tail.removesuffix("\n\n(exit code 0)")
    assert head.startswith("1\n2\n3\n")
    assert len(head) + len(tail) <= bash.MAX_OUTPUT_BYTES
    assert len(head) + int(match.group(1)) + len(tail) == total
    assert len(result.content) < bash.MAX_OUTPUT_BYTES + 200


def test_the_timeout_is_bounded(ws: Path) -> None:
    result = run(ws, "true", timeout=601)
    assert result.is_error and "less than or equal to 600" in result.content
    assert bash.BashArgs(command="x").timeout is None and bash.DEFAULT_TIMEOUT == 120
