"""Background shells: Bash commands with ``run_in_background``, kept for the session.

``BackgroundShells.start`` runs a command as Bash does (the same environment without
secrets, its own process group, inside the context's sandbox with its PID namespace),
but returns once its first output is in (or it ended, or ``FIRST_WAIT`` passed) with
the shell's id. Its output pipe is drained by the event loop as it comes (so the command
never blocks on a full pipe) and also at each read, so a read sees everything written
before it. Output not yet read is kept in memory up to ``MEMORY_CAP`` bytes, the oldest
dropped first; all of it (up to ``LOG_CAP``) also goes to a file under the state folder,
which a read names when memory could not hold it all.

``read`` gives what came since the last read (only the lines a regular expression
matches, when given; the others are consumed too, as in Claude Code) and, once the
command ended, how. ``kill`` stops one shell and everything of its group; ``close``
stops every shell at once (SIGKILL to each group: a PID namespace's init takes the rest
with it), for the session's end, however it ends. Only shells this object started are
known to it, so a model can read or kill nothing else.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import secrets
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from nehanda.errors import ToolError
from nehanda.fs import state_dir
from nehanda.tools.base import ToolContext
from nehanda.tools.bash import NAME as BASH
from nehanda.tools.bash import SANDBOX_FAILED, TERM_GRACE, group_alive, launch
from nehanda.tools.bash import signal_group as _signal

MEMORY_CAP = 1024 * 1024
LOG_CAP = 64 * 1024 * 1024
FIRST_WAIT = 1.0
_READ = 65536
_BURST = 64  # reads per drain: 4 MiB, many times what a pipe holds


@dataclass
class Shell:
    """One background command; ``unread`` the output since the last read."""

    id: str
    command: str
    process: subprocess.Popen[bytes]
    log_path: Path
    unread: bytearray = field(default_factory=bytearray)
    dropped: int = 0  # bytes of unread output memory could not keep
    logged: int = 0
    killed: str = ""  # who killed it: KillShell, or the session's end
    _fd: int | None = None
    _log: BinaryIO | None = None
    _came: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def pid(self) -> int:
        return self.process.pid

    def status(self) -> str:
        code = self.process.poll()
        if code is None:
            return "running"
        if self.killed:
            return f"killed ({self.killed})"
        if code < 0:
            return f"ended, killed by signal {signal.strsignal(-code) or -code}"
        return f"ended (exit code {code})"

    def drain(self) -> None:
        """Takes in what the pipe holds now, without waiting; a bounded amount, so that a
        command writing as fast as it is read cannot hold the event loop."""
        for _ in range(_BURST):
            if self._fd is None:
                return
            try:
                chunk = os.read(self._fd, _READ)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._close_pipe()
                return
            self._keep(chunk)

    def _keep(self, chunk: bytes) -> None:
        self.unread += chunk
        if len(self.unread) > MEMORY_CAP:
            cut = len(self.unread) - MEMORY_CAP
            self.dropped += cut
            del self.unread[:cut]
        if self._log is not None and self.logged < LOG_CAP:
            self._log.write(chunk[: LOG_CAP - self.logged])
            self._log.flush()
            self.logged += len(chunk)
        self._came.set()

    def _close_pipe(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(RuntimeError, ValueError):
                asyncio.get_running_loop().remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None
        if self._log is not None:
            self._log.close()
            self._log = None
        self._came.set()

    def take(self) -> tuple[str, int]:
        """The output since the last read, and how much of it memory lost."""
        self.drain()
        text = self.unread.decode("utf-8", "replace")
        dropped, self.dropped = self.dropped, 0
        self.unread.clear()
        return text, dropped


class BackgroundShells:
    """The session's background shells; ``folder`` holds their output files."""

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder or state_dir() / "shells" / f"{os.getpid()}-{secrets.token_hex(4)}"
        self.shells: dict[str, Shell] = {}

    async def start(self, command: str, context: ToolContext) -> Shell:
        shell_id = f"bash_{len(self.shells) + 1}"
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        log_path = self.folder / f"{shell_id}.log"
        reading, writing = os.pipe()
        try:
            process = _spawn(command, context, writing)
        except BaseException:
            os.close(reading)
            raise
        finally:
            os.close(writing)
        os.set_blocking(reading, False)
        shell = Shell(shell_id, command, process, log_path, _fd=reading)
        shell._log = log_path.open("wb")
        self.shells[shell_id] = shell
        asyncio.get_running_loop().add_reader(reading, shell.drain)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(shell._came.wait(), FIRST_WAIT)
        return shell

    def get(self, shell_id: str, tool: str) -> Shell:
        shell = self.shells.get(shell_id.strip())
        if shell is None:
            known = ", ".join(self.shells) or "none yet"
            raise ToolError(
                tool,
                f"No background shell {shell_id!r} in this session (its shells: {known}). "
                "Start one with Bash and run_in_background: true.",
            )
        return shell

    def read(self, shell_id: str, pattern: str | None, tool: str) -> str:
        shell = self.get(shell_id, tool)
        matcher = _matcher(pattern, tool)
        text, dropped = shell.take()
        if matcher is not None:
            text = "\n".join(line for line in text.splitlines() if matcher.search(line))
        lines = [f"shell {shell.id}: {shell.status()}"]
        if dropped:
            lines.append(
                f"[{dropped:,} bytes of earlier output were more than memory keeps; "
                f"the whole output is in {shell.log_path}]"
            )
        lines.append(text.rstrip("\n") if text.strip() else "(no new output)")
        return "\n".join(lines)

    async def kill(self, shell_id: str, tool: str) -> str:
        shell = self.get(shell_id, tool)
        if shell.process.poll() is not None and not group_alive(shell.pid):
            return f"shell {shell.id} had already {shell.status()}; nothing to kill"
        shell.killed = "KillShell"
        await _stop(shell)
        return f"shell {shell.id} killed ({shell.command})"

    def close(self) -> None:
        """Kills every shell and what it started, now (the session ends)."""
        for shell in self.shells.values():
            if shell.process.poll() is None or group_alive(shell.pid):
                if shell.process.poll() is None:
                    shell.killed = shell.killed or "the session ended"
                _signal(shell.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                shell.process.wait(TERM_GRACE)
            shell.drain()
            shell._close_pipe()


def _matcher(pattern: str | None, tool: str) -> re.Pattern[str] | None:
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as error:
        raise ToolError(tool, f"filter {pattern!r} is not a regular expression: {error}.") from None


def _spawn(command: str, context: ToolContext, output: int) -> subprocess.Popen[bytes]:
    with launch(context) as (environment, steps):
        try:
            return subprocess.Popen(
                ["bash", "-c", command],
                cwd=context.workspace,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
                start_new_session=True,
                env=environment,
                preexec_fn=steps,
            )
        except OSError as error:
            raise ToolError(BASH, f"Cannot start bash: {error.strerror or error}.") from error
        except subprocess.SubprocessError as error:
            raise ToolError(BASH, SANDBOX_FAILED.format(error=error)) from error


async def _stop(shell: Shell) -> None:
    """SIGTERM to the shell's group, SIGKILL to what is left after a grace."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TERM_GRACE
    try:
        _signal(shell.pid, signal.SIGTERM)
        while group_alive(shell.pid) and loop.time() < deadline:
            await asyncio.sleep(0.02)
    finally:
        _signal(shell.pid, signal.SIGKILL)
    while shell.process.poll() is None:
        await asyncio.sleep(0.01)
    shell.drain()


def started(shell: Shell) -> str:
    """What Bash answers for a command it started in the background."""
    text, dropped = shell.take()
    shown = text.rstrip("\n") if text.strip() else "(no output yet)"
    lost = f"\n[{dropped:,} bytes more are in {shell.log_path}]" if dropped else ""
    return (
        f"Started background shell {shell.id} ({shell.status()}).\n"
        f"Its first output:\n{shown}{lost}\n\n"
        f'Read what it prints next with BashOutput {{"bash_id": "{shell.id}"}}; '
        f'stop it with KillShell {{"shell_id": "{shell.id}"}}. It is stopped when the '
        "session ends."
    )
