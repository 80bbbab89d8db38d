"""An OpenAI-compatible upstream on 127.0.0.1 that streams at a set pace.

Each answer is ``chunks`` content deltas, one every ``1 / rate`` seconds, then a
finish chunk and ``[DONE]``; each delta's content is the ``time.perf_counter()`` at
which it was written (then a space), so a client, even one reading through ``nehanda
serve``, can measure what lies between. It counts the
deltas written, the most streams open at once, and each stream a client hung up on:
the serve tests use it to see a disconnect reach the upstream and a bound on
concurrency hold, ``bench/serve.py`` to pace streams. With a ``gate``, every stream
waits after its first chunk until the gate is set: streams held open, counted, not timed.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from local_http import LocalHTTP


class PacedUpstream(LocalHTTP):
    def __init__(
        self, *, chunks: int = 50, rate: float = 50.0, gate: threading.Event | None = None
    ) -> None:
        self.chunks = chunks
        self.rate = rate
        self.gate = gate
        self.sent = 0
        self.hung_up = 0
        self.streaming = self.most_at_once = 0
        self.lock = threading.Lock()
        self.serve(_Handler, "upstream")


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "chatcmpl-paced", "object": "chat.completion.chunk", "choices": [choice]}
    data = b"data: " + json.dumps(body).encode() + b"\n\n"
    return b"%x\r\n%s\r\n" % (len(data), data)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # each chunk leaves when written, as a server's would
    upstream: PacedUpstream

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        body = json.dumps({"object": "list", "data": [{"id": "paced"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        up = self.upstream
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        start = time.perf_counter()
        with up.lock:
            up.streaming += 1
            up.most_at_once = max(up.most_at_once, up.streaming)
        try:
            self.wfile.write(_chunk({"role": "assistant", "content": ""}))
            self.wfile.flush()
            if up.gate is not None:
                up.gate.wait(60)
                start = time.perf_counter()
            for number in range(up.chunks):
                wait = start + (number + 1) / up.rate - time.perf_counter()
                if wait > 0:
                    time.sleep(wait)
                self.wfile.write(_chunk({"content": f"{time.perf_counter():.6f} "}))
                self.wfile.flush()
                with up.lock:
                    up.sent += 1
            usage = b'data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":%d}}\n\n'
            tail = _chunk({}, "stop")
            tail += b"%x\r\n%s\r\n" % (len(usage % up.chunks), usage % up.chunks)
            tail += b"%x\r\n%s\r\n" % (len(b"data: [DONE]\n\n"), b"data: [DONE]\n\n")
            self.wfile.write(tail + b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            with up.lock:
                up.hung_up += 1
        finally:
            with up.lock:
                up.streaming -= 1
