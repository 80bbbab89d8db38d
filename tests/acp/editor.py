"""A scripted editor: the ACP SDK's client side driving ``nehanda acp`` in a child process.

It records every ``session/update``, answers ``session/request_permission`` with the
option the test chose (or leaves it waiting until the turn is cancelled), and, when it
offers the ``fs`` methods, serves ``fs/read_text_file`` from its own buffers and records
each ``fs/write_text_file``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from waiting import GUARD


@dataclass
class Editor:
    """The client: what it was sent, and how it answers."""

    answer: str | None = "allow_once"  # None: never answers, until cancelled
    buffers: dict[str, str] = field(default_factory=dict)
    updates: list[Any] = field(default_factory=list)
    asked: list[Any] = field(default_factory=list)
    written: list[tuple[str, str]] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    async def request_permission(
        self, options: list[Any], session_id: str, tool_call: Any, **kwargs: Any
    ) -> RequestPermissionResponse:
        self.asked.append(tool_call)
        self.changed.set()
        if self.answer is None:
            await asyncio.Event().wait()  # the turn's cancel answers instead
        outcome = AllowedOutcome(outcome="selected", option_id=self.answer or "")
        return RequestPermissionResponse(outcome=outcome)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        self.changed.set()

    async def read_text_file(
        self, path: str, session_id: str, line: int | None = None, limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:  # fmt: skip
        self.read.append(path)
        if path not in self.buffers:
            raise RequestError.resource_not_found(path)
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.written.append((path, content))
        self.buffers[path] = content
        return WriteTextFileResponse()

    def kinds(self) -> list[str]:
        return [update.session_update for update in self.updates]

    def of_kind(self, kind: str) -> list[Any]:
        return [update for update in self.updates if update.session_update == kind]

    def text(self) -> str:
        return "".join(u.content.text for u in self.of_kind("agent_message_chunk"))

    async def until(self, check: Any) -> None:
        """Waits until ``check()`` holds, as updates arrive."""
        async with asyncio.timeout(GUARD):
            while not check():
                self.changed.clear()
                await self.changed.wait()


def capabilities(fs: bool) -> ClientCapabilities:
    files = FileSystemCapabilities(read_text_file=fs, write_text_file=fs)
    return ClientCapabilities(fs=files, terminal=False)


@asynccontextmanager
async def connected(
    editor: Editor, base_url: str, cwd: Path, *flags: str, fs: bool = False
) -> AsyncIterator[ClientSideConnection]:
    """``nehanda acp`` started against the model at ``base_url``, initialized."""
    args = ("-m", "nehanda", "acp", "--provider", "vllm", "--base-url", base_url, "--model", "q")
    # The SDK gives the child a trimmed environment; this one carries the test's XDG
    # folders and PYTHONPATH.
    env = dict(os.environ)
    spawned = spawn_agent_process(editor, sys.executable, *args, *flags, cwd=cwd, env=env)
    async with spawned as (conn, _):
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities(fs))
        yield conn


__all__ = ["DeniedOutcome", "Editor", "capabilities", "connected"]
