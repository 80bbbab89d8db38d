"""HTTP plumbing every adapter shares: timeouts, retries, and where failures become errors.

``open_stream`` sends a request (a JSON body POSTed, or a GET) and hands back the
response body as an async iterator of bytes; ``request_json`` reads a whole JSON answer
the same way. Before the first byte of a successful body it retries what is worth
retrying (429, 529 and other 5xx, a refused connection) with bounded, jittered
exponential backoff that honours ``Retry-After``, and obeys a server's
``x-should-retry`` header either way; once the body has started nothing is retried,
because the caller may already have shown or acted on part of it. Every failure
leaves as a ``ProviderError`` subclass built by ``http_errors``, which names the
provider, the model and the URL, carries the server's own words, and never carries
a credential.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import time
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from contextlib import asynccontextmanager
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
from nehanda.providers.http_errors import (
    Target,
    redact_url,
    secrets_in,
    status_error,
    transport_error,
)

MAX_ERROR_BODY_BYTES = 64 * 1024


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


@asynccontextmanager
async def open_stream(
    client: httpx.AsyncClient,
    target: Target,
    payload: Mapping[str, Any] | None,
    *,
    method: str = "POST",
    headers: Mapping[str, str] | None = None,
    timeout: httpx.Timeout | None = None,
    retry: RetryPolicy | None = None,
) -> AsyncIterator[AsyncIterator[bytes]]:
    """Send ``payload`` as JSON to ``target.url``; yield the body's bytes as they arrive.

    Raises the typed error for a failed answer (after retries where they apply);
    transport failures while reading the body also leave as ``ProviderError``s.
    """
    retry = retry or RetryPolicy()
    timeout = timeout or timeout_for(10.0, 300.0)
    secrets = secrets_in(headers)
    request = _Request(method, payload, headers, timeout)
    response = await _send_with_retries(client, target, request, retry, secrets)
    body = _body(response, target, timeout)
    try:
        yield body
    finally:
        await body.aclose()
        await response.aclose()


async def request_json(
    client: httpx.AsyncClient,
    target: Target,
    payload: Mapping[str, Any] | None = None,
    *,
    method: str = "POST",
    headers: Mapping[str, str] | None = None,
    timeout: httpx.Timeout | None = None,
    retry: RetryPolicy | None = None,
) -> Any:
    """The parsed JSON answer to one request, with ``open_stream``'s retries and errors."""
    async with open_stream(
        client, target, payload, method=method, headers=headers, timeout=timeout, retry=retry
    ) as body:
        raw = b"".join([chunk async for chunk in body])
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise StreamProtocolError(
            f"{target.label}: {redact_url(target.url)} answered with something "
            f"other than JSON: {raw[:200]!r}",
            provider=target.provider,
            model=target.model,
        ) from exc


async def _send_with_retries(
    client: httpx.AsyncClient,
    target: Target,
    spec: _Request,
    retry: RetryPolicy,
    secrets: tuple[str, ...],
) -> httpx.Response:
    attempt, timeout = 0, spec.timeout
    while True:
        request = client.build_request(
            spec.method, target.url, json=spec.payload, headers=spec.headers, timeout=timeout
        )
        try:
            response = await client.send(request, stream=True)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            if attempt >= retry.max_retries:
                raise transport_error(exc, target, timeout) from exc
            await asyncio.sleep(retry.delay(attempt))
            attempt += 1
            continue
        except httpx.TransportError as exc:
            raise transport_error(exc, target, timeout) from exc
        if response.is_success:
            return response
        try:
            body = await _read_capped(response)
        except httpx.TransportError as exc:
            raise transport_error(exc, target, timeout) from exc
        finally:
            await response.aclose()
        error = status_error(response.status_code, body, target, secrets=secrets)
        if attempt >= retry.max_retries or not _is_retryable(response, error):
            raise error
        wait = parse_retry_after(response.headers.get("retry-after"))
        await asyncio.sleep(retry.delay(attempt, wait))
        attempt += 1


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
        self._client = client or httpx.AsyncClient(timeout=self._timeout)
        self._retry = retry or RetryPolicy(max_retries=config.max_retries)

    @property
    def name(self) -> str:
        return self._config.name

    @property
    def type(self) -> str:
        return self._config.type

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()
