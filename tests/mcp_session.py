"""Helpers for tests of MCP servers: the user's settings, a scripted model's requests, one
prompt asked of a session opened as ``nehanda run`` opens it, and one call of a tool on
servers started on their own."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

from nehanda.cli.session import open_session
from nehanda.cli.session_start import SessionOptions
from nehanda.config.mcp import McpServerEntry
from nehanda.config.settings import Flags, user_settings_path
from nehanda.events import Notice
from scripted_server import ScriptedServer
from waiting import GUARD


def write_settings(text: str, grace: float | None = GUARD) -> None:
    """The user's settings: ``text``, the first request waiting up to ``grace`` seconds for
    the servers (``[mcp] start_grace``, added after the lines given; ``None``: the
    default); by default as long as a test waits for anything, for tests of what a
    server's tools do rather than of when they join."""
    line = "" if grace is None else f"start_grace = {grace}\n"
    if "[mcp]\n" in text:
        text = text.replace("[mcp]\n", f"[mcp]\n{line}")
    elif line:
        text += f"\n[mcp]\n{line}"
    path = user_settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def sent(server: ScriptedServer) -> list[dict[str, Any]]:
    return [r.body for r in server.received("/v1/chat/completions")]


def ask(workspace: Path, base_url: str, prompt: str, **options: Any) -> tuple[list[Any], Any]:
    async def go() -> tuple[list[Any], Any]:
        flags = Flags(provider=options.pop("provider", "vllm"), base_url=base_url, model="q")
        chat = await open_session(SessionOptions(flags, workspace, **options))
        try:
            events = [event async for event in chat.ask(prompt)]
            return events, chat
        finally:
            await chat.close()

    return asyncio.run(go())


def notes_of(events: list[Any], chat: Any) -> list[str]:
    """What the user was told: the session's notes at its start, then the notices of its
    run (what its MCP servers did in the background)."""
    return [*chat.notes, *(event.message for event in events if isinstance(event, Notice))]


def calls_received(log: Path) -> list[dict[str, Any]]:
    """The calls a notes server logged (tests/fixtures/mcp/notes_server.py)."""
    if not log.exists():
        return []
    found = [json.loads(line) for line in log.read_text().splitlines()]
    return [call for call in found if call["event"] != "started"]


def is_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text()


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def call_once(ready: list[tuple[str, McpServerEntry]], tool: str, arguments: dict[str, Any]) -> str:
    """What the first of the servers ``ready`` answered to ``tool`` (or why it did not),
    all of them started for that call alone, and stopped."""
    from nehanda.tools.mcp.servers import McpServers

    async def go() -> str:
        servers = McpServers.launch(ready, 30)
        await servers.settled()
        try:
            assert (untold := servers.admit()) == [], untold
            answer = await servers.connection(ready[0][0]).call(tool, arguments)
            return answer.failure or "\n".join(block.text for block in answer.content)
        finally:
            await servers.stop()

    return asyncio.run(go())
