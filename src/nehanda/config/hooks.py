"""Hooks as settings define them: nehanda's ``[[hooks.EVENT]]`` and Claude Code's JSON; pure.

nehanda's settings list each hook flat::

    [[hooks.PreToolUse]]
    matcher = "Bash"     # a regex matching the WHOLE tool name; "", "*" or none: every tool
    command = "python3 ~/.config/nehanda/hooks/check.py"
    timeout = 60         # seconds

Claude Code's ``settings.json`` nests them (``{"hooks": {"PreToolUse": [{"matcher": …,
"hooks": [{"type": "command", "command": …, "timeout": …}]}]}}``); ``claude_hooks`` maps
that to the same flat form. A project's hook runs code with the user's rights, so it is
approved by its ``fingerprint`` (``config.mcp_approvals``), asked again on any change.
Nothing here reads a file: the callers hand in the text.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from nehanda.config.mcp import Origin

HookEvent = Literal[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
]
HOOK_EVENTS: tuple[HookEvent, ...] = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "PreCompact",
    "Notification",
)
DEFAULT_TIMEOUT = 60.0


class HookEntry(BaseModel):
    """One ``[[hooks.EVENT]]`` entry as written."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    matcher: str = ""
    command: str = Field(min_length=1)
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0, le=3600)

    @field_validator("matcher")
    @classmethod
    def _regex(cls, matcher: str) -> str:
        if matcher in ("", "*"):
            return matcher
        try:
            re.compile(matcher)
        except re.error as error:
            raise ValueError(f"{matcher!r} is not a regular expression: {error}") from None
        return matcher


class HooksTable(BaseModel):
    """``[hooks]``: a list of hooks per event, nothing else."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    PreToolUse: list[HookEntry] = Field(default_factory=list)
    PostToolUse: list[HookEntry] = Field(default_factory=list)
    UserPromptSubmit: list[HookEntry] = Field(default_factory=list)
    Stop: list[HookEntry] = Field(default_factory=list)
    SubagentStop: list[HookEntry] = Field(default_factory=list)
    SessionStart: list[HookEntry] = Field(default_factory=list)
    SessionEnd: list[HookEntry] = Field(default_factory=list)
    PreCompact: list[HookEntry] = Field(default_factory=list)
    Notification: list[HookEntry] = Field(default_factory=list)


@dataclass(frozen=True)
class DefinedHook:
    """A hook as one settings file defines it: ``source`` is that file, ``line`` where its
    command is written (when found), ``index`` its place among the file's hooks of
    ``event`` (what its approval is kept under)."""

    event: HookEvent
    entry: HookEntry
    origin: Origin
    source: str
    line: int | None = None
    index: int = 0

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}" if self.line else self.source

    @property
    def name(self) -> str:
        """The key its approval is kept under: which file, which event, which entry."""
        return f"{self.source}#{self.event}.{self.index}"

    def fingerprint(self) -> str:
        """What an approval is bound to: the event, matcher, command and timeout."""
        entry = self.entry
        what = [self.event, entry.matcher, entry.command, entry.timeout]
        return hashlib.sha256(json.dumps(what).encode()).hexdigest()

    def matches(self, value: str | None) -> bool:
        """Whether the hook runs for ``value`` (a tool name, a SessionStart source…):
        its matcher matches the WHOLE value; "", "*" or no value to match: always."""
        return value is None or matcher_matches(self.entry.matcher, value)


def matcher_matches(matcher: str, value: str) -> bool:
    if matcher in ("", "*"):
        return True
    return _compiled(matcher).fullmatch(value) is not None


@cache
def _compiled(matcher: str) -> re.Pattern[str]:
    return re.compile(matcher)


def hooks_in_layer(table: Any, origin: Origin, source: str, text: str) -> list[DefinedHook]:
    """The ``[hooks]`` of one nehanda settings file (already validated with it)."""
    found: list[DefinedHook] = []
    lines = _command_lines(text, json_form=False)
    for event in HOOK_EVENTS:
        for index, raw in enumerate(table.get(event, [])):
            entry = HookEntry.model_validate(raw)
            line = _line_of(lines, entry.command)
            found.append(DefinedHook(event, entry, origin, source, line, index))
    return found


def claude_hooks(
    data: Any, origin: Origin, source: str, text: str
) -> tuple[list[DefinedHook], list[str]]:
    """Claude Code's ``hooks`` block of one ``settings.json`` in the flat form, and a note
    for each hook nehanda cannot run (an unknown event, a type other than ``command``);
    ``ValueError`` saying what is wrong with a block of the wrong shape."""
    block = data.get("hooks", {}) if isinstance(data, dict) else {}
    if not isinstance(block, dict):
        raise ValueError('"hooks" must be an object of events')
    found: list[DefinedHook] = []
    notes: list[str] = []
    lines = _command_lines(text, json_form=True)
    for event, groups in block.items():
        if event not in HOOK_EVENTS:
            notes.append(f"{source}: the {event} hooks were skipped: nehanda has no such event")
            continue
        if not isinstance(groups, list):
            raise ValueError(f"hooks.{event} must be a list of {{matcher, hooks}}")
        found += _claude_event(event, groups, origin, source, lines, notes)
    return found, notes


def _claude_event(
    event: HookEvent,
    groups: list[Any],
    origin: Origin,
    source: str,
    lines: list[str],
    notes: list[str],
) -> list[DefinedHook]:
    found: list[DefinedHook] = []
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
            raise ValueError(f"hooks.{event}: each entry is {{matcher, hooks: [...]}}")
        for hook in group.get("hooks", []):
            kind = hook.get("type", "command") if isinstance(hook, dict) else None
            if kind != "command":
                notes.append(f"{source}: a {event} hook of type {kind!r} was skipped")
                continue
            fields = {"matcher": group.get("matcher") or "", "command": hook.get("command")}
            if hook.get("timeout") is not None:
                fields["timeout"] = hook["timeout"]
            entry = HookEntry.model_validate(fields)
            line = _line_of(lines, json.dumps(entry.command)[1:-1])
            found.append(DefinedHook(event, entry, origin, source, line, len(found)))
    return found


def _command_lines(text: str, json_form: bool) -> list[str]:
    key = '"command"' if json_form else "command"
    return [line if key in line else "" for line in text.splitlines()]


def _line_of(lines: list[str], command: str) -> int | None:
    return next((i + 1 for i, line in enumerate(lines) if command and command in line), None)
