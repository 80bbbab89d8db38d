"""One MCP server, started and owned by one task: the only module that imports the SDK.

anyio requires a client to be entered and exited in the same task, so each server has
an owner task that opens the client, lists the tools, then runs the calls queued to it.
A server that dies is started again once; after a second death, or a start that failed
or ran out of time, every call answers with the failure. A call that runs out of time
ends as an error and the SDK tells the server it was cancelled. A stdio server gets the
configured ``env`` on top of the SDK's small default set (never nehanda's whole
environment, so no provider key reaches it) and writes its stderr to its capped log
(``server_log``), where the SDK's own log records about it go too, never to the terminal.
A message from the server that cannot be read is named when a wait for an answer ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TextIO

import httpx2
import mcp_types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from nehanda.config.mcp import McpServerEntry
from nehanda.tools.mcp.server_log import capped_log
from nehanda.types import JsonObject

State = Literal["starting", "running", "failed", "stopped"]
_MAX_PAGES = 100
_CONNECT_TIMEOUT = 30.0
_STREAM_READ_TIMEOUT = 300.0
_SHOWN = 200
# The log of the server whose owner task is running; the SDK's tasks for that server
# start inside it, so they see it too.
_server_log: ContextVar[TextIO | None] = ContextVar("mcp_server_log", default=None)


class _ToServerLog(logging.Handler):
    """The SDK's log records, into the log of the server they are about."""

    def emit(self, record: logging.LogRecord) -> None:
        log = _server_log.get()
        if log is not None:
            with contextlib.suppress(OSError, ValueError):
                log.write(self.format(record) + "\n")
                log.flush()


_sdk_log = logging.getLogger("mcp")
_sdk_log.addHandler(_ToServerLog())
_sdk_log.propagate = False  # Python's last-resort handler would print them on the terminal


@dataclass(frozen=True)
class RemoteTool:
    """A tool as its server lists it."""

    name: str
    description: str
    input_schema: JsonObject
    read_only: bool
    output_schema: JsonObject | None = None


@dataclass(frozen=True)
class CallAnswer:
    """What a call came back with: the result's content blocks, or why there is none."""

    content: tuple[Any, ...] = ()
    structured: Any = None
    is_error: bool = False
    failure: str | None = None


class _Died(Exception):
    pass


class _NoAnswer(Exception):
    pass


@dataclass
class _Job:
    tool: str
    arguments: JsonObject
    timeout: float
    answer: asyncio.Future[CallAnswer]


@dataclass
class Connection:
    """The server ``name`` as ``entry`` (already expanded) says to reach it."""

    name: str
    entry: McpServerEntry
    log_path: Path
    state: State = "starting"
    failure: str | None = None
    tools: tuple[RemoteTool, ...] = ()
    _jobs: asyncio.Queue[_Job] = field(default_factory=asyncio.Queue)
    _owner: asyncio.Task[None] | None = None
    _listed: asyncio.Future[None] | None = None
    _start_timeout: float = 30.0
    _unreadable: str | None = None

    async def start(self, timeout: float) -> None:
        """Starts the server and lists its tools; a failure sets ``state`` and ``failure``."""
        self._listed, self._start_timeout = asyncio.get_running_loop().create_future(), timeout
        self._owner = asyncio.create_task(self._own(), name=f"mcp server {self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(self._listed), timeout)
        except TimeoutError:
            self._fail(f"it did not answer within {timeout:g} s{self._unread()}")
            await self.stop()
            self.state = "failed"

    async def call(self, tool: str, arguments: JsonObject) -> CallAnswer:
        if self.state != "running":
            return CallAnswer(failure=self._not_running())
        job = _Job(tool, arguments, self.entry.timeout, asyncio.get_running_loop().create_future())
        await self._jobs.put(job)
        return await job.answer

    async def stop(self) -> None:
        owner, self._owner = self._owner, None
        if owner is not None and not owner.done():
            owner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await owner
        if self.state == "running":
            self.state = "stopped"

    def _not_running(self) -> str:
        why = f": {self.failure}" if self.failure else ""
        return f"MCP server {self.name!r} is not running{why} (its log: {self.log_path})"

    def _fail(self, why: str) -> None:
        self.state, self.failure = "failed", why
        if self._listed is not None and not self._listed.done():
            self._listed.set_result(None)

    async def _own(self) -> None:
        try:
            for attempt in (1, 2):
                try:
                    await self._serve()
                    return
                except Exception as error:  # any way a server fails must not end the session
                    died = _died(error)
                    self.failure = str(died) if died else _describe(error) + self._unread()
                    if died is None and not self.tools:
                        break  # it never started: starting it again would fail the same way
                    if attempt == 2:
                        self.failure += (
                            ", twice; it was not started again" if died else (" when started again")
                        )
            self._fail(self.failure or "it stopped")
        finally:
            self._fail_waiting()

    async def _serve(self) -> None:
        async with self._client() as client:
            if not self.tools:
                self.tools = await _list_tools(client)
            self.state = "running"
            if self._listed is not None and not self._listed.done():
                self._listed.set_result(None)
            while True:
                job = await self._jobs.get()
                await self._run(client, job)

    async def _run(self, client: Client, job: _Job) -> None:
        try:
            result = await client.call_tool(
                job.tool, job.arguments, read_timeout_seconds=job.timeout
            )
        except MCPError as error:
            if error.code == mcp_types.CONNECTION_CLOSED:
                why = f"MCP server {self.name!r} exited before it answered; it was started again"
                job.answer.set_result(CallAnswer(failure=f"{why} (its log: {self.log_path})"))
                raise _Died("it exited") from None
            if error.code == mcp_types.REQUEST_TIMEOUT:
                why = f"it did not answer within {job.timeout:g} s{self._unread()}"
                why += ", so the call was cancelled"
                job.answer.set_result(CallAnswer(failure=f"{job.tool} on {self.name!r}: {why}"))
                return
            job.answer.set_result(CallAnswer(failure=f"MCP server {self.name!r}: {error}"))
            return
        except Exception as error:  # the SDK's checks of the answer, against its outputSchema
            job.answer.set_result(
                CallAnswer(failure=f"MCP server {self.name!r}: {_describe(error)}")
            )
            return
        job.answer.set_result(
            CallAnswer(tuple(result.content), result.structured_content, bool(result.is_error))
        )

    def _unread(self) -> str:
        """What was wrong with the last message from the server that could not be read, as
        an aside, once: the answer waited for may have been lost with it."""
        unread, self._unreadable = self._unreadable, None
        return f" (a message it sent could not be read: {unread})" if unread else ""

    async def _heard(self, message: Any) -> None:
        """Every message the SDK passes on; one it could not read comes as an exception."""
        if isinstance(message, Exception):
            self._unreadable = _unreadable(message)

    def _fail_waiting(self) -> None:
        while not self._jobs.empty():
            job = self._jobs.get_nowait()
            if not job.answer.done():
                job.answer.set_result(CallAnswer(failure=self._not_running()))

    @contextlib.asynccontextmanager
    async def _client(self) -> AsyncIterator[Client]:
        entry = self.entry
        async with contextlib.AsyncExitStack() as stack:
            log = await stack.enter_async_context(capped_log(self.log_path))
            stack.callback(_server_log.reset, _server_log.set(log))
            if entry.url is not None:
                timeout = httpx2.Timeout(_CONNECT_TIMEOUT, read=_STREAM_READ_TIMEOUT)
                http = httpx2.AsyncClient(headers=entry.headers, timeout=timeout)
                await stack.enter_async_context(http)
                transport = streamable_http_client(entry.url, http_client=http)
            else:
                params = StdioServerParameters(
                    command=entry.command or "", args=entry.args, env=entry.env, cwd=entry.cwd
                )
                transport = stdio_client(params, errlog=log)
            try:
                async with asyncio.timeout(self._start_timeout):
                    client = Client(transport, message_handler=self._heard)
                    client = await stack.enter_async_context(client)
            except TimeoutError:
                raise _NoAnswer(f"it did not answer within {self._start_timeout:g} s") from None
            yield client


async def _list_tools(client: Client) -> tuple[RemoteTool, ...]:
    tools: list[RemoteTool] = []
    cursor: str | None = None
    for _ in range(_MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools += [
            RemoteTool(
                tool.name,
                tool.description or "",
                dict(tool.input_schema),
                bool(tool.annotations and tool.annotations.read_only_hint),
                dict(tool.output_schema) if tool.output_schema is not None else None,
            )
            for tool in page.tools
        ]
        cursor = page.next_cursor
        if cursor is None:
            break
    return tuple(tools)


def _unreadable(error: Exception) -> str:
    """The first thing wrong with a message that could not be read (pydantic's words)."""
    details = getattr(error, "errors", None)
    found = details()[0].get("msg", "") if callable(details) and details() else str(error)
    return str(found).splitlines()[0][:_SHOWN] if found else type(error).__name__


def _died(error: BaseException) -> _Died | None:
    """The ``_Died`` that ended a session, also from inside anyio's exception groups."""
    if isinstance(error, _Died):
        return error
    if isinstance(error, BaseExceptionGroup):
        return next((d for e in error.exceptions if (d := _died(e)) is not None), None)
    return None


def _describe(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup) and error.exceptions:
        return _describe(error.exceptions[0])
    if isinstance(error, _NoAnswer):
        return str(error)
    if isinstance(error, FileNotFoundError):
        return f"its command was not found ({error.filename or error})"
    return f"{type(error).__name__}: {error}".rstrip(": ")
