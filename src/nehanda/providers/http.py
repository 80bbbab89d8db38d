"""HTTP plumbing every adapter shares: timeouts, retries, and HTTP failures as errors.

``open_stream`` sends a request (a JSON body POSTed, or a GET) and hands back the
response body as an async iterator of bytes; ``request_json`` reads a whole JSON answer
the same way. Before the first byte of a successful body it retries what is worth
retrying (429, 529 and other 5xx, a refused connection) with bounded, jittered
exponential backoff that honours ``Retry-After``, and obeys a server's
``x-should-retry`` header either way; once the body has started nothing is retried,
because the caller may already have shown or acted on part of it. Every failure
leaves as a ``ProviderError`` subclass (see ``nehanda.errors``) that names the
provider, the model and the URL, carries the server's own words, and never carries
a credential: secrets found in the request headers are masked in every message.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import socket
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from nehanda.errors import (
    AuthenticationError,
    ContextTooLongError,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    ProviderTimeout,
    RateLimitError,
    StreamProtocolError,
    ToolsUnsupportedError,
)
from nehanda.settings import ProviderConfig

MAX_MESSAGE_CHARS = 500
MAX_ERROR_BODY_BYTES = 64 * 1024

TOOLS_UNSUPPORTED_PHRASES: tuple[str, ...] = (
    "does not support tools",  # Ollama: "registry.ollama.ai/library/x does not support tools"
    "does not support tool",  # "... does not support tool use / tool calling"
    '"auto" tool choice requires',  # vLLM without --enable-auto-tool-choice
    "--enable-auto-tool-choice",
    "tools param requires --jinja",  # llama.cpp server without --jinja (HTTP 500)
    "cannot use tools with stream",  # older llama.cpp server
    "no endpoints found that support tool use",  # OpenRouter
    "tool calling is not supported",
    "tool use is not supported",
    "tools are not supported",
    "tools is not supported",
    "function calling is not supported",
    "does not support function calling",
)
"""Lower-case phrases that mean the server or model refuses native tools."""

CONTEXT_TOO_LONG_PHRASES: tuple[str, ...] = (
    "maximum context length",  # OpenAI, vLLM
    "context_length_exceeded",  # OpenAI error code
    "exceeds the available context size",  # llama.cpp server
    "exceed_context_size",  # llama.cpp error type
    "context window",
    "prompt is too long",  # Anthropic
    "input is too long",
    "too many tokens",
)
"""Lower-case phrases that mean the request does not fit the model's context."""

_SECRET_HEADERS = frozenset({"authorization", "x-api-key", "api-key", "proxy-authorization"})


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


@dataclass(frozen=True)
class Target:
    """Where a request goes and on whose behalf, for error messages."""

    url: str
    provider: str
    model: str

    @property
    def label(self) -> str:
        return f"{self.provider} (model {self.model})" if self.model else self.provider


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


def redact_url(url: str) -> str:
    """The URL without user info or query string, which may hold credentials."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def secrets_in(headers: Mapping[str, str] | None) -> tuple[str, ...]:
    """Credential values carried by the request headers, to mask in messages."""
    found: list[str] = []
    for key, value in (headers or {}).items():
        if key.lower() in _SECRET_HEADERS and value:
            found.append(value)
            scheme, _, token = value.partition(" ")
            if token and scheme.lower() in ("bearer", "basic", "token"):
                found.append(token.strip())
    return tuple(s for s in found if len(s) >= 4)


def mask(text: str, secrets: Iterable[str]) -> str:
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def error_message(body: str) -> str:
    """The server's own words from an error body, whatever shape it uses."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return _shorten(body)
    return _shorten(_message_from(data) or body)


def _message_from(data: Any) -> str | None:
    if isinstance(data, str):
        return data
    if isinstance(data, list) and data:  # FastAPI validation: [{"msg": ...}, ...]
        return "; ".join(filter(None, (_message_from(item) for item in data))) or None
    if not isinstance(data, dict):
        return None
    for key in ("error", "detail", "message", "msg"):
        value = data.get(key)
        if value:
            found = _message_from(value)
            if found:
                return found
    return None


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - 1] + "…"


def _matches(text: str, phrases: Iterable[str]) -> bool:
    lowered = text.lower()
    return any(phrase in lowered for phrase in phrases)


def status_error(
    status: int, body: str, target: Target, *, secrets: Iterable[str] = ()
) -> ProviderError:
    """The typed error for an HTTP error answer, with the server's message."""
    secrets = tuple(secrets)
    body = mask(body, secrets)
    reason = error_message(body) or httpx.codes.get_reason_phrase(status) or "no message"
    where = f"{target.label}: HTTP {status} from {redact_url(target.url)}"
    names = {"provider": target.provider, "model": target.model}
    if _matches(body, TOOLS_UNSUPPORTED_PHRASES):
        return ToolsUnsupportedError(f"{where}: the server refused native tools: {reason}", **names)
    cls: type[ProviderStatusError] = ProviderStatusError
    if status in (401, 403):
        cls, reason = AuthenticationError, f"the server refused the credentials: {reason}"
    elif status in (429, 529):  # 529: Anthropic's "overloaded"
        cls = RateLimitError
    elif _matches(body, CONTEXT_TOO_LONG_PHRASES):
        cls = ContextTooLongError
    return cls(f"{where}: {reason}", status=status, body=body, **names)


def _is_retryable(response: httpx.Response, error: ProviderError) -> bool:
    should_retry: str = response.headers.get("x-should-retry", "").strip().lower()
    if should_retry in ("true", "false"):
        return should_retry == "true"
    status = response.status_code
    return (status == 429 or status >= 500) and type(error) in (ProviderStatusError, RateLimitError)


def _transport_error(
    exc: httpx.TransportError, target: Target, timeout: httpx.Timeout
) -> ProviderError:
    url, names = redact_url(target.url), {"provider": target.provider, "model": target.model}
    if isinstance(exc, httpx.ConnectTimeout):
        return ProviderTimeout(
            f"{target.label}: no connection to {url} within {timeout.connect}s (connect timeout)",
            **names,
        )
    if isinstance(exc, httpx.ReadTimeout):
        return ProviderTimeout(
            f"{target.label}: {url} sent nothing for {timeout.read}s (read timeout)", **names
        )
    if isinstance(exc, httpx.TimeoutException):
        return ProviderTimeout(f"{target.label}: timed out talking to {url}: {exc}", **names)
    if isinstance(exc, httpx.ConnectError):
        return ProviderConnectionError(
            f"{target.label}: could not connect to {url}: {_connect_reason(exc)}", **names
        )
    detail = str(exc) or type(exc).__name__
    return ProviderConnectionError(f"{target.label}: connection to {url} failed: {detail}", **names)


def _connect_reason(exc: BaseException) -> str:
    """The most telling cause in the chain: httpx itself says "All connection attempts failed"."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return "connection refused (is the server running on that port?)"
        if isinstance(cause, socket.gaierror):
            return f"host not found ({cause.strerror})"
        cause = cause.__cause__ or cause.__context__
    return str(exc) or type(exc).__name__


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
        raise _transport_error(exc, target, timeout) from exc
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
                raise _transport_error(exc, target, timeout) from exc
            await asyncio.sleep(retry.delay(attempt))
            attempt += 1
            continue
        except httpx.TransportError as exc:
            raise _transport_error(exc, target, timeout) from exc
        if response.is_success:
            return response
        try:
            body = await _read_capped(response)
        except httpx.TransportError as exc:
            raise _transport_error(exc, target, timeout) from exc
        finally:
            await response.aclose()
        error = status_error(response.status_code, body, target, secrets=secrets)
        if attempt >= retry.max_retries or not _is_retryable(response, error):
            raise error
        wait = parse_retry_after(response.headers.get("retry-after"))
        await asyncio.sleep(retry.delay(attempt, wait))
        attempt += 1


class HTTPProvider:
    """What every HTTP adapter shares: its settings entry, one pooled client, retries."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._config = config
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
