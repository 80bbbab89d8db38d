"""A conversation with one provider: the engine, its tools and its session log, wired.

``open_session`` does the set-up every front end needs (settings, provider, native or
rescue mode, permissions, the log); ``ChatSession.ask`` runs one prompt to its answer
and writes every message to the log as soon as the engine adds it. ``nehanda run``
asks once; the REPL asks many times.
"""

from __future__ import annotations

import sys
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from nehanda import __version__
from nehanda.cli.mcp_setup import McpStart, start_mcp, with_mcp
from nehanda.cli.session_start import SessionOptions, SessionStart, start_session
from nehanda.config.permission_modes import PERMISSION_MODES
from nehanda.config.permission_modes import Mode as PermissionMode
from nehanda.config.profiles import PROFILES, chars_per_token, profile_for
from nehanda.config.settings import (
    ProviderConfig,
    Settings,
    user_settings_path,
)
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
    Session,
    SessionLog,
    message_to_json,
    new_session_id,
    sessions_dir,
)
from nehanda.events import Compacted, EngineEvent, ImagesWithheld, ModeSwitched
from nehanda.masking import SecretMask
from nehanda.permissions.approver import NoTerminal
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.gate import ToolGate
from nehanda.permissions.hidden import HiddenPaths
from nehanda.permissions.rules import parse_rule
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
from nehanda.tools.base import ToolContext
from nehanda.tools.masked import Masked
from nehanda.tools.registry import BuiltinTools
from nehanda.types import ImagePart, Message
from nehanda.ui.summary import Chosen
from nehanda.verdicts import Approver


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
    mode_reason: str = ""  # why the session calls tools the way it does now
    _logged: int = 0

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
        self, prompt: str, images: tuple[ImagePart, ...] = ()
    ) -> AsyncIterator[EngineEvent]:
        """Runs ``prompt`` (showing ``images``) to its answer; every message is logged as
        it is added."""
        try:
            async for event in self.agent.run(prompt, images):
                self._log_new_messages()
                if isinstance(event, Compacted):
                    self._log_compaction(event)
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

    async def compact(self, focus: str = "") -> Compacted | None:
        """Compacts the conversation now (the REPL's ``/compact``); ``None``: nothing to."""
        self._log_new_messages()
        done = None
        async for done in self.agent.compact(force=True, focus=focus):
            self._log_compaction(done)
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

    def record_interruption(self) -> None:
        self._log_new_messages()
        self.log.append({"type": "interrupted", "at": time.time()})

    def record_error(self, message: str) -> None:
        self._log_new_messages()
        self.log.append({"type": "error", "error": message})

    async def close(self) -> None:
        self.log.close()
        try:
            await self.agent.provider.aclose()
        finally:
            if self.mcp.servers is not None:
                await self.mcp.servers.stop()

    def _log_new_messages(self) -> None:
        for message in self.agent.messages[self._logged :]:
            self.log.message(message)
        self._logged = len(self.agent.messages)


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
        mcp = mcp or await start_mcp(settings, options.workspace)
    except BaseException:
        await start.abandon()
        raise
    try:
        return _assembled(options, start, rules, mcp, await start.capabilities())
    except BaseException:
        await start.provider.aclose()
        if started_mcp and mcp.servers is not None:
            await mcp.servers.stop()
        raise


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
    gate = _tool_gate(options, settings, rules, config, mcp, sandbox, programs, window.tokens)
    masked = secret_values(names=key_names(settings, config))
    system_prompt = partial(build_system_prompt, options.workspace, instructions)
    agent = Agent(
        provider=calling,
        model=config.model or "",
        toolset=Masked(gate, SecretMask(masked)),
        max_turns=settings.max_turns,
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
    session_id = options.resume.id if options.resume else new_session_id()
    log = SessionLog(sessions_dir() / f"{session_id}.jsonl", masked)
    log.append(_header(session_id, options.workspace, config, decision.mode, bool(options.resume)))
    withheld = withheld_note(options.workspace, trusted=trusted)
    notes = [n for n in (trust_note, changed_trust_note(options.workspace), withheld) if n]
    notes += start_notes(sandbox, settings.sandbox, programs) + _instruction_notes(instructions)
    notes += options.resume.warnings if options.resume else []
    notes += mcp.notes
    chat = ChatSession(
        agent, config, calling, support, log, session_id, notes, mcp, sandbox, system_prompt
    )
    chat.mode_reason = mode_reason(options, decision)
    chat._logged = len(agent.messages)
    return chat


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
    conversation = Session(chat.id, messages=list(chat.agent.messages))
    mode = chat.gate.rules.mode
    options = replace(options, resume=conversation, approve_all=False, permission_mode=mode)
    reopened = await open_session(options, chat.mcp)
    reopened.agent.toolset = chat.agent.toolset
    if options.mode_override is not None and options.mode_override == chat.mode:
        reopened.mode_reason = chat.mode_reason  # /mode chose it, and still does
    chat.mcp = McpStart()
    await chat.close()
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


def key_names(settings: Settings, config: ProviderConfig) -> frozenset[str]:
    """The variables that hold provider keys: every profile's, and those settings name."""
    names = {profile.api_key_env for profile in PROFILES.values()}
    names |= {entry.api_key_env for entry in settings.providers.values()}
    names.add(config.api_key_env)
    return frozenset(name for name in names if name)


def _tool_gate(
    options: SessionOptions,
    settings: Settings,
    rules: PermissionRules,
    config: ProviderConfig,
    mcp: McpStart,
    sandbox: Sandbox | None,
    programs: Programs,
    window: int,
) -> ToolGate:
    """Permissions as settings and flags say (--yes is yolo mode), asking on the terminal;
    Bash inside the sandbox, helper programs run from where the session found them."""
    mode = "yolo" if options.approve_all else options.permission_mode
    rules = replace(
        rules,
        mode=mode or rules.mode,
        protected=(
            user_settings_path().parent,
            trust_store_path().parent,
            *(options.workspace / name for name in TRUST_BOUND_FILES),
            *exposed_environment(settings.sandbox, options.workspace, Path.home()),
        ),
    )
    names = key_names(settings, config)
    seal(also=names)  # a key variable a settings file names may not look like one
    context = ToolContext(
        options.workspace,
        secret_env=names,
        sandbox=sandbox,
        hidden=HiddenPaths.build(rules.deny, options.workspace),
        programs=programs,
        image_bytes=profile_for(config.type).image_bytes,
    )
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
    tools = with_mcp(
        BuiltinTools(context),
        mcp.servers,
        settings,
        window,
        PERMISSION_MODES[rules.mode].refuses_changes,
    )
    return ToolGate(tools, options.workspace, rules, approver, confined, sandbox)
