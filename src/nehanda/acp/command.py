"""``nehanda acp``: serves the Agent Client Protocol on stdin and stdout until the editor
closes them.

stdout carries JSON-RPC and nothing else: the protocol gets its own copies of file
descriptors 0 and 1, then 0 becomes ``/dev/null`` and 1 the log, so that nothing a tool,
an MCP server or a library prints can reach the editor as a broken message. The log is
``acp.log`` in nehanda's state folder.
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, cast

from nehanda.config.settings import Flags
from nehanda.fs import state_dir

if TYPE_CHECKING:
    from acp import Agent

log = logging.getLogger("nehanda.acp")


def acp_command(flags: Flags) -> int:
    """Runs the agent until stdin closes; the exit code."""
    from acp import run_agent

    from nehanda.acp.agent import NehandaAgent

    path = _start_log()
    protocol_in, protocol_out = _private_stdio(path)
    agent = NehandaAgent(flags)

    async def serve() -> None:
        reader, writer = await _streams(protocol_in, protocol_out)
        try:
            # The SDK's Agent protocol lists every method; those nehanda leaves out are
            # answered "method not found" by its router.
            await run_agent(cast("Agent", agent), writer, reader)
        finally:
            await agent.close()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        return 130
    return 0


def _start_log() -> Path:
    path = state_dir() / "acp.log"
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(name)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def _private_stdio(log_path: Path) -> tuple[int, int]:
    """Copies of stdin and stdout for the protocol; 0 and 1 themselves point elsewhere."""
    protocol_in, protocol_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    logged = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.dup2(logged, 1)
    os.close(logged)
    sys.stdout = sys.stderr  # a print() goes to stderr, not into the protocol
    return protocol_in, protocol_out


async def _streams(fd_in: int, fd_out: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)
    await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd_in, "rb", 0)
    )
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, os.fdopen(fd_out, "wb", 0)
    )
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    return reader, writer
