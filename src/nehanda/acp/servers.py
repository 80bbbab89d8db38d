"""The MCP servers an editor passes with ``session/new``, as servers the user defined.

They start through nehanda's MCP client with the settings' own servers, counted as the
user's (the editor is the user's, not the project's): they need no project approval, and
they come before project servers when names collide (``config.mcp.merge_servers``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from acp.schema import AcpMcpServer, HttpMcpServer, McpServerStdio, SseMcpServer

from nehanda.config.mcp import DefinedServer, McpServerEntry, merge_servers
from nehanda.config.settings import Settings

EditorServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio
SOURCE = "the editor (ACP session/new)"


def with_editor_servers(settings: Settings, servers: Sequence[EditorServer]) -> Settings:
    """``settings`` whose MCP servers include the editor's; ``ValueError`` for one that
    nehanda cannot start (SSE, ACP transport), naming it."""
    defined = [DefinedServer(s.name, _entry(s), "user", SOURCE) for s in servers]
    if not defined:
        return settings
    merged, notes = merge_servers([*defined, *settings.mcp_servers])
    return replace(settings, mcp_servers=merged, mcp_notes=(*settings.mcp_notes, *notes))


def _entry(server: EditorServer) -> McpServerEntry:
    if isinstance(server, McpServerStdio):
        env = {variable.name: variable.value for variable in server.env}
        return McpServerEntry(command=server.command, args=list(server.args), env=env)
    if isinstance(server, HttpMcpServer):
        headers = {header.name: header.value for header in server.headers}
        return McpServerEntry(url=server.url, headers=headers)
    raise ValueError(
        f"MCP server {server.name!r}: nehanda speaks stdio and streamable HTTP to MCP "
        "servers, not SSE or ACP; give it as one of those"
    )
