"""A conversation with one provider: the engine, its tools and its session log, wired.

``open_session`` does the set-up every front end needs (settings, provider, native or
rescue mode, permissions, the log); ``ChatSession.ask`` runs one prompt to its answer
and writes every message to the log as soon as the engine adds it. ``nehanda run``
asks once; the REPL asks many times.

With hooks configured (``cli.hook_setup``), ``ask`` shows each prompt to the
UserPromptSubmit hooks (which may drop it, or add context) and each end of a reply to
the Stop hooks, which may make the model go on, at most ``STOP_CONTINUES`` times in a
row; ``started`` runs the SessionStart hooks, whose context goes with the next prompt,
and ``close`` the SessionEnd hooks.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from nehanda import __version__
from nehanda.agents.page_reader import page_room
from nehanda.agents.runner import Subagents
from nehanda.agents.toolset import WithAgents
from nehanda.checkpoints.recorder import Recorder
from nehanda.checkpoints.setup import session_recorder
from nehanda.cli import collector
from nehanda.cli.hook_setup import runnable_hooks, session_hooks
from nehanda.cli.mcp_setup import McpStart, start_mcp, with_mcp
from nehanda.cli.session_start import SessionOptions, SessionStart, start_session
from nehanda.config.agent_files import agent_folders, load_definitions
from nehanda.config.commands import Commands, load_commands
from nehanda.config.permission_modes import PERMISSION_MODES
from nehanda.config.permission_modes import Mode as PermissionMode
from nehanda.config.profiles import PROFILES, chars_per_token, profile_for
from nehanda.config.settings import (
    NotifyTable,
    ProviderConfig,
    Settings,
    user_settings_path,
)
from nehanda.config.skills import SkillShelf, load_skills
from nehanda.config.trust import (
    TRUST_BOUND_FILES,
    changed_trust_note,
    is_trusted,
    trust_store_path,
)
from nehanda.engine.context import ContextKeeper, TokenCounter
from nehanda.engine.loop import Agent, interrupted
from nehanda.engine.system_prompt import (
    Instructions,
    build_system_prompt,
    load_instructions,
    withheld_note,
)
from nehanda.engine.transcript import (
    PromptMark,
    Session,
    SessionLog,
    live_marks,
    message_to_json,
    new_session_id,
    rewound,
    sessions_dir,
)
from nehanda.events import (
    Compacted,
    EngineEvent,
    ImagesWithheld,
    ModeSwitched,
    Notice,
    RunFinished,
    SubagentEnded,
    TurnStarted,
)
from nehanda.masking import SecretMask
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.permissions.hidden import HiddenPaths
from nehanda.permissions.rules import Rule, named_hosts, parse_rule
from nehanda.permissions.sandboxing import (
    exposed_environment,
    session_programs,
    session_sandbox,
    start_notes,
)
from nehanda.providers.base import Capabilities
from nehanda.providers.calling import ToolCalling, choose_mode
from nehanda.providers.mode import Mode, ModeDecision
from nehanda.providers.tool_support import ToolSupportCache
from nehanda.providers.window import choose_window
from nehanda.sandbox.confine import Sandbox
from nehanda.sandbox.programs import Programs
from nehanda.secret_env import seal, secret_values
from nehanda.tools.background import BackgroundShells
from nehanda.tools.base import ToolContext
from nehanda.tools.masked import Masked
from nehanda.tools.registry import BuiltinTools
from nehanda.tools.web_access import WebAccess
from nehanda.types import ImagePart, Message, Toolset
from nehanda.ui.summary import Chosen
from nehanda.verdicts import Approver

if TYPE_CHECKING:
    from nehanda.hooks.session import SessionHooks

# How many times in a row a Stop hook may make the model go on.
STOP_CONTINUES = 3
_MARKED_TEXT = 2000  # characters of a prompt kept for /rewind to list and give back


@dataclass
class ChatSession:
    agent: Agent
    config: ProviderConfig
    calling: ToolCalling
    support: ToolSupportCache
    log: SessionLog
    id: str
    notes: list[str] = field(default_factory=list)
    mcp: McpStart = field(default_factory=McpStart)
    sandbox: Sandbox | None = None
    # The system prompt as built for this session; called with whether plan mode is on.
    system_prompt: Callable[..., str] | None = None
    # The shells its Bash runs in the background (``/bashes``); they end with the session.
    shells: BackgroundShells | None = None
    mode_reason: str = ""  # why the session calls tools the way it does now
    commands: Commands = field(default_factory=lambda: Commands({}))
    skills: SkillShelf = field(default_factory=SkillShelf)
    agents: WithAgents | None = None  # where its Task calls run
    hooks: SessionHooks | None = None
    notify: NotifyTable = field(default_factory=NotifyTable)
    checkpoints: Recorder | None = None  # what each prompt changed, for undo
    marks: list[PromptMark] = field(default_factory=list)  # where its prompts begin
    _logged: int = 0
    _marks_logged: int = 0
    # The prompt running (its checkpoint turn, its text as typed), until its message is.
    _prompt: tuple[int | None, str] | None = None
    # What SessionStart hooks said, for the model with the next prompt.
    _context: list[str] = field(default_factory=list)

    @property
    def mode(self) -> Mode:
        return self.calling.mode

    def chosen(self) -> Chosen:
        """What the session runs with now, and why it calls tools as it does."""
        config = self.config
        mode = self.gate.rules.mode
        return Chosen(
            config.name, config.base_url, self.agent.model, self.mode, self.mode_reason, mode
        )

    @property
    def gate(self) -> ToolGate:
        """Where the session's calls go: the permission rules in force and who is asked
        (inside the ``Masked`` wrapper every answer passes)."""
        toolset = self.agent.toolset
        if not isinstance(toolset, Masked) or not isinstance(toolset.inner, ToolGate):
            raise TypeError("this session's tool calls do not go through a ToolGate")
        return toolset.inner

    async def ask(
        self,
        prompt: str,
        rules: tuple[Rule, ...] = (),
        model: str | None = None,
        images: tuple[ImagePart, ...] = (),
        typed: str | None = None,
    ) -> AsyncIterator[EngineEvent]:
        """Runs ``prompt`` (showing ``images``) to its answer, with ``rules`` allowed and
        ``model`` asked for this turn only (a custom command's); every message is logged
        as it is added. ``typed`` is the line the user typed for it, which ``/rewind``
        lists and gives back."""
        kept = self.agent.model
        self.agent.model = model or kept
        turn = None
        if self.checkpoints is not None:
            turn = self.checkpoints.start_turn(prompt)
        self._prompt = (turn, prompt if typed is None else typed)
        try:
            with self.gate.for_turn(rules):
                async for event in self._run(prompt, images):
                    yield event
        finally:
            self.agent.model = kept
            self._prompt = None

    def rewind(self, mark: PromptMark) -> None:
        """The conversation goes back to just before ``mark``'s prompt; the log keeps
        what is dropped, and says so."""
        self._log_new_messages()
        self.agent.messages[:] = rewound(self.agent.messages, mark)
        self.marks = live_marks(self.marks, self.agent.messages)
        self._logged = len(self.agent.messages)
        self.log.append({"type": "rewind", "number": mark.number})

    def add_user_text(self, text: str) -> None:
        """``text`` joins the conversation as the user's (what a ``!command`` printed)."""
        self.agent.messages.append(Message.text_message("user", text))
        self._log_new_messages()

    async def _run(self, prompt: str, images: tuple[ImagePart, ...]) -> AsyncIterator[EngineEvent]:
        """Runs ``prompt`` to its answer, and on while a Stop hook says so.
        ``PromptBlocked`` when a hook drops the prompt."""
        prompt = await self._submitted(prompt)
        held: RunFinished | None = None
        for again in range(STOP_CONTINUES + 1):
            async for event in self._answer(prompt, () if again else images):
                if isinstance(event, RunFinished) and self.hooks is not None:
                    held = _added(held, event)
                    continue
                yield event
            if held is None:
                return
            go_on = await self._stop(held, again)
            if go_on is None:
                break
            prompt = go_on
        if held is not None:
            yield held

    async def _submitted(self, prompt: str) -> str:
        """``prompt`` with the context hooks add; ``PromptBlocked`` when one drops it."""
        if self.hooks is None:
            return prompt
        from nehanda.hooks.session import PromptBlocked, context_block

        answer = await self.hooks.user_prompt(prompt)
        if answer.blocked or not answer.proceed:
            why = answer.reason or answer.stop_reason or "no reason given"
            raise PromptBlocked(f"a UserPromptSubmit hook dropped the prompt: {why}")
        added = [context_block("UserPromptSubmit", answer.context)] if answer.context else []
        contexts, self._context = [*self._context, *added], []
        return "\n\n".join([prompt, *contexts])

    async def _stop(self, finished: RunFinished, again: int) -> str | None:
        """What the model is told to go on with, when a Stop hook blocks the stop."""
        if self.hooks is None or finished.problem:
            return None
        answer = await self.hooks.stop(active=again > 0)
        if not answer.blocked or not answer.proceed:
            return None
        if again == STOP_CONTINUES:
            self.hooks.warn(f"a Stop hook asked to go on {again} times in a row; stopped here")
            return None
        return f"A Stop hook asks you to go on: {answer.reason}"

    async def started(self, source: str) -> None:
        """Runs the SessionStart hooks (``source``: startup, resume, clear, compact)."""
        if self.hooks is None:
            return
        from nehanda.hooks.session import context_block

        answer = await self.hooks.session_start(source)
        if answer.context:
            self._context.append(context_block("SessionStart", answer.context))

    async def _answer(
        self, prompt: str, images: tuple[ImagePart, ...]
    ) -> AsyncIterator[EngineEvent]:
        servers = self.mcp.servers
        if servers is not None:  # the first request waits for servers ready within the grace
            await servers.graced()
        try:
            async for event in self.agent.run(prompt, images):
                if servers is not None and isinstance(event, TurnStarted | RunFinished):
                    # A turn's request, built once the engine goes on, offers the tools of
                    # the servers ready by now; what they did is told before the turn, or
                    # before the run's end.
                    told = servers.admit() if isinstance(event, TurnStarted) else servers.untold()
                    for note in told:
                        yield Notice(note)
                self._log_new_messages()
                if isinstance(event, Compacted):
                    self._log_compaction(event)
                    await self.started("compact")
                if isinstance(event, SubagentEnded):
                    self._log_subagent(event)
                if isinstance(event, ModeSwitched):
                    self.mode_reason = f"switched: {event.reason}"
                    self.support.remember_refusal(self.config, event.reason)
                    self.log.append(
                        {"type": "mode_switch", "mode": event.mode, "reason": event.reason}
                    )
                if isinstance(event, ImagesWithheld) and event.learned:
                    self.support.remember_blind(self.config, event.message)
                yield event
        finally:
            self._log_new_messages()

    def _log_subagent(self, event: SubagentEnded) -> None:
        """A subagent's conversation, under the call that started it (``--resume``)."""
        self.log.append(
            {
                "type": "subagent",
                "parent": event.parent_id,
                "agent": event.agent,
                "answer": event.answer,
                "error": event.error,
                "usage": event.usage.as_dict(),
                "messages": [
                    message_to_json(m, self.log.blobs) for m in event.messages if m.role != "system"
                ],
            }
        )

    async def compact(self, focus: str = "") -> Compacted | None:
        """Compacts the conversation now (the REPL's ``/compact``); ``None``: nothing to."""
        self._log_new_messages()
        done = None
        async for done in self.agent.compact(force=True, focus=focus):
            self._log_compaction(done)
            await self.started("compact")
        return done

    def _log_compaction(self, event: Compacted) -> None:
        """The log keeps every message; this record says which ones a resume replaces."""
        self.log.append(
            {
                "type": "compaction",
                "summary": message_to_json(event.summary, self.log.blobs),
                "kept": event.kept,
                "replaced": event.replaced,
                "tokens_before": event.before,
                "tokens_after": event.after,
                "problem": event.problem,
            }
        )
        self._logged = len(self.agent.messages)

    def set_mode(self, mode: Mode) -> None:
        """Switches between native and rescue for the next turn (the REPL's ``/mode``)."""
        self.mode_reason = "chosen with /mode"
        if mode != self.calling.mode:
            self.calling.mode = mode
            self.log.append({"type": "mode_switch", "mode": mode, "reason": "chosen by the user"})

    def set_permission_mode(self, mode: PermissionMode, by: str) -> None:
        """Puts ``mode`` in force from the next call and request, and logs the change
        (``by``: what changed it). The system prompt says whether plan mode is on."""
        was = self.gate.rules.mode
        if mode == was:
            return
        self.gate.set_mode(mode)
        messages = self.agent.messages
        if self.system_prompt and messages and messages[0].role == "system":
            messages[0] = Message.text_message(
                "system", self.system_prompt(plan=PERMISSION_MODES[mode].refuses_changes)
            )
        self.log.append({"type": "permission_mode", "mode": mode, "was": was, "by": by})

    def prompt_shown(self) -> None:
        """The REPL's prompt is drawn: the MCP servers may start now, if they waited
        (``SessionOptions.mcp_after_prompt``)."""
        if self.mcp.servers is not None:
            self.mcp.servers.begin()

    def record_interruption(self) -> None:
        self._log_new_messages()
        self.log.append({"type": "interrupted", "at": time.time()})

    def record_error(self, message: str) -> None:
        self._log_new_messages()
        self.log.append({"type": "error", "error": message})

    async def close(self, reason: str | None = "other") -> None:
        """Ends the session (``reason``, for the SessionEnd hooks: clear,
        prompt_input_exit, other; ``None`` when the conversation goes on elsewhere)."""
        try:
            if self.hooks is not None and reason is not None:
                await self.hooks.session_end(reason)
        finally:
            await self._closed()

    async def _closed(self) -> None:
        if self.shells is not None:  # its background shells are killed, its servers stopped
            self.shells.close()
        if self.checkpoints is not None:
            self.checkpoints.close()
        self.log.close()
        try:
            await self.agent.provider.aclose()
        finally:
            if self.mcp.servers is not None:
                await self.mcp.servers.stop()

    def _log_new_messages(self) -> None:
        for message in self.agent.messages[self._logged :]:
            self.log.message(message)
            if self._prompt is not None and message.role == "user":
                self._mark(message, *self._prompt)
        self._logged = len(self.agent.messages)

    def _mark(self, message: Message, turn: int | None, text: str) -> None:
        """``message`` is where the running prompt begins: marked, and logged so."""
        self._prompt, self._marks_logged = None, self._marks_logged + 1
        mark = PromptMark(self._marks_logged, turn, text[:_MARKED_TEXT], message)
        self.marks.append(mark)
        self.log.append({"type": "prompt", "number": mark.number, "turn": turn, "text": mark.text})


async def open_session(
    options: SessionOptions, mcp: McpStart | None = None, start: SessionStart | None = None
) -> ChatSession:
    """A session as ``options`` say; ``start`` is one already begun for them (its first
    request in flight), ``mcp`` gives servers already running (a reopened session keeps
    its own), else the settings' servers start now."""
    start = start or await start_session(options)
    settings = start.settings
    started_mcp = mcp is None
    try:
        if start.asked.done():  # the provider has answered, or failed: no server starts in vain
            await start.capabilities()
        rules = PermissionRules.from_settings(settings.permissions)
        mcp = mcp or start_mcp(settings, options.workspace, start.sdk)
    except BaseException:
        await start.abandon()
        raise
    try:
        chat = _assembled(options, start, rules, mcp, await start.capabilities())
    except BaseException:
        await start.provider.aclose()
        if started_mcp and mcp.servers is not None:
            await mcp.servers.stop()
        raise
    collector.settled()
    return chat


def _assembled(
    options: SessionOptions,
    start: SessionStart,
    rules: PermissionRules,
    mcp: McpStart,
    capabilities: Capabilities,
) -> ChatSession:
    """The session put together from its parts, started and answered."""
    settings, config = start.settings, start.config
    provider, trust_note = start.provider, start.trust_note
    support = ToolSupportCache()
    decision = choose_mode(config, capabilities, support, options.mode_override)
    calling = ToolCalling(
        provider,
        decision.mode,
        recover_leaks=settings.recover_leaked_calls,
        sees_images=support.sees_images(config),
    )
    trusted = is_trusted(options.workspace)
    instructions = load_instructions(options.workspace, trusted=trusted)
    sandbox = session_sandbox(settings.sandbox, rules, options.workspace)
    programs = session_programs(settings.sandbox, options.workspace)
    window = choose_window(config, capabilities.context_length, support.learned_window(config))
    skills = load_skills(options.workspace, trusted=trusted)
    commands = load_commands(options.workspace, trusted=trusted)
    shells = BackgroundShells()
    # Read at each fetch: the gate, made below, is where the rules in force live.
    web = WebAccess(
        named=lambda: named_hosts((*gate.rules.allow, *gate.rules.ask)),
        reader=lambda page, prompt: agents.read_page(page, prompt),
    )
    definitions, agent_notes = load_definitions(agent_folders(options.workspace, trusted=trusted))
    session_id = options.resume.id if options.resume else new_session_id()
    context = _tool_context(options, settings, config, rules, sandbox, programs)
    recorder = session_recorder(settings.checkpoints, session_id, options.workspace, context.hidden)
    context = replace(context, skills=skills, shells=shells, web=web)
    context = context if recorder is None else replace(context, checkpoint=recorder)
    agents = WithAgents(BuiltinTools(context), definitions, settings.agents.max_parallel)
    gate = _tool_gate(options, settings, rules, mcp, sandbox, agents, window.tokens)
    skills.on_load = gate.skill_loaded
    masked = secret_values(names=key_names(settings, config))
    system_prompt = partial(build_system_prompt, options.workspace, instructions)
    toolset = Masked(gate, SecretMask(masked))
    reports: asyncio.Queue[EngineEvent] = asyncio.Queue()
    agents.crew = Subagents(
        calling,
        config.model or "",
        toolset,
        options.workspace,
        reports,
        settings.max_turns,
        page_room(window.tokens, chars_per_token(config.model or "")),
    )
    agent = Agent(
        provider=calling,
        model=config.model or "",
        toolset=toolset,
        reports=reports,
        max_turns=settings.max_turns,
        max_turns_source=settings.max_turns_source,
        messages=[
            Message.text_message(
                "system", system_prompt(plan=PERMISSION_MODES[gate.rules.mode].refuses_changes)
            ),
            *(resumed_messages(options.resume) if options.resume else []),
        ],
        context=ContextKeeper(
            window.tokens,
            TokenCounter(chars_per_token(config.model or "")),
            shape=calling.as_sent,
            auto_compact=settings.auto_compact,
            on_learned=lambda tokens: support.remember_window(config, tokens),
        ),
    )
    transcript = sessions_dir() / f"{session_id}.jsonl"
    log = SessionLog(transcript, masked)
    ready, hook_notes = runnable_hooks(settings, options.workspace)
    hooks = session_hooks(ready, options.workspace, session_id, transcript, lambda: gate.rules.mode)
    if hooks is not None:
        gate.hooks, agent.before_compact = hooks, hooks.pre_compact
    log.append(_header(session_id, options.workspace, config, decision.mode, bool(options.resume)))
    withheld = withheld_note(options.workspace, trusted=trusted)
    notes = [n for n in (trust_note, changed_trust_note(options.workspace), withheld) if n]
    notes += start_notes(sandbox, settings.sandbox, programs) + _instruction_notes(instructions)
    notes += options.resume.warnings if options.resume else []
    notes += mcp.notes + list(commands.notes) + list(skills.notes) + _rule_notes(commands, skills)
    notes += [*agent_notes, *hook_notes]
    chat = ChatSession(
        agent, config, calling, support, log, session_id, notes, mcp, sandbox, system_prompt
    )
    chat.commands, chat.skills = commands, skills
    chat.hooks, chat.notify = hooks, settings.notify
    chat.mode_reason = mode_reason(options, decision)
    chat.shells = shells
    chat.agents = agents
    chat.checkpoints = recorder
    if options.resume:
        chat.marks = live_marks(options.resume.prompts, agent.messages)
        chat._marks_logged = options.resume.prompts_logged
        if recorder is not None:
            # A turn that changed nothing left no record: its number must not be reused.
            recorder.numbered_after(max((m.turn or 0 for m in chat.marks), default=0))
    chat._logged = len(agent.messages)
    return chat


def _added(held: RunFinished | None, finished: RunFinished) -> RunFinished:
    """``finished``, counting the runs before it that a Stop hook sent on."""
    if held is None:
        return finished
    return replace(finished, turns=held.turns + finished.turns, usage=held.usage + finished.usage)


def mode_reason(options: SessionOptions, decision: ModeDecision) -> str:
    """Why the session starts in ``decision.mode``, naming the flag when one decided it."""
    if options.mode_override is not None and options.mode_override == decision.mode:
        return "chosen with --mode"
    if options.flags.force_manual_tools:
        return "chosen with --force-manual-tools"
    return decision.reason


async def reopen_session(chat: ChatSession, options: SessionOptions) -> ChatSession:
    """``chat``'s conversation, same id and log, opened again as ``options`` say (another
    provider, model or mode); the permissions granted so far, and the permission mode in
    force, carry over. ``chat`` is closed once the new session is open, and left open
    when opening fails."""
    conversation = Session(chat.id, messages=list(chat.agent.messages), prompts=chat.marks)
    conversation.prompts_logged = chat._marks_logged
    mode = chat.gate.rules.mode
    options = replace(options, resume=conversation, approve_all=False, permission_mode=mode)
    reopened = await open_session(options, chat.mcp)
    reopened.agent.toolset = chat.agent.toolset
    reopened.skills = chat.skills  # the shelf the kept toolset's Skill tool reads
    reopened.shells, chat.shells = chat.shells, None  # they run in that toolset
    # Its Write, Edit and Bash record into the checkpoints of that toolset's context.
    reopened.checkpoints, chat.checkpoints = chat.checkpoints, None
    if chat.agents is not None and chat.agents.crew is not None:
        # The subagents follow: the new provider and model, the new session's reports.
        chat.agents.crew = replace(
            chat.agents.crew,
            provider=reopened.calling,
            model=reopened.agent.model,
            reports=reopened.agent.reports,
        )
        reopened.agents = chat.agents
    if options.mode_override is not None and options.mode_override == chat.mode:
        reopened.mode_reason = chat.mode_reason  # /mode chose it, and still does
    chat.mcp = McpStart()
    await chat.close(reason=None)
    return reopened


def resumed_messages(session: Session) -> list[Message]:
    """A logged conversation made whole again: stored system prompts dropped (a fresh one
    is built), and every call that lost its result answered as interrupted."""
    messages = [m for m in session.messages if m.role != "system"]
    answered = {r.tool_use_id for m in messages for r in m.tool_results}
    repaired: list[Message] = []
    for index, message in enumerate(messages):
        repaired.append(message)
        missing = [u for u in message.tool_uses if u.id not in answered]
        following = messages[index + 1] if index + 1 < len(messages) else None
        if missing and (following is None or not following.tool_results):
            repaired.append(Message("tool", tuple(interrupted(use) for use in missing)))
    return repaired


def _header(
    session_id: str, workspace: Path, config: ProviderConfig, mode: str, resumed: bool
) -> dict[str, object]:
    return {
        "type": "resumed" if resumed else "session",
        "id": session_id,
        "workspace": str(workspace),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "provider": config.name,
        "model": config.model,
        "mode": mode,
        "version": __version__,
    }


def _instruction_notes(instructions: list[Instructions]) -> list[str]:
    return [
        f"{item.path} is long; only its start was given to the model"
        for item in instructions
        if item.truncated
    ]


def _rule_notes(commands: Commands, skills: SkillShelf) -> list[str]:
    """A note for each ``allowed-tools`` entry that is no rule nehanda can read."""
    found = [(f"/{c.name} ({c.path})", c.allowed_tools) for c in commands.found.values()]
    found += [(f"skill {s.name}", s.allowed_tools) for s in skills.skills.values()]
    notes = []
    for owner, texts in found:
        for text in texts:
            try:
                parse_rule(text)
            except ValueError as error:
                notes.append(f"{owner}: allowed-tools {text!r} is left out: {error}")
    return notes


def key_names(settings: Settings, config: ProviderConfig) -> frozenset[str]:
    """The variables that hold provider keys: every profile's, and those settings name."""
    names = {profile.api_key_env for profile in PROFILES.values()}
    names |= {entry.api_key_env for entry in settings.providers.values()}
    names.add(config.api_key_env)
    return frozenset(name for name in names if name)


def _tool_context(
    options: SessionOptions,
    settings: Settings,
    config: ProviderConfig,
    rules: PermissionRules,
    sandbox: Sandbox | None,
    programs: Programs,
) -> ToolContext:
    """Where the built-in tools run: Bash inside the sandbox, helper programs run from
    where the session found them, the secret variables sealed."""
    names = key_names(settings, config)
    seal(also=names)  # a key variable a settings file names may not look like one
    return ToolContext(
        options.workspace,
        secret_env=names,
        sandbox=sandbox,
        hidden=HiddenPaths.build(rules.deny, options.workspace),
        programs=programs,
        image_bytes=profile_for(config.type).image_bytes,
        editor=options.editor,
    )


def _tool_gate(
    options: SessionOptions,
    settings: Settings,
    rules: PermissionRules,
    mcp: McpStart,
    sandbox: Sandbox | None,
    tools: Toolset,
    window: int,
) -> ToolGate:
    """Permissions as settings and flags say (--yes is yolo mode), asking on the terminal,
    around ``tools`` and the MCP servers' tools beside them."""
    mode = "yolo" if options.approve_all else options.permission_mode
    rules = _session_rules(options, settings, rules, mode)
    approver: Approver = NoTerminal()
    if sys.stdin.isatty() and sys.stderr.isatty():
        # Loaded only where someone can be asked: it brings the settings writer with it,
        # and a run in a pipe reaches its first request without either.
        from nehanda.ui.approval import TerminalApprover

        approver = TerminalApprover(
            sys.stdin,
            sys.stderr,
            options.workspace,
            user_settings_path(),
            project=True,
            check_rule=parse_rule,
        )
    confined = sandbox is not None and sandbox.filesystem
    plan = PERMISSION_MODES[rules.mode].refuses_changes
    offered = with_mcp(tools, mcp.servers, settings, window, plan)
    return ToolGate(offered, options.workspace, rules, approver, confined, sandbox)


def _session_rules(
    options: SessionOptions, settings: Settings, rules: PermissionRules, mode: PermissionMode | None
) -> PermissionRules:
    return replace(
        rules,
        mode=mode or rules.mode,
        protected=(
            user_settings_path().parent,
            trust_store_path().parent,
            *(options.workspace / name for name in TRUST_BOUND_FILES),
            *exposed_environment(settings.sandbox, options.workspace, Path.home()),
        ),
    )
