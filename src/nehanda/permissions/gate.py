"""The gate every tool call of a session goes through: a ``Toolset`` wrapping a ``Toolset``.

``check`` is the inner toolset's: a call that cannot run (an unknown tool, bad
arguments) is answered at once, without asking anyone. ``run`` decides a checked call
under the rules in force and asks the approver when the decision says so. A denied
call, or one the user refused or could not be asked about, raises ``PermissionDenied``
inside the gate and is answered with an error result saying so and why; it never
runs. A call may use paths outside the workspace only when its decision named them
(``CheckedCall.granted``). Answering "always" adds the suggested rules for the rest of
the session, or those the user picked among the ones offered (a prefix rule instead of
the exact one); no other rule. A user's no may carry their words for the model, which
the refusal passes on quoted and named as theirs. Every refusal also carries a
``Refusal`` (who refused and why) for the people watching. The facts ``decide`` needs
about the sandbox (``Confinement``) are gathered here, per call.

With ``rerun_outside`` (the REPL, never yolo mode or ``--yes``), a command that failed
because the sandbox denied it something (``ToolResult.sandbox_denial``) may run once more
outside the sandbox, after its own question showing the command; never a command the
rules deny once the sandbox is not counted on.

Where no kernel sandbox holds Bash (``confined`` is false), yolo mode still asks before
a command the shell analysis finds risks in, unless a rule allows it.
Where one does, yolo mode asks before a file tool reads or writes outside the workspace
where the sandbox would let no command do so (the file tools run outside it).

The gate also keeps the files that say what a command runs (``permissions.edited_files``)
which a Write, an Edit or a command of the session changed, and hands ``decide`` those no
approval has covered yet: ``npm run test`` asks after an edit of ``package.json``. A call
whose check meets a file system changing under it (a symlink replaced as it is read)
or a ``~user`` nobody knows is refused, never answered with a traceback.

The mode may change between calls (``set_mode``: Shift-Tab or ``/permissions mode`` in
the REPL). In plan mode ``specs`` offers only the read-only tools (by each spec's
``ToolFacts``), so that the model is not shown tools every call of which would be
refused; the MCP tools offered are those their server marks ``readOnlyHint`` (they still
ask), and ToolSearch finds only those. What a call's tool is, the gate reads from the
call (``CheckedCall.facts``), never from a table of tools. Its refusals are answers like
any other: ``tools.masked.Masked``, around the gate, caps them.

Custom commands and skills add allow rules, never beyond a deny or ask rule: a command's
``allowed-tools`` for its one turn (``for_turn``), a loaded skill's for the rest of the
session with one rule letting the reading tools into the skill's resolved folder
(``skill_loaded``), so a symlink there that leads out of it still asks.

With ``hooks`` (a session's PreToolUse and PostToolUse hooks), every call is shown to the
PreToolUse hooks first, whatever the mode: a block (exit 2, or ``deny``) refuses it with
the hook's reason, under ``--yes`` and yolo too; an ``updatedInput`` is checked against
the tool's schema (``check``) and decided again as if the model had sent it; ``ask``
makes the call ask; ``allow`` lets a call run that would have asked, never one a rule
or the mode denies. PostToolUse hooks see each result; what they say back is added to it
for the model.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from nehanda.config.permission_modes import PERMISSION_MODES, Mode
from nehanda.config.skills import Skill
from nehanda.errors import PermissionDenied
from nehanda.permissions.decision import PermissionRules, decide
from nehanda.permissions.edited_files import EditedFiles
from nehanda.permissions.harmless import UNCONFINED, Confinement
from nehanda.permissions.repository import plain_repository
from nehanda.permissions.rules import Rule, escape_glob, parse_rule
from nehanda.permissions.secrets import secret_paths
from nehanda.permissions.shell import analyse
from nehanda.sandbox.confine import Sandbox
from nehanda.tools.paths import is_inside, resolve_path
from nehanda.types import CheckedCall, Refusal, ToolResult, Toolset, ToolSpec, ToolUse
from nehanda.verdicts import Allow, Answer, Approver, Ask, Decision, Deny

if TYPE_CHECKING:
    from nehanda.hooks.answers import HookAnswer

# Small models tend to send a refused call again, word for word.
_DO_NOT_RETRY = "Do not repeat this call; do without it, or ask the user."
_DO_AS_TOLD = "Do not repeat this call; do what the user said instead."
_CHANGED = "the workspace changed while the call was checked ({error}); try again"
_UNRESOLVED = "nehanda could not resolve a path it names ({error})"


@runtime_checkable
class OffersReadOnly(Protocol):
    """A toolset that can offer only its read-only tools (``tools.mcp.toolset.WithMcp``)."""

    read_only_only: bool


class ToolHooks(Protocol):
    """The hooks a session runs around each call (``hooks.session.SessionHooks``)."""

    async def pre_tool_use(self, use: ToolUse) -> HookAnswer: ...

    async def post_tool_use(self, use: ToolUse, result: ToolResult) -> HookAnswer: ...


@dataclass
class ToolGate:
    inner: Toolset
    workspace: Path
    rules: PermissionRules
    approver: Approver
    confined: bool = True
    sandbox: Sandbox | None = None
    hooks: ToolHooks | None = None
    # Set by the REPL: a command the sandbox denied something may run once more outside it.
    rerun_outside: bool = False
    # The plan-mode list, kept while the inner list is the same object: the caches
    # downstream (the rescue prompt, token counts) key on the tuple's identity.
    _planned: tuple[tuple[ToolSpec, ...], tuple[ToolSpec, ...]] | None = field(
        default=None, repr=False
    )
    _edited: EditedFiles = field(init=False, repr=False)
    _turn: tuple[Rule, ...] = field(default=(), repr=False)  # a custom command's allow rules
    _asking: asyncio.Lock = field(default_factory=asyncio.Lock, repr=False)

    def __post_init__(self) -> None:
        self.set_mode(self.rules.mode)
        self._edited = EditedFiles(self.workspace)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        offered = self.inner.specs
        mode = PERMISSION_MODES[self.rules.mode]
        if not mode.refuses_changes:
            return offered
        if self._planned is None or self._planned[0] is not offered:
            kept = tuple(spec for spec in offered if mode.settles(spec.facts.kind) != "refuse")
            self._planned = (offered, kept)
        return self._planned[1]

    def set_mode(self, mode: Mode) -> None:
        """Puts ``mode`` in force from the next call and the next request's tool list."""
        self.rules = replace(self.rules, mode=mode)
        if isinstance(self.inner, OffersReadOnly):
            self.inner.read_only_only = PERMISSION_MODES[mode].refuses_changes

    def check(self, use: ToolUse) -> CheckedCall | ToolResult:
        return self.inner.check(use)

    @property
    def in_force(self) -> PermissionRules:
        """The rules a call is decided by: the session's and the turn's allow rules."""
        return (
            self.rules
            if not self._turn
            else replace(self.rules, allow=self.rules.allow + self._turn)
        )

    @contextmanager
    def for_turn(self, rules: tuple[Rule, ...]) -> Iterator[None]:
        """``rules`` added to the allow rules while the block runs (one turn)."""
        self._turn = rules
        try:
            yield
        finally:
            self._turn = ()

    def skill_loaded(self, skill: Skill) -> None:
        """Lets the reading tools into ``skill``'s folder, and adds its allow rules (those
        that do not parse were named at start and are left out)."""
        folder = Path(os.path.realpath(skill.folder))
        texts = list(skill.allowed_tools)
        if not _too_wide(folder, self.workspace):
            texts.append(f"Read({escape_glob(str(folder))}/**)")
        self.rules = self.rules.allowing(text for text in texts if _parses(text))

    def plain_output(self, content: str) -> str:
        return self.inner.plain_output(content)

    async def run(
        self, checked: CheckedCall, started: Callable[[], None] | None = None
    ) -> ToolResult:
        hooked: HookAnswer | None = None
        try:
            if self.hooks is not None:
                hooked = await self.hooks.pre_tool_use(checked.use)
                checked = self._hooked(checked, hooked)
            permitted = await self._permit(checked, hooked)
        except PermissionDenied as denied:
            return _refused(denied)
        with self._edited.watching(checked.facts):
            result = await self.inner.run(permitted, started)
            if result.sandbox_denial is not None and self._may_rerun(permitted):
                result = await self._rerun_outside(permitted, result, result.sandbox_denial)
        if self.hooks is None:
            return result
        after = await self.hooks.post_tool_use(permitted.use, result)
        said = after.reason if after.blocked else after.context
        if not said:
            return result
        return replace(result, content=f"{result.content}\n\n[PostToolUse hook] {said}")

    def _may_rerun(self, checked: CheckedCall) -> bool:
        """Whether to offer running ``checked`` again outside the sandbox: in the REPL,
        never in yolo mode (``--yes``), never for a call the rules deny unconfined."""
        if not self.rerun_outside or self.rules.mode == "yolo":
            return False
        unseen = self._edited.unseen()
        decision = decide(checked, self.in_force, self.workspace, UNCONFINED, unseen)
        return not isinstance(decision, Deny)

    async def _rerun_outside(
        self, checked: CheckedCall, result: ToolResult, denial: str
    ) -> ToolResult:
        """``checked`` run again without the sandbox if the user says so, else ``result``."""
        reason = (
            f"{denial.removeprefix('nehanda: ')} Answering y runs it once more outside the "
            "sandbox, with your full rights"
        )
        async with self._asking:
            answer = await self.approver.ask(checked, Ask(reason))
        if not answer.run and not answer.answered:
            return result
        if not answer.run:
            said = "the user chose not to run it outside the sandbox"
            return replace(result, content=f"{result.content}\n({said})")
        again = await self.inner.run(replace(checked, unconfined=True))
        note = "run again outside the sandbox, as the user approved"
        return replace(again, content=f"{again.content}\n\n({note})")

    def _hooked(self, checked: CheckedCall, answer: HookAnswer) -> CheckedCall:
        """``checked`` as the PreToolUse hooks left it; ``PermissionDenied`` when they
        blocked it or gave arguments the tool does not take."""
        use = checked.use
        if answer.blocked or answer.permission == "deny" or not answer.proceed:
            why = answer.reason or answer.permission_reason or answer.stop_reason
            reason = f"a PreToolUse hook blocked it: {why or 'no reason given'}"
            raise PermissionDenied(use, reason, Refusal("rules", reason))
        if answer.updated_input is None:
            return checked
        again = self.inner.check(replace(use, input=answer.updated_input))
        if isinstance(again, ToolResult):
            reason = f"a PreToolUse hook gave arguments it does not take ({again.content})"
            raise PermissionDenied(use, reason, Refusal("rules", reason))
        return again

    async def _permit(self, checked: CheckedCall, hooked: HookAnswer | None = None) -> CheckedCall:
        """``checked`` with the paths its decision grants; ``PermissionDenied`` if it may
        not run."""
        use = checked.use
        try:
            decision = _as_hooks_say(self._decide(checked), hooked)
        except OSError as error:
            decision = Deny(_CHANGED.format(error=error))
        except RuntimeError as error:  # ~user for a user nobody knows
            decision = Deny(_UNRESOLVED.format(error=error))
        if isinstance(decision, Deny):
            refusal = Refusal("rules", decision.reason)
            raise PermissionDenied(use, f"it is not allowed: {decision.reason}", refusal)
        if isinstance(decision, Ask):
            async with self._asking:  # subagents running at once ask one at a time
                answer = await self.approver.ask(checked, decision)
            if not answer.run:
                raise _refusal(use, decision, answer)
            self._edited.seen(decision.edited)
            if answer.always:
                self.rules = self.rules.allowing(_picked(decision, answer))
        self._edited.wrote(checked.facts, use)
        return replace(checked, granted=decision.outside)

    def _decide(self, checked: CheckedCall) -> Decision:
        """The decision on ``checked``; raises what the file system raises as it changes."""
        held = self.confinement(checked)
        decision = decide(checked, self.in_force, self.workspace, held, self._edited.unseen())
        return self._outside_sandbox(checked, self._unconfined(checked, decision))

    def confinement(self, checked: CheckedCall) -> Confinement:
        """What ``decide`` must know of the sandbox for a command (nothing for a file tool)."""
        facts, box = checked.facts, self.sandbox
        if facts.command_argument is None:
            return UNCONFINED
        if box is None or not box.filesystem or not self.confined:
            return UNCONFINED
        found = {Path(place) for place in box.denied_paths()}
        for place in secret_paths():
            found |= {Path(os.path.normpath(place)), Path(os.path.realpath(place))}
        search = os.environ.get("PATH", "").split(os.pathsep)
        outside = all(
            entry.startswith("/")
            and not is_inside(Path(os.path.realpath(entry)), self.workspace)
            and not is_inside(Path(os.path.normpath(entry)), self.workspace)
            for entry in search
        )
        command = facts.command(checked.use.input)
        # Read only for a command that may run git: the index can be large.
        repository = command is not None and "git" in command
        repository = repository and plain_repository(self.workspace)
        return Confinement(True, tuple(sorted(found)), repository, outside)

    def _unconfined(self, checked: CheckedCall, decision: Decision) -> Decision:
        """Ask, under yolo mode without a sandbox, before a command with risks."""
        settled = PERMISSION_MODES[self.rules.mode].settles(checked.facts.kind)
        if self.confined or settled != "run" or not isinstance(decision, Allow):
            return decision
        command = checked.facts.command(checked.use.input)
        if command is None:
            return decision
        risks = analyse(command).risks
        allowed = decide(checked, replace(self.in_force, mode="default"), self.workspace)
        if not risks or isinstance(allowed, Allow):
            return decision
        return Ask(
            f"no kernel sandbox holds this command, and it has risks ({'; '.join(risks)})",
            outside=decision.outside,
        )

    def _outside_sandbox(self, checked: CheckedCall, decision: Decision) -> Decision:
        """Ask, under yolo mode, before a file tool reaches where no sandboxed command
        could: the file tools run in nehanda itself, outside the kernel sandbox."""
        facts, box = checked.facts, self.sandbox
        if box is None or not box.filesystem or facts.path_argument is None:
            return decision
        settled = PERMISSION_MODES[self.rules.mode].settles(facts.kind)
        if settled != "run" or not isinstance(decision, Allow):
            return decision
        held = box.may_read if facts.read_only else box.may_write
        closed = [path for path in decision.outside if not held(path)]
        if not facts.read_only:  # inside the workspace too: nehanda's own .venv there
            raws = facts.paths(checked.use.input) or ()
            written = [resolve_path(raw, self.workspace) for raw in raws]
            closed += [path for path in written if box.keeps_read_only(path)]
        if not closed:
            return decision
        verb = "read" if facts.read_only else "write"
        return Ask(
            f"the sandbox lets no command {verb} {closed[0]}, so --yes does not cover it",
            outside=decision.outside,
        )


def _too_wide(folder: Path, workspace: Path) -> bool:
    """Whether a skill's folder holds the home folder or the workspace (a symlink to one):
    no skill's files are all of those."""
    return any(is_inside(place, folder) for place in (Path.home(), workspace, Path("/")))


def _parses(text: str) -> bool:
    try:
        parse_rule(text)
    except ValueError:
        return False
    return True


def _as_hooks_say(decision: Decision, hooked: HookAnswer | None) -> Decision:
    """A hook's ``ask`` makes an allowed call ask; its ``allow`` lets an asking one run.
    A denial stands whatever a hook says."""
    if hooked is None or isinstance(decision, Deny):
        return decision
    if hooked.permission == "ask" and isinstance(decision, Allow):
        why = hooked.permission_reason or "a PreToolUse hook asks for your approval"
        return Ask(why, outside=decision.outside)
    if hooked.permission == "allow" and isinstance(decision, Ask):
        why = hooked.permission_reason or "a PreToolUse hook allowed it"
        return Allow(why, outside=decision.outside)
    return decision


def _refusal(use: ToolUse, decision: Ask, answer: Answer) -> PermissionDenied:
    why = f"it needs the user's approval ({decision.reason}), and {answer.reason}"
    if not answer.answered:
        return PermissionDenied(use, why, Refusal("nobody", f"{decision.reason}; {answer.reason}"))
    words = " ".join(answer.words.split())
    if words:
        # Quoted as one JSON string: the user's words, never read as nehanda's own.
        quoted = json.dumps(words, ensure_ascii=False)
        why += f". The user's reply, in their own words: {quoted}"
    return PermissionDenied(use, why, Refusal("user", decision.reason, words))


def _picked(decision: Ask, answer: Answer) -> tuple[str, ...]:
    """The rules "always" adds: those the user picked, if they are one of the sets the
    question offered in full, else none beyond this one call."""
    offered = [decision.suggestions, decision.broader]
    picked = answer.rules or decision.suggestions
    return picked if picked and picked in offered else ()


def _refused(denied: PermissionDenied) -> ToolResult:
    use = denied.tool_use
    refusal = denied.refusal
    advice = _DO_AS_TOLD if refusal is not None and refusal.words else _DO_NOT_RETRY
    message = f"Permission denied: {use.name} was not run because {denied.reason}. {advice}"
    return ToolResult(use.id, message, is_error=True, refusal=refusal)
