"""``nehanda mcp`` (the servers, their state and tools, what their schemas cost), the REPL's
``/mcp``, and ``nehanda mcp approve NAME``."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from nehanda.cli.mcp_setup import McpStart, start_mcp
from nehanda.config.mcp import DefinedServer, server_part, variables_named
from nehanda.config.mcp_approvals import approval, approve
from nehanda.config.settings import Flags, RuleText, load_settings
from nehanda.errors import ConfigError
from nehanda.ui.shown_text import shown_line

if TYPE_CHECKING:
    from nehanda.tools.mcp.servers import McpServers
    from nehanda.ui.live import LiveRenderer


async def list_servers(workspace: Path) -> str:
    """Starts every server that may start, describes them all, and stops them."""
    settings = load_settings(workspace)
    if not settings.mcp_servers:
        notes = "\n".join(settings.mcp_notes)
        return "No MCP servers are configured ([mcp_servers.NAME] in settings)." + (
            f"\n{notes}" if notes else ""
        )
    start = start_mcp(settings, workspace)
    try:
        if start.servers is not None:
            await start.servers.settled()
            start.notes += start.servers.admit()
        lines = [_defined_line(server, workspace) for server in settings.mcp_servers]
        return "\n".join([*lines, "", describe_running(start)]).rstrip()
    finally:
        if start.servers is not None:
            await start.servers.stop()


def describe_running(start: McpStart) -> str:
    """The servers' states and tools, each tool with its schema's cost (a server still
    starting has none yet), then what was skipped."""
    servers, lines = start.servers, []
    if servers is not None:
        lines = [line for name, _ in servers.defined for line in _server_lines(servers, name)]
    return "\n".join([*lines, *start.notes]) or "No MCP server is running."


def _server_lines(servers: McpServers, name: str) -> list[str]:
    from nehanda.tools.mcp.search import spec_tokens

    tools = servers.tools_of(name)
    counted = f"{len(tools)} tool{'' if len(tools) == 1 else 's'}"
    failure = servers.failure(name)
    head = f"{name}: {servers.state(name)}, {counted}, ~{spec_tokens(t.spec for t in tools)}"
    return [
        head + " tokens of schemas" + (f" ({failure})" if failure else ""),
        *(
            f"  {tool.spec.name}  ~{spec_tokens([tool.spec])} tokens"
            + ("  read-only" if tool.remote.read_only else "")
            for tool in tools
        ),
    ]


def approve_server(workspace: Path, name: str, confirmed: bool) -> int:
    settings = load_settings(workspace)
    server = next((s for s in settings.mcp_servers if s.name == name), None)
    if server is None:
        if skipped := next((n for n in settings.mcp_notes if f"server {name!r} in" in n), None):
            raise ConfigError(skipped)
        known = ", ".join(s.name for s in settings.mcp_servers) or "none"
        raise ConfigError(f"no MCP server {name!r} is defined here (defined: {known})")
    if server.origin == "user":
        click.echo(f"{name} is in your user settings ({server.source}); it needs no approval")
        return 0
    runs = "\n".join(_what_it_runs(server, settings.permissions.allow))
    click.echo(f"{name} from {server.source} runs:\n{runs}")
    if not confirmed:
        if not sys.stdin.isatty():
            raise ConfigError("cannot ask without a terminal; add --yes to approve it as shown")
        if not click.confirm("Approve it?", default=False):
            click.echo("not approved")
            return 1
    approve(workspace, server)
    click.echo(f"approved {name}; a change to what it runs will ask again")
    return 0


async def offer_approvals(workspace: Path, flags: Flags, renderer: LiveRenderer) -> None:
    """At a terminal, asks about each project server that is new or changed since its
    approval, showing what it would run; a server not approved does not start."""
    if not (sys.stdin.isatty() and renderer.console.is_terminal):
        return
    settings = load_settings(workspace, flags)
    for server in settings.mcp_servers:
        state = approval(workspace, server)
        if state == "approved" or not server.entry.enabled:
            continue
        what = "a new MCP server" if state == "new" else "an MCP server that changed since"
        renderer.say(
            f"{server.source} defines {what}{' you approved it' if state == 'changed' else ''}, "
            f"{server.name!r}, which runs outside the sandbox with your rights:",
            "yellow",
        )
        if await confirm_running(_what_it_runs(server, settings.permissions.allow), renderer):
            approve(workspace, server)
            renderer.say(f"yes; approved {server.name}")
        else:
            renderer.say(f"no; {server.name} will not start")


async def confirm_running(
    lines: list[str], renderer: LiveRenderer, asked: str = "Start it?"
) -> bool:
    """Whether the user lets run what ``lines`` show (a server, a hook): shown whole, or
    (taller than the screen) its first and last rows, with ``v`` paging through all of it."""
    from nehanda.ui.approval import page_through, read_key
    from nehanda.ui.screen_fit import fit, pages, rows_of

    columns, rows = renderer.console.size
    fitted = fit(lines, rows - 4, columns)
    whole = fitted == rows_of(lines, columns)
    question = f"{asked} (y = yes, n = no{'' if whole else ', v = view it all'}) "
    while True:
        renderer.say("\n".join(fitted), "yellow")
        renderer.console.print(question, end="")
        key = (await read_key(sys.stdin)).lower()
        if key != "v" or whole:
            return key == "y"
        renderer.say("view all")
        await page_through(sys.stdin, sys.stdout, pages(lines, columns, rows))


def _defined_line(server: DefinedServer, workspace: Path) -> str:
    entry = server.entry
    where = entry.url or shlex.join([entry.command or "", *entry.args])
    state = "disabled" if not entry.enabled else approval(workspace, server)
    shown = {"approved": "", "new": ", not approved yet", "changed": ", changed: approve again"}
    extra = shown.get(state, ", disabled")
    return f"{server.name} ({server.origin}, {server.source}{extra}): {where}"


def _what_it_runs(server: DefinedServer, allow: tuple[RuleText, ...]) -> list[str]:
    entry = server.entry
    if entry.url is not None:
        lines = [f"  url: {entry.url}", *(f"  header: {k}: {v}" for k, v in entry.headers.items())]
    else:
        lines = [f"  command: {shlex.join([entry.command or '', *entry.args])}"]
        lines += [f"  env: {key}={value}" for key, value in entry.env.items()]
        lines += [f"  cwd: {entry.cwd}"] if entry.cwd else []
        confined = "yes: inside the Bash sandbox" if entry.sandbox else "no: with your rights"
        lines.append(f"  sandbox: {confined}")
    if named := variables_named(entry):
        listed = ", ".join(f"${name}" for name in named)
        lines.append(f"  it is given these variables of your environment: {listed}")
    lines += [f"  {line}" for line in _allowed_by(server, allow)]
    # A project's file wrote these: shown as the call approval shows a command.
    return [shown_line(line) for line in lines]


def _allowed_by(server: DefinedServer, allow: tuple[RuleText, ...]) -> list[str]:
    """The allow rules that would run some of ``server``'s tools unasked: a rule names a
    prefix, not a settings file, so a user's rule covers a project server of that name."""
    prefix = f"mcp__{server_part(server.name)}"
    found = []
    for rule in allow:
        text = rule.text.strip()
        if text in ("mcp__*", prefix) or text.startswith(prefix + "__"):
            found.append(f"the allow rule {text} ({rule.source}) runs its tools without asking")
    return found
