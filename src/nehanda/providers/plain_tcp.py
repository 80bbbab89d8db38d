"""httpcore's network layer on asyncio's own transports, for plain ``http://`` servers.

httpx reads a streamed answer through httpcore, whose default layer (anyio) opens a
cancel scope and maps exceptions around every read: for a local server streaming a
token a chunk, that costs as much as the rest of the chunk's work. ``PlainTCP`` reads
from a ``Protocol``'s buffer instead, a read's timeout one timer. It is used only where
no TLS can be needed (``http.new_client``: an ``http://`` URL and no proxy); it raises
httpcore's own errors, with the ``OSError`` as their cause, as the default layer does.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Iterable
from typing import Any, cast

import httpcore
import httpx

_HIGH_WATER = 1 << 20  # bytes read ahead before the socket is no longer read


class _Reader(asyncio.Protocol):
    def __init__(self) -> None:
        self.buffer = bytearray()
        self.ended = False
        self.error: BaseException | None = None
        self.transport: asyncio.Transport | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.drained: asyncio.Future[None] | None = None
        self.paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # uvloop's is not a subclass

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _HIGH_WATER and self.transport is not None:
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake()
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended, self.error = True, exc
        self._wake()
        self.resume_writing()

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        if self.drained is not None and not self.drained.done():
            self.drained.set_result(None)

    def _wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)


async def _within(
    future: asyncio.Future[None], timeout: float | None, error: type[Exception]
) -> None:
    """``future`` awaited, or ``error`` once ``timeout`` seconds passed."""
    try:
        async with asyncio.timeout(timeout):
            await future
    except TimeoutError:
        raise error(f"nothing came within {timeout:g} s") from None


class _Stream(httpcore.AsyncNetworkStream):
    def __init__(self, transport: asyncio.Transport, reader: _Reader) -> None:
        self._transport, self._reader = transport, reader

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        reader = self._reader
        if not reader.buffer and not reader.ended:
            reader.waiter = asyncio.get_running_loop().create_future()
            try:
                await _within(reader.waiter, timeout, httpcore.ReadTimeout)
            finally:
                reader.waiter = None
        if reader.buffer:
            data = bytes(reader.buffer[:max_bytes])
            del reader.buffer[:max_bytes]
            if len(reader.buffer) <= _HIGH_WATER and not self._transport.is_closing():
                self._transport.resume_reading()
            return data
        if reader.error is not None:
            raise httpcore.ReadError(str(reader.error)) from reader.error
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._transport.is_closing():
            raise httpcore.WriteError("the connection is closed")
        self._transport.write(buffer)
        if self._reader.paused:
            self._reader.drained = asyncio.get_running_loop().create_future()
            await _within(self._reader.drained, timeout, httpcore.WriteTimeout)

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(self, *args: Any, **kwargs: Any) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("TLS was asked of a plain TCP connection")

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle pooled connection the server closed
            return self._reader.ended or bool(self._reader.buffer)
        names = {"socket": "socket", "client_addr": "sockname", "server_addr": "peername"}
        return self._transport.get_extra_info(names[info]) if info in names else None


class PlainTCP(httpcore.AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        try:
            async with asyncio.timeout(timeout):
                found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
                last: OSError = OSError(f"{host} has no address")
                for family, _, proto, _, address in found:
                    try:
                        transport, reader = await loop.create_connection(
                            _Reader, str(address[0]), int(address[1]), family=family,
                            proto=proto, local_addr=local,
                        )  # fmt: skip
                        break
                    except OSError as exc:
                        last = exc
                else:
                    raise last
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(f"no connection within {timeout} s") from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        sock = transport.get_extra_info("socket")
        for option in socket_options or ():
            sock.setsockopt(*option)
        return _Stream(transport, reader)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


class PlainTransport(httpx.AsyncHTTPTransport):
    """httpx's transport with its pool on ``PlainTCP``."""

    def __init__(self, limits: httpx.Limits, verify: ssl.SSLContext | bool) -> None:
        super().__init__(verify=verify, limits=limits)  # its pool is replaced
        self._pool = httpcore.AsyncConnectionPool(
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=PlainTCP(),
        )
