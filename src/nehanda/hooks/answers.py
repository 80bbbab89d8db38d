"""What a hook answered, read as Claude Code reads it; pure.

Exit 0: go on; for ``UserPromptSubmit`` and ``SessionStart`` plain stdout is context for
the model. Stdout that is a JSON object is read instead (on exit 0 only): ``decision:
"block"`` with ``reason``, ``continue: false`` with ``stopReason``, ``systemMessage``
for the user, and ``hookSpecificOutput`` (``permissionDecision`` allow/deny/ask,
``permissionDecisionReason``, ``updatedInput``, ``additionalContext``). Exit 2 blocks,
with stderr as the reason, where the event can be blocked; elsewhere stderr is shown
to the user. Any other exit code, a timeout or JSON that cannot be read is a one-line
warning, and the hook counts as having said nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

Permission = Literal["allow", "deny", "ask"]
# The events whose exit 2 blocks something (the call, the prompt, the stop).
BLOCKING = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"})
# The events whose plain stdout goes to the model as context.
CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})
_ORDER: dict[Permission, int] = {"allow": 0, "ask": 1, "deny": 2}


@dataclass(frozen=True)
class Outcome:
    """How one hook process ended: ``code`` is ``None`` when it was killed at its timeout."""

    code: int | None
    stdout: str = ""
    stderr: str = ""


@dataclass(frozen=True)
class HookAnswer:
    """What the hooks of one event said, together."""

    blocked: bool = False
    reason: str = ""
    proceed: bool = True  # false: ``continue: false``
    stop_reason: str = ""
    context: str = ""
    permission: Permission | None = None
    permission_reason: str = ""
    updated_input: dict[str, Any] | None = None
    shown: tuple[str, ...] = ()  # for the user: warnings, system messages
    ran: int = 0


NOTHING = HookAnswer()


def read_answer(event: str, label: str, outcome: Outcome) -> HookAnswer:
    """One hook's answer; ``label`` names it in what the user is shown."""
    if outcome.code is None:
        return HookAnswer(shown=(f"{label} timed out and was killed",), ran=1)
    stderr = outcome.stderr.strip()
    if outcome.code == 2:
        if event in BLOCKING:
            return HookAnswer(blocked=True, reason=stderr or f"{label} blocked it", ran=1)
        return HookAnswer(shown=(f"{label}: {stderr}",) if stderr else (), ran=1)
    if outcome.code != 0:
        why = f": {stderr.splitlines()[0]}" if stderr else ""
        return HookAnswer(shown=(f"{label} failed (exit code {outcome.code}){why}",), ran=1)
    text = outcome.stdout.strip()
    if text.startswith("{"):
        try:
            data = json.loads(text)
        except ValueError:
            return HookAnswer(shown=(f"{label} printed JSON that cannot be read; ignored",), ran=1)
        return _from_json(event, label, data)
    return HookAnswer(context=text if event in CONTEXT else "", ran=1)


def _from_json(event: str, label: str, data: dict[str, Any]) -> HookAnswer:
    specific = data.get("hookSpecificOutput")
    specific = specific if isinstance(specific, dict) else {}
    permission = specific.get("permissionDecision")
    decision = data.get("decision")
    if event == "PreToolUse" and permission is None:  # the older form of the same
        permission = {"approve": "allow", "block": "deny"}.get(str(decision))
    updated = specific.get("updatedInput")
    message = data.get("systemMessage")
    shown = [f"{label}: {message}"] if isinstance(message, str) else []
    if permission not in (None, *_ORDER) or (updated is not None and not isinstance(updated, dict)):
        shown.append(f"{label} answered a permissionDecision or updatedInput it cannot; ignored")
        permission, updated = None, None
    blocked = decision == "block" and event in BLOCKING and event != "PreToolUse"
    return HookAnswer(
        blocked=blocked,
        reason=_text(data.get("reason")) if blocked else "",
        proceed=data.get("continue", True) is not False,
        stop_reason=_text(data.get("stopReason")),
        context=_text(specific.get("additionalContext")),
        permission=permission,
        permission_reason=_text(specific.get("permissionDecisionReason"))
        or (_text(data.get("reason")) if event == "PreToolUse" else ""),
        updated_input=updated,
        shown=tuple(shown),
        ran=1,
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def combine(answers: Sequence[HookAnswer]) -> HookAnswer:
    """The answers of hooks that ran together: any block blocks, any ``continue: false``
    stops, deny beats ask beats allow, contexts and messages add up, and the last
    ``updatedInput`` given counts."""
    if len(answers) == 1:
        return answers[0]
    decided = [a for a in answers if a.permission is not None]
    strongest = max(decided, key=lambda a: _ORDER[a.permission or "allow"], default=None)
    updated = [a.updated_input for a in answers if a.updated_input is not None]
    return HookAnswer(
        blocked=any(a.blocked for a in answers),
        reason=_joined(a.reason for a in answers if a.blocked),
        proceed=all(a.proceed for a in answers),
        stop_reason=_joined(a.stop_reason for a in answers if not a.proceed),
        context=_joined(a.context for a in answers),
        permission=strongest.permission if strongest else None,
        permission_reason=strongest.permission_reason if strongest else "",
        updated_input=updated[-1] if updated else None,
        shown=tuple(line for a in answers for line in a.shown),
        ran=sum(a.ran for a in answers),
    )


def _joined(texts: Any) -> str:
    return "\n".join(text for text in texts if text)
