"""The session's hooks: which may run, and the ``SessionHooks`` that runs them.

A user's hooks always run. A project's (``.nehanda/settings.toml`` or
``.claude/settings.json``, read only in a trusted folder) run only once approved for
their current fingerprint (``config.mcp_approvals``, section ``hooks``); each one not
approved is a note. With no hook to run, nothing of ``nehanda.hooks`` is imported.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from nehanda.config.hooks import DefinedHook
from nehanda.config.mcp_approvals import Approval, approval
from nehanda.config.settings import Settings

if TYPE_CHECKING:
    from nehanda.hooks.session import SessionHooks


def runnable_hooks(settings: Settings, workspace: Path) -> tuple[list[DefinedHook], list[str]]:
    """The hooks that may run, and a note for each project hook that may not."""
    ready: list[DefinedHook] = []
    notes = list(settings.hook_notes)
    for hook in settings.hooks:
        state = approval(workspace, hook, "hooks")
        if state == "approved":
            ready.append(hook)
        else:
            notes.append(skipped_hook_note(hook, state))
    return ready, notes


def skipped_hook_note(hook: DefinedHook, state: Approval) -> str:
    what = "is new" if state == "new" else "changed since you approved it"
    return (
        f"the {hook.event} hook `{hook.entry.command}` from {hook.where} {what}, so it does "
        "not run; `nehanda hooks approve` shows what it runs and approves it"
    )


def session_hooks(
    hooks: list[DefinedHook],
    workspace: Path,
    session_id: str,
    transcript: Path,
    permission_mode: Callable[[], str],
) -> SessionHooks | None:
    if not hooks:
        return None
    from nehanda.hooks.session import SessionHooks

    return SessionHooks(tuple(hooks), workspace, session_id, str(transcript), permission_mode)
