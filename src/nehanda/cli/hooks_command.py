"""``nehanda hooks`` (every hook configured, where it comes from, whether it runs),
``nehanda hooks approve``, and the REPL's offer to approve a project's new hooks."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from nehanda.config.hooks import DefinedHook
from nehanda.config.mcp_approvals import approval, approve
from nehanda.config.settings import Flags, load_settings
from nehanda.errors import ConfigError
from nehanda.ui.shown_text import shown_line

if TYPE_CHECKING:
    from nehanda.ui.live import LiveRenderer

_STATE = {"approved": "", "new": ", not approved yet", "changed": ", changed: approve again"}


def list_hooks(workspace: Path) -> str:
    settings = load_settings(workspace)
    notes = list(settings.hook_notes)
    if not settings.hooks:
        return "\n".join(["No hooks are configured ([[hooks.EVENT]] in settings).", *notes])
    lines = [_hook_line(hook, workspace) for hook in settings.hooks]
    return "\n".join([*lines, *notes])


def _hook_line(hook: DefinedHook, workspace: Path) -> str:
    entry = hook.entry
    state = _STATE[approval(workspace, hook, "hooks")]
    matcher = f" [{entry.matcher}]" if entry.matcher not in ("", "*") else ""
    return shown_line(
        f"{hook.event}{matcher}: {entry.command} (timeout {entry.timeout:g} s; "
        f"{hook.origin}, {hook.where}{state})"
    )


def approve_hooks(workspace: Path, confirmed: bool) -> int:
    """Shows the project's hooks not approved as they are now, and approves them."""
    settings = load_settings(workspace)
    waiting = [h for h in settings.hooks if approval(workspace, h, "hooks") != "approved"]
    if not waiting:
        click.echo("every hook configured here may run; nothing to approve")
        return 0
    click.echo("These project hooks run outside the sandbox, with your rights:")
    click.echo("\n".join(line for hook in waiting for line in what_it_runs(hook)))
    if not confirmed:
        if not sys.stdin.isatty():
            raise ConfigError("cannot ask without a terminal; add --yes to approve them as shown")
        if not click.confirm("Approve them?", default=False):
            click.echo("not approved")
            return 1
    for hook in waiting:
        approve(workspace, hook, "hooks")
    click.echo(f"approved {len(waiting)} hook(s); a change to one will ask again")
    return 0


def what_it_runs(hook: DefinedHook) -> list[str]:
    entry = hook.entry
    lines = [
        f"  {hook.event} hook from {hook.where}:",
        f"    command: {entry.command}",
        f"    runs for: {entry.matcher if entry.matcher not in ('', '*') else 'every one'}",
        f"    timeout: {entry.timeout:g} s",
    ]
    # A project's file wrote these: shown as the call approval shows a command.
    return [shown_line(line) for line in lines]


async def offer_hook_approvals(workspace: Path, flags: Flags, renderer: LiveRenderer) -> None:
    """At a terminal, asks about each project hook that is new or changed since its
    approval, showing what it runs; a hook not approved does not run."""
    from nehanda.cli.mcp_command import confirm_running

    if not (sys.stdin.isatty() and renderer.console.is_terminal):
        return
    for hook in load_settings(workspace, flags).hooks:
        state = approval(workspace, hook, "hooks")
        if state == "approved":
            continue
        what = "a new hook" if state == "new" else "a hook that changed since you approved it"
        renderer.say(f"{hook.source} defines {what}, which runs with your rights:", "yellow")
        if await confirm_running(what_it_runs(hook), renderer, "Let it run?"):
            approve(workspace, hook, "hooks")
            renderer.say("yes; approved")
        else:
            renderer.say("no; it will not run")
