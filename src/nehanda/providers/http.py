"""HTTP plumbing every adapter shares: timeouts, retries, and where failures become errors.

``open_stream`` makes the ``Exchange`` of one request (a JSON body POSTed, or a GET),
whose body arrives as an async iterator of bytes; ``request_json`` reads a whole JSON answer
the same way. Before the first byte of a successful body it retries what is worth
retrying (429, 529 and other 5xx, a connection refused by another machine; never a
host name that does not resolve) with
bounded, jittered exponential backoff that honours ``Retry-After``, and obeys a
server's ``x-should-retry`` header either way; each retry is announced as a
``Retrying`` event before its wait (``Exchange.send``), which the adapters stream
like any other. A connection refused at this machine's own address fails at once:
no server listens there, and waiting will not start one. Once the body has started
nothing is retried, because the caller may already have shown or acted on part of
it. Every failure
leaves as a ``ProviderError`` subclass built by ``http_errors``, which names the
provider, the model and the URL, carries the server's own words, and never carries
a credential.
"""

from __future__ import annotations

import asyncio
import email.utils
import os
import random
import ssl
import time
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from nehanda.config.settings import ProviderConfig
from nehanda.errors import (
    ProviderError,
    ProviderStatusError,
    RateLimitError,
    StreamProtocolError,
)
from nehanda.events import Retrying
from nehanda.providers import bounded_json
from nehanda.providers.http_errors import (
    Target,
    host_not_found,
    is_html,
    not_an_api,
    redact_url,
    refused_at_loopback,
    retry_reason,
    secrets_in,
    status_error,
    transport_error,
)

MAX_ERROR_BODY_BYTES = 64 * 1024
# A proxy reached over TLS needs certificates even for plain http:// requests.
_PROXY_VARIABLES = (
    "http_proxy",
    "HTTP_PROXY",
    "https_proxy",
    "HTTPS_PROXY",
    "all_proxy",
    "ALL_PROXY",
)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before retrying a request that failed early."""

    max_retries: int = 3
    base_delay: float = 0.5
    max_delay: float = 20.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt + 1`` (``attempt`` from 0)."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        ceiling = min(self.max_delay, self.base_delay * 2.0**attempt)
        return ceiling / 2 + random.uniform(0, ceiling / 2)


def new_client(
    url: str, timeout: httpx.Timeout, on_sent: Callable[[], None] | None = None
) -> httpx.AsyncClient:
    """A client for the server at ``url``; ``on_sent`` is called each time a request has
    been sent whole. For plain ``http://`` it builds no TLS context, whose certificates
    cost tens of milliseconds at every start."""
    hooks = {"request": [_traced(on_sent)]} if on_sent else {}
    # No cap on connections: a caller bounds its own requests (serve: per upstream).
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
    verify = _tls_for(url)
    transport = None
    if verify is not True:
        # Without TLS, reads go through asyncio's transports, not anyio's. Imported here:
        # httpcore (and trio, where installed) would cost every start that sends nothing.
        from nehanda.providers.plain_tcp import PlainTransport

        transport = PlainTransport(limits, verify)
    return httpx.AsyncClient(
        timeout=timeout, verify=verify, event_hooks=hooks, limits=limits, transport=transport
    )


def _traced(on_sent: Callable[[], None]) -> Callable[[httpx.Request], Awaitable[None]]:
    """A request hook giving each request httpcore's ``trace`` extension, which reports
    the steps of sending it."""

    async def trace(event: str, info: object) -> None:
        if event.endswith(".send_request_body.complete"):
            on_sent()

    async def hook(request: httpx.Request) -> None:
        request.extensions.setdefault("trace", trace)

    return hook


def _tls_for(url: str) -> ssl.SSLContext | bool:
    proxies = (os.environ.get(name, "") for name in _PROXY_VARIABLES)
    if not url.lower().startswith("http://") or any(p.startswith("https:") for p in proxies):
        return True
    # Trusts no certificate: a TLS connection these requests never make fails, unchecked never.
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def timeout_for(connect: float, read: float) -> httpx.Timeout:
    """Connect and read (idle between bytes) limits kept apart; writes share connect's."""
    return httpx.Timeout(connect=connect, read=read, write=connect, pool=connect)


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds a ``Retry-After`` header asks for (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def _is_retryable(response: httpx.Response, error: ProviderError) -> bool:
    should_retry: str = response.headers.get("x-should-retry", "").strip().lower()
    if should_retry in ("true", "false"):
        return should_retry == "true"
    status = response.status_code
    return (status == 429 or status >= 500) and type(error) in (ProviderStatusError, RateLimitError)


async def _read_capped(response: httpx.Response) -> str:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= MAX_ERROR_BODY_BYTES:
            break
    return b"".join(chunks).decode("utf-8", errors="replace")


async def _body(
    response: httpx.Response, target: Target, timeout: httpx.Timeout
) -> AsyncGenerator[bytes, None]:
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except httpx.TimeoutException as exc:
        raise transport_error(exc, target, timeout) from exc
    except httpx.TransportError as exc:
        # The answer had begun: a connection lost now is a cut stream, not an unreachable server.
        raise StreamProtocolError(
            f"{target.label}: the stream from {redact_url(target.url)} was cut off: {exc}",
            provider=target.provider,
            model=target.model,
        ) from exc


@dataclass(frozen=True)
class _Request:
    method: str
    payload: Mapping[str, Any] | None
    headers: Mapping[str, str] | None
    timeout: httpx.Timeout


class Exchange:
    """One request: ``send`` sends it, announcing each retry as a ``Retrying`` event,
    and ``async with`` the exchange gives the answer's body (sending it first, silently,
    if ``send`` was not run) and closes it after."""

    def __init__(
        self,
        client: httpx.AsyncClient,
        target: Target,
        request: _Request,
        retry: RetryPolicy,
    ) -> None:
        self._client, self._target, self._request, self._retry = client, target, request, retry
        self._response: httpx.Response | None = None
        self._body: AsyncGenerator[bytes, None] | None = None

    async def send(self) -> AsyncIterator[Retrying]:
        """Sends the request until it is answered or fails for good; a ``Retrying``
        before each wait. Raises the typed error for a failed answer."""
        attempt, spec, retry = 0, self._request, self._retry
        secrets = secrets_in(spec.headers)
        while self._response is None:
            failed = await self._attempt(attempt >= retry.max_retries, secrets)
            if failed is None:
                return
            reason, retry_after = failed
            wait = retry.delay(attempt, retry_after)
            attempt += 1
            yield Retrying(wait, attempt + 1, retry.max_retries + 1, reason)
            await asyncio.sleep(wait)

    async def _attempt(
        self, last: bool, secrets: tuple[str, ...]
    ) -> tuple[str, float | None] | None:
        """One try: ``None`` once answered, else why to retry and the wait the server asked."""
        client, target, spec = self._client, self._target, self._request
        request = client.build_request(
            spec.method, target.url, json=spec.payload, headers=spec.headers, timeout=spec.timeout
        )
        try:
            response = await client.send(request, stream=True)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            if last or refused_at_loopback(exc, target.url) or host_not_found(exc):
                raise transport_error(exc, target, spec.timeout) from exc
            return retry_reason(exc), None
        except httpx.TransportError as exc:
            raise transport_error(exc, target, spec.timeout) from exc
        if response.is_success and not is_html(response.headers.get("content-type", ""), ""):
            self._response = response
            return None
        try:
            body = await _read_capped(response)
        except httpx.TransportError as exc:
            raise transport_error(exc, target, spec.timeout) from exc
        finally:
            await response.aclose()
        if response.is_success:
            raise not_an_api(target, response.status_code, body)
        error = status_error(response.status_code, body, target, secrets=secrets)
        if last or not _is_retryable(response, error):
            raise error
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        return f"HTTP {response.status_code}", retry_after

    async def __aenter__(self) -> AsyncIterator[bytes]:
        async for _ in self.send():
            pass
        assert self._response is not None
        self._body = _body(self._response, self._target, self._request.timeout)
        return self._body

    async def __aexit__(self, *exc_info: object) -> None:
        try:
            if self._body is not None:
                await self._body.aclose()
        finally:
            if self._response is not None:
                await self._response.aclose()


def open_stream(
    client: httpx.AsyncClient,
    target: Target,
    payload: Mapping[str, Any] | None,
    *,
    method: str = "POST",
    headers: Mapping[str, str] | None = None,
    timeout: httpx.Timeout | None = None,
    retry: RetryPolicy | None = None,
) -> Exchange:
    """The exchange that sends ``payload`` as JSON to ``target.url`` and gives the body's
    bytes as they arrive.

    Sending raises the typed error for a failed answer (after retries where they apply);
    transport failures while reading the body also leave as ``ProviderError``s.
    """
    request = _Request(method, payload, headers, timeout or timeout_for(10.0, 300.0))
    return Exchange(client, target, request, retry or RetryPolicy())


async def request_json(
    client: httpx.AsyncClient,
    target: Target,
    payload: Mapping[str, Any] | None = None,
    *,
    method: str = "POST",
    headers: Mapping[str, str] | None = None,
    timeout: httpx.Timeout | None = None,
    retry: RetryPolicy | None = None,
    on_retry: Callable[[Retrying], None] | None = None,
) -> Any:
    """The parsed JSON answer to one request, with ``open_stream``'s retries and errors;
    ``on_retry`` hears of each retry before its wait."""
    exchange = open_stream(
        client, target, payload, method=method, headers=headers, timeout=timeout, retry=retry
    )
    async for retrying in exchange.send():
        if on_retry is not None:
            on_retry(retrying)
    async with exchange as body:
        raw = b"".join([chunk async for chunk in body])
    try:
        return bounded_json.loads(raw)
    except ValueError as exc:
        if is_html("", raw[:64].decode("utf-8", "replace")):
            raise not_an_api(target, 200, raw.decode("utf-8", "replace")) from exc
        raise StreamProtocolError(
            f"{target.label}: {redact_url(target.url)} answered with something "
            f"other than JSON: {raw[:200]!r}",
            provider=target.provider,
            model=target.model,
        ) from exc


class HTTPProvider:
    """What every HTTP adapter shares: its settings entry and key, one pooled client, retries."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        api_key: str | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._config = config
        self._api_key = api_key
        self._timeout = timeout_for(config.connect_timeout, config.read_timeout)
        self._owns_client = client is None
        # Set once a request has been sent whole: a session asks its first question, then
        # loads the rest of itself while the server answers.
        self.request_sent = asyncio.Event()
        # Hears of the retries of requests outside a stream (Ollama's probes at start).
        self.on_retry: Callable[[Retrying], None] | None = None
        self._client = client or new_client(config.base_url, self._timeout, self.request_sent.set)
        self._retry = retry or RetryPolicy(max_retries=config.max_retries)

    @property
    def name(self) -> str:
        return self._config.name

    @property
    def type(self) -> str:
        return self._config.type

    def announce_retry(self, event: Retrying) -> None:
        if self.on_retry is not None:
            self.on_retry(event)

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()
