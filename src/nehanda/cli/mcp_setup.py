"""The session's MCP servers: which may start, started, and their tools beside the built-ins.

A project server starts only once approved for its current fingerprint, a server whose
``${VAR}`` is unset does not start, and each skip is a note. A stdio server with
``sandbox = true`` starts through ``nehanda.sandbox.launch`` inside the session's Bash
sandbox, or not at all where there is none. Any other stdio server runs with the user's
rights, so its bare command (``npx``) is looked up on ``PATH`` outside every place a Bash
command may write, or it does not start. The SDK is imported only when some server is to
start.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nehanda.config.environ import startup_environ
from nehanda.config.mcp import DefinedServer, McpServerEntry, expand
from nehanda.config.mcp_approvals import approval, skipped_note
from nehanda.config.settings import Settings
from nehanda.permissions.decision import PermissionRules
from nehanda.permissions.sandboxing import session_sandbox, unconfined_program
from nehanda.sandbox.confine import Sandbox
from nehanda.sandbox.launch import launch_argv
from nehanda.types import Toolset

if TYPE_CHECKING:
    from nehanda.tools.mcp.sdk import SdkLoad
    from nehanda.tools.mcp.servers import McpServers


@dataclass
class McpStart:
    """The servers starting (``None`` when none was to start) and what was skipped."""

    servers: McpServers | None = None
    notes: list[str] = field(default_factory=list)


def runnable(
    settings: Settings, workspace: Path
) -> tuple[list[tuple[str, McpServerEntry]], list[str]]:
    """The servers that may start, expanded, and a note for each one that may not."""
    notes = list(settings.mcp_notes)
    ready: list[tuple[str, McpServerEntry]] = []
    environ = startup_environ()
    for server in settings.mcp_servers:
        if not server.entry.enabled:
            continue
        if (state := approval(workspace, server)) != "approved":
            notes.append(skipped_note(server, state))
            continue
        try:
            entry = expand(server.entry, environ)
            if entry.sandbox:
                rules = PermissionRules.from_settings(settings.permissions)
                entry = confined(entry, session_sandbox(settings.sandbox, rules, workspace))
            elif entry.command is not None and "/" not in entry.command:
                entry = located(entry, settings, workspace, environ)
            ready.append((server.name, entry))
        except ValueError as error:
            notes.append(_skipped(server, str(error)))
    return ready, notes


def confined(entry: McpServerEntry, sandbox: Sandbox | None) -> McpServerEntry:
    """``entry`` started through the launcher inside ``sandbox``; ``ValueError`` saying
    why where the session has no kernel sandbox (it must not run unconfined)."""
    if sandbox is None:
        raise ValueError(
            "it asks for sandbox = true, but the sandbox is off ([sandbox] enabled = false)"
        )
    if not sandbox.filesystem:
        raise ValueError(
            "it asks for sandbox = true, but this system has no Landlock (Linux 5.13 or later)"
        )
    command, *args = launch_argv(sandbox, entry.command or "", entry.args)
    return entry.model_copy(update={"command": command, "args": args})


def located(
    entry: McpServerEntry, settings: Settings, workspace: Path, environ: dict[str, str]
) -> McpServerEntry:
    """``entry`` with its bare command found where no Bash command can plant one: it runs
    with the user's rights, so a ``.venv/bin/npx`` a command wrote must not be it."""
    command = entry.command or ""
    search_path = entry.env.get("PATH", environ.get("PATH", os.defpath))
    found, planted = unconfined_program(command, settings.sandbox, workspace, search_path)
    if found is not None:
        return entry.model_copy(update={"command": found})
    if planted is not None:
        raise ValueError(
            f"the only {command} on PATH is {planted}, in a folder Bash commands may write; "
            "give its absolute path as command to run it anyway"
        )
    return entry


def start_mcp(settings: Settings, workspace: Path, sdk: SdkLoad | None = None) -> McpStart:
    """Launches the servers that may start (``sdk``: the SDK already loading) and returns
    at once."""
    ready, notes = runnable(settings, workspace)
    if not ready:
        return McpStart(None, notes)
    from nehanda.tools.mcp.servers import McpServers

    table = settings.mcp
    return McpStart(McpServers.launch(ready, table.start_timeout, table.start_grace, sdk), notes)


def with_mcp(
    inner: Toolset,
    servers: McpServers | None,
    settings: Settings,
    window: int,
    plan: bool,
) -> Toolset:
    """``inner`` with the servers' tools as they join, deferred behind ToolSearch once
    their schemas would take more than the budget's share of the model's context
    ``window``."""
    if servers is None:
        return inner
    from nehanda.tools.mcp import search
    from nehanda.tools.mcp.toolset import WithMcp

    budget = search.tool_budget(window, settings.mcp)
    return WithMcp(inner, servers, budget=budget, read_only_only=plan, table=settings.mcp)


def _skipped(server: DefinedServer, why: str) -> str:
    return f"MCP server {server.name!r} from {server.source} was not started: {why}"
