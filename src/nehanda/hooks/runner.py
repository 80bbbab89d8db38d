"""Running one hook command: ``sh -c`` with the JSON on stdin, output capped, a timeout.

A hook runs outside the sandbox, with the user's rights (that is why a project's hooks
need their own approval). It runs in its own process group, so that one which hangs
past its timeout is killed whole, children included, and reported as timed out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from pathlib import Path

from nehanda.hooks.answers import Outcome

# What is kept of each stream; the rest is read and dropped, so the hook never blocks.
OUTPUT_CAP = 64 * 1024


async def run_hook(
    command: str, stdin: bytes, timeout: float, cwd: Path, env: dict[str, str]
) -> Outcome:
    process = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        cwd=cwd,
        env={**os.environ, **env},
        start_new_session=True,
    )
    assert process.stdin and process.stdout and process.stderr
    try:
        async with asyncio.timeout(timeout):
            out, err, _ = await asyncio.gather(
                _capped(process.stdout), _capped(process.stderr), _feed(process.stdin, stdin)
            )
            code = await process.wait()
    except TimeoutError:
        await _kill(process)
        return Outcome(None)
    except BaseException:
        await _kill(process)
        raise
    return Outcome(code, out.decode(errors="replace"), err.decode(errors="replace"))


async def _capped(stream: asyncio.StreamReader) -> bytes:
    kept = bytearray()
    while chunk := await stream.read(65536):
        kept += chunk[: max(OUTPUT_CAP - len(kept), 0)]
    return bytes(kept)


async def _feed(pipe: asyncio.StreamWriter, data: bytes) -> None:
    # A hook that reads nothing closes its stdin early: that is its right.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        pipe.write(data)
        await pipe.drain()
        pipe.close()
        await pipe.wait_closed()


async def _kill(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    await process.wait()
