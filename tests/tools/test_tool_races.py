"""Write, Edit and Read while another process swaps a folder of the path for a symlink.

A racing process exchanges a real folder of the workspace with a symlink to a folder
outside it, 10,000 times (``renameat2`` with ``RENAME_EXCHANGE``, so the name always
exists), while the real tools run 200 times through the registry, as a session runs
them. Checking a name and then opening it by name lands files outside the workspace
and reads the secret beside them within a few calls; opening below the workspace's
descriptor must do neither, with ``openat2`` and with the component walk.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from nehanda.tools import beneath
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse

SWAPS = 10_000
CALLS = 200
SECRET = "TOPSECRET-ssh-key"

RACER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
workspace = os.open(sys.argv[1], os.O_PATH | os.O_DIRECTORY)
def exchange():
    if libc.renameat2(workspace, b"d", workspace, b"d.swap", 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2(RENAME_EXCHANGE)")
try:
    exchange()
    exchange()
except OSError as error:
    print("unsupported", error, flush=True)
    sys.exit(0)
print("ready", flush=True)
for _ in range(int(sys.argv[2])):
    exchange()
print("swapped", sys.argv[2], flush=True)
"""


def arguments(tool: str, number: int) -> dict[str, Any]:
    """Each Write makes a new file and each Edit changes its own, so that no call
    depends on what an earlier one did; each Read reads the same file."""
    if tool == "Write":
        return {"file_path": f"d/new-{number}.txt", "content": "written\n"}
    if tool == "Edit":
        return {"file_path": f"d/{number}.txt", "old_string": "count=", "new_string": "count=1"}
    return {"file_path": "d/0.txt"}


ALLOWED_REFUSALS = (
    "is outside the workspace",
    "changed while it was being opened (a symlink appeared); refused.",
    "changed while it was being resolved",
)


@pytest.fixture(params=["openat2", "walk"])
def opener(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "walk":
        monkeypatch.setattr(beneath, "use_openat2", lambda: False)
    elif not beneath.use_openat2():
        pytest.skip("this kernel has no openat2")
    return str(request.param)


@pytest.fixture
def places(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """The workspace, whose ``d`` is a real folder, and the folder outside it that
    ``d.swap`` (a symlink) points to, holding secrets with the same names."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    (workspace / "d").mkdir(parents=True)
    outside.mkdir()
    for number in range(CALLS):
        (workspace / "d" / f"{number}.txt").write_text("count=\n")
        (outside / f"{number}.txt").write_text(f"{SECRET} count=\n")
    (workspace / "d.swap").symlink_to(outside)
    yield Path(os.path.realpath(workspace)), outside


def snapshot(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir()}


def race(workspace: Path, tool: str) -> list[ToolResult]:
    """``CALLS`` calls of ``tool`` while the racer swaps ``d`` ``SWAPS`` times."""
    racer = subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", RACER, str(workspace), str(SWAPS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert racer.stdout is not None
    started = racer.stdout.readline()
    if started.startswith("unsupported"):
        racer.wait()
        pytest.skip(f"no atomic exchange here: {started}")
    assert started == "ready\n"
    context = ToolContext(workspace)

    async def calls() -> list[ToolResult]:
        return [
            await execute_builtin_tool(ToolUse(f"call_{n}", tool, arguments(tool, n)), context)
            for n in range(CALLS)
        ]

    try:
        results = asyncio.run(calls())
    finally:
        rest, _ = racer.communicate()
    assert (racer.returncode, rest) == (0, f"swapped {SWAPS}\n")
    return results


@pytest.mark.parametrize("tool", ["Write", "Edit", "Read"])
def test_nothing_lands_outside_and_no_secret_is_read_while_a_folder_is_swapped(
    places: tuple[Path, Path], opener: str, tool: str
) -> None:
    workspace, outside = places
    before = snapshot(outside)
    results = race(workspace, tool)
    assert snapshot(outside) == before
    assert not [result.content for result in results if SECRET in result.content]
    unexpected = [
        result.content
        for result in results
        if result.is_error and not any(refusal in result.content for refusal in ALLOWED_REFUSALS)
    ]
    assert unexpected == []
    done = [n for n, result in enumerate(results) if not result.is_error]
    assert done
    if tool != "Read":
        expected = "written\n" if tool == "Write" else "count=1\n"
        name = "new-{}.txt" if tool == "Write" else "{}.txt"
        assert {(workspace / "d" / name.format(n)).read_text() for n in done} == {expected}
    assert not list((workspace / "d").glob(".nehanda-*"))
