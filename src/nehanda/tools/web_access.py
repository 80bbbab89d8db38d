"""``WebAccess``: what WebFetch needs of the world beyond its arguments, in one value.

``named`` gives the hosts the permission rules in force name (``WebFetch(domain:HOST)``,
allow or ask, including those "always" added during the session): such a host may be a
private or loopback one, and is fetched as written (``http`` stays ``http``). ``resolve``
is the one name lookup a fetch makes per hop; the address it answers is the address
connected to. ``transport`` is the network httpx speaks over (``None``: the real one);
tests stand a recorded network in for the internet beyond 127.0.0.1. ``reader`` answers
a call's prompt from a page too long to return whole (the session's model, asked once
without tools: ``agents.page_reader``); ``None``: the page's head comes back instead.
The ``ToolContext`` carries one.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from nehanda.tools.fetch_address import IPAddress, ip_literal

if TYPE_CHECKING:
    import httpx

Resolver = Callable[[str, int], Awaitable[list[IPAddress]]]
PageReader = Callable[[str, str], Awaitable[str]]  # (the page's Markdown, the prompt)


async def system_resolve(host: str, port: int) -> list[IPAddress]:
    """Every address the system's resolver gives ``host``, in its order."""
    loop = asyncio.get_running_loop()
    found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = [ip_literal(str(info[4][0])) for info in found]
    return list(dict.fromkeys(address for address in addresses if address is not None))


def _no_hosts() -> frozenset[str]:
    return frozenset()


@dataclass(frozen=True)
class WebAccess:
    named: Callable[[], frozenset[str]] = _no_hosts
    resolve: Resolver = system_resolve
    transport: httpx.AsyncBaseTransport | None = None
    reader: PageReader | None = None
