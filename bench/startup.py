"""Start-up time of ``nehanda --help``, ``--version`` and a ``nehanda run``'s first request.

Run by hand: ``python bench/startup.py [runs]``. The first table prints median and best
wall time per command and the ratio to ``python -c pass`` (target: median under 150 ms).
The second times ``nehanda run`` from process start to the first byte of its first
request (and of its chat request) arriving at a local server that answers as vLLM
does (its window at ``/v1/models``), with no MCP server configured, against the floor
of ``python -c "import httpx, click"``; target: under 2x that floor. Its last row times
the chat request against a server that answers the window question 50 ms late, as one
across a network does: what nehanda loads while it waits is not added to the 50 ms.

Every command runs as an installed nehanda runs for its user: with its bytecode cached.
``PYTHONDONTWRITEBYTECODE`` (set on some machines, this one among them) is left out of
the children's environment and one untimed run of each command writes the caches; an
editable install otherwise compiles nehanda's ~100 modules from source on every start
(about 60 ms), which no installed copy does.
"""

from __future__ import annotations

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 20
# A server across a network answers the window question a round trip later: nehanda loads
# the rest of itself meanwhile, so its chat request should leave less than this later.
REMOTE_DELAY = 0.05

ANSWER = (
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"ok"},'
    b'"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)
MODELS = b'{"object":"list","data":[{"id":"q","object":"model","max_model_len":32768}]}'


CACHED = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def timings(command: list[str]) -> list[float]:
    samples = []
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=CACHED)
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=CACHED)
        samples.append(time.perf_counter() - started)
    return samples


@dataclass
class FirstBytes:
    """A server on 127.0.0.1 that notes when each request's first byte arrives."""

    first: list[float] = field(default_factory=list)  # any request
    chat: list[float] = field(default_factory=list)  # the chat completion itself
    window_delay: float = 0.0  # seconds before the window is answered (a remote server)

    def __post_init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            conn, _ = self.sock.accept()
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            data = conn.recv(65536)
            arrived = time.perf_counter()
            self.first.append(arrived)
            while b"\r\n\r\n" not in data:
                data += conn.recv(65536)
            head, _, body = data.partition(b"\r\n\r\n")
            length = _content_length(head)
            while len(body) < length:
                body += conn.recv(65536)
            if head.startswith(b"POST"):
                self.chat.append(arrived)
                status, kind, reply = b"200 OK", b"text/event-stream", ANSWER
            elif head.startswith(b"GET /v1/models "):  # as vLLM says its window
                status, kind, reply = b"200 OK", b"application/json", MODELS
                time.sleep(self.window_delay)
            else:
                status, kind, reply = b"404 Not Found", b"text/plain", b"not found"
            conn.sendall(
                b"HTTP/1.1 " + status + b"\r\nContent-Type: " + kind
                + b"\r\nConnection: close\r\nContent-Length: "
                + str(len(reply)).encode() + b"\r\n\r\n" + reply
            )  # fmt: skip


def _content_length(head: bytes) -> int:
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def first_request(nehanda: str, window_delay: float = 0.0) -> tuple[list[float], list[float]]:
    """Seconds from spawning ``nehanda run`` to its first request byte, and to its chat's,
    against a server answering the window after ``window_delay`` seconds."""
    server = FirstBytes(window_delay=window_delay)
    home = tempfile.mkdtemp(prefix="nehanda-bench-")
    env = {
        **CACHED,
        "HOME": home,
        "XDG_CONFIG_HOME": f"{home}/config",
        "XDG_STATE_HOME": f"{home}/state",
        "XDG_CACHE_HOME": f"{home}/cache",
    }
    url = f"http://127.0.0.1:{server.port}/v1"
    command = [nehanda, "run", "hi", "--provider", "vllm", "--base-url", url, "--model", "q"]
    first, chat = [], []
    subprocess.run(command, check=True, cwd=home, env=env, stdout=subprocess.DEVNULL)
    for _ in range(RUNS):
        server.first.clear()
        server.chat.clear()
        started = time.perf_counter()
        subprocess.run(command, check=True, cwd=home, env=env, stdout=subprocess.DEVNULL)
        first.append(server.first[0] - started)
        chat.append(server.chat[0] - started)
    shutil.rmtree(home, ignore_errors=True)
    return first, chat


def table(results: dict[str, list[float]], base_name: str, label: str) -> None:
    """Median and best of each, and the median's ratio to ``base_name``'s (``x label``)."""
    base = statistics.median(results[base_name])
    print(f"{'command':40} {'median ms':>10} {'best ms':>8} {'x ' + label:>8}")
    for name, samples in results.items():
        median = statistics.median(samples)
        print(f"{name:40} {median * 1000:10.1f} {min(samples) * 1000:8.1f} {median / base:8.2f}")


def main() -> None:
    nehanda = shutil.which("nehanda") or sys.exit("nehanda is not on PATH: pip install -e .")
    commands = {
        "python -c pass": [sys.executable, "-c", "pass"],
        "nehanda --help": [nehanda, "--help"],
        "nehanda --version": [nehanda, "--version"],
        "python -m nehanda --help": [sys.executable, "-m", "nehanda", "--help"],
    }
    table({name: timings(command) for name, command in commands.items()}, "python -c pass", "bare")
    print()
    floor = timings([sys.executable, "-c", "import httpx, click"])
    first, chat = first_request(nehanda)
    _, remote_chat = first_request(nehanda, window_delay=REMOTE_DELAY)
    table(
        {
            "floor: python -c 'import httpx, click'": floor,
            "nehanda run: first request byte": first,
            "nehanda run: first chat request byte": chat,
            f"  the window answered after {REMOTE_DELAY * 1000:.0f} ms": remote_chat,
        },
        "floor: python -c 'import httpx, click'",
        "floor",
    )
    best = min(first) / min(floor)
    print(f"\nbest first request / best floor: {best:.2f}x (target under 2x)")


if __name__ == "__main__":
    main()
