"""``nehanda`` with no command: the interactive session (read, run, show, repeat).

Everything that waits (a prompt, a turn, a switch of provider) runs as a task that
SIGINT cancels: Ctrl-C stops the running turn, stream and tool alike (the Bash tool
kills its process group when cancelled), the interruption is logged, and the prompt
comes back. At the prompt, prompt_toolkit reads Ctrl-C as a key; twice on an empty
line, or Ctrl-D, leaves. An error in a turn is shown on one line and the REPL goes on.
prompt_toolkit and rich are imported here, never by ``cli.main``, so that ``--help`` stays
quick.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from collections.abc import Coroutine
from contextlib import nullcontext
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from nehanda import __version__
from nehanda.cli.custom_commands import prepare_prompt
from nehanda.cli.hooks_command import offer_hook_approvals
from nehanda.cli.mcp_command import offer_approvals
from nehanda.cli.mentions import run_call
from nehanda.cli.notify import Notifier, NotifyingApprover
from nehanda.cli.repl_commands import Command, Invalid, command_words, mode_line, parse, shadowed
from nehanda.cli.repl_input import (
    PROMPT,
    Interrupted,
    Reader,
    TerminalReader,
    make_reader,
)
from nehanda.cli.repl_lists import (
    recent_lines,
)
from nehanda.cli.repl_slash import SlashCommands, Tally
from nehanda.cli.session import ChatSession, open_session
from nehanda.cli.session_start import SessionOptions
from nehanda.cli.sigterm import ended_by_sigterm
from nehanda.cli.trust_offer import offer_trust
from nehanda.cli.turn_keys import TurnKeys
from nehanda.config.permission_modes import Mode as PermissionMode
from nehanda.config.permission_modes import next_in_cycle
from nehanda.config.settings import (
    user_settings_path,
)
from nehanda.engine.transcript import Session
from nehanda.errors import NehandaError
from nehanda.events import MessageEnd, RunFinished
from nehanda.types import CheckedCall
from nehanda.ui.approval import TerminalApprover
from nehanda.ui.call_diffs import NotingApprover
from nehanda.ui.live import LiveRenderer, make_console
from nehanda.verdicts import Answer, Approver, Ask

T = TypeVar("T")


def run_repl(
    options: SessionOptions, first_prompt: str | None = None, *, pick_session: bool = False
) -> int:
    """Runs the interactive session until the user leaves, ``first_prompt`` sent as if
    typed first (``nehanda "fix the bug"``), after ``/resume``'s picker when
    ``pick_session`` (``nehanda --resume``); returns the exit code."""
    return asyncio.run(_main(options, first_prompt, pick_session))


async def _main(options: SessionOptions, first_prompt: str | None, pick_session: bool) -> int:
    with ended_by_sigterm():
        return await _session(options, first_prompt, pick_session)


async def _session(options: SessionOptions, first_prompt: str | None, pick_session: bool) -> int:
    renderer = LiveRenderer(make_console(), options.workspace)
    options = replace(options, on_retry=renderer.handle, mcp_after_prompt=True)
    try:
        await offer_trust(options.workspace, options.flags, renderer)
        await offer_approvals(options.workspace, options.flags, renderer)
        await offer_hook_approvals(options.workspace, options.flags, renderer)
        chat = await open_session(options)
    except NehandaError as exc:
        renderer.error(str(exc))
        return exc.exit_code
    repl = Repl(chat, options, renderer)
    repl.pending = [first_prompt] if first_prompt else []
    repl.pick_session = pick_session
    try:
        return await repl.run()
    finally:
        await repl.notifier.drain()
        await repl.chat.close("prompt_input_exit")


@dataclass
class ScreenApprover:
    """Asks through ``inner`` with the live display stopped, noting the calls asked about
    (the approval prompt has shown their diff already)."""

    inner: Approver
    renderer: LiveRenderer
    keys: TurnKeys | None = None

    def __post_init__(self) -> None:
        inner = self.inner.inner if isinstance(self.inner, NotifyingApprover) else self.inner
        if self.keys is not None and isinstance(inner, TerminalApprover):
            # What was typed before the question showed stays typed, never its answer.
            inner.typed_ahead = self.keys.take_typed

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        self.renderer.pause()
        try:
            with self.keys.paused() if self.keys else nullcontext():
                noting = NotingApprover(self.inner, self.renderer.diffs)
                return await noting.ask(call, decision)
        finally:
            self.renderer.restart_activity()  # the spinner counts the tool's run, not the question
            self.renderer.resume()


class Repl:
    def __init__(
        self,
        chat: ChatSession,
        options: SessionOptions,
        renderer: LiveRenderer,
        reader: Reader | None = None,
    ) -> None:
        self.chat, self.options, self.renderer = chat, options, renderer
        self.reader = reader or make_reader(
            self.mode_line,
            self.cycle_mode,
            renderer.show_output,
            lambda: command_words(self.chat.commands.found),
            options.workspace,
            lambda: self.chat.prompt_shown(),
        )
        self.conversation, self.total = Tally(), Tally()
        self.slash = SlashCommands(self)
        self._task: asyncio.Future[Any] | None = None
        self.keys: TurnKeys | None = None
        self.pending: list[str] = []
        self.refill = ""  # what the next prompt's input starts with (a rewound prompt)
        self.pick_session = False
        self.notifier = Notifier(chat.notify, chat)
        if isinstance(self.reader, TerminalReader):
            self.keys = TurnKeys(sys.stdin, self.cycle_mode, self._interrupt)
            renderer.footer = self._footer
        self.adopt(chat)

    async def run(self) -> int:
        """Reads and runs prompts until the user leaves; the exit code."""
        asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self._interrupt)
        self.banner()
        if self.options.resume:
            self.show_resumed(self.options.resume)
        self.renderer.say("/help lists the commands; Ctrl-D leaves.", "dim")
        await self.chat.started("resume" if self.options.resume else "startup")
        if self.pick_session:  # nehanda --resume: the picker /resume opens
            resume = Command("resume")
            await self._handle_work(self.slash.run(resume), resume)
        await self._loop()
        self.renderer.say(f"session {self.chat.id} saved; nehanda --resume {self.chat.id}", "dim")
        return 0

    async def _loop(self) -> None:
        leaving_armed = False
        while True:
            try:
                line = self._queued() or await self._guarded(self.reader.read(self._typed()))
            except Interrupted:
                if leaving_armed:
                    return
                leaving_armed = True
                self.renderer.say("(Ctrl-C again or Ctrl-D to leave)", "dim")
                continue
            leaving_armed = False
            if line is None or (line.strip() and await self._handle(line)):
                return

    async def _handle(self, line: str) -> bool:
        """Runs a prompt or a command; true when the user asked to leave."""
        if line.lstrip().startswith("!"):
            await self._handle_work(self._shell(line.lstrip()[1:].strip()), None)
            return False
        command = parse(line, self.chat.commands.found)
        if isinstance(command, Invalid):
            self.renderer.error(command.message)
            return False
        if command is not None and command.name == "exit":
            return True
        await self._handle_work(
            self._turn(line) if command is None else self.slash.run(command), command
        )
        return False

    async def _handle_work(self, work: Coroutine[Any, Any, Any], command: Command | None) -> None:
        try:
            await self._guarded(work)
        except Interrupted:
            self._interrupted(command)
        except NehandaError as exc:
            self._failed(str(exc), command)
        except Exception as exc:  # a bug or an unexpected failure must not end the REPL
            self._failed(f"{type(exc).__name__}: {exc}", command)

    async def _guarded(self, work: Coroutine[Any, Any, T]) -> T:
        """Runs ``work`` as the task Ctrl-C cancels; ``Interrupted`` when it did."""
        task = asyncio.ensure_future(work)
        self._task = task
        try:
            await asyncio.wait({task})
        except asyncio.CancelledError:
            task.cancel()
            raise
        finally:
            self._task = None
        if task.cancelled():
            raise Interrupted
        return task.result()

    def _queued(self) -> str | None:
        """The first prompt given on the command line, or the next one typed ahead
        during the turn that ended, shown as sent."""
        queue = self.pending or (self.keys.typed.queued if self.keys else [])
        if not queue:
            return None
        line = queue.pop(0)
        self.renderer.say(f"{PROMPT}{line}")
        return line

    def _typed(self) -> str:
        """What the next prompt's input starts with: the prompt ``/rewind`` gave back, or
        the line typed during the turn."""
        refill, self.refill = self.refill, ""
        if self.keys is None:
            return refill
        typed, self.keys.typed.line = self.keys.typed.line, ""
        return refill or typed

    def _interrupt(self) -> None:
        if self._task is not None:
            self._task.cancel()

    def _interrupted(self, command: Command | None) -> None:
        if command is None:
            self.chat.record_interruption()
        if self.keys is not None:  # a stopped turn sends nothing more by itself
            self.keys.typed.line = self.keys.typed.take_back()
        self.renderer.say("interrupted", "yellow")

    def _failed(self, message: str, command: Command | None) -> None:
        if command is None:
            self.chat.record_error(message)
        self.renderer.error(message)

    async def _shell(self, command: str) -> None:
        """``!command``: run through the gate and sandbox, shown, and added to the
        conversation for the model to see with the next prompt."""
        if not command:
            self.renderer.error("usage: !COMMAND runs COMMAND (through the permissions)")
            return
        result = await run_call(self.chat.agent.toolset, "Bash", {"command": command})
        self.renderer.say(result.content, "red" if result.is_error else "")
        self.chat.add_user_text(
            f"I ran this command myself at the prompt: `{command}`\nIts output:\n{result.content}"
        )

    async def _turn(self, line: str) -> str:
        """Runs one prompt to its answer, shown as it comes; the answer's text."""
        prepared = await prepare_prompt(self.chat, line)
        for note in prepared.notes:
            self.renderer.note(note)
        keys = self.keys.reading() if self.keys else nullcontext()
        model, answer = prepared.model or self.chat.agent.model, ""
        began = time.monotonic()
        with keys, self.renderer.turn(model):
            ask = self.chat.ask(
                prepared.text, prepared.rules, prepared.model, prepared.images, typed=line
            )
            async for event in ask:
                if isinstance(event, MessageEnd):
                    self.conversation.add(event.usage)
                    self.total.add(event.usage)
                if isinstance(event, RunFinished):
                    answer = event.text
                self.renderer.handle(event)
        self.notifier.reply_ended(time.monotonic() - began)
        return answer

    async def draft(self, prompt: str) -> str:
        """A turn run for a command of the REPL's own (``/init``); the answer's text."""
        return await self._turn(prompt)

    def adopt(self, chat: ChatSession) -> None:
        gate = chat.gate
        gate.rerun_outside = True  # a command the sandbox denied may run again, if approved
        if not isinstance(gate.approver, ScreenApprover):
            noting = NotifyingApprover(gate.approver, self.notifier)
            gate.approver = ScreenApprover(noting, self.renderer, self.keys)
        if chat.hooks is not None:
            chat.hooks.warn = self.renderer.note
        self.notifier.chat, self.notifier.settings = chat, chat.notify
        self.chat = chat

    def banner(self) -> None:
        self.renderer.say(f"nehanda {__version__} · session {self.chat.id}", "bold")
        self.show_status()
        self.renderer.say(f"settings: {user_settings_path()} (nehanda config)", "dim")
        for note in [*self.chat.notes, *shadowed(self.chat.commands.found)]:
            self.renderer.note(note)

    def show_status(self) -> None:
        self.renderer.say(str(self.chat.chosen()), "bold")

    def show_resumed(self, session: Session) -> None:
        prompt = " ".join(session.first_prompt.split())[:60]
        replies = f"{session.turns} earlier repl{'y' if session.turns == 1 else 'ies'}"
        self.renderer.say(
            f"resumed session {session.id}: {replies}; it began with {prompt!r}", "dim"
        )
        lines = recent_lines(session)
        if lines:
            self.renderer.say("It ended with:", "dim")
            self.renderer.say("\n".join(lines))

    def mode_line(self) -> str:
        """The line under the prompt: the permission mode in force."""
        return mode_line(self.chat.gate.rules.mode)

    def _footer(self) -> list[tuple[str, str]]:
        """Under a running turn: the prompts queued, the line being typed, the mode, and
        the key that stops the turn."""
        rows = self.keys.typed.rows(PROMPT, self.renderer.console.width) if self.keys else []
        return [*rows, (f"{self.mode_line()} · Esc to interrupt", "dim")]

    def cycle_mode(self) -> None:
        """Shift-Tab: the next mode of the cycle (never yolo), shown under the prompt."""
        self.set_permission_mode(next_in_cycle(self.chat.gate.rules.mode), "shift-tab")

    def set_permission_mode(self, mode: PermissionMode, by: str) -> None:
        self.chat.set_permission_mode(mode, by)
        # A /clear or /resume later keeps the mode chosen, as a /model switch does.
        self.options = replace(self.options, permission_mode=mode, approve_all=False)
