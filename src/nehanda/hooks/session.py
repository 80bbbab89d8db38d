"""A session's hooks: which run for an event, run together, and what they said.

``SessionHooks.fire`` picks the hooks of an event whose matcher matches (the tool name
for the tool events, the ``source`` for SessionStart, the ``trigger`` for PreCompact,
the ``notification_type`` for Notification), runs them concurrently (the same command
once), and combines their answers. Whatever is for the user (warnings, system
messages) goes to ``warn`` as one line each. A session without hooks never makes one.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nehanda.config.hooks import DefinedHook, HookEvent
from nehanda.errors import NehandaError
from nehanda.hooks.answers import NOTHING, HookAnswer, combine, read_answer
from nehanda.hooks.payload import Common, hook_input, project_environment
from nehanda.hooks.runner import run_hook
from nehanda.types import ToolResult, ToolUse


class PromptBlocked(NehandaError):
    """A UserPromptSubmit hook dropped the prompt; the message is its reason."""


def _stderr(line: str) -> None:
    sys.stderr.write(f"note: {line}\n")


@dataclass
class SessionHooks:
    hooks: tuple[DefinedHook, ...]
    workspace: Path
    session_id: str
    transcript_path: str
    permission_mode: Callable[[], str]
    warn: Callable[[str], None] = _stderr

    def has(self, event: HookEvent) -> bool:
        return any(hook.event == event for hook in self.hooks)

    async def fire(self, event: HookEvent, match: str | None, fields: dict[str, Any]) -> HookAnswer:
        chosen = {h.entry.command: h for h in self.hooks if h.event == event and h.matches(match)}
        if not chosen:
            return NOTHING
        common = Common(
            self.session_id, self.transcript_path, str(self.workspace), self.permission_mode()
        )
        stdin = hook_input(event, common, fields)
        env = project_environment(str(self.workspace))
        outcomes = await asyncio.gather(
            *(
                run_hook(hook.entry.command, stdin, hook.entry.timeout, self.workspace, env)
                for hook in chosen.values()
            )
        )
        answer = combine(
            [
                read_answer(event, _label(hook), outcome)
                for hook, outcome in zip(chosen.values(), outcomes, strict=True)
            ]
        )
        for line in answer.shown:
            self.warn(line)
        return answer

    async def pre_tool_use(self, use: ToolUse) -> HookAnswer:
        return await self.fire("PreToolUse", use.name, _tool_fields(use))

    async def post_tool_use(self, use: ToolUse, result: ToolResult) -> HookAnswer:
        response = {"content": result.content, "is_error": result.is_error}
        fields = {**_tool_fields(use), "tool_response": response}
        return await self.fire("PostToolUse", use.name, fields)

    async def user_prompt(self, prompt: str) -> HookAnswer:
        return await self.fire("UserPromptSubmit", None, {"prompt": prompt})

    async def stop(self, active: bool, subagent: bool = False) -> HookAnswer:
        """``Stop`` (``SubagentStop`` for a subagent's end): ``active`` when the model
        goes on already because a Stop hook said so."""
        event: HookEvent = "SubagentStop" if subagent else "Stop"
        return await self.fire(event, None, {"stop_hook_active": active})

    async def session_start(self, source: str) -> HookAnswer:
        return await self.fire("SessionStart", source, {"source": source})

    async def session_end(self, reason: str) -> HookAnswer:
        return await self.fire("SessionEnd", reason, {"reason": reason})

    async def pre_compact(self, trigger: str, instructions: str) -> HookAnswer:
        fields = {"trigger": trigger, "custom_instructions": instructions}
        return await self.fire("PreCompact", trigger, fields)

    async def notification(self, fields: dict[str, Any]) -> HookAnswer:
        return await self.fire("Notification", fields.get("notification_type"), fields)


def _tool_fields(use: ToolUse) -> dict[str, Any]:
    return {"tool_name": use.name, "tool_input": use.input, "tool_use_id": use.id}


def _label(hook: DefinedHook) -> str:
    command = hook.entry.command
    shown = command if len(command) <= 60 else command[:59] + "…"
    return f"the {hook.event} hook `{shown}` ({hook.where})"


def context_block(event: str, text: str) -> str:
    """Context a hook added, as the model reads it after the prompt."""
    return f'<hook-context event="{event}">\n{text}\n</hook-context>'
