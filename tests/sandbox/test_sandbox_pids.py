"""Nothing a sandboxed Bash command starts outlives it: the real Bash tool, the real kernel.

Each command runs in a PID namespace of its own; the processes it leaves behind (a
background job, a daemon that double-forked and called ``setsid``) must be gone by the
time the call returns, with the exit code, the output and Ctrl-C as they were. The pids
come from ``/proc/self/stat``, read by each process itself, since inside the namespace
``$!`` and ``$$`` are the namespace's numbers, not those ``/proc`` shows.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from nehanda.sandbox.confine import Policy, Sandbox, probe_support
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse
from processes import gone

SUPPORT = probe_support()
pytestmark = pytest.mark.skipif(
    SUPPORT.landlock_abi == 0 or not SUPPORT.pid_namespaces,
    reason="no Landlock, or no PID namespace for a command on this system",
)

# Each reports its own host pid through the fifo, then becomes `sleep 1000`.
SLEEPER = "sh -c 'read -r pid rest < /proc/self/stat; echo $pid > ready; exec sleep 1000'"
LEFT_BEHIND = f"""mkfifo ready
{SLEEPER} > /dev/null 2>&1 &
read -r job < ready; echo $job > job.pid
( setsid {SLEEPER} > /dev/null 2>&1 & )
read -r daemon < ready; echo $daemon > daemon.pid
echo started"""


def context(ws: Path, *, network: bool = False) -> ToolContext:
    box = Sandbox(Policy(ws, ws.parent / "home", network=network), SUPPORT)
    return ToolContext(ws, sandbox=box)


def bash(ws: Path, command: str, *, network: bool = False) -> ToolResult:
    tool_use = ToolUse("call_1", "Bash", {"command": command})
    return asyncio.run(execute_builtin_tool(tool_use, context(ws, network=network)))


@pytest.fixture
def left_pids(ws: Path) -> Iterator[list[int]]:
    """The pids the command wrote down; any still running at the end are killed."""
    found: list[int] = []
    yield found
    for pid in found:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def written_pids(ws: Path, left_pids: list[int]) -> list[int]:
    left_pids += [int((ws / name).read_text()) for name in ("job.pid", "daemon.pid")]
    return left_pids


@pytest.mark.parametrize("network", [False, True])
def test_a_background_job_and_a_setsid_daemon_end_with_their_command(
    ws: Path, left_pids: list[int], network: bool
) -> None:
    result = bash(ws, LEFT_BEHIND, network=network)
    assert result.content == "started\n\n(exit code 0)"
    for pid in written_pids(ws, left_pids):
        assert gone(pid), pid


def test_cancelling_the_call_stops_the_daemon_too(ws: Path, left_pids: list[int]) -> None:
    """What Ctrl-C in nehanda and a timeout do: the group is stopped, and the rest with it."""
    marker = ws / "daemon.pid"

    async def cancel_once_started() -> None:
        tool_use = ToolUse("call_1", "Bash", {"command": f"{LEFT_BEHIND}; sleep 1000"})
        task = asyncio.ensure_future(execute_builtin_tool(tool_use, context(ws)))
        while not marker.exists() or not marker.read_text().endswith("\n"):
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_once_started())
    for pid in written_pids(ws, left_pids):
        assert gone(pid), pid


def test_exit_codes_output_and_signals_come_through_unchanged(ws: Path) -> None:
    assert bash(ws, "echo out; echo err >&2; exit 3").content == "out\nerr\n\n(exit code 3)"
    killed = bash(ws, "echo out; kill -TERM $$")
    assert killed.content == "out\n\n(killed by signal Terminated)"
    assert not list(ws.glob("core*"))


def test_ctrl_c_to_the_commands_group_interrupts_a_foreground_sleep(ws: Path) -> None:
    marker = ws / "shell.stat"

    async def interrupt() -> ToolResult:
        # The marker is written by the process that then becomes the sleep, so that the
        # SIGINT finds the shell waiting for it, as it would after a Ctrl-C.
        foreground = 'read -r stat < /proc/self/stat; echo "$stat" > shell.stat; exec sleep 1000'
        command = f"sh -c '{foreground}'; echo after"
        tool_use = ToolUse("call_1", "Bash", {"command": command})
        task = asyncio.ensure_future(execute_builtin_tool(tool_use, context(ws)))
        while not marker.exists() or not marker.read_text().endswith("\n"):
            await asyncio.sleep(0.01)
        group = int(marker.read_text().rsplit(")", 1)[1].split()[2])
        os.killpg(group, signal.SIGINT)
        return await task

    result = asyncio.run(interrupt())
    assert result.content == "(no output)\n\n(killed by signal Interrupt)"


MEMORY = """
fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()
for name, pid in (("init", fields[1]), ("relay", fields[2])):  # the parent, the group
    for part in ("mem", "environ"):
        try:
            open(f"/proc/{pid}/{part}", "rb").read(1)
            print(name, part, "read")
        except OSError as error:
            print(name, part, error.strerror)
"""


PARTS = ("mem", "environ")


def test_a_command_cannot_read_the_memory_of_the_processes_that_wait_for_it(ws: Path) -> None:
    """The init and the relay are copies of nehanda's memory, API keys and all."""
    (ws / "memory.py").write_text(MEMORY)
    result = bash(ws, "exec python3 memory.py")
    denied = [f"{who} {part} Permission denied\n" for who in ("init", "relay") for part in PARTS]
    assert result.content == "".join(denied) + "\n(exit code 0)"
