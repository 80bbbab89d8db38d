"""``LocalHTTP``: a threaded HTTP server on 127.0.0.1 for the tests' upstreams (the
scripted server, the stripping proxy, the paced and the picky upstreams), serving in a
daemon thread; each names the attribute under which its handler class reaches it."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class LocalHTTP:
    def serve(
        self, handler: type[BaseHTTPRequestHandler], owner: str, *, quiet: bool = False
    ) -> None:
        """Starts serving ``handler``, whose class gets this object as ``owner``; a
        ``quiet`` server prints nothing for a client that hung up mid-request."""
        bound = type("Handler", (handler,), {owner: self})
        self._httpd = (_QuietServer if quiet else _Server)(("127.0.0.1", 0), bound)
        threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True).start()

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def base_url(self) -> str:
        return self.root_url + "/v1"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # many clients at once (nehanda serve's concurrency tests)
    daemon_threads = True


class _QuietServer(_Server):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that timed out and hung up is what some tests want
