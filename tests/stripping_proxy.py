"""An emulation of the Nehanda Cloud deployment: a proxy on 127.0.0.1 that, like
nehandaMlProxy, strips ``tools`` and ``tool_choice`` from each request before
forwarding it to the model server, and relays the streamed answer unchanged.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


class StrippingProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.received: list[dict[str, Any]] = []
        handler = type("Handler", (_Handler,), {"proxy": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # many clients at once (nehanda serve's concurrency test)


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
