"""The MCP servers of a session: started in the background, each joining once it is ready.

``McpServers.launch`` returns at once. A background task waits for the SDK (loading on
a worker thread, ``sdk``) and starts every server in parallel, each within the start
timeout. A server that is ready joins: its tools become ``McpTool``s under their offered
names (``names``; each server's prefix is its own, so the order they join in changes no
name), a tool whose schema is not safe to use (``schemas``) left out with a note. A
server that fails or takes too long is left out, with a note, and the session goes on.
The session takes the servers that joined at the start of a request (``admit``), so a
request's tools never change while it is built, and before its first request waits
for the servers ready within the grace (``graced``); a server that joins later is
announced when its tools are first offered.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nehanda.config.mcp import McpServerEntry, server_part
from nehanda.fs import state_dir
from nehanda.tools.mcp.names import PREFIX, offered_names
from nehanda.tools.mcp.schemas import schema_problem
from nehanda.tools.mcp.sdk import SdkLoad
from nehanda.types import ToolFacts, ToolKind, ToolSpec

if TYPE_CHECKING:
    from nehanda.tools.mcp.connection import Connection, RemoteTool

_NOT_INSTALLED = "the MCP support is not installed: pip install 'nehanda[mcp]'"


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
    """The servers ``defined`` (name and expanded entry, in the settings' order) and the
    tools of those admitted so far, in that order; ``notes`` wait for the next ``admit``."""

    defined: tuple[tuple[str, McpServerEntry], ...] = ()
    tools: tuple[McpTool, ...] = ()
    notes: list[str] = field(default_factory=list)
    connections: dict[str, Connection] = field(default_factory=dict)
    grace: float = 0.0
    _joined: dict[str, tuple[McpTool, ...]] = field(default_factory=dict)
    _admitted: set[str] = field(default_factory=set)
    _failed: dict[str, str] = field(default_factory=dict)
    _late: bool = False  # the grace is over: a server joining now is announced
    _began: float = 0.0
    _starting: asyncio.Task[None] | None = None

    @classmethod
    def launch(
        cls,
        servers: Sequence[tuple[str, McpServerEntry]],
        timeout: float,
        grace: float = 0.0,
        sdk: SdkLoad | None = None,
    ) -> McpServers:
        """The servers, starting in the background; ``grace``: how long after now the
        first request waits for them (``graced``)."""
        started = cls(tuple(servers), grace=grace)
        loop = asyncio.get_running_loop()
        started._began = loop.time()
        work = started._start_all(timeout, sdk or SdkLoad())
        started._starting = loop.create_task(work, name="mcp servers starting")
        return started

    async def graced(self) -> None:
        """Waits until every server has joined or failed, or the grace has passed; from
        then on a server that joins is announced."""
        starting = self._starting
        if not self._late and starting is not None and not starting.done():
            left = self._began + self.grace - asyncio.get_running_loop().time()
            if left > 0:
                await asyncio.wait({starting}, timeout=left)
        self._late = True

    async def settled(self) -> None:
        """Waits until every server has joined or failed (``nehanda mcp``)."""
        if self._starting is not None:
            await asyncio.wait({self._starting})

    def admit(self) -> list[str]:
        """Offers the tools of the servers that joined since the last call, from the
        request about to be built on; returns what to tell the user since then."""
        joined = [name for name, _ in self.defined if name in self._joined]
        if len(joined) > len(self._admitted):
            self._admitted.update(joined)
            self.tools = tuple(tool for name in joined for tool in self._joined[name])
        told, self.notes = self.notes, []
        return told

    def left_over(self) -> list[str]:
        """What the user was not told yet at the session's end: the notes ``admit`` did
        not take, and the servers still starting, whose tools were never offered."""
        starting = [
            f"MCP server {name!r} was still starting; its tools were not offered (the first "
            "request waits [mcp] start_grace seconds for the servers)"
            for name, _ in self.defined
            if name not in self._joined and name not in self._failed
        ]
        return [*self.admit(), *starting]

    def absent(self, tool: str) -> str | None:
        """Why ``tool`` (an offered name) is not offered when it would be a server's not
        admitted: the server is still starting, or did not start."""
        for name, _ in self.defined:
            if name in self._admitted or not tool.startswith(f"{PREFIX}{server_part(name)}__"):
                continue
            if (failure := self._failed.get(name)) is not None:
                return f"MCP server {name!r} was not started: {failure}"
            return (
                f"MCP server {name!r} is still starting; its tools are offered once it is "
                "ready, from a later request on. Do without it for now"
            )
        return None

    def state(self, server: str) -> str:
        """``server``'s state: starting, running, failed or stopped."""
        if server in self._failed:
            return "failed"
        connection = self.connections.get(server)
        return connection.state if connection is not None else "starting"

    def failure(self, server: str) -> str | None:
        return self._failed.get(server)

    def tools_of(self, server: str) -> tuple[McpTool, ...]:
        """The tools of ``server`` once it has joined, offered yet or not."""
        return self._joined.get(server, ())

    def connection(self, server: str) -> Connection:
        return self.connections[server]

    async def stop(self) -> None:
        """Stops every server, those still starting too."""
        starting, self._starting = self._starting, None
        if starting is not None and not starting.done():
            starting.cancel()
            await asyncio.wait({starting})
        await asyncio.gather(*(connection.stop() for connection in self.connections.values()))

    async def _start_all(self, timeout: float, sdk: SdkLoad) -> None:
        try:
            await sdk.loaded()
        except ImportError:
            names = ", ".join(name for name, _ in self.defined)
            self.notes.append(f"MCP servers ({names}) were not started: {_NOT_INSTALLED}")
            self._failed.update((name, _NOT_INSTALLED) for name, _ in self.defined)
            return
        from nehanda.tools.mcp.connection import Connection

        for name, entry in self.defined:
            self.connections[name] = Connection(name, entry, log_path(name))
        await asyncio.gather(*(self._start_one(c, timeout) for c in self.connections.values()))

    async def _start_one(self, connection: Connection, timeout: float) -> None:
        name = connection.name
        try:
            await connection.start(timeout)
        except Exception as error:  # no way a server fails may end the session
            connection.failure = f"{type(error).__name__}: {error}"
        if connection.state != "running":
            self._failed[name] = why = connection.failure or "it stopped"
            self.notes.append(
                f"MCP server {name!r} was not started: {why} (its log: {connection.log_path}); "
                "going on without it"
            )
            return
        remote = _usable(connection, self.notes)
        names = offered_names(name, (tool.name for tool in remote), set())
        tools = [mcp_tool(offered, name, tool) for offered, tool in zip(names, remote, strict=True)]
        self._joined[name] = tuple(tools)
        if self._late:
            self.notes.append(f"mcp: {name} ready, {len(tools)} tool{'s' * (len(tools) != 1)}")


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
