"""SIGTERM ends a session as Ctrl-C ends a turn: by cancelling the task that runs it.

Without this, SIGTERM's default action ends nehanda at once, and what it started lives
on: a background shell's process group, a sandboxed command's PID namespace (its relay
outlives nehanda). Cancelled instead, every ``finally`` runs (the interruption is
logged, the session's close kills its background shells, MCP servers stop), and the
command then ends with ``Terminated``, exit code 143 as for a process SIGTERM killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Iterator

from nehanda.errors import NehandaError


class Terminated(NehandaError):
    exit_code = 128 + signal.SIGTERM


@contextlib.contextmanager
def ended_by_sigterm() -> Iterator[None]:
    """Within it, SIGTERM cancels the current task and ``Terminated`` comes out."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    received: list[bool] = []

    def terminate() -> None:
        received.append(True)
        if task is not None:
            task.cancel()

    loop.add_signal_handler(signal.SIGTERM, terminate)
    try:
        yield
    except asyncio.CancelledError:
        if received:
            raise Terminated("terminated (SIGTERM); the session was saved") from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
