"""``nehanda serve --log-requests``: one line on stderr per request, as it ends.

The line holds the method, the path (never the query string, which may carry a key),
the status and the milliseconds it took (to the last byte of a stream); never a header
or a body. The path is the client's and may be anything: it is escaped and cut short,
and the whole line goes through the serve's secret mask.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

MAX_PATH = 200


def log_line(method: str, path: str, status: int, milliseconds: float) -> str:
    """``POST /v1/chat/completions 200 412 ms``; pure."""
    return (
        f"nehanda serve: {_escaped(method, 16)} {_escaped(path, MAX_PATH)} {status} "
        f"{milliseconds:.0f} ms"
    )


def _escaped(text: str, width: int) -> str:
    shown = text.encode("unicode_escape").decode("ascii")
    return shown if len(shown) <= width else shown[: width - 1] + "…"


class RequestLog:
    """ASGI middleware writing ``log_line`` for each HTTP request to stderr, masked."""

    def __init__(self, app: ASGIApp, mask: Callable[[str], str]) -> None:
        self.app = app
        self.mask = mask

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.monotonic()
        # A request that ends before any answer (the client went away) is logged as 499,
        # as nginx names it; one the app failed on as 500.
        status = 499

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            status = 500 if status == 499 else status
            raise
        finally:
            took = (time.monotonic() - began) * 1000
            line = log_line(scope["method"], scope["path"], status, took)
            sys.stderr.write(self.mask(line) + "\n")
            sys.stderr.flush()
