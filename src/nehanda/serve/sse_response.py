"""A stream of server-sent events with keep-alives, one timer for the whole stream.

``EventStream`` is Starlette's ``StreamingResponse`` (which cancels the stream when the
client disconnects) whose chunks are sent as they come, each straight from the body
iterator, and whose keep-alive (an Anthropic ``ping``, an SSE comment) is sent by a timer
when nothing was sent for ``every`` seconds: a call held back in rescue mode must not
look like a dead connection. ``ended`` is awaited however the response ends, even when
the client left before the first chunk (the body iterator never began). The timer is
set once and set again only when it fires, at the last send plus ``every``, so an event
costs one clock read, not a task.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, Awaitable, Callable, Mapping

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send


class EventStream(StreamingResponse):
    def __init__(
        self,
        content: AsyncIterable[bytes],
        keepalive: bytes,
        every: float,
        ended: Callable[[], Awaitable[None]],
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(content, headers=headers, media_type="text/event-stream")
        self.keepalive = keepalive
        self.every = every
        self.ended = ended

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.ended()

    async def stream_response(self, send: Send) -> None:
        await send({"type": "http.response.start", "status": self.status_code,
                    "headers": self.raw_headers})  # fmt: skip
        pings = _Pings(send, self.keepalive, self.every)
        try:
            async for chunk in self.body_iterator:
                pings.last = pings.clock()
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        finally:
            await pings.stop()
        await send({"type": "http.response.body", "body": b"", "more_body": False})


class _Pings:
    """Sends ``keepalive`` whenever ``every`` seconds passed since ``last``."""

    def __init__(self, send: Send, keepalive: bytes, every: float) -> None:
        loop = asyncio.get_running_loop()
        self.clock = loop.time
        self.last = loop.time()
        self._loop, self._send, self._keepalive, self._every = loop, send, keepalive, every
        self._sending: asyncio.Future[None] | None = None
        self._timer = loop.call_at(self.last + every, self._due)

    def _due(self) -> None:
        now = self.clock()
        if now - self.last >= self._every and (self._sending is None or self._sending.done()):
            self.last = now
            message = {"type": "http.response.body", "body": self._keepalive, "more_body": True}
            self._sending = asyncio.ensure_future(self._send(message))
        self._timer = self._loop.call_at(self.last + self._every, self._due)

    async def stop(self) -> None:
        """No more pings; one being sent is finished first (the last body comes after)."""
        self._timer.cancel()
        if self._sending is not None:
            with contextlib.suppress(Exception):
                await self._sending
