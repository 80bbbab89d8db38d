"""Background shells on the real kernel: Bash with run_in_background, BashOutput, KillShell.

Each command runs inside the real sandbox (Landlock and its own PID namespace) where
the kernel offers it, and without one otherwise; the pids come from ``/proc/self/stat``
(host numbers, not the namespace's). A command waits for a file the test creates
before it prints more, and touches a file once it has printed, so each read is taken
when the output it should see was written, never after a wait of some length.
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
from nehanda.tools import background
from nehanda.tools.background import BackgroundShells
from nehanda.tools.base import ToolContext
from nehanda.tools.registry import execute_builtin_tool
from nehanda.types import ToolResult, ToolUse
from processes import gone
from waiting import until

SUPPORT = probe_support()
CONFINED = SUPPORT.landlock_abi > 0 and SUPPORT.pid_namespaces

# Writes its own host pid and that of a child it leaves running, then talks in steps.
STEPPED = """read -r pid rest < /proc/self/stat; echo $pid > shell.pid
sh -c 'read -r p r < /proc/self/stat; echo $p > child.pid; exec sleep 1000' > /dev/null 2>&1 &
echo first
while [ ! -e go ]; do sleep 0.01; done
echo second; echo noise; touch said
while [ ! -e go2 ]; do sleep 0.01; done
echo third; echo more noise; touch said2
sleep 1000"""


@pytest.fixture(params=["sandboxed", "unconfined"])
def context(request: pytest.FixtureRequest, ws: Path) -> Iterator[ToolContext]:
    if request.param == "sandboxed" and not CONFINED:
        pytest.skip("no Landlock, or no PID namespace for a command on this system")
    box = Sandbox(Policy(ws, ws.parent / "home"), SUPPORT) if request.param == "sandboxed" else None
    shells = BackgroundShells(ws.parent / "shells")
    yield ToolContext(ws, sandbox=box, shells=shells)
    shells.close()


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    return Path(os.path.realpath(workspace))


async def call(context: ToolContext, name: str, **arguments: object) -> ToolResult:
    return await execute_builtin_tool(ToolUse("call_1", name, dict(arguments)), context)


def pid_in(path: Path) -> int:
    until(lambda: path.exists() and path.read_text().strip() != "", f"{path.name} written")
    return int(path.read_text())


async def step(ws: Path, go: str, said: str) -> None:
    (ws / go).touch()
    while not (ws / said).exists():
        await asyncio.sleep(0.01)


def test_a_shell_read_twice_gives_only_the_new_output_each_time(
    context: ToolContext, ws: Path
) -> None:
    async def scenario() -> list[ToolResult]:
        started = await call(context, "Bash", command=STEPPED, run_in_background=True)
        nothing = await call(context, "BashOutput", bash_id="bash_1")
        await step(ws, "go", "said")
        first_read = await call(context, "BashOutput", bash_id="bash_1")
        await step(ws, "go2", "said2")
        filtered = await call(context, "BashOutput", bash_id="bash_1", filter="^th")
        return [started, nothing, first_read, filtered]

    started, nothing, first_read, filtered = asyncio.run(scenario())
    assert not started.is_error, started.content
    assert "Started background shell bash_1 (running)" in started.content
    assert "first" in started.content
    assert nothing.content == "shell bash_1: running\n(no new output)"
    assert first_read.content == "shell bash_1: running\nsecond\nnoise"
    # The filter keeps the lines it matches; the others are read too, and gone.
    assert filtered.content == "shell bash_1: running\nthird"


def test_kill_shell_stops_the_shell_and_what_it_started(context: ToolContext, ws: Path) -> None:
    async def scenario() -> tuple[ToolResult, ToolResult, ToolResult, int, int]:
        await call(context, "Bash", command=STEPPED, run_in_background=True)
        shell, child = pid_in(ws / "shell.pid"), pid_in(ws / "child.pid")
        killed = await call(context, "KillShell", shell_id="bash_1")
        after = await call(context, "BashOutput", bash_id="bash_1")
        again = await call(context, "KillShell", shell_id="bash_1")
        return killed, after, again, shell, child

    killed, after, again, shell, child = asyncio.run(scenario())
    assert not killed.is_error and killed.content.startswith("shell bash_1 killed")
    until(lambda: gone(shell) and gone(child), "the shell and its child gone")
    assert after.content.startswith("shell bash_1: killed (KillShell)")
    assert "already" in again.content


def test_closing_the_shells_kills_every_one_of_them(context: ToolContext, ws: Path) -> None:
    assert context.shells is not None

    async def scenario() -> list[int]:
        pids = []
        for name in ("one", "two"):
            command = STEPPED.replace("shell.pid", f"{name}.pid").replace("child.pid", f"{name}c")
            await call(context, "Bash", command=command, run_in_background=True)
            pids += [pid_in(ws / f"{name}.pid"), pid_in(ws / f"{name}c")]
        return pids

    pids = asyncio.run(scenario())
    assert not any(gone(pid) for pid in pids)
    context.shells.close()
    until(lambda: all(gone(pid) for pid in pids), "every shell and child gone")
    assert [shell.status() for shell in context.shells.shells.values()] == [
        "killed (the session ended)"
    ] * 2


def test_an_ended_shell_says_how_it_ended(context: ToolContext) -> None:
    async def scenario() -> ToolResult:
        await call(context, "Bash", command="echo bye; exit 3", run_in_background=True)
        assert context.shells is not None
        while context.shells.shells["bash_1"].process.poll() is None:
            await asyncio.sleep(0.01)
        return await call(context, "BashOutput", bash_id="bash_1")

    result = asyncio.run(scenario())
    assert result.content.startswith("shell bash_1: ended (exit code 3)")


def test_output_beyond_what_memory_keeps_is_in_the_file_the_read_names(
    context: ToolContext, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(background, "MEMORY_CAP", 1000)
    command = (
        "echo ready; while [ ! -e go ]; do sleep 0.01; done; "
        "for i in $(seq 1000 1999); do echo line$i; done; touch said; sleep 1000"
    )

    async def scenario() -> ToolResult:
        await call(context, "Bash", command=command, run_in_background=True)
        await step(ws, "go", "said")
        return await call(context, "BashOutput", bash_id="bash_1")

    result = asyncio.run(scenario())
    assert context.shells is not None
    log = context.shells.shells["bash_1"].log_path
    assert f"the whole output is in {log}" in result.content
    assert result.content.endswith("line1999") and "line1000" not in result.content
    assert log.read_text().splitlines()[:2] == ["ready", "line1000"]
    assert len(log.read_text().splitlines()) == 1001


def test_only_the_sessions_own_shells_can_be_read_or_killed(context: ToolContext) -> None:
    # A model naming some other process (or a made-up id) reaches nothing.
    sleeper = os.spawnlp(os.P_NOWAIT, "sleep", "sleep", "1000")
    try:
        for name, key in (("BashOutput", "bash_id"), ("KillShell", "shell_id")):
            for named in (str(sleeper), "bash_7"):
                result = asyncio.run(call(context, name, **{key: named}))
                assert result.is_error and "No background shell" in result.content
        assert not gone(sleeper)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(sleeper, signal.SIGKILL)
        os.waitpid(sleeper, 0)


def test_a_filter_that_is_no_regular_expression_is_a_clear_error(context: ToolContext) -> None:
    async def scenario() -> ToolResult:
        await call(context, "Bash", command="echo hi", run_in_background=True)
        return await call(context, "BashOutput", bash_id="bash_1", filter="(unclosed")

    result = asyncio.run(scenario())
    assert result.is_error and "'(unclosed' is not a regular expression" in result.content
