"""A scripted editor: the ACP SDK's client side driving ``nehanda acp`` in a child process.

It records every ``session/update``, answers ``session/request_permission`` with the
option the test chose (or leaves it waiting until the turn is cancelled). Given
``buffers`` it offers the ``fs`` methods, serving those unsaved buffers (path -> text)
and the disk beneath them, as an editor does; it offers no ``terminal``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, RequestError, spawn_agent_process, text_block
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)

from scripted_server import ScriptedServer
from waiting import GUARD


@dataclass
class Editor:
    """The client: what it was sent, and how it answers."""

    answer: str | None = "allow_once"  # None: never answers, until cancelled
    updates: list[Any] = field(default_factory=list)
    asked: list[Any] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    buffers: dict[str, str] | None = None  # None: no fs methods offered
    fs_calls: list[tuple[str, str]] = field(default_factory=list)  # (method, path)

    async def read_text_file(
        self, path: str, session_id: str, **kwargs: Any
    ) -> ReadTextFileResponse:
        self.fs_calls.append(("read", path))
        if self.buffers is not None and path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        try:
            return ReadTextFileResponse(content=Path(path).read_text())
        except OSError as error:
            raise RequestError.resource_not_found(path) from error

    async def write_text_file(
        self, content: str, path: str, session_id: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.fs_calls.append(("write", path))
        assert self.buffers is not None, "fs/write_text_file was not offered"
        self.buffers[path] = content  # into the buffer, unsaved
        return WriteTextFileResponse()

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


def capabilities(editor: Editor) -> ClientCapabilities:
    offered = editor.buffers is not None
    files = FileSystemCapabilities(read_text_file=offered, write_text_file=offered)
    return ClientCapabilities(fs=files, terminal=False)


@asynccontextmanager
async def connected(
    editor: Editor, base_url: str, cwd: Path, *flags: str
) -> AsyncIterator[ClientSideConnection]:
    """``nehanda acp`` started against the model at ``base_url``, initialized."""
    args = ("-m", "nehanda", "acp", "--provider", "vllm", "--base-url", base_url, "--model", "q")
    # The SDK gives the child a trimmed environment; this one carries the test's XDG
    # folders and PYTHONPATH.
    env = dict(os.environ)
    client = cast("Client", editor)  # the methods a test needs; the SDK answers the rest
    spawned = spawn_agent_process(client, sys.executable, *args, *flags, cwd=cwd, env=env)
    async with spawned as (conn, _):
        await conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities(editor)
        )
        yield conn


Drive = Callable[[Any, str], Awaitable[Any]]


def drive(editor: Editor, server: ScriptedServer, cwd: Path, run: Drive, *flags: str) -> Any:
    """Opens a session in ``cwd`` and hands it to ``run``; returns what ``run`` returns."""

    async def session() -> Any:
        async with connected(editor, server.base_url, cwd, *flags) as conn:
            opened = await conn.new_session(cwd=str(cwd), mcp_servers=[])
            return await run(conn, opened.session_id)

    return asyncio.run(session())


async def ask(conn: Any, session_id: str, text: str = "Write the note.") -> str:
    done = await conn.prompt(session_id=session_id, prompt=[text_block(text)])
    return str(done.stop_reason)
