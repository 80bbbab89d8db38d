"""What a web page could make serve do, refused before any route runs.

A browser sends a cross-site ``POST`` with ``Content-Type: text/plain`` without asking
first (no CORS preflight), and a page whose name resolves to 127.0.0.1 (DNS rebinding) is
of the same origin as serve: either could spend the user's upstream key. So:

- a request must not come from a web page (it carries an ``Origin``) unless
  ``[serve] cors_origins`` lists that origin: serve offers no page of its own, and the
  clients it serves send none;
- on a loopback bind its ``Host`` (without the port) must be a loopback address,
  ``localhost`` or a name in ``[serve] allowed_hosts`` (on any other bind the token is
  the guard, which ``check_bind`` requires);
- a ``POST`` must carry ``application/json`` (with or without a ``charset``), what every
  client sends and what a page may send across sites only after a preflight;
- only a listed origin's preflight (``OPTIONS``) is answered, and only a listed origin's
  answers carry ``Access-Control-Allow-Origin``; without ``cors_origins`` serve sends no
  CORS header at all.

``refusal`` decides (pure); ``BrowserGuard`` is the ASGI middleware that applies it.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import Response

from nehanda.serve.config import ServeConfig, is_loopback
from nehanda.serve.errors import Failure

_SHOWN = 100  # of a header quoted in a refusal


@dataclass(frozen=True)
class Policy:
    check_host: bool
    allowed_hosts: frozenset[str]
    cors_origins: frozenset[str]

    @classmethod
    def of(cls, config: ServeConfig) -> Policy:
        return cls(
            is_loopback(config.host),
            frozenset(name.lower().rstrip(".") for name in config.allowed_hosts),
            frozenset(origin.lower().rstrip("/") for origin in config.cors_origins),
        )


def host_name(header: str) -> str:
    """The host a ``Host`` header names, without its port, lower-case (``[::1]:8080``
    is ``::1``)."""
    header = header.strip().lower()
    if header.startswith("["):
        end = header.find("]")
        return header[1:end] if end > 0 and header[end + 1 :][:1] in ("", ":") else header
    name, colon, port = header.rpartition(":")
    if colon and port.isdigit() and ":" not in name:
        header = name
    return header.rstrip(".") or header


def is_local_name(name: str, allowed: frozenset[str]) -> bool:
    if name == "localhost" or name in allowed:
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def is_json(content_type: str | None) -> bool:
    return (content_type or "").split(";", 1)[0].strip().lower() == "application/json"


def refusal(method: str, headers: Mapping[str, str], policy: Policy) -> Failure | None:
    """Why serve does not answer this request, or ``None`` when it may go on."""
    host = headers.get("host")
    # A request without a Host (HTTP/1.0) comes from no browser: a page cannot drop it.
    if (
        policy.check_host
        and host is not None
        and not is_local_name(host_name(host), policy.allowed_hosts)
    ):
        return Failure(
            403,
            "permission_error",
            f"Host {host[:_SHOWN]!r} is not this machine: serve on a loopback address "
            "answers only localhost, loopback addresses and the names in [serve] "
            "allowed_hosts (a web page could otherwise reach it through its own name)",
        )
    origin = headers.get("origin")
    if origin is not None and not _listed(origin, policy):
        return Failure(
            403,
            "permission_error",
            f"requests from web pages are refused, and this one came from {origin[:_SHOWN]!r}: "
            "to let that page call serve, add its origin to [serve] cors_origins",
        )
    if method == "OPTIONS" and origin is None:
        return Failure(
            405,
            "invalid_request_error",
            "OPTIONS is answered only to a browser's preflight from an origin in "
            "[serve] cors_origins",
        )
    if method == "POST" and not is_json(headers.get("content-type")):
        sent = headers.get("content-type")
        said = f"not {sent[:_SHOWN]!r}" if sent else "and this request named none"
        return Failure(
            415,
            "invalid_request_error",
            f"the request body must be sent as Content-Type: application/json, {said}",
        )
    return None


def preflight(headers: Mapping[str, str]) -> Response:
    """The answer to a listed origin's ``OPTIONS``: what it may send, for ten minutes."""
    allow = {
        "Access-Control-Allow-Origin": headers["origin"],
        "Access-Control-Allow-Methods": "GET, POST",
        "Access-Control-Max-Age": "600",
        "Vary": "Origin",
    }
    asked = headers.get("access-control-request-headers")
    if asked:
        allow["Access-Control-Allow-Headers"] = asked
    return Response(status_code=204, headers=allow)


def _listed(origin: str, allowed: Policy) -> bool:
    return origin.lower().rstrip("/") in allowed.cors_origins


_ASGI = Callable[[Any, Any, Any], Awaitable[None]]


class BrowserGuard:
    """ASGI middleware: ``refusal`` answered with ``error`` (by path, in the shape of
    that path's protocol), a listed origin's preflight answered, its answers marked."""

    def __init__(
        self, app: _ASGI, policy: Policy, error: Callable[[str, Failure], Response]
    ) -> None:
        self.app = app
        self.policy = policy
        self.error = error

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        failure = refusal(scope["method"], headers, self.policy)
        if failure is not None:
            await self.error(scope["path"], failure)(scope, receive, send)
            return
        origin = headers.get("origin")
        if origin is None:
            await self.app(scope, receive, send)
        elif scope["method"] == "OPTIONS":
            await preflight(headers)(scope, receive, send)
        else:
            await self.app(scope, receive, _marked(send, origin))


def _marked(send: Any, origin: str) -> Callable[[Any], Awaitable[None]]:
    async def marked(message: Any) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers["Access-Control-Allow-Origin"] = origin
            headers.add_vary_header("Origin")
        await send(message)

    return marked
