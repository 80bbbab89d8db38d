"""Asking the editor whether a call may run: ``session/request_permission``.

The editor is offered allow once, allow always, reject once and reject always. "Allow
always" adds the rules the decision suggests, as the terminal's "always" does: for the
session, and in the user's settings file (``config.writer``) unless a rule names a path
inside this workspace, which every other project would read as its own; "reject always"
adds them to ``[permissions] deny`` likewise. No answer (the request failed, the editor
cancelled it) or a turn cancelled while asking is a refusal.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from acp import Client, RequestError, update_tool_call
from acp.schema import AllowedOutcome, PermissionOption, ToolCallLocation, ToolCallUpdate

from nehanda.acp.updates import call_path
from nehanda.config.writer import add_permission_rule
from nehanda.errors import ConfigError
from nehanda.permissions.rules import parse_rule
from nehanda.types import CheckedCall, ToolFacts
from nehanda.ui.approval import names_a_workspace_path
from nehanda.ui.summary import describe_call
from nehanda.verdicts import Answer, Ask

log = logging.getLogger("nehanda.acp")

OPTIONS = (
    PermissionOption(option_id="allow_once", name="Allow", kind="allow_once"),
    PermissionOption(option_id="allow_always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject_once", name="Reject", kind="reject_once"),
    PermissionOption(option_id="reject_always", name="Always reject", kind="reject_always"),
)
_SAID_NO = "the user said no in the editor"


class EditorApprover:
    """A ``verdicts.Approver`` that asks the editor; ``denied`` keeps the rules "reject
    always" added, for the session's gate to add to its deny rules."""

    def __init__(
        self,
        client: Client,
        session_id: str,
        workspace: Path,
        settings_file: Path | None,
        deny: Callable[[tuple[str, ...]], None],
    ) -> None:
        self.client = client
        self.session_id = session_id
        self.workspace = workspace
        self.settings_file = settings_file
        self.deny = deny

    async def ask(self, call: CheckedCall, decision: Ask) -> Answer:
        use, facts = call.use, call.facts
        path = call_path(use, facts, self.workspace)
        question = ToolCallUpdate(
            tool_call_id=use.id,
            title=describe_call(use, facts),
            kind=facts.kind,
            status="pending",
            raw_input=use.input,
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
        )
        try:
            reply = await self.client.request_permission(
                session_id=self.session_id, tool_call=question, options=list(OPTIONS)
            )
        except RequestError as error:
            log.warning("request_permission failed: %s", error)
            return Answer(run=False, reason="the editor gave no answer", answered=False)
        outcome = reply.outcome
        if not isinstance(outcome, AllowedOutcome):
            return Answer(run=False, reason="the question was cancelled in the editor")
        return await self._answer(outcome.option_id, call, decision)

    async def _answer(self, option: str, call: CheckedCall, decision: Ask) -> Answer:
        rules = decision.suggestions
        if option in ("allow_once", "allow_always"):
            running = update_tool_call(call.use.id, status="in_progress")
            await self.client.session_update(self.session_id, running)
            if option == "allow_always" and rules:
                self._save(rules, "allow", call.facts)
                return Answer(run=True, always=True, rules=rules)
            return Answer(run=True)
        if option == "reject_always" and rules:
            self.deny(rules)
            self._save(rules, "deny", call.facts)
        return Answer(run=False, reason=_SAID_NO)

    def _save(self, rules: tuple[str, ...], key: str, facts: ToolFacts) -> None:
        """``rules`` kept in the user's settings too, unless one names a workspace path
        (every other project would read it as its own)."""
        if self.settings_file is None or any(names_a_workspace_path(r, facts) for r in rules):
            return
        try:
            for rule in rules:
                parse_rule(rule)
                add_permission_rule(rule, key, path=self.settings_file)
        except (ConfigError, ValueError, OSError) as error:
            log.warning("%s not saved (%s); it holds for this session", rules, error)
