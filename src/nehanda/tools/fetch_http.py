"""One WebFetch over HTTP: each hop checked, resolved once and connected to as checked.

For each hop, ``fetch_page`` reads the URL's host, upgrades ``http`` to ``https`` unless
a rule names the host, resolves the name once (``WebAccess.resolve``) and refuses when
any address it answers is not public (``fetch_address.refused``) and no rule names the
host. The request then goes to that very address: the URL carries the IP, the ``Host``
header and the TLS server name (SNI, and so the certificate checked) the name, so a
resolver that answers differently the second time (DNS rebinding) is never asked again.
No proxy from the environment is used: it would resolve the name itself.

Redirects are followed by hand, at most ``MAX_HOPS``, and listed in the page: one to the
same host (or its ``www.`` twin) or to a host a rule names is followed, each hop checked
as the first; one to another host stops, refused outright when that host is not public,
else handed back for the model to ask for with a new call, which the permissions judge
afresh. A body over ``MAX_BYTES`` is refused, as is the whole fetch after
``TIMEOUT`` seconds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httpx

from nehanda.errors import ToolError
from nehanda.tools.fetch_address import IPAddress, ip_literal, normal_host, refused
from nehanda.tools.web_access import WebAccess

NAME = "WebFetch"
MAX_BYTES = 10 * 1024 * 1024
TIMEOUT = 30.0
MAX_HOPS = 10
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_USER_AGENT = "nehanda-webfetch"


@dataclass(frozen=True)
class Page:
    """``redirect``: where a redirect to another host points, which was not followed."""

    url: str
    status: int
    content_type: str
    body: bytes
    hops: list[str] = field(default_factory=list)
    redirect: str | None = None


@dataclass(frozen=True)
class _Hop:
    url: httpx.URL
    host: str
    address: IPAddress


async def fetch_page(url: str, access: WebAccess) -> Page:
    try:
        async with asyncio.timeout(TIMEOUT):
            return await _follow(url, access)
    except TimeoutError:
        raise ToolError(NAME, f"{url} took more than {TIMEOUT:g} seconds; not fetched.") from None
    except httpx.HTTPError as error:
        raise ToolError(NAME, f"Cannot fetch {url}: {error or type(error).__name__}.") from None


async def _follow(url: str, access: WebAccess) -> Page:
    current = _parsed(url, access)
    hops: list[str] = []
    async with httpx.AsyncClient(
        transport=access.transport, trust_env=False, follow_redirects=False, timeout=TIMEOUT
    ) as client:
        for _ in range(MAX_HOPS + 1):
            hop = await _checked(current, access, hops)
            request = _request(client, hop)
            async with _sent(client, request) as response:
                location = response.headers.get("location")
                if response.status_code in _REDIRECTS and location:
                    target = current.join(location)
                    hops.append(f"{current} -> {response.status_code} {target}")
                    if not _follows(current, target, access):
                        return await _elsewhere(current, target, response, access, hops)
                    current = _parsed(str(target), access)
                    continue
                body = await _body(response, current)
                kind = response.headers.get("content-type", "")
                return Page(str(current), response.status_code, kind, body, hops)
    raise ToolError(NAME, f"{url} redirects more than {MAX_HOPS} times; not fetched.")


def _parsed(url: str, access: WebAccess) -> httpx.URL:
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as error:
        raise ToolError(NAME, f"{url!r} is not a URL ({error}).") from None
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ToolError(NAME, f"{url!r} is not an http or https URL with a host.")
    if parsed.userinfo:
        raise ToolError(NAME, f"{url!r} carries a user name or password; give it without.")
    if parsed.scheme == "http" and normal_host(parsed.host) not in access.named():
        return parsed.copy_with(scheme="https")
    return parsed


async def _checked(url: httpx.URL, access: WebAccess, hops: list[str]) -> _Hop:
    """The hop to ``url``, at the one address its name resolves to now, once checked."""
    host = normal_host(url.host)
    literal = ip_literal(host)
    try:
        addresses = [literal] if literal else await access.resolve(host, _port(url))
    except OSError as error:
        raise ToolError(NAME, f"Cannot resolve {host}: {error.strerror or error}.") from None
    if not addresses:
        raise ToolError(NAME, f"{host} resolves to no address nehanda can connect to.")
    if host not in access.named():
        for address in addresses:
            if why := refused(address):
                raise ToolError(NAME, _refusal(url, host, address, why, hops))
    return _Hop(url, host, addresses[0])


def _port(url: httpx.URL) -> int:
    return url.port or (443 if url.scheme == "https" else 80)


def _refusal(url: httpx.URL, host: str, address: IPAddress, why: str, hops: list[str]) -> str:
    via = f" (reached by the redirects {'; '.join(hops)})" if hops else ""
    resolved = "" if ip_literal(host) else f" resolves to {address}, which"
    return (
        f"Refused: {url}{via}: {host}{resolved} is {why}. WebFetch reaches only public "
        f"addresses, unless a rule names the host: WebFetch(domain:{host}) in the "
        "[permissions] allow list. Do not try other spellings of this address."
    )


def _request(client: httpx.AsyncClient, hop: _Hop) -> httpx.Request:
    """A GET to the hop's checked address that keeps its name: the URL holds the IP, the
    ``Host`` header and the TLS server name (SNI) the name."""
    netloc = hop.url.netloc.decode("ascii")
    headers = {"Host": netloc, "User-Agent": _USER_AGENT, "Accept": "text/html, */*;q=0.8"}
    extensions = {} if ip_literal(hop.host) else {"sni_hostname": hop.host}
    pinned = hop.url.copy_with(host=hop.address.compressed)
    return client.build_request("GET", pinned, headers=headers, extensions=extensions)


@contextlib.asynccontextmanager
async def _sent(client: httpx.AsyncClient, request: httpx.Request) -> AsyncIterator[httpx.Response]:
    response = await client.send(request, stream=True)
    try:
        yield response
    finally:
        await response.aclose()


def _follows(current: httpx.URL, target: httpx.URL, access: WebAccess) -> bool:
    """Whether a redirect from ``current`` to ``target`` is followed without a new call."""
    if target.scheme not in ("http", "https"):
        return False
    here, there = normal_host(current.host), normal_host(target.host)
    return _twin(here) == _twin(there) or there in access.named()


def _twin(host: str) -> str:
    return host.removeprefix("www.")


async def _elsewhere(
    current: httpx.URL,
    target: httpx.URL,
    response: httpx.Response,
    access: WebAccess,
    hops: list[str],
) -> Page:
    """A redirect to another host: refused if it is not public, else handed back."""
    if target.scheme in ("http", "https"):
        await _checked(_parsed(str(target), access), access, hops)
    kind = response.headers.get("content-type", "")
    return Page(str(current), response.status_code, kind, b"", hops, redirect=str(target))


async def _body(response: httpx.Response, url: httpx.URL) -> bytes:
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BYTES:
        raise ToolError(NAME, _too_large(url, f"it says {int(declared):,} bytes"))
    body = bytearray()
    async for chunk in response.aiter_bytes():
        body += chunk
        if len(body) > MAX_BYTES:
            raise ToolError(NAME, _too_large(url, "it goes on past that"))
    return bytes(body)


def _too_large(url: httpx.URL, how: str) -> str:
    limit = MAX_BYTES // (1024 * 1024)
    return f"{url} is larger than {limit} MB ({how}); not fetched. Ask for a smaller page."
