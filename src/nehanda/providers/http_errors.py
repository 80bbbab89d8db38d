"""HTTP failures as typed errors: the server's own words, never a credential.

``status_error`` maps an error answer to the ``nehanda.errors`` class a caller can act
on (a refusal of native tools, a context overflow, bad credentials, a rate limit) by
status and by the phrases servers use; ``transport_error`` says why a connection failed
or went quiet (a refused connection to this machine's own address says the server is
not running, which no retry will change: ``refused_at_loopback``). Messages name the
provider, model and URL (without user info or query) and have every secret from the
request headers masked, in every form a server may echo it in (``nehanda.masking``).
"""

from __future__ import annotations

import html
import ipaddress
import json
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from nehanda.errors import (
    AuthenticationError,
    ContextTooLongError,
    ImagesUnsupportedError,
    ProviderConnectionError,
    ProviderError,
    ProviderStatusError,
    ProviderTimeout,
    RateLimitError,
    ToolsUnsupportedError,
)
from nehanda.masking import SecretMask

MAX_MESSAGE_CHARS = 500

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

IMAGES_UNSUPPORTED_PHRASES: tuple[str, ...] = (
    "does not support image",  # LM Studio: "Model does not support images"
    "image input is not supported",  # llama.cpp server without an mmproj
    "not a multimodal model",  # vLLM
    "does not support vision",
    "images are not supported",
    "image_url is only supported by certain models",  # OpenAI
    "multimodal input is not supported",
    "missing data required for image input",  # Ollama
)
"""Lower-case phrases that mean the model cannot take the images it was sent."""

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
class Target:
    """Where a request goes and on whose behalf, for error messages."""

    url: str
    provider: str
    model: str
    api: str = "OpenAI-compatible"  # the wire API the adapter speaks, for a page that is none

    @property
    def label(self) -> str:
        return f"{self.provider} (model {self.model})" if self.model else self.provider


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
            scheme, _, token = value.partition(" ")
            # The token alone: its masks would take the space before it for part of it.
            known = token and scheme.lower() in ("bearer", "basic", "token")
            found.append(token.strip() if known else value)
    return tuple(s for s in found if len(s) >= 4)


def mask(text: str, secrets: Iterable[str]) -> str:
    return SecretMask(secrets, "***").mask(text)


def error_message(body: str) -> str:
    """The server's own words from an error body, whatever shape it uses; of a body that
    is not JSON, one line only (an error page's title or its first line of text)."""
    try:
        data: Any = json.loads(body)
    except ValueError:
        return _shorten(_first_line(body))
    return _shorten(_message_from(data) or _first_line(body))


_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")


def is_html(content_type: str, body: str) -> bool:
    """The answer is a web page: said so by its type, or it opens as one."""
    head = body.lstrip()[:15].lower()
    return "html" in content_type.lower() or head.startswith(("<!doctype html", "<html"))


def not_an_api(target: Target, status: int, body: str) -> ProviderError:
    """A page where an API was expected: what came back, and where to look."""
    hint = "is base_url right?"
    if target.api == "OpenAI-compatible":
        hint += " it usually ends in /v1"
    title = _first_line(body)
    said = f" ({title})" if title else ""
    return ProviderError(
        f"{target.label}: {redact_url(target.url)} answered HTTP {status} with an HTML "
        f"page{said}, not an {target.api} API: {hint}",
        provider=target.provider,
        model=target.model,
    )


def _first_line(body: str) -> str:
    """An error page's one telling line: its title, else its first line of text."""
    if found := _TITLE.search(body):
        return html.unescape(" ".join(found.group(1).split()))
    text = html.unescape(_TAG.sub(" ", body)) if is_html("", body) else body
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


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
    if is_html("", body) and status in (404, 405):  # a web site's page, not an API's error
        return not_an_api(target, status, body)
    reason = error_message(body) or httpx.codes.get_reason_phrase(status) or "no message"
    where = f"{target.label}: HTTP {status} from {redact_url(target.url)}"
    names = {"provider": target.provider, "model": target.model}
    if _matches(body, TOOLS_UNSUPPORTED_PHRASES):
        return ToolsUnsupportedError(f"{where}: the server refused native tools: {reason}", **names)
    cls: type[ProviderStatusError] = ProviderStatusError
    if _matches(body, IMAGES_UNSUPPORTED_PHRASES):
        cls = ImagesUnsupportedError
    elif status in (401, 403):
        cls, reason = AuthenticationError, f"the server refused the credentials: {reason}"
    elif status in (429, 529):  # 529: Anthropic's "overloaded"
        cls = RateLimitError
    elif _matches(body, CONTEXT_TOO_LONG_PHRASES):
        cls = ContextTooLongError
    return cls(f"{where}: {reason}", status=status, body=body, **names)


def key_hint(api_key_env: str | None) -> str:
    """What to do when a server refused a request sent without a key."""
    if api_key_env:
        return f"set {api_key_env}, or pass --api-key-env NAME naming the variable that holds it"
    return (
        "the server wants a key: put it in an environment variable and pass "
        "--api-key-env NAME for this run, or set api_key_env in this provider's settings"
    )


def transport_error(
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
    if isinstance(exc, httpx.ConnectError) and refused_at_loopback(exc, target.url):
        return ProviderConnectionError(
            f"{target.label}: no server is running at {url} (connection refused); "
            "start it, or fix base_url",
            **names,
        )
    if isinstance(exc, httpx.ConnectError):
        return ProviderConnectionError(
            f"{target.label}: could not connect to {url}: {_connect_reason(exc)}", **names
        )
    detail = str(exc) or type(exc).__name__
    return ProviderConnectionError(f"{target.label}: connection to {url} failed: {detail}", **names)


def refused_at_loopback(exc: BaseException, url: str) -> bool:
    """A connection to this machine itself (127.0.0.0/8, ::1, localhost, 0.0.0.0) was refused:
    nothing listens there, and waiting will not start it."""
    return _refused(exc) and is_loopback(urlsplit(url).hostname or "")


def is_loopback(host: str) -> bool:
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    # 0.0.0.0, the address servers print they listen on, reaches this machine too.
    return address.is_loopback or address.is_unspecified


def _refused(exc: BaseException) -> bool:
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, ConnectionRefusedError):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def host_not_found(exc: BaseException) -> bool:
    """The name did not resolve: no retry will find it."""
    cause: BaseException | None = exc
    while cause is not None:
        if isinstance(cause, socket.gaierror):
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def retry_reason(exc: httpx.TransportError) -> str:
    """Why a connection attempt is retried, in a few words."""
    if isinstance(exc, httpx.ConnectTimeout):
        return "connect timeout"
    return "connection refused" if _refused(exc) else "could not connect"


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
