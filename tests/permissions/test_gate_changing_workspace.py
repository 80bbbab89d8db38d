"""Red team: a workspace that changes while the gate checks a call gets a refusal (or
the tool's own error), never a traceback."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from fakes import run_through
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import BuiltinTools
from nehanda.types import ToolResult, ToolUse

CHANGED = "the workspace changed while the call was checked"
# Flips ws/a between a symlink, nothing and a file, for ever.
FLIPPER = """
import os, sys
a = os.path.join(sys.argv[1], "a")
print("flipping", flush=True)
while True:
    for step in (lambda: os.symlink("b", a), lambda: open(a, "w").close()):
        try:
            step()
            os.unlink(a)
        except OSError:
            pass
"""


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = Path(os.path.realpath(tmp_path)) / "proj"
    (workspace / "b").mkdir(parents=True)
    (workspace / "file.txt").write_text("x\n")
    return workspace


def gate_for(ws: Path, **rules: list[str]) -> ToolGate:
    tools = BuiltinTools(ToolContext(ws))
    return ToolGate(tools, ws, PermissionRules.parse("accept-edits", **rules), NoTerminal())


def call(gate: ToolGate, name: str, **args: str) -> ToolResult:
    return asyncio.run(run_through(gate, ToolUse("call_1", name, dict(args))))


@pytest.fixture
def unreadable_link(ws: Path) -> Iterator[Path]:
    """A symlink in the workspace to one whose target cannot be read, as realpath meets
    a symlink replaced between its lstat and its readlink: an exited, unreaped child's
    /proc/PID/exe."""
    child = subprocess.Popen(["true"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
    link = ws / "gone"
    link.symlink_to(f"/proc/{child.pid}/exe")
    try:
        yield link
    finally:
        child.wait()


@pytest.mark.skipif(not Path("/proc/self/exe").exists(), reason="needs /proc")
@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("Read", {"file_path": "gone/x"}),
        ("Write", {"file_path": "gone", "content": "x"}),
        ("Edit", {"file_path": "gone/y", "old_string": "a", "new_string": "b"}),
        ("Bash", {"command": "cat gone"}),
    ],
)
def test_a_path_that_cannot_be_resolved_is_refused(
    ws: Path, unreadable_link: Path, name: str, args: dict[str, str]
) -> None:
    result = call(gate_for(ws, deny=["Read(secret/**)"]), name, **args)
    assert result.refusal is not None and CHANGED in result.content, result.content
    assert "try again" in result.content


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("Read", {"file_path": "loop"}),
        ("Write", {"file_path": "loop/x", "content": "x"}),
        ("Read", {"file_path": "file.txt/x"}),
        ("Write", {"file_path": "file.txt/x", "content": "x"}),
    ],
)
def test_a_symlink_loop_or_a_file_for_a_folder_answers_with_an_error(
    ws: Path, name: str, args: dict[str, str]
) -> None:
    (ws / "loop").symlink_to("pool")
    (ws / "pool").symlink_to("loop")
    result = call(gate_for(ws), name, **args)
    assert result.is_error and "Traceback" not in result.content


def test_a_user_nobody_knows_is_refused(ws: Path) -> None:
    result = call(gate_for(ws), "Read", file_path="~no-such-user-here/x")
    assert result.refusal is not None and "could not resolve a path" in result.content


def test_a_racing_process_never_gets_a_traceback(ws: Path) -> None:
    flipper = subprocess.Popen(
        [sys.executable, "-c", FLIPPER, str(ws)], stdout=subprocess.PIPE, text=True
    )
    assert flipper.stdout is not None and flipper.stdout.readline() == "flipping\n"
    gate = gate_for(ws)

    async def until_refused() -> list[ToolResult]:
        results = []
        for _ in range(1000):  # the race is usually met within a few dozen calls
            results.append(await run_through(gate, ToolUse("c", "Read", {"file_path": "a/x"})))
            if results[-1].refusal is not None:
                break
        return results

    try:
        results = asyncio.run(until_refused())
    finally:
        flipper.kill()
        flipper.wait()
    assert all(r.is_error for r in results)  # a/x never exists: the tool's error or a refusal
    assert all(CHANGED in r.content for r in results if r.refusal is not None)
