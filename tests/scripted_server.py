"""A scripted HTTP server on 127.0.0.1 that replays recorded protocol bytes.

The server answers each request with the next scripted ``Reply``: real status lines,
headers and chunked bodies written to a real socket, optionally in awkward pieces,
after a stall, or cut off without the closing chunk. A ``route`` answers every
request for one method and path with the same reply instead (Ollama's ``/api/tags``,
say); a ``responder`` may pick the reply for a POST from what it asks (a scripted
model answering an exam's prompts, a conversation compaction makes longer). It records
every request it answers, GETs included; a GET without a route is answered 404 and
recorded apart, in ``unrouted``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

from local_http import LocalHTTP
from waiting import GUARD

STREAMS = Path(__file__).parent / "fixtures" / "streams"


def fixture_body(name: str) -> bytes:
    """A recorded body; ``.json`` and ``.ndjson`` files lose their first line, which
    describes them (SSE keeps it: a line starting with ``:`` is an SSE comment)."""
    raw = (STREAMS / name).read_bytes()
    if name.endswith((".json", ".ndjson")):
        assert raw.startswith(b": "), f"{name} must open with a comment naming the behaviour"
        body = raw.split(b"\n", 1)[1]
        return body.strip() if name.endswith(".json") else body
    assert raw.startswith(b": "), f"{name} must open with a comment naming the behaviour"
    return raw


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    piece: int | None = None  # write the body in pieces of this many bytes
    stall_before: float = 0.0  # sleep before the status line
    stall_after: int | None = None  # sleep this many bytes into the body...
    stall_for: float = 0.0  # ...for this long
    cut: bool = False  # close the socket without the closing chunk
    # The stall (at stall_after, else before the status line) lasts until this is set,
    # whatever the stall's time: a client that must act during it gets all it needs.
    held: threading.Event | None = None


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: Any
    method: str = "POST"


class ScriptedServer(LocalHTTP):
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.routes: dict[tuple[str, str], Reply] = {}
        self.requests: list[Received] = []
        self.unrouted: list[Received] = []  # GETs without a route, answered 404
        self._arrived = threading.Condition()
        # What a held reply waits for: set by its test, and at the latest by close().
        self.released = threading.Event()
        # Answers a POST from what it carries, for conversations whose length the client
        # decides (compaction); consulted before the queue, which it may leave alone.
        self.responder: Callable[[Received], Reply | None] | None = None
        self.serve(_Handler, "script", quiet=True)

    def route(self, method: str, path: str, reply: Reply) -> ScriptedServer:
        self.routes[(method, path)] = reply
        return self

    def report_window(self, window: int = 32768, *models: str) -> ScriptedServer:
        """``GET /v1/models`` names each model (``q`` by default) with its window, as vLLM
        does; a window nothing reports is taken as 8k, where only the core tools are
        offered."""
        data = [
            {"id": name, "object": "model", "max_model_len": window} for name in models or ("q",)
        ]
        body = json.dumps({"object": "list", "data": data}).encode()
        return self.route(
            "GET", "/v1/models", Reply(200, body, {"Content-Type": "application/json"})
        )

    def json(self, body: Any, status: int = 200) -> ScriptedServer:
        """Queues one whole JSON answer (a fixture name, or a value to encode)."""
        raw = fixture_body(body) if isinstance(body, str) else json.dumps(body).encode()
        return self.reply(Reply(status, raw, {"Content-Type": "application/json"}))

    def received(self, path: str) -> list[Received]:
        return [request for request in self.requests if request.path == path]

    def wait_for(self, path: str, count: int = 1) -> list[Received]:
        """The requests for ``path`` once there are ``count``, however long they take
        (up to ``waiting.GUARD``, which only a hung client needs)."""
        with self._arrived:
            came = self._arrived.wait_for(lambda: len(self.received(path)) >= count, GUARD)
        assert came, f"{len(self.received(path))} of {count} requests for {path} came"
        return self.received(path)

    def close(self) -> None:
        self.released.set()
        super().close()

    def reply(self, *replies: Reply) -> ScriptedServer:
        self.replies.extend(replies)
        return self

    def stream(
        self, name_or_body: str | bytes, content_type: str = "text/event-stream", **options: Any
    ) -> ScriptedServer:
        body = fixture_body(name_or_body) if isinstance(name_or_body, str) else name_or_body
        headers = {"Content-Type": content_type}
        return self.reply(Reply(200, body, headers, **options))

    def error(self, status: int, name_or_text: str, **headers: str) -> ScriptedServer:
        if name_or_text.endswith(".json"):
            body, kind = fixture_body(name_or_text), "application/json"
        else:
            body, kind = name_or_text.encode(), "text/html"
        return self.reply(Reply(status, body, {"Content-Type": kind, **headers}))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Each piece goes out when written: with Nagle's algorithm, a small write waiting
    # for the client's delayed ACK costs some 40 ms a request.
    disable_nagle_algorithm = True
    script: ScriptedServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self._answer("GET", None)

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer("POST", json.loads(raw))

    def _answer(self, method: str, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items()}
        received = Received(self.path, headers, body, method)
        reply = self.script.routes.get((method, self.path))
        if reply is None and method == "GET":
            # Metadata a client asks for unprompted (a model's window) must neither take
            # the replies scripted for its chat requests nor count among the requests.
            self.script.unrouted.append(received)
            self._send_plain(404, b"404 page not found")
            return
        with self.script._arrived:
            self.script.requests.append(received)
            self.script._arrived.notify_all()
        if reply is None and self.script.responder is not None:
            reply = self.script.responder(received)
        if reply is None and self.script.replies:
            reply = self.script.replies.pop(0)
        if reply is None:
            self._send_plain(418, b"no reply scripted")
            return
        if reply.held is None or reply.stall_after is None:
            _stall(reply, reply.stall_before)
        if reply.status != 200:
            self._send_plain(reply.status, reply.body, reply.headers)
            return
        self.send_response(200)
        for key, value in reply.headers.items():
            self.send_header(key, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self._send_chunked(reply)

    def _send_plain(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _send_chunked(self, reply: Reply) -> None:
        size = reply.piece or len(reply.body) or 1
        sent = 0
        for start in range(0, len(reply.body), size):
            piece = reply.body[start : start + size]
            if reply.stall_after is not None and sent <= reply.stall_after < sent + len(piece):
                _stall(reply, reply.stall_for)
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
            sent += len(piece)
        if reply.cut:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")


def _stall(reply: Reply, seconds: float) -> None:
    if reply.held is not None:
        reply.held.wait(GUARD)  # released by the test, or let go when it has failed
    else:
        time.sleep(seconds)
