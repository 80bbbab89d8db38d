"""Telling the user nehanda wants them back: a reply that took long ended, or an
approval waits.

The terminal is rung (``ui.notify.terminal_signal``), ``[notify] command`` runs with a
JSON object on stdin, and the Notification hooks get the same object (Claude Code's
Notification input: ``message``, ``title``, ``notification_type``). The REPL notifies;
``nehanda run`` only with ``--notify``. The command and hooks run in the background so
that an approval is never held up by them; ``drain`` waits for them at the end.
"""

from __future__ import annotations

import asyncio
import os
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

from nehanda.config.settings import NotifyTable
from nehanda.types import CheckedCall
from nehanda.ui.notify import terminal_signal
from nehanda.verdicts import Answer, Approver, Ask

if TYPE_CHECKING:
    from nehanda.cli.session import ChatSession

TITLE = "nehanda"


@dataclass
class Notifier:
    settings: NotifyTable
    chat: ChatSession
    terminal: TextIO = field(default_factory=lambda: sys.stderr)
    _running: set[asyncio.Task[Any]] = field(default_factory=set)

    def reply_ended(self, seconds: float) -> None:
        if seconds >= self.settings.after:
            self.notify("nehanda finished its reply and waits for you", "idle_prompt")

    def notify(self, message: str, kind: str) -> None:
        if self.terminal.isatty():
            self.terminal.write(terminal_signal(os.environ, TITLE, message))
            self.terminal.flush()
        fields = {"message": message, "title": TITLE, "notification_type": kind}
        if self.settings.command or self.chat.hooks is not None:
            task = asyncio.ensure_future(self._run(fields))
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _run(self, fields: dict[str, Any]) -> None:
        hooks = self.chat.hooks
        if hooks is not None:
            await hooks.notification(fields)
        if self.settings.command:
            await self._command(self.settings.command, fields)

    async def _command(self, command: str, fields: dict[str, Any]) -> None:
        from nehanda.hooks.payload import Common, hook_input, project_environment
        from nehanda.hooks.runner import run_hook

        chat = self.chat
        workspace = str(chat.gate.workspace)
        common = Common(chat.id, str(chat.log.path), workspace, chat.gate.rules.mode)
        stdin = hook_input("Notification", common, fields)
        env = project_environment(workspace)
        outcome = await run_hook(command, stdin, 30, chat.gate.workspace, env)
        if outcome.code != 0:
            why = "timed out" if outcome.code is None else f"failed (exit code {outcome.code})"
            sys.stderr.write(f"note: [notify] command {why}\n")

    async def drain(self) -> None:
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)


@dataclass
class NotifyingApprover:
    """Rings before ``inner`` asks: an approval is waiting."""

    inner: Approver
    notifier: Notifier

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        self.notifier.notify(f"nehanda asks to run {call.use.name}", "permission_prompt")
        return await self.inner.ask(call, decision)
