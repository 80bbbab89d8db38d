"""The MCP servers of a session: started in the background, each joining once it is ready.

``McpServers.launch`` returns at once. A background task waits for the SDK (loading on
a worker thread, ``sdk``) and starts every server in parallel, each within the start
timeout. A server that is ready has its tools named (``McpTool``s under their offered
names, ``names``; each server's prefix is its own, so the order servers join in changes
no name), a tool whose schema is not safe to use (``schemas``) left out with a note; a
server that fails or takes too long is left out with a note, and the session goes on.

The session's first request waits at most the grace for the servers (``graced``); those
still starting then are named in a note. Their tools are offered only from a later
request on: ``admit``, called as each request begins, is the one place ``tools`` changes,
so a request's tools never change while it is built or sent; each server that joins or
fails after the grace gets one note.
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
    """The servers ``defined`` (name and expanded entry, in the settings' order); ``tools``
    are those of the servers admitted so far, in that order."""

    defined: tuple[tuple[str, McpServerEntry], ...] = ()
    tools: tuple[McpTool, ...] = ()
    grace: float = 0.0
    connections: dict[str, Connection] = field(default_factory=dict)
    _ready: dict[str, tuple[McpTool, ...]] = field(default_factory=dict)
    _failed: dict[str, str] = field(default_factory=dict)
    _admitted: frozenset[str] = frozenset()  # the servers whose tools ``tools`` holds
    _untold: list[str] = field(default_factory=list)  # notes for the next ``admit``
    _late: bool = False  # the first request has waited: what happens now is announced
    _starting: asyncio.Task[None] | None = None
    _sdk: SdkLoad | None = None

    @classmethod
    def launch(
        cls,
        servers: Sequence[tuple[str, McpServerEntry]],
        timeout: float,
        grace: float = 0.0,
        sdk: SdkLoad | None = None,
    ) -> McpServers:
        """The servers, starting in the background, each within ``timeout``; ``grace``:
        how long the first request waits for them (``graced``); ``sdk``: the SDK already
        loading, or held back until ``begin``, else it begins now."""
        sdk = sdk or SdkLoad()
        started = cls(tuple(servers), grace=grace, _sdk=sdk)
        work = started._start_all(timeout, sdk)
        started._starting = asyncio.get_running_loop().create_task(work, name="mcp servers")
        return started

    def begin(self) -> None:
        """Lets the servers start, if the SDK's import was held back (``sdk.SdkLoad``)."""
        if self._sdk is not None:
            self._sdk.begin()

    async def graced(self) -> None:
        """Waits, the first time only, until every server is ready or failed, or the
        grace has passed; a note then names each server still starting."""
        if self._late:
            return
        self.begin()
        if self._starting is not None and self.grace > 0:
            await asyncio.wait({self._starting}, timeout=self.grace)
        self._late = True
        self._untold += [
            f"MCP server {name!r} is still starting; its tools are offered once it is ready "
            f"(the first request waited {self.grace:g} s, [mcp] start_grace)"
            for name in self._unsettled()
        ]

    async def settled(self) -> None:
        """Waits until every server is ready or failed (``nehanda mcp``)."""
        if self._starting is not None:
            await asyncio.wait({self._starting})

    def admit(self) -> list[str]:
        """Offers the tools of every server ready by now, from the request beginning on;
        returns the notes not told yet."""
        if len(self._ready) != len(self._admitted):
            self._admitted = frozenset(self._ready)
            self.tools = tuple(t for name, _ in self.defined for t in self._ready.get(name, ()))
        told, self._untold = self._untold, []
        return told

    def untold(self) -> list[str]:
        """The notes not told yet, for a session ending now (``nehanda run``)."""
        told, self._untold = self._untold, []
        return told

    def absent(self, tool: str) -> str | None:
        """Why ``tool`` (an offered name) is not offered, when it names a server whose
        tools are not: it is still starting, or it did not start."""
        for name, _ in self.defined:
            if name in self._admitted or not tool.startswith(f"{PREFIX}{server_part(name)}__"):
                continue
            if (failure := self._failed.get(name)) is not None:
                return f"MCP server {name!r} was not started: {failure}"
            if name in self._ready:
                return (
                    f"MCP server {name!r} has just started; its tools are offered from the "
                    "next request on"
                )
            return (
                f"MCP server {name!r} is still starting; its tools are offered once it is "
                "ready, from a later request on. Do without them for now"
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
        """``server``'s tools once it is ready, offered yet or not."""
        return self._ready.get(server, ())

    def connection(self, server: str) -> Connection:
        return self.connections[server]

    async def stop(self) -> None:
        """Stops every server, those still starting too (their processes end)."""
        starting, self._starting = self._starting, None
        if starting is not None and not starting.done():
            starting.cancel()
            await asyncio.wait({starting})
        await asyncio.gather(*(connection.stop() for connection in self.connections.values()))

    def _unsettled(self) -> list[str]:
        settled = {*self._ready, *self._failed}
        return [name for name, _ in self.defined if name not in settled]

    async def _start_all(self, timeout: float, sdk: SdkLoad) -> None:
        try:
            await sdk.loaded()
        except ImportError:
            names = ", ".join(name for name, _ in self.defined)
            self._untold.append(f"MCP servers ({names}) were not started: {_NOT_INSTALLED}")
            self._failed.update((name, _NOT_INSTALLED) for name, _ in self.defined)
            return
        from nehanda.tools.mcp.connection import Connection

        for name, entry in self.defined:
            self.connections[name] = Connection(name, entry, log_path(name))
        await asyncio.gather(*(self._start_one(c, timeout) for c in self.connections.values()))

    async def _start_one(self, connection: Connection, timeout: float) -> None:
        name = connection.name
        await connection.start(timeout)
        if connection.state != "running":
            self._failed[name] = why = connection.failure or "it stopped"
            self._untold.append(
                f"MCP server {name!r} was not started: {why} (its log: {connection.log_path}); "
                "going on without it"
            )
            return
        remote = _usable(connection, self._untold)
        names = offered_names(name, (tool.name for tool in remote), set())
        tools = tuple(mcp_tool(n, name, tool) for n, tool in zip(names, remote, strict=True))
        self._ready[name] = tools
        if self._late:
            count = f"{len(tools)} tool{'' if len(tools) == 1 else 's'}"
            self._untold.append(f"MCP server {name!r} is ready: {count}")


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
