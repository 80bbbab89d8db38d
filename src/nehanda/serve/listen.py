"""The socket ``nehanda serve`` listens on, bound before anything starts, and what its
start says: a bind that fails is one line naming the address and what to do (uvicorn
would log the error and exit 3), and the start names the variables that point a client
at the server."""

from __future__ import annotations

import errno
import socket

from nehanda.errors import ConfigError

_ANY = {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}


def bind(host: str, port: int) -> socket.socket:
    """A TCP socket listening on ``host``:``port`` (bound uvicorn's own way: IPv6 for an
    address with a colon, ``SO_REUSEADDR``, inheritable by the workers); ``ConfigError``
    saying what to do when the address cannot be had."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        raise ConfigError(bind_problem(host, port, error.errno)) from error
    # Listening from here on, connections wait in the backlog until uvicorn takes them:
    # a client started on the start line is never refused.
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def bind_problem(host: str, port: int, code: int | None) -> str:
    """The one line for a bind that failed with ``code`` (an errno)."""
    where = f"{host} port {port}"
    if code == errno.EADDRINUSE:
        return (
            f"{where} is in use (another nehanda serve, or another server): stop it, or "
            "listen elsewhere with --port N (--port 0 takes a free one)"
        )
    if code == errno.EACCES:
        return f"{where} needs privileges this user lacks: use a port above 1023 (--port 8765)"
    if code in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
        return (
            f"cannot listen on {host}: no interface of this machine has that address; "
            "use --host 127.0.0.1, or 0.0.0.0 for every interface"
        )
    return f"cannot listen on {where} ({errno.errorcode.get(code or 0, code)})"


def client_url(host: str, port: int) -> str:
    """Where a client on this machine reaches a server listening on ``host``."""
    reached = _ANY.get(host, host)
    return f"http://[{reached}]:{port}" if ":" in reached else f"http://{reached}:{port}"


def client_hint(host: str, port: int, token_env: str | None) -> str:
    """The line saying how to point the OpenAI and Anthropic clients (Codex, Claude Code,
    the SDKs) at the server."""
    url = client_url(host, port)
    hint = f"point a client at it: OPENAI_BASE_URL={url}/v1 or ANTHROPIC_BASE_URL={url}"
    if token_env:
        hint += f", with the token in ${token_env} as OPENAI_API_KEY or ANTHROPIC_API_KEY"
    return hint
