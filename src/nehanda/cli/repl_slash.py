"""The REPL's slash commands: ``SlashCommands.run`` calls ``_cmd_NAME`` for ``/NAME``.

Each reads and changes the ``Repl`` it serves (its session, options, renderer and
tallies); ``cli.repl_commands`` parses the line and lists what exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, cast

from nehanda.cli.picker import Choice, pick
from nehanda.cli.repl_commands import Command, help_sections
from nehanda.cli.repl_input import LineReader
from nehanda.cli.repl_lists import model_choices, provider_choices, session_choices
from nehanda.cli.session import open_session, reopen_session
from nehanda.config.permission_modes import PERMISSION_MODES
from nehanda.config.permission_modes import Mode as PermissionMode
from nehanda.config.settings import Flags, load_settings, user_settings_path
from nehanda.engine.context import Budget
from nehanda.engine.system_prompt import INSTRUCTIONS_FILE
from nehanda.engine.transcript import Session, find_session
from nehanda.fs import config_dir, write_atomic
from nehanda.permissions.overview import describe_permissions, describe_tools
from nehanda.permissions.sandboxing import report
from nehanda.providers.discovery import server_models, unlisted_model
from nehanda.providers.mode import Mode
from nehanda.tools.background import BackgroundShells
from nehanda.types import RequestCount, Usage
from nehanda.ui.shown_text import printable
from nehanda.ui.summary import describe_compaction

if TYPE_CHECKING:
    from nehanda.cli.repl import Repl

INIT_PROMPT = f"""\
Write an {INSTRUCTIONS_FILE} for this project: the instructions a coding agent reads \
before it works here. First look at the tree and the files that matter (README, build \
and test configuration, the main source folders) with the tools. Then answer with the \
file's whole contents in Markdown and nothing else, no preamble: what the project is, \
how to build, test and lint it (the exact commands), how the code is laid out, and the \
conventions to follow. Keep it short and specific to this project. Do not write the file \
yourself; nehanda writes your answer to it."""


def skills_home() -> str:
    return str(config_dir() / "skills")


_SHOWN_COMMAND = 60


def context_rows(count: RequestCount, budget: Budget) -> list[tuple[str, str]]:
    """What ``/context`` shows: each part's tokens and share of the window."""
    free = max(budget.window - budget.reply_reserve - count.total, 0)
    parts = [
        ("system prompt", count.system),
        ("tools", count.tools),
        ("messages", count.messages),
        ("kept for the reply", budget.reply_reserve),
        ("free", free),
    ]
    return [(name, f"{tokens:,} ({tokens / budget.window:.0%})") for name, tokens in parts]


def shell_rows(shells: BackgroundShells) -> list[tuple[str, str]]:
    """What ``/bashes`` shows: each shell's id, then its state, pid, command (on one line,
    cut short) and output file."""
    rows = []
    for shell in shells.shells.values():
        command = " ".join(shell.command.split())
        if len(command) > _SHOWN_COMMAND:
            command = command[: _SHOWN_COMMAND - 1].rstrip() + " …"
        rows.append((shell.id, printable(f"{shell.status()} · pid {shell.pid} · {command}")))
        rows.append(("", printable(f"output: {shell.log_path}")))
    return rows


@dataclass
class Tally:
    usage: Usage = field(default_factory=Usage)
    requests: int = 0

    def add(self, usage: Usage) -> None:
        self.usage, self.requests = self.usage + usage, self.requests + 1

    def __str__(self) -> str:
        plural = "s" if self.requests != 1 else ""
        return (
            f"{self.usage.input_tokens:,} tokens in, {self.usage.output_tokens:,} out "
            f"over {self.requests} request{plural}"
        )


class SlashCommands:
    def __init__(self, repl: Repl) -> None:
        self.repl = repl

    async def run(self, command: Command) -> None:
        handler = getattr(self, f"_cmd_{command.name}")
        await handler(*command.args)

    async def _pick(self, title: str, choices: list[Choice], current: str | None) -> Choice | None:
        """The item picked; ``None`` if cancelled (or not on the list, which says so)."""
        plain = isinstance(self.repl.reader, LineReader)
        try:
            return await pick(title, choices, current, self.repl.reader.read if plain else None)
        except ValueError as exc:
            self.repl.renderer.error(str(exc))
            return None

    async def _cmd_help(self) -> None:
        for title, rows in help_sections(self.repl.chat.commands.found):
            self.repl.renderer.table(title, rows)

    async def _cmd_skills(self) -> None:
        skills = self.repl.chat.skills.skills
        if not skills:
            self.repl.renderer.say(f"no skills; a folder with a SKILL.md goes in {skills_home()}")
            return
        rows = [(s.name, f"{s.description} ({s.scope}: {s.folder})") for s in skills.values()]
        self.repl.renderer.table("Skills (the model loads one with the Skill tool)", rows)

    async def _cmd_init(self) -> None:
        path = self.repl.options.workspace / INSTRUCTIONS_FILE
        if path.exists():
            self.repl.renderer.say(f"{path} exists. Replace it with a new draft? (y = yes)")
            answer = await self.repl.reader.read()
            if (answer or "").strip().lower() not in ("y", "yes"):
                self.repl.renderer.say(f"{path} is left as it was")
                return
        draft = await self.repl.draft(INIT_PROMPT)
        if not draft.strip():
            self.repl.renderer.error(f"the model wrote no draft; {path} is left as it was")
            return
        write_atomic(path, (draft.strip() + "\n").encode())
        self.repl.renderer.say(f"wrote {path}", "bold")

    async def _cmd_model(self, name: str | None = None) -> None:
        current, config = self.repl.chat.agent.model, self.repl.chat.config
        names, why = await server_models(config)
        if name is not None and (wrong := unlisted_model(name, names, config.name)):
            self.repl.renderer.error(f"{wrong}; the model stays {current}")
            return
        if name is None:
            if not names:
                self.repl.show_status()
                said = f"did not answer ({why})" if names is None else "lists no models"
                self.repl.renderer.say(f"its server {said}; /model NAME switches to one")
                return
            title = f"Models at {self.repl.chat.config.name}:"
            picked = await self._pick(title, model_choices(names), current)
            if picked is None or picked.value == current:
                self.repl.show_status()
                return
            name = picked.value
        await self._switch(replace(self.repl.options.flags, model=name))

    async def _cmd_provider(self, name: str | None = None, model: str | None = None) -> None:
        if name is None:
            settings = load_settings(self.repl.options.workspace, self.repl.options.flags)
            choices = provider_choices(settings, self.repl.chat.config)
            picked = await self._pick("Providers:", choices, self.repl.chat.config.name)
            if picked is None or picked.value == self.repl.chat.config.name:
                self.repl.show_status()
                if len(choices) == 1:
                    where = user_settings_path()
                    self.repl.renderer.say(f"more go under [providers.NAME] in {where}")
                return
            name = picked.value
        # A new provider takes its address and default model from its settings entry.
        flags = replace(self.repl.options.flags, provider=name, model=model, base_url=None)
        await self._switch(flags)

    async def _switch(self, flags: Flags, **changes: Any) -> None:
        """The same conversation under other flags (and ``SessionOptions`` changes)."""
        options = replace(self.repl.options, flags=flags, **changes)
        self.repl.adopt(await reopen_session(self.repl.chat, options))
        self.repl.options = options
        self.repl.show_status()

    async def _cmd_mode(self, mode: str | None = None) -> None:
        if mode == "auto":
            await self._switch(self.repl.options.flags, mode_override=None)
            return
        if mode is not None:
            chosen: Mode = "native" if mode == "native" else "rescue"
            self.repl.chat.set_mode(chosen)
            self.repl.options = replace(self.repl.options, mode_override=chosen)
        self.repl.show_status()

    async def _cmd_tools(self) -> None:
        gate = self.repl.chat.gate
        workspace = self.repl.options.workspace
        self.repl.renderer.say(describe_tools(gate.specs, gate.rules, workspace, gate.confinement))

    async def _cmd_permissions(self, word: str | None = None, name: str = "") -> None:
        gate, renderer = self.repl.chat.gate, self.repl.renderer
        if word is None:
            rules = gate.rules
            renderer.say(describe_permissions(rules, report(self.repl.chat.sandbox, rules)))
            return
        mode = cast("PermissionMode", name)
        self.repl.set_permission_mode(mode, "/permissions")
        renderer.say(f"permission mode: {mode} ({PERMISSION_MODES[mode].meaning})", "bold")
        if PERMISSION_MODES[mode].settles("execute") == "run" and not gate.confined:
            renderer.say("no kernel sandbox holds Bash: risky commands still ask", "yellow")

    async def _cmd_mcp(self) -> None:
        from nehanda.cli.mcp_command import describe_running

        self.repl.renderer.say(describe_running(self.repl.chat.mcp))

    async def _cmd_bashes(self) -> None:
        shells = self.repl.chat.shells
        if shells is None or not shells.shells:
            self.repl.renderer.say("no background shells in this session")
            return
        self.repl.renderer.table("Background shells", shell_rows(shells))

    async def _cmd_clear(self) -> None:
        await self._new_conversation(None)

    async def _cmd_resume(self, session_id: str | None = None) -> None:
        if session_id is None:
            choices = session_choices(self.repl.options.workspace)
            if not choices:
                self.repl.renderer.say(f"no sessions in {self.repl.options.workspace} yet")
                return
            picked = await self._pick("Sessions in this folder:", choices, self.repl.chat.id)
            if picked is None:
                return
            session_id = picked.value
        session = find_session(session_id)
        await self._new_conversation(session)
        self.repl.show_resumed(session)

    async def _new_conversation(self, resume: Session | None) -> None:
        options = replace(self.repl.options, resume=resume)
        chat = await open_session(options)
        await self.repl.chat.close("clear" if resume is None else "other")
        self.repl.adopt(chat)
        self.repl.options, self.repl.conversation = options, Tally()
        self.repl.banner()
        await chat.started("clear" if resume is None else "resume")

    async def _cmd_rewind(self) -> None:
        from nehanda.cli.rewind import rewind_command

        await rewind_command(self.repl, self._pick)

    async def _cmd_reasoning(self) -> None:
        self.repl.renderer.show_reasoning()

    async def _cmd_output(self, number: str | None = None) -> None:
        if number is not None and not (number.isascii() and number.isdigit()):
            usage = f"usage: /output [N], N the number of a call ({number!r} is not)"
            self.repl.renderer.error(usage)
            return
        self.repl.renderer.show_output(None if number is None else int(number))

    async def _cmd_context(self) -> None:
        agent = self.repl.chat.agent
        count = agent.context_use()
        if count is None or agent.context is None:
            self.repl.renderer.say("this conversation keeps no account of its context")
            return
        self.repl.renderer.table(
            f"Context: {count.total:,} of {agent.context.window:,} tokens (estimated)",
            context_rows(count, agent.context.budget),
        )

    async def _cmd_compact(self, *focus: str) -> None:
        done = await self.repl.chat.compact(" ".join(focus))
        if done is None:
            self.repl.renderer.say("nothing to compact: the conversation is only its latest turn")
        else:
            self.repl.renderer.note(describe_compaction(done))

    async def _cmd_cost(self) -> None:
        self.repl.renderer.say(f"this conversation: {self.repl.conversation}")
        if self.repl.total.requests != self.repl.conversation.requests:
            self.repl.renderer.say(f"since nehanda started: {self.repl.total}")
