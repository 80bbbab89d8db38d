"""The ACP agent: the protocol's methods over nehanda's sessions.

Each ``session/new`` opens a ``ChatSession`` as ``nehanda run`` does (``cli.session``:
settings, provider, tools, the permission gate, the session log), in the folder the
editor names and with the MCP servers it passes; the gate asks the editor
(``EditorApprover``). ``session/load`` opens a logged session again and replays it. A
failure to open (no provider found, a bad settings file) is a JSON-RPC error carrying
nehanda's own message, which says what to do.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from pathlib import Path
from typing import Any

from acp import Client, RequestError
from acp.helpers import update_available_commands
from acp.schema import (
    AgentCapabilities,
    AvailableCommand,
    AvailableCommandInput,
    ClientCapabilities,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionMode,
    SessionModeState,
    SetSessionModeResponse,
    UnstructuredCommandInput,
)

from nehanda import __version__
from nehanda.acp.approver import EditorApprover
from nehanda.acp.buffers import EditorBuffers, offers_files
from nehanda.acp.prompt import Block, asked
from nehanda.acp.servers import EditorServer, with_editor_servers
from nehanda.acp.turn import EditorSession
from nehanda.acp.updates import replayed
from nehanda.cli.mcp_setup import start_mcp
from nehanda.cli.session import open_session
from nehanda.cli.session_start import SessionOptions, start_session
from nehanda.config.permission_modes import PERMISSION_MODES, Mode
from nehanda.config.settings import Flags, user_settings_path
from nehanda.engine.transcript import Session, find_session
from nehanda.errors import NehandaError
from nehanda.permissions.rules import parse_rule

log = logging.getLogger("nehanda.acp")

PROTOCOL_VERSION = 1
# A JSON-RPC error from the server whose message says what went wrong and what to do.
FAILED = -32603
INVALID = -32602


def failed(error: Exception) -> RequestError:
    return RequestError(FAILED, str(error))


class NehandaAgent:
    """An ``acp.Agent``: one per connection, holding the sessions it opened."""

    def __init__(self, flags: Flags) -> None:
        self.flags = flags
        self.client: Client | None = None
        self.capabilities = ClientCapabilities()
        self.sessions: dict[str, EditorSession] = {}

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        self.capabilities = client_capabilities or ClientCapabilities()
        log.info("initialize from %s (protocol %s)", client_info, protocol_version)
        capabilities = AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(image=True, embedded_context=True),
            mcp_capabilities=McpCapabilities(http=True),
        )
        return InitializeResponse(
            protocol_version=PROTOCOL_VERSION,
            agent_capabilities=capabilities,
            agent_info=Implementation(name="nehanda", title="nehanda", version=__version__),
        )

    async def new_session(
        self, cwd: str, mcp_servers: list[EditorServer] | None = None, **kwargs: Any
    ) -> NewSessionResponse:
        session = await self._open(cwd, mcp_servers or [], None)
        return NewSessionResponse(session_id=session.id, modes=_modes(session.mode))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[EditorServer] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        try:
            logged = find_session(session_id)
        except NehandaError as error:
            raise failed(error) from error
        session = await self._open(cwd, mcp_servers or [], logged)
        facts = {spec.name: spec.facts for spec in session.chat.agent.toolset.specs}
        for update in replayed(logged.messages, facts, session.workspace):
            await session.send(update)
        return LoadSessionResponse(modes=_modes(session.mode))

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        session = self._session(session_id)
        if mode_id not in PERMISSION_MODES:
            modes = ", ".join(PERMISSION_MODES)
            raise RequestError(INVALID, f"no mode {mode_id!r}; the modes are {modes}")
        await session.set_mode(mode_id, "the editor")
        return SetSessionModeResponse()

    async def prompt(self, session_id: str, prompt: list[Block], **kwargs: Any) -> PromptResponse:
        session = self._session(session_id)
        try:
            wanted = asked(prompt)
            stop = await session.prompt(wanted.text, wanted.images)
        except (NehandaError, ValueError, RuntimeError) as error:
            raise failed(error) from error
        return PromptResponse(stop_reason=stop)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        if (session := self.sessions.get(session_id)) is not None:
            session.cancel()

    async def close(self) -> None:
        """Ends every session (the editor went away)."""
        for session in self.sessions.values():
            session.cancel()
            await session.chat.close()
        self.sessions.clear()

    def _session(self, session_id: str) -> EditorSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise RequestError(INVALID, f"no session {session_id!r} is open")
        return session

    async def _open(
        self, cwd: str, servers: list[EditorServer], resume: Session | None
    ) -> EditorSession:
        if self.client is None:
            raise RuntimeError("the connection is not set up")
        buffers = EditorBuffers(self.client) if offers_files(self.capabilities) else None
        options = SessionOptions(self.flags, Path(cwd).resolve(), resume=resume, editor=buffers)
        try:
            chat = await _opened(options, servers)
        except (NehandaError, ValueError) as error:
            raise failed(error) from error
        for note in chat.notes:
            log.info("session %s: %s", chat.id, note)
        await chat.started("resume" if resume else "startup")  # the SessionStart hooks
        if buffers is not None:
            buffers.session_id = chat.id
        session = EditorSession(
            chat, self.client, options.workspace, chat.gate.rules.mode, buffers=buffers
        )
        chat.gate.approver = EditorApprover(
            self.client, chat.id, options.workspace, user_settings_path(), self._denier(session)
        )
        self.sessions[chat.id] = session
        asyncio.get_running_loop().call_soon(_announce_commands, session)
        return session

    @staticmethod
    def _denier(session: EditorSession) -> Any:
        def deny(rules: tuple[str, ...]) -> None:
            gate = session.chat.gate
            added = tuple(parse_rule(rule) for rule in rules)
            gate.rules = replace(gate.rules, deny=(*gate.rules.deny, *added))

        return deny


async def _opened(options: SessionOptions, servers: list[EditorServer]) -> Any:
    """The session, with the editor's MCP servers started beside the settings' own."""
    start = await start_session(options)
    try:
        settings = with_editor_servers(start.settings, servers)
        mcp = start_mcp(settings, options.workspace, start.sdk)
    except BaseException:
        await start.abandon()
        raise
    start = replace(start, settings=settings)
    try:
        return await open_session(options, mcp, start)
    except BaseException:
        if mcp.servers is not None:
            await mcp.servers.stop()
        raise


def _announce_commands(session: EditorSession) -> None:
    """The custom commands, sent once the session's id has reached the editor."""
    commands = [
        AvailableCommand(
            name=command.name,
            description=command.description or f"the command in {command.path}",
            input=AvailableCommandInput(UnstructuredCommandInput(hint=command.argument_hint))
            if command.argument_hint
            else None,
        )
        for command in session.chat.commands.found.values()
    ]
    if commands:
        session.announced = asyncio.ensure_future(session.send(update_available_commands(commands)))


def _modes(current: Mode) -> SessionModeState:
    modes = [
        SessionMode(id=name, name=name, description=rules.meaning)
        for name, rules in PERMISSION_MODES.items()
    ]
    return SessionModeState(current_mode_id=current, available_modes=modes)
