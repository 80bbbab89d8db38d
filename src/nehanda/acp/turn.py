"""One ACP session: a nehanda ``ChatSession`` and the prompts the editor sends it.

``EditorSession.prompt`` runs one turn through ``ChatSession.ask`` (custom commands and
mentions prepared as ``nehanda run`` prepares them) and streams it as ``session/update``
notifications; ``cancel`` stops it as Esc does in the REPL (the session logs the
interruption, every call left gets its interrupted result). A permission mode changed
from inside the turn is sent as ``current_mode_update``.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from pathlib import Path

from acp import Client
from acp.helpers import update_current_mode
from acp.schema import StopReason

from nehanda.acp.buffers import EditorBuffers
from nehanda.acp.files import file_text
from nehanda.acp.updates import (
    FileText,
    Update,
    call_finished,
    call_started,
    changed_file,
    streamed,
)
from nehanda.cli.custom_commands import prepare_prompt
from nehanda.cli.session import ChatSession
from nehanda.config.permission_modes import Mode
from nehanda.events import EngineEvent, Notice, RunFinished, ToolExecuted, ToolStarted
from nehanda.types import ImagePart

log = logging.getLogger("nehanda.acp")

_STOPS: dict[str, StopReason] = {"max_turns": "max_turn_requests", "length": "max_tokens"}


@dataclass
class EditorSession:
    chat: ChatSession
    client: Client
    workspace: Path
    mode: Mode
    running: asyncio.Task[StopReason] | None = None
    announced: asyncio.Future[None] | None = None  # the custom commands, sent once open
    buffers: EditorBuffers | None = None  # the editor's files, when the tools use them
    _changed: dict[str, FileText] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.chat.id

    async def send(self, update: Update | object) -> None:
        await self.client.session_update(self.id, update)  # type: ignore[arg-type]

    async def prompt(self, text: str, images: tuple[ImagePart, ...]) -> StopReason:
        """Runs the turn to its end; ``cancelled`` when the editor cancelled it."""
        if self.running is not None and not self.running.done():
            raise RuntimeError("a prompt is already running in this session")
        self.running = asyncio.create_task(self._turn(text, images))
        try:
            return await asyncio.shield(self.running)
        except asyncio.CancelledError:
            if self.running.cancelled():
                return "cancelled"
            raise

    def cancel(self) -> None:
        if self.running is not None:
            self.running.cancel()

    async def set_mode(self, mode: Mode, by: str) -> None:
        self.chat.set_permission_mode(mode, by)
        self.mode = mode

    async def _turn(self, text: str, images: tuple[ImagePart, ...]) -> StopReason:
        chat = self.chat
        try:
            prepared = await prepare_prompt(chat, text)
            async for event in chat.ask(prepared.text, prepared.rules, prepared.model, images):
                await self._forward(event)
                if isinstance(event, RunFinished):
                    return _STOPS.get(event.stop_reason, "end_turn")
        except asyncio.CancelledError:
            chat.record_interruption()
            raise
        except Exception as error:
            chat.record_error(str(error))
            raise
        raise AssertionError("the engine always ends a run with RunFinished")

    async def _forward(self, event: EngineEvent) -> None:
        chunk = streamed(event)
        if chunk is not None:
            await self.send(chunk)
        elif isinstance(event, ToolStarted):
            path = changed_file(event.tool_use, event.facts, self.workspace)
            if path is not None:
                self._changed[event.tool_use.id] = FileText(path, file_text(path))
            for update in call_started(event, self.workspace):
                await self.send(update)
        elif isinstance(event, ToolExecuted):
            changed, after = self._after(self._changed.pop(event.tool_use.id, None))
            await self.send(call_finished(event, changed, after))
        elif isinstance(event, Notice):  # logged as the session's notes at its start are
            log.info("session %s: %s", self.chat.id, event.message)
        await self._mode_changed()

    def _after(self, changed: FileText | None) -> tuple[FileText | None, str | None]:
        """The file a call changed, as it was before and is now: in the editor's buffer
        when the call wrote it there, else on disk."""
        if changed is None:
            return None, None
        edit = self.buffers.change(changed.path.resolve()) if self.buffers is not None else None
        if edit is None:
            return changed, file_text(changed.path)
        before, after = edit
        return FileText(changed.path, changed.before if before is None else before), after

    async def _mode_changed(self) -> None:
        """The mode the gate is in now, sent when something in the turn changed it."""
        mode = self.chat.gate.rules.mode
        if mode != self.mode:
            self.mode = mode
            await self.send(update_current_mode(mode))
