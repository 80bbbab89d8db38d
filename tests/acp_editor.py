"""A scripted editor: the ACP SDK's client side driving ``nehanda acp`` in a child process.

It records every ``session/update``, answers ``session/request_permission`` with the
option the test chose (or leaves it waiting until the turn is cancelled). It offers no
``fs`` or ``terminal`` methods (nehanda uses neither).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from acp import PROTOCOL_VERSION, Client, spawn_agent_process
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    FileSystemCapabilities,
    RequestPermissionResponse,
)

from waiting import GUARD


@dataclass
class Editor:
    """The client: what it was sent, and how it answers."""

    answer: str | None = "allow_once"  # None: never answers, until cancelled
    updates: list[Any] = field(default_factory=list)
    asked: list[Any] = field(default_factory=list)
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


def capabilities() -> ClientCapabilities:
    files = FileSystemCapabilities(read_text_file=False, write_text_file=False)
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
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities())
        yield conn
