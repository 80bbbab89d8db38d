"""``WithMcp``: a ``Toolset`` offering the MCP servers' tools beside another toolset's.

An MCP call is checked like a built-in one (a known tool, arguments read leniently and
then validated against its ``inputSchema``, its spec's facts on the ``CheckedCall``)
and run on its server; the answer becomes a ``ToolResult``, an error one for ``isError``
or a failed call (``tools.masked.Masked``, around the whole toolset, masks and caps
it). When the MCP tools are deferred (``search``), the model first sees only
ToolSearch, whose results add the tools they found to ``specs``. In plan mode only the
tools their server marks read-only
are offered, and permissions still ask before each call, since the mark is the server's.

Servers join while the session runs, their tools offered from the request after
(``servers.McpServers.admit``); with ``table``, whether the tools are deferred is decided
again as they join, and once deferred they stay so. ``specs`` stays the same tuple until
the tools, the permission mode or the tools ToolSearch loaded change, so that the caches
keyed by it (the rescue prompt) hold. A call of a tool whose server is not offered yet is
answered with an error saying why, never queued.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import pydantic

from nehanda.config.mcp import McpTable
from nehanda.errors import ToolCallFormatError
from nehanda.tools.mcp import arguments, search
from nehanda.tools.mcp.names import is_mcp_name
from nehanda.tools.mcp.results import result_text
from nehanda.tools.mcp.servers import McpServers, McpTool
from nehanda.types import CheckedCall, ToolResult, Toolset, ToolSpec, ToolUse


@dataclass
class WithMcp:
    inner: Toolset
    servers: McpServers
    deferred: bool = False
    budget: int = search.DEFAULT_WINDOW
    read_only_only: bool = False
    table: McpTable | None = None  # when given, ``deferred`` follows the tools offered
    _loaded: set[str] = field(default_factory=set)
    # What the specs were built from (inner specs, tools, plan mode, loaded), and them.
    _built: tuple[tuple[object, ...], tuple[ToolSpec, ...]] | None = field(default=None, repr=False)
    _decided: tuple[McpTool, ...] = field(default=(), repr=False)

    @property
    def offered(self) -> tuple[McpTool, ...]:
        tools = self.servers.tools
        return tuple(t for t in tools if t.remote.read_only) if self.read_only_only else tools

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        inner, tools = self.inner.specs, self.servers.tools
        if self.table is not None and not self.deferred and tools is not self._decided:
            self._decided = tools
            offered = [tool.spec for tool in self.offered]
            self.deferred = search.should_defer(offered, self.table, self.budget)
        made = (inner, tools, self.read_only_only, len(self._loaded), self.deferred)
        built = self._built
        if built is None or any(a is not b and a != b for a, b in zip(built[0], made, strict=True)):
            built = self._built = (made, self._specs(inner))
        return built[1]

    def _specs(self, inner: tuple[ToolSpec, ...]) -> tuple[ToolSpec, ...]:
        offered = self.offered
        if not self.deferred:
            return (*inner, *(tool.spec for tool in offered))
        names = [tool.spec.name for tool in offered]
        loaded = [replace(t.spec, searched=True) for t in offered if t.spec.name in self._loaded]
        return (*inner, search.search_spec(names, self.budget), *loaded)

    def plain_output(self, content: str) -> str:
        return self.inner.plain_output(content)

    def check(self, use: ToolUse) -> CheckedCall | ToolResult:
        if use.name == search.NAME and self.deferred:
            return self._check_search(use)
        if not is_mcp_name(use.name):
            return self.inner.check(use)
        tool = next((t for t in self.offered if t.spec.name == use.name), None)
        try:
            return self._checked(use, tool)
        except ToolCallFormatError as error:
            return _error(use, error.reply)

    async def run(
        self, checked: CheckedCall, started: Callable[[], None] | None = None
    ) -> ToolResult:
        use, arguments = checked.use, checked.arguments
        searching = use.name == search.NAME and isinstance(arguments, search.SearchArgs)
        if not (searching or is_mcp_name(use.name)):
            return await self.inner.run(checked, started)
        if started is not None:
            started()
        if isinstance(arguments, search.SearchArgs):
            return self._search(use, arguments)
        tool = next(t for t in self.offered if t.spec.name == use.name)
        payload = checked.arguments if isinstance(checked.arguments, dict) else {}
        answer = await self.servers.connection(tool.server).call(tool.remote.name, payload)
        if answer.failure is not None:
            return _error(use, answer.failure)
        text = result_text(answer.content, answer.structured)
        return ToolResult(use.id, text, is_error=answer.is_error)

    def _checked(self, use: ToolUse, tool: McpTool | None) -> CheckedCall:
        raw = json.dumps({"name": use.name, "arguments": use.input}, default=str)
        if tool is None and (absent := self.servers.absent(use.name)) is not None:
            raise ToolCallFormatError(raw, f"{use.name} is not offered: {absent}.")
        if tool is None:
            why = " in plan mode, which offers only read-only tools" if self.read_only_only else ""
            raise ToolCallFormatError(raw, f"Unknown tool {use.name!r}: it is not offered{why}.")
        if use.input_error is not None:
            raise ToolCallFormatError(raw, use.input_error)
        schema = tool.spec.input_schema
        given = arguments.coerce(use.input, schema)
        if problems := arguments.problems(given, schema):
            raise ToolCallFormatError(
                raw,
                f"Invalid arguments for {use.name}: {'; '.join(problems)}. "
                f"Valid parameters: {arguments.parameter_list(schema)}.",
            )
        return CheckedCall(use, given, facts=tool.spec.facts)

    def _check_search(self, use: ToolUse) -> CheckedCall | ToolResult:
        if use.input_error is not None:
            return _error(use, use.input_error)
        try:
            args = search.SearchArgs.model_validate(use.input)
            return CheckedCall(use, args, facts=search.FACTS)
        except pydantic.ValidationError as error:
            first = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "arguments"
            return _error(use, f"Invalid arguments for {search.NAME}: {where}: {first['msg']}.")

    def _search(self, use: ToolUse, args: search.SearchArgs) -> ToolResult:
        found = search.find(args.query, [t.spec for t in self.offered], args.max_results)
        self._loaded.update(spec.name for spec in found)
        return ToolResult(use.id, search.render_found(args.query, found))


def _error(use: ToolUse, message: str) -> ToolResult:
    return ToolResult(use.id, message, is_error=True)
