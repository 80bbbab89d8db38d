"""The MCP servers of a session: started together, their tools named, stopped together.

``McpServers.start`` starts every server in parallel, each within the start timeout; a
server that fails or takes too long is left out, with a note, and the session goes on.
Each server's tools become ``McpTool``s under their offered names (``names``); a tool
whose schema is not safe to use (``schemas``) is left out, with a note naming it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from nehanda.config.mcp import McpServerEntry, server_part
from nehanda.fs import state_dir
from nehanda.tools.mcp.connection import Connection, RemoteTool
from nehanda.tools.mcp.names import offered_names
from nehanda.tools.mcp.schemas import schema_problem
from nehanda.types import ToolFacts, ToolKind, ToolSpec


@dataclass(frozen=True)
class McpTool:
    """An MCP tool as nehanda offers it: ``spec.name`` is ``mcp__SERVER__TOOL``; its
    ``spec.facts`` say whose it is and what its server claims (``mcp_facts``)."""

    spec: ToolSpec
    server: str
    remote: RemoteTool


def mcp_facts(server: str, remote: RemoteTool) -> ToolFacts:
    """What nehanda knows of a server's tool: only whose it is, and what the server says of
    it. ``readOnlyHint`` is the server's claim (``read_only``), for plan mode's list: no
    path or command argument is ever read from a server, so nothing runs on its word."""
    kind: ToolKind = "read" if remote.read_only else "other"
    return ToolFacts(kind=kind, source="mcp", read_only=remote.read_only, server=server)


def log_path(server: str) -> Path:
    return state_dir() / "mcp" / f"{server_part(server)}.log"


@dataclass
class McpServers:
    connections: tuple[Connection, ...] = ()
    tools: tuple[McpTool, ...] = ()
    notes: list[str] = field(default_factory=list)

    @classmethod
    async def start(
        cls, servers: Sequence[tuple[str, McpServerEntry]], timeout: float
    ) -> McpServers:
        connections = tuple(Connection(name, entry, log_path(name)) for name, entry in servers)
        await asyncio.gather(*(connection.start(timeout) for connection in connections))
        started = cls(connections)
        taken: set[str] = set()
        tools: list[McpTool] = []
        for connection in connections:
            if connection.state != "running":
                started.notes.append(
                    f"MCP server {connection.name!r} was not started: {connection.failure} "
                    f"(its log: {connection.log_path}); going on without it"
                )
                continue
            remote = _usable(connection, started.notes)
            names = offered_names(connection.name, (tool.name for tool in remote), taken)
            tools += [
                mcp_tool(name, connection.name, tool)
                for name, tool in zip(names, remote, strict=True)
            ]
        started.tools = tuple(tools)
        return started

    def connection(self, server: str) -> Connection:
        return next(c for c in self.connections if c.name == server)

    async def stop(self) -> None:
        await asyncio.gather(*(connection.stop() for connection in self.connections))


def mcp_tool(name: str, server: str, remote: RemoteTool) -> McpTool:
    """``server``'s tool ``remote``, offered as ``name``, its facts on its spec."""
    spec = ToolSpec(name, remote.description, remote.input_schema, facts=mcp_facts(server, remote))
    return McpTool(spec, server, remote)


def _usable(connection: Connection, notes: list[str]) -> list[RemoteTool]:
    """The server's tools whose schemas are safe to use; a note for each one left out."""
    usable = []
    for tool in connection.tools:
        problem = schema_problem(tool.input_schema, "inputSchema")
        if problem is None and tool.output_schema is not None:
            problem = schema_problem(tool.output_schema, "outputSchema")
        if problem is None:
            usable.append(tool)
        else:
            name = tool.name[:80]
            notes.append(
                f"MCP server {connection.name!r}: its tool {name!r} was left out: {problem}"
            )
    return usable
