"""An emulation of the Nehanda Cloud deployment: a proxy on 127.0.0.1 that, like
nehandaMlProxy, strips ``tools`` and ``tool_choice`` from each request before
forwarding it to the model server, and relays the streamed answer unchanged.
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx

from local_http import LocalHTTP


class StrippingProxy(LocalHTTP):
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.received: list[dict[str, Any]] = []
        self.serve(_Handler, "proxy")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    proxy: StrippingProxy

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        self.proxy.received.append(body)
        stripped = {k: v for k, v in body.items() if k not in ("tools", "tool_choice")}
        path = self.path.removeprefix("/v1")
        with httpx.stream("POST", self.proxy.upstream + path, json=stripped, timeout=30) as answer:
            self.send_response(answer.status_code)
            self.send_header("Content-Type", answer.headers.get("content-type", "text/plain"))
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in answer.iter_raw():
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
