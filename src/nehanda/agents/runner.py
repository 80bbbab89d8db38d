"""One subagent's conversation: an engine ``Agent`` with its own system prompt and tools.

It runs until it answers; every event it makes is reported under its parent call's id
(``events.SubagentEvent``) and its end once (``events.SubagentEnded``), and its answer is
the parent call's result. A subagent that fails answers with the error, as an error
result: the session goes on. An interruption (Ctrl-C, Esc) cancels it with its parent.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from nehanda.agents.page_reader import read_page
from nehanda.agents.subset import Only
from nehanda.config.agent_files import AgentDefinition
from nehanda.engine.loop import Agent
from nehanda.events import EngineEvent, Notice, RunFinished, SubagentEnded, SubagentEvent
from nehanda.providers.base import Provider
from nehanda.types import Message, ToolResult, Toolset, ToolSpec, ToolUse, Usage

# Claude Code's model aliases: a definition naming one means "a Claude model", which a
# provider without it cannot give; the session's model stands in.
CLAUDE_ALIASES = frozenset({"sonnet", "opus", "haiku", "opusplan"})


@dataclass(frozen=True)
class Subagents:
    """What every subagent of a session shares: the provider, the session's model and
    tools (``route``, the gate's side), where events go, the folder it works in; and the
    characters of a web page the model may be given to read (``page_room``)."""

    provider: Provider
    model: str
    route: Toolset
    workspace: Path
    reports: asyncio.Queue[EngineEvent] | None = None
    max_turns: int = 50
    page_room: int = 0

    async def answer(self, use: ToolUse, definition: AgentDefinition, prompt: str) -> ToolResult:
        name = definition.name
        model, note = self._model(definition)
        if note:
            self._report(SubagentEvent(use.id, name, Notice(note)))
        agent = Agent(
            provider=self.provider,
            model=model,
            toolset=Only(self.route, lambda spec: may_use(definition, spec)),
            max_turns=self.max_turns,
            messages=[Message.text_message("system", self._system_prompt(definition))],
        )
        finished: RunFinished | None = None
        try:
            async for event in agent.run(prompt):
                self._report(SubagentEvent(use.id, name, event))
                finished = event if isinstance(event, RunFinished) else finished
        except Exception as error:  # the parent hears of it; the session goes on
            answer = f"The {name} subagent failed: {error}"
            self._report(SubagentEnded(use.id, name, answer, Usage(), tuple(agent.messages), True))
            return ToolResult(use.id, answer, is_error=True)
        assert finished is not None  # Agent.run ends every run with it
        answer = finished.text.strip() or "(the subagent finished without an answer)"
        if finished.problem:
            answer += f"\n\n[the subagent stopped early: {finished.problem}]"
        ended = SubagentEnded(use.id, name, answer, finished.usage, tuple(agent.messages))
        self._report(ended)
        return ToolResult(use.id, answer)

    async def read_page(self, page: str, prompt: str) -> str:
        """WebFetch's answer from a page too long to return whole (``agents.page_reader``)."""
        return await read_page(self.provider, self.model, page, prompt, self.page_room)

    def _model(self, definition: AgentDefinition) -> tuple[str, str]:
        wanted = definition.model
        if wanted is None:
            return self.model, ""
        if wanted in CLAUDE_ALIASES:
            note = (
                f"the {definition.name} subagent asks for Claude's {wanted}, which this "
                f"provider does not have; it runs on {self.model}"
            )
            return self.model, note
        return wanted, ""

    def _system_prompt(self, definition: AgentDefinition) -> str:
        return f"{definition.prompt}\n\nThe workspace you work in is {self.workspace}."

    def _report(self, event: EngineEvent) -> None:
        if self.reports is not None:
            self.reports.put_nowait(event)


def may_use(definition: AgentDefinition, spec: ToolSpec) -> bool:
    """Whether a subagent of ``definition`` gets the tool: never another subagent (one
    level only); the tools it names, or else every tool, or the built-in's read-only
    ones (not TodoWrite, whose plan is the parent's, nor KillShell, which would stop the
    parent's shells)."""
    facts = spec.facts
    if facts.source == "subagent":
        return False
    if definition.tools is not None:
        return spec.name in definition.tools
    if definition.read_only:
        return facts.read_only and facts.plan is None and facts.kind != "execute"
    return True
